"""Scoring rules of docs/rules.md 1.3, on hand-worked positions."""

import pytest

from engine.notation import parse_move
from engine.verdict import check_move


def judge(board, text, ruleset, dictionary=None, rack=None):
    from engine.rack import Rack

    move = parse_move(text)
    return check_move(board, move, ruleset, dictionary, Rack.parse(rack, ruleset) if rack else None)


@pytest.fixture
def diluaram_board(board_with):
    # FAR ends on F15, so column 15 holds R at F15 and nothing else.
    return board_with(("F13", "FAR"))


def test_worked_example_diluaram_down_column_15_scores_167(diluaram_board, ruleset):
    verdict = judge(diluaram_board, "15A: [D]ILUARAM", ruleset)
    assert verdict.valid
    assert verdict.score == 167
    assert [(w.word, w.score) for w in verdict.words] == [("DILUARAM", 117)]
    assert verdict.bingo and verdict.bonus == 50


def test_worked_example_diluaram_with_joker_d_scores_149(diluaram_board, ruleset):
    verdict = judge(diluaram_board, "15A: [(D)]ILUARAM", ruleset)
    assert verdict.score == 149
    assert judge(diluaram_board, "15A: dILUARAM", ruleset).score == 149


def test_each_cross_word_scores_with_premiums_under_new_tiles_only(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    verdict = judge(board, "I7: ALE", ruleset)
    # ALE: A on I7 (DL) 2 + L 1 + E on I9 (DL) 2 = 5; VL: V 8 + L 1 = 9; AE: A 1 + E on DL 2 = 3.
    assert [(w.word, w.score, w.main) for w in verdict.words] == [
        ("ALE", 5, True),
        ("VL", 9, False),
        ("AE", 3, False),
    ]
    assert verdict.score == 17


def test_word_premium_under_a_tile_already_on_the_board_does_not_count(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    verdict = judge(board, "8G: AVE", ruleset)
    assert verdict.score == 1 + 8 + 1


def test_letter_premium_under_a_tile_already_on_the_board_does_not_count(board_with, ruleset):
    board = board_with(("D1", "NOR"))
    verdict = judge(board, "1C: ANA", ruleset)
    # C1 plain, D1 (DL) already covered by N, E1 plain: 1 + 1 + 1.
    assert verdict.score == 3


def test_two_double_word_squares_multiply_the_word_by_four(board_with, ruleset):
    board = board_with(("8F", "ARE"))
    verdict = judge(board, "E5: CASTANE", ruleset)
    # CASTANE on E5 (DW) .. E11 (DW): 7 x 4 = 28; cross TARE: 4; seven tiles: 50.
    assert [(w.word, w.score) for w in verdict.words] == [("CASTANE", 28), ("TARE", 4)]
    assert verdict.score == 82


def test_two_triple_word_squares_multiply_the_word_by_nine(board_with, ruleset):
    board = board_with(("D1", "NOR"))
    verdict = judge(board, "1A: STANDARD", ruleset)
    # S T A N D A R D = 10 points, N on D1 already there (its DL unused); A1 and H1 triple.
    assert verdict.words[0].word_factor == 9
    assert verdict.score == 10 * 9 + 50


def test_joker_is_worth_zero_even_on_a_letter_premium(ruleset, board_with):
    verdict = judge(board_with(), "H4: (J)UCATOR", ruleset)
    # J joker on H4 (DL) 0 + U C A T O R 6, H8 doubles: 12; seven tiles: 50.
    assert verdict.score == 62


def test_joker_on_a_word_premium_still_multiplies_the_word(ruleset, board_with):
    verdict = judge(board_with(), "H8: (V)ARA", ruleset)
    assert verdict.score == (0 + 1 + 1 + 1) * 2


def test_first_move_jucator_without_joker(ruleset, board_with):
    verdict = judge(board_with(), "H4: JUCATOR", ruleset)
    assert verdict.words[0].score == 52
    assert verdict.score == 52 + 50


def test_six_tiles_earn_no_bingo(ruleset, board_with):
    verdict = judge(board_with(), "H8: CASTAN", ruleset)
    assert not verdict.bingo
    assert verdict.bonus == 0


def test_eliptic_bingo_is_exactly_7_tiles_of_the_8_and_6_earn_none(board_with, eliptic):
    board = board_with()
    seven = judge(board, "H4: JUCATOR", eliptic, rack="JUCATORI")
    # J on H4 (DL) 20 + UCATOR 6, H8 doubles the word: 52, and the bonus.
    assert (seven.valid, seven.bingo, seven.bonus, seven.score) == (True, True, 50, 102)
    six = judge(board, "H8: CURATI", eliptic, rack="JUCATORI")
    # C on H8 (DW) 1 + URA 3 + T on H12 (DL) 2 + I 1 = 7, doubled; no bonus for 6 tiles.
    assert (six.valid, six.bingo, six.bonus, six.score) == (True, False, 0, 14)


def test_a_joker_on_the_board_scores_zero_in_a_later_word(board_with, ruleset):
    board = board_with(("H8", "vARA"))
    verdict = judge(board, "8G: AVE", ruleset)
    assert verdict.score == 1 + 0 + 1


def test_claimed_score_mismatch_is_reported_and_does_not_change_the_score(board_with, ruleset):
    verdict = judge(board_with(), "H8: VARA = 99 p", ruleset)
    assert verdict.score == 22
    assert verdict.warnings == ("claimed 99 points, computed 22",)
    assert judge(board_with(), "H8: VARA = 22 p", ruleset).warnings == ()


def test_invalid_move_scores_zero_but_keeps_its_breakdown(board_with, ruleset, small_dictionary):
    verdict = judge(board_with(), "H8: VRAA", ruleset, small_dictionary)
    assert not verdict.valid
    assert verdict.score == 0
    assert verdict.points_if_valid == 2 * (8 + 1 + 1 + 1)
