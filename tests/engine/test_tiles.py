"""Diacritics are folded everywhere (docs/rules.md 1.1): Ă Â → A, Î → I, Ș Ş → S, Ț Ţ → T."""

import unicodedata

from engine.tiles import fold, fold_word


def test_diacritics_fold_to_their_base_letters_in_both_cases():
    assert fold("ĂÂÎȘŞȚŢ ăâîșşțţ") == "AAISSTT aaisstt"


def test_decomposed_diacritics_fold_like_composed_ones():
    assert fold(unicodedata.normalize("NFD", "ȘARPE ăâ")) == "SARPE aa"


def test_word_list_entries_fold_to_upper_case_a_to_z():
    assert fold_word(" Vară\n") == "VARA"
    assert fold_word(unicodedata.normalize("NFD", "ÎNVÂRT")) == "INVART"


def test_apostrophes_are_dropped_from_words():
    assert fold_word("dâ'n") == "DAN"
    assert fold_word("dâ’n") == "DAN"


def test_entries_that_are_not_one_word_of_letters_are_no_words():
    assert fold_word("tam-tam") is None
    assert fold_word("ad litteram") is None
    assert fold_word("straße") is None
    assert fold_word("") is None
