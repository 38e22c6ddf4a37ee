"""Reading moves as players write them (docs/rules.md 1.6), and writing them back."""

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from engine import notation
from engine.notation import (
    Chosen,
    Move,
    NotationError,
    Replacement,
    format_move,
    format_replacement,
    parse_move,
    parse_replacement,
)


def test_row_letter_first_is_across_and_column_first_is_down():
    assert parse_move("H8: VARA") == Move(7, 7, True, "VARA")
    assert parse_move("11F: STANA") == Move(5, 10, False, "STANA")


@pytest.mark.parametrize("text", ["h8: VARA", "H8 :VARA", "  H8 : VARA  ", "H8:VARA", "H8 VARA"])
def test_case_and_spaces_around_the_colon_do_not_matter_and_the_colon_may_be_left_out(text):
    assert parse_move(text) == Move(7, 7, True, "VARA")


def test_joker_in_round_brackets():
    assert parse_move("H4: JU(C)ATOR") == Move(7, 3, True, "JUCATOR", jokers=(2,))


def test_lowercase_letter_beside_capitals_is_a_joker():
    assert parse_move("H4: JUcATOR") == Move(7, 3, True, "JUCATOR", jokers=(2,))


def test_word_written_wholly_in_lower_case_is_plain_letters():
    assert parse_move("h8: vara") == Move(7, 7, True, "VARA")


def test_word_in_lower_case_keeps_only_its_bracketed_jokers():
    assert parse_move("h8: ju(c)ator") == Move(7, 7, True, "JUCATOR", jokers=(2,))
    assert parse_move("H8: înv(â)rt").jokers == (3,)
    assert parse_move("h4: jucator +j").chosen == Chosen("J", False, None)
    assert parse_move("H4: JUCATOR +j").chosen == Chosen("J", True, None)


def test_decomposed_diacritics_are_read_like_composed_ones():
    import unicodedata

    text = unicodedata.normalize("NFD", "15A : [D]ILUARĂM (167 p)")
    assert parse_move(text).word == "DILUARAM"


@pytest.mark.parametrize(
    ("text", "claimed"),
    [("H8: VARA = 52 p", 52), ("H8: VARA = 52", 52), ("H8: VARA 52 puncte", 52),
     ("H8: VARA (52 p)", 52), ("H8: VARA = 52 p.", 52), ("H8: VARA=52p", 52),
     ("H8: VARA = 52 de puncte", 52), ("H8: VARA(52 p)", 52)],
)  # fmt: skip
def test_claimed_score_forms(text, claimed):
    assert parse_move(text).claimed == claimed


def test_online_game_and_round_prefix():
    move = parse_move("P19-T1 - H4: JU(C)ATOR = 52 p")
    assert move == Move(7, 3, True, "JUCATOR", (2,), None, 52, "P19-T1")


@pytest.mark.parametrize("separator", ["-", "–", "—", ":"])
def test_prefix_separator_may_be_a_dash_of_any_length_or_a_colon(separator):
    assert parse_move(f"P19-T1 {separator} H4: JUCATOR").prefix == "P19-T1"


def test_completiv_letter_in_square_brackets():
    move = parse_move("15A : [D]ILUARĂM (167 p)")
    assert move == Move(0, 14, False, "DILUARAM", (), Chosen("D", False, 0), 167)


def test_completiv_letter_after_the_word():
    assert parse_move("H4: JUCATOR +J = 52 p").chosen == Chosen("J", False, None)


def test_completiv_joker_taken_from_the_stock():
    assert parse_move("H4: JU[(C)]ATOR").chosen == Chosen("C", True, 2)
    assert parse_move("H4: JU(C)ATOR +(C)").chosen == Chosen("C", True, None)


def test_stock_joker_named_only_after_the_word_is_the_words_only_such_letter():
    """The defect `H4: JUCATOR +(C)`: the C was read as a real C (rack JUATOR refused it)."""
    assert parse_move("H4: JUCATOR +(C)") == parse_move("H4: JU(C)ATOR +(C)")
    assert parse_move("H4: JUCATOR +(C)").jokers == (2,)
    assert parse_move("H4: JUCATOR +c").jokers == (2,)


def test_stock_joker_named_after_a_word_holding_that_letter_twice_is_ambiguous():
    error = parse_move("H8: CUC +(C)")
    assert isinstance(error, NotationError)
    assert error.position == 9
    assert "C occurs 2 times in CUC" in error.message
    assert "[(C)]" in error.message
    assert parse_move("H8: (C)UC +(C)").jokers == (0,)
    assert parse_move("H8: [(C)]UC").jokers == (0,)


def test_diacritics_are_folded_in_every_position():
    assert parse_move("8H: ȘAȚĂ").word == "SATA"
    assert parse_move("8H: ŞAŢă").word == "SATA"
    assert parse_move("8H: ÎNVÂRT").word == "INVART"


