"""Word-list files: one word per line, with or without diacritics, folded and hashed."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dictionary import dictionary_sha256
from pipelines.lexicons.wordlists import WordListError, parse_word_list, read_word_list

FEDERATION = Path(__file__).parents[1] / "data" / "lexicon" / "federation.txt"


def test_diacritics_both_cedilla_and_comma_fold_to_the_same_word():
    words = read_word_list(FEDERATION)
    assert words.words == ("AL", "ALE", "SAH", "TARA", "VARA", "ZI")
    assert words.sha256 == dictionary_sha256(words.words)


def test_byte_order_mark_crlf_and_decomposed_diacritics_are_accepted():
    text = "\ufeffvară\r\nța\u0306ra\u0306\r\n"
    assert parse_word_list(text).words == ("TARA", "VARA")


def test_line_that_is_not_a_word_is_an_error_naming_file_and_line():
    with pytest.raises(WordListError, match=r"loc\.txt, line 3: 'două cuvinte'"):
        parse_word_list("# header\nvară\ndouă cuvinte\n", "loc.txt")


def test_letters_outside_romanian_folding_are_refused():
    for line in ("straße", "naïve", "ﬁr"):
        with pytest.raises(WordListError):
            parse_word_list(line)


def test_list_without_words_is_an_error():
    with pytest.raises(WordListError, match="no words"):
        parse_word_list("# only a comment\n\n", "empty.txt")


def test_file_not_in_utf8_names_the_line_and_how_to_convert(tmp_path):
    path = tmp_path / "cp1250.txt"
    path.write_bytes("vara\nţară\n".encode("cp1250"))
    with pytest.raises(WordListError, match=r"line 2: not UTF-8; .*iconv"):
        read_word_list(path)


def test_words_outside_2_to_15_letters_are_skipped_and_counted_not_listed():
    words = parse_word_list(
        "vară\na\nelectroencefalografie\n# x\nșah\nabcdefghijklmno\n", "loc.txt"
    )
    assert words.words == ("ABCDEFGHIJKLMNO", "SAH", "VARA")
    assert [(s.line, s.word) for s in words.skipped] == [(2, "A"), (3, "ELECTROENCEFALOGRAFIE")]
    assert words.sha256 == dictionary_sha256(words.words)
    assert "skipped 2 words" in words.skipped_note() and "line 2 'A'" in words.skipped_note()


def test_list_of_only_out_of_bounds_words_has_no_words():
    with pytest.raises(WordListError, match="no words of 2-15 letters"):
        parse_word_list("a\no\n", "short.txt")


def test_overlong_line_is_refused_with_its_line_number():
    with pytest.raises(WordListError, match=r"huge\.txt, line 2: 2,000,000 characters"):
        parse_word_list("vară\n" + "a" * 2_000_000 + "\n", "huge.txt")


@given(st.text())
def test_word_list_loader_raises_only_its_own_error(text):
    try:
        words = parse_word_list(text)
    except WordListError:
        return
    assert all(w.isascii() and w.isalpha() and w.isupper() for w in words.words)
    assert all(2 <= len(w) <= 15 for w in words.words)
    assert all(not 2 <= len(s.word) <= 15 for s in words.skipped)
