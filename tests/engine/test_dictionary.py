"""A dictionary is named by the SHA-256 of its folded, sorted words (docs/rules.md 1.5)."""

import hashlib

from engine.dictionary import Dictionary, dictionary_sha256


def test_dictionary_hash_is_over_distinct_sorted_words_one_per_line():
    expected = hashlib.sha256(b"ARE\nVARA\n").hexdigest()
    assert dictionary_sha256(["VARA", "ARE", "VARA"]) == expected


def test_dictionary_hash_does_not_depend_on_the_order_of_the_file():
    assert Dictionary.from_words(["B", "A"]).sha256 == Dictionary.from_words(["A", "B"]).sha256


def test_two_letter_word_must_be_in_the_list_and_on_the_two_letter_list():
    words = Dictionary.from_words(["AI", "EU", "VARA"])
    assert words.accepts("AI") and words.accepts("VARA")
    strict = Dictionary(words.words, frozenset({"EU"}))
    assert not strict.accepts("AI")
    assert strict.accepts("EU")
    assert not Dictionary(frozenset({"VARA"}), frozenset({"XX"})).accepts("XX")
