"""The lexicon: a minimised DAWG that holds exactly its words and survives its own bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.lexicon import Lexicon, LexiconError, multiset_key

words = st.text(st.sampled_from("ABCEST"), min_size=1, max_size=7)
word_sets = st.sets(words, max_size=60)


def letters(word: str) -> list[int]:
    return [ord(ch) - 65 for ch in word]


@pytest.mark.parametrize("compiled", [True, False])
@given(word_sets, st.lists(words, max_size=30))
def test_a_lexicon_holds_exactly_its_words(compiled, stored, probes):
    lexicon = Lexicon.from_words(stored, compiled=compiled)
    assert len(lexicon) == len(stored)
    assert list(lexicon) == sorted(stored)
    for word in [*stored, *probes]:
        assert (word in lexicon) == (word in stored)


@given(word_sets)
def test_bytes_give_back_the_same_lexicon(stored):
    lexicon = Lexicon.from_words(stored)
    again = Lexicon.from_bytes(lexicon.to_bytes())
    assert list(again) == list(lexicon)
    assert again.to_bytes() == lexicon.to_bytes()
    assert (again.node_count, again.edge_count) == (lexicon.node_count, lexicon.edge_count)


def test_shared_prefixes_and_suffixes_are_stored_once():
    lexicon = Lexicon.from_words(["BAT", "BATS", "CAT", "CATS"])
    assert lexicon.node_count == 5
    assert lexicon.edge_count == 5


def test_words_are_folded_and_upper_cased_on_the_way_in():
    lexicon = Lexicon.from_words(["vară", "ȘARPE", "  țară  ", ""])
    assert list(lexicon) == ["SARPE", "TARA", "VARA"]


def test_a_word_with_other_characters_is_refused():
    with pytest.raises(LexiconError, match="only letters A-Z"):
        Lexicon.from_words(["VARA", "C3PO"])


def test_non_words_and_non_strings_are_not_contained():
    lexicon = Lexicon.from_words(["VARA"])
    assert "VAR" not in lexicon and "VARAA" not in lexicon and "" not in lexicon
    assert 3 not in lexicon and "vara" not in lexicon


@given(word_sets)
def test_reach_height_and_lengths_describe_what_can_follow_a_prefix(stored):
    lexicon = Lexicon.from_words(stored)
    prefixes = {word[:cut] for word in stored for cut in range(len(word) + 1)}
    for prefix in prefixes:
        node = lexicon.walk(prefix)
        rests = [w[len(prefix) :] for w in stored if w.startswith(prefix)]
        assert lexicon.height[node] == max(len(rest) for rest in rests)
        assert lexicon.lengths[node] == sum({1 << len(rest) for rest in rests})
        assert lexicon.reach[node] == sum({1 << x for rest in rests for x in letters(rest)})


@given(word_sets)
def test_every_word_passes_the_multiset_filter_in_any_order(stored):
    lexicon = Lexicon.from_words(stored)
    for word in stored:
        assert lexicon.may_have_multiset(multiset_key(letters(word)))
        assert lexicon.may_have_multiset(multiset_key(reversed(letters(word))))


def test_an_empty_word_list_makes_an_empty_lexicon():
    lexicon = Lexicon.from_bytes(Lexicon.from_words([]).to_bytes())
    assert len(lexicon) == 0 and list(lexicon) == [] and "A" not in lexicon


@pytest.fixture
def data() -> bytes:
    return Lexicon.from_words(["VARA", "VARZA", "CASA", "MASA"]).to_bytes()


def test_truncated_bytes_are_refused(data):
    for cut in (0, 10, len(data) - 1):
        with pytest.raises(LexiconError):
            Lexicon.from_bytes(data[:cut])


def test_altered_bytes_are_refused(data):
    altered = bytearray(data)
    altered[len(data) // 2] ^= 0x40
    with pytest.raises(LexiconError, match="checksum"):
        Lexicon.from_bytes(bytes(altered))


def test_foreign_bytes_are_refused(data):
    with pytest.raises(LexiconError, match="magic"):
        Lexicon.from_bytes(b"NOTADAWG" + data[8:])


def test_another_format_version_is_refused(data):
    other = bytearray(data)
    other[8] = 99
    with pytest.raises(LexiconError, match="version 99"):
        Lexicon.from_bytes(bytes(other))
