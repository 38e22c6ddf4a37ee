"""Legality of a placement (docs/rules.md 1.4), each rule broken on its own."""

from engine.notation import parse_move
from engine.rack import Rack
from engine.verdict import check_move


def errors_of(board, text, ruleset, dictionary=None, rack=None):
    rack = Rack.parse(rack, ruleset) if rack is not None else None
    return check_move(board, parse_move(text), ruleset, dictionary, rack).errors


def test_first_move_must_cover_the_centre(board_with, ruleset):
    assert errors_of(board_with(), "H9: VARA", ruleset) == (
        "the first move must cover the centre H8",
    )
    assert errors_of(board_with(), "8E: VARA", ruleset) == ()


def test_later_move_must_touch_a_tile_on_the_board(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    assert errors_of(board, "A1: VARA", ruleset) == (
        "the move touches no tile already on the board",
    )


def test_move_touching_only_diagonally_is_refused(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    assert "the move touches no tile already on the board" in errors_of(board, "I12: ARE", ruleset)


def test_word_running_off_the_board_is_refused(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    assert errors_of(board, "H13: VARA", ruleset) == ("VARA runs off the board after H15",)


def test_coordinate_off_the_board_is_refused(board_with, ruleset):
    assert errors_of(board_with(), "P8: VARA", ruleset) == ("P8 is not a square of the board",)
    assert errors_of(board_with(), "H16: VARA", ruleset) == ("H16 is not a square of the board",)


def test_letter_already_on_the_board_must_match_the_word(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    assert errors_of(board, "8G: AXE", ruleset) == ("square H8 holds V, the move writes X there",)


def test_word_must_be_written_whole_including_adjacent_board_letters(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    errors = errors_of(board, "H12: RE", ruleset)
    assert errors == (
        "the word continues before it on H11 (A): write the whole word, including letters "
        "already on the board",
    )
    assert errors_of(board, "H5: ARE", ruleset)[0].startswith("the word continues after it on H8")


def test_move_must_lay_at_least_one_new_tile(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    assert errors_of(board, "H8: VARA", ruleset) == ("the move lays no new tile",)


def test_move_must_form_a_word_of_two_letters(board_with, ruleset):
    assert "the move forms no word of two letters or more" in errors_of(
        board_with(), "H8: A", ruleset
    )


def test_single_tile_forming_a_cross_word_is_legal(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    verdict = check_move(board, parse_move("G9: E"), ruleset, None)
    assert verdict.valid
    assert [w.word for w in verdict.words] == ["EA"]


def test_tiles_must_be_on_the_rack(board_with, ruleset):
    assert errors_of(board_with(), "H8: VARA", ruleset, rack="VARAE??") == ()
    assert errors_of(board_with(), "H8: VARA", ruleset, rack="VARXE??") == (
        "the move lays 2 A but the rack VARXE?? holds 1",
    )
    assert errors_of(board_with(), "H8: VARA", ruleset, rack="VRXE") == (
        "the move lays 2 A but the rack VRXE holds 0",
    )


def test_joker_in_the_word_needs_a_joker_on_the_rack(board_with, ruleset):
    assert errors_of(board_with(), "H8: V(A)RA", ruleset, rack="VARA") == (
        "the move lays 1 joker but the rack VARA holds 0",
    )
    assert errors_of(board_with(), "H8: V(A)RA", ruleset, rack="VAR?") == ()


def test_letters_without_tiles_are_playable_only_as_jokers(board_with, ruleset, small_dictionary):
    assert errors_of(board_with(), "H8: (K)I(W)I", ruleset, small_dictionary, rack="??II") == ()
    assert errors_of(board_with(), "H8: KI(W)I", ruleset) == (
        "K has no tile: only a joker can stand for it, written (K)",
    )


def test_a_move_lays_at_most_a_rack_of_tiles(board_with, ruleset):
    errors = errors_of(board_with(), "H1: ABCDEFGILMNOPRS", ruleset)
    assert errors == ("the move lays 15 tiles, a rack holds at most 7",)


def test_an_eliptic_move_lays_at_most_7_of_the_racks_8_tiles(board_with, eliptic):
    board = board_with()
    verdict = check_move(board, parse_move("H4: JUCATORI"), eliptic, None, Rack("JUCATORI"))
    assert [(p.code, p.message) for p in verdict.problems] == [
        ("more_than_a_move_lays", "the move lays 8 tiles, a move lays at most 7 of the rack's 8")
    ]
    assert errors_of(board, "H4: JUCATOR", eliptic, rack="JUCATORI") == ()
    assert errors_of(board, "H1: ABCDEFGILMNOPRS", eliptic) == (
        "the move lays 15 tiles, a rack holds at most 8",
    )


def test_a_move_cannot_lay_more_copies_than_the_game_has(board_with, ruleset):
    assert errors_of(board_with(), "H8: XX", ruleset) == (
        "the move lays 2 X but the game has 1 and 0 already lie on the board",
    )
    board = board_with(("H8", "VaRa"))
    assert errors_of(board, "I7: (A)LE", ruleset) == (
        "the move lays 1 joker but the game has 2 and 2 already lie on the board",
    )


def test_completiv_letter_must_be_a_tile_of_the_game(board_with, ruleset):
    errors = errors_of(board_with(), "H8: KA(K)I +K", ruleset, rack="AI?")
    assert errors == (
        "K has no tile: only a joker can stand for it, written (K)",
        "the completiv letter K has no tile: take the joker, written +(K)",
    )
    assert errors_of(board_with(), "H8: (K)A(K)I +(K)", ruleset, rack="AI?") == ()


def test_completiv_letter_marked_in_place_must_be_laid_now(board_with, ruleset):
    board = board_with(("F13", "FAR"))
    assert errors_of(board, "15A: DILUA[R]AM", ruleset) == (
        "the completiv letter [R] is on F15, already on the board: mark a tile laid now",
    )


def test_board_letters_do_not_come_from_the_rack(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    assert errors_of(board, "8G: AVE", ruleset, rack="AE") == ()


def test_completiv_chosen_letter_completes_the_rack(board_with, ruleset):
    board = board_with(("F13", "FAR"))
    assert errors_of(board, "15A: [D]ILUARAM", ruleset, rack="ILUAAM") == ()
    assert errors_of(board, "15A: DILUARAM", ruleset, rack="ILUAAM") == (
        "the move lays 1 D but the rack ILUAAM holds 0",
    )


def test_every_word_formed_must_be_in_the_dictionary(board_with, ruleset, small_dictionary):
    board = board_with(("H8", "VARA"))
    assert errors_of(board, "I7: ALE", ruleset, small_dictionary) == ()
    assert errors_of(board, "I7: ALA", ruleset, small_dictionary) == (
        "ALA is not in the dictionary words-small",
        "AA is not in the dictionary words-small",
    )


def test_two_letter_word_must_also_be_on_the_two_letter_list(board_with, ruleset, small_dictionary):
    from dataclasses import replace

    board = board_with(("H8", "VARA"))
    strict = replace(small_dictionary, two_letter=frozenset({"VL"}))
    assert errors_of(board, "I7: ALE", ruleset, strict) == (
        "AE is not in the dictionary words-small",
    )


def test_several_broken_rules_are_all_reported(board_with, ruleset):
    board = board_with(("H8", "VARA"))
    errors = errors_of(board, "8G: AXE", ruleset, rack="B")
    assert errors == (
        "square H8 holds V, the move writes X there",
        "the move lays 1 A but the rack B holds 0",
        "the move lays 1 E but the rack B holds 0",
    )
