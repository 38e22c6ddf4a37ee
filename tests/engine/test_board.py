"""Board files (README.md): 15 lines of 15 characters, `.` empty, lowercase a joker."""

import pytest

from engine.board import Board, BoardError, square_name


def rows(**lines):
    grid = ["." * 15] * 15
    for index, line in lines.items():
        grid[int(index[1:])] = line
    return grid


def test_board_reads_tiles_and_jokers():
    board = Board.parse(rows(r7="......VaRA....."))
    assert board.letter(7, 6) == "V"
    assert board.letter(7, 7) == "A" and board.cell(7, 7) == "a"
    assert board.letter(0, 0) is None
    assert board.tile_counts() == {"V": 1, "?": 1, "R": 1, "A": 1}


def test_board_diacritics_are_folded():
    assert Board.parse(rows(r7="......ȘĂț......")).rows[7] == "......SAt......"


def test_board_of_the_wrong_number_of_lines_is_refused():
    with pytest.raises(BoardError, match=r"^game.txt: expected 15 lines, found 14$"):
        Board.parse(["." * 15] * 14, source="game.txt")


def test_board_line_of_the_wrong_length_names_the_line():
    with pytest.raises(BoardError, match=r"^board, line 3: expected 15 characters, found 14$"):
        Board.parse(rows(r2="." * 14))


def test_unknown_character_names_line_and_column():
    with pytest.raises(BoardError, match=r"line 8, column 7: unknown character '\?'"):
        Board.parse(rows(r7="......?........"))


def test_trailing_blank_lines_are_ignored():
    assert Board.parse([*rows(), "", ""]) == Board.empty()


def test_square_names_are_row_letter_then_column():
    assert square_name(7, 7) == "H8"
    assert square_name(0, 14) == "A15"


def test_board_with_a_real_tile_for_a_letter_without_tiles_is_refused(ruleset):
    board = Board.parse(rows(r7="......KA......."))
    with pytest.raises(BoardError, match=r"H7 holds a real K, which has no tile; .* \(k\)"):
        board.check_tiles(ruleset)
    Board.parse(rows(r7="......kA.......")).check_tiles(ruleset)


def test_board_with_more_tiles_of_a_letter_than_the_game_has_is_refused(ruleset):
    with pytest.raises(BoardError, match="2 Z tiles on the board, the game has 1"):
        Board.parse(rows(r7=".......ZZ......")).check_tiles(ruleset)
    with pytest.raises(BoardError, match="3 jokers on the board, the game has 2"):
        Board.parse(rows(r7="....abc........")).check_tiles(ruleset)


def test_a_board_made_from_a_counted_one_counts_its_tiles_as_a_fresh_count_does():
    board = Board.empty().with_tiles([(7, 7, "A"), (7, 8, "b")])
    assert board.tile_counts() == {"A": 1, "?": 1}
    laid = board.with_tiles([(8, 7, "A"), (9, 7, "c")])
    assert laid.tile_counts() == Board(laid.rows).tile_counts() == {"A": 2, "?": 2}
    replaced = board.with_tiles([(7, 7, "Z")])  # a tile over another: counted afresh
    assert replaced.tile_counts() == Board(replaced.rows).tile_counts() == {"Z": 1, "?": 1}