@pytest.mark.parametrize(
    ("text", "replacement"),
    [
        ("-A+B", Replacement("A", "B")),
        ("-C+Do", Replacement("C", "D", joker=True)),
        ("-C+(D)", Replacement("C", "D", joker=True)),
        ("-C+d", Replacement("C", "D", joker=True)),
        ("-B+Bo", Replacement("B", "B", joker=True)),
        (" - A + B ", Replacement("A", "B")),
        ("-Ă+Ș", Replacement("A", "S")),
    ],
)
def test_anticipation_replacement_forms_a_lowercase_taken_letter_is_its_joker(text, replacement):
    assert parse_replacement(text) == replacement


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("", 1, "a coordinate such as 'H8' (across) or '8H' (down)"),
        ("H: VARA", 2, "a column number after the row letter (across: 'H8')"),
        ("8: VARA", 2, "a row letter after the column number (down: '8H')"),
        ("H8:", 4, "the word (letters A-Z, jokers as '(C)')"),
        ("H8: VA()RA", 8, "a letter inside '( )' (a joker)"),
        ("H8: VA(R", 9, "')' closing the joker"),
        ("H8: [V][A]RA", 8, "only one letter marked '[ ]' (the completiv letter)"),
        ("H8: VARA = p", 12, "a claimed score such as '= 52 p'"),
        ("H8: VARA = 5 lei", 14, "'p' or 'puncte' after the claimed score"),
        ("H8: VARA!", 9, "a claimed score such as '= 52 p'"),
        ("H8: [V]ARA +J", 12, "one completiv mark only ('[J]' in the word or '+J' after it)"),
    ],
)
def test_unreadable_text_names_what_was_expected_and_where(text, position, expected):
    error = parse_move(text)
    assert isinstance(error, NotationError)
    assert (error.position, error.expected) == (position, expected)
    assert error.text == text


def test_unreadable_replacement_is_an_error_not_an_exception():
    error = parse_replacement("-A")
    assert isinstance(error, NotationError)
    assert error.expected == "'+' and the letter taken from the stock"


def test_canonical_format():
    move = Move(7, 3, False, "JUCATOR", (2,), Chosen("J", False, 0), 52, "P19-T1")
    assert format_move(move) == "P19-T1 - 4H: [J]U(C)ATOR = 52 p"
    assert format_replacement(Replacement("C", "D", True)) == "-C+(D)"


letters = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@st.composite
def moves(draw):
    word = draw(st.text(letters, min_size=1, max_size=15))
    jokers = tuple(sorted(draw(st.sets(st.integers(0, len(word) - 1), max_size=3))))
    chosen = None
    kind = draw(st.sampled_from(["none", "in-place", "after"]))
    if kind == "in-place":
        at = draw(st.integers(0, len(word) - 1))
        chosen = Chosen(word[at], at in jokers, at)
    elif kind == "after":
        letter = draw(letters)
        # `+(X)` marks the word's X as the joker, so a joker named after the word is one
        # already marked in it, or a letter the word does not hold.
        joker = draw(st.booleans()) and (
            letter not in word or any(word[i] == letter for i in jokers)
        )
        chosen = Chosen(letter, joker, None)
    prefix = draw(st.none() | st.builds("P{}-T{}".format, st.integers(0, 999), st.integers(0, 99)))
    return Move(
        row=draw(st.integers(0, 14)),
        col=draw(st.integers(0, 14)),
        across=draw(st.booleans()),
        word=word,
        jokers=jokers,
        chosen=chosen,
        claimed=draw(st.none() | st.integers(0, 999_999)),
        prefix=prefix,
    )


@given(moves())
def test_parse_of_format_is_the_move(move):
    assert parse_move(format_move(move)) == move


@given(st.builds(Replacement, letters, letters, st.booleans()))
def test_parse_of_format_is_the_replacement(replacement):
    assert parse_replacement(format_replacement(replacement)) == replacement


notation_alphabet = st.sampled_from([*"HhP8-1T5:=()[]+ ap?puncteĂșţ.\t\n0", "\x00", "é"])


@given(st.text() | st.text(notation_alphabet, max_size=40))
def test_parse_never_raises_on_arbitrary_text(text):
    move, replacement = parse_move(text), parse_replacement(text)
    assert isinstance(move, (Move, NotationError))
    assert isinstance(replacement, (Replacement, NotationError))
    for result in (move, replacement):
        if isinstance(result, NotationError):
            assert 1 <= result.position <= len(text) + 1


def _written(usual: tuple[str, ...], unusual: tuple[str, ...]) -> st.SearchStrategy[str]:
    """One part of a move as written: mostly a usual form, now and then an unusual one."""
    return st.sampled_from(usual * 6 + unusual)


_WRITTEN = st.tuples(
    _written(("", "P19-T1 - ", "p2-t3:"), ("P1-T1 – ", "P1-T ", "P1-", "P1 ")),
    _written(("H8", "8H", "h8", "o15", "15A"), ("A0", "H100", "8 H", "H08", "P1", "1p", "Ș8")),
    _written((": ", " : ", ":", " "), ("  ", "\t", "", "::")),
    st.lists(
        _written(
            ("V", "a", "R", "(C)", "(c)", "[J]", "[j]", "[(C)]"), ("x", "[", "]", "(", "Ă", "5")
        ),
        max_size=8,
    ),
    _written(
        ("", "= 52 p", "=52", " 52", "52p", " = 7 PUNCTE"),
        (" 1234567", " (52 p)", "= 52 p.", " +J", " +(C)", " p", "=", " 52 de puncte"),
    ),
    _written(("", " "), ("\n", "x")),
).map(lambda parts: "".join((*parts[:3], "".join(parts[3]), *parts[4:])))
"""Moves as written: mostly the usual forms, with something unusual here and there."""


@given(_WRITTEN)
def test_the_forms_read_in_one_match_are_read_as_the_scanner_reads_them(text):
    # parse_move reads the usual forms with one regular expression and leaves the rest to
    # the scanner: both must give the same move for every text the expression accepts.
    fast = notation._plain_move(text)
    event("read in one match" if fast is not None else "left to the scanner")
    if fast is not None:
        assert fast == notation._scan_move(text)
    assert parse_move(text) == notation._scan_move(text)
