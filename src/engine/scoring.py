"""Points of a placement: every word it forms, with its premiums, and the bingo bonus.

Each word formed (the main word and every cross word of two or more letters) scores the sum of
its tile values; letter premiums count under newly laid tiles only, word premiums under newly
laid tiles multiply that word; jokers are worth 0; laying exactly the ruleset's `bingo_size`
tiles adds the bingo bonus (a full rack of 7; in duplicat eliptic 7 of the rack's 8, a move of
6 earning none).
The breakdown keeps each word's squares and premiums so that a score can be explained.

Results here and in `placement` and `verdict` are named tuples rather than frozen dataclasses:
they are just as immutable, and a season's rescoring builds a dozen of them per move, where a
frozen dataclass's constructor costs several times more.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.board import EMPTY, SQUARE_NAMES, Board
from engine.placement import Placement, Tile
from engine.ruleset import Ruleset


class Square(NamedTuple):
    """One letter of a scored word: where, which letter, its points and the premium used."""

    name: str
    letter: str
    joker: bool
    new: bool
    points: int
    premium: str | None


class WordScore(NamedTuple):
    word: str
    squares: tuple[Square, ...]
    word_factor: int
    score: int
    main: bool

    @property
    def written(self) -> str:
        """The word as notation writes it, jokers in round brackets."""
        return "".join(f"({s.letter})" if s.joker else s.letter for s in self.squares)


class Score(NamedTuple):
    words: tuple[WordScore, ...]
    bingo: bool
    bonus: int
    total: int


def _word_through(
    rows: tuple[str, ...], laid: dict[tuple[int, int], Tile], row: int, col: int, across: bool
) -> list[tuple[int, int]]:
    """The squares of the longest run of tiles through (row, col) in one direction."""
    n = len(rows)
    if not (0 <= row < n and 0 <= col < n):
        return []
    dr, dc = (0, 1) if across else (1, 0)
    r, c = row, col
    while True:
        pr, pc = r - dr, c - dc
        if pr < 0 or pc < 0 or (rows[pr][pc] == "." and (pr, pc) not in laid):
            break
        r, c = pr, pc
    run = []
    while r < n and c < n and (rows[r][c] != "." or (r, c) in laid):
        run.append((r, c))
        r, c = r + dr, c + dc
    return run


def _score_word(
    rows: tuple[str, ...],
    laid: dict[tuple[int, int], Tile],
    run: list[tuple[int, int]],
    ruleset: Ruleset,
    main: bool,
) -> WordScore:
    values = ruleset.tile_values
    letter_factor, word_factor = ruleset.letter_factor, ruleset.word_factor
    names, premiums, new = SQUARE_NAMES, ruleset.premium_labels, tuple.__new__
    total = 0
    factor = 1
    squares = []
    letters = []
    for r, c in run:
        cell = rows[r][c]
        if cell != EMPTY:
            letter = cell.upper()
            points = values.get(cell, 0)  # a lowercase joker has no value
            squares.append(new(Square, (names[r][c], letter, letter != cell, False, points, None)))
        else:
            letter, joker = laid[r, c][2:]
            factor *= word_factor[r][c]
            points = 0 if joker else values.get(letter, 0) * letter_factor[r][c]
            squares.append(new(Square, (names[r][c], letter, joker, True, points, premiums[r][c])))
        total += points
        letters.append(letter)
    return new(WordScore, ("".join(letters), tuple(squares), factor, total * factor, main))


def score_placement(board: Board, placement: Placement, ruleset: Ruleset) -> Score:
    """Score a placement's words (the main word first, then cross words in board order)."""
    move = placement.move
    laid = {(t.row, t.col): t for t in placement.tiles}
    words = []
    main_run = _word_through(board.rows, laid, move.row, move.col, move.across)
    if len(main_run) >= 2:
        words.append(_score_word(board.rows, laid, main_run, ruleset, True))
    rows, last = board.rows, board.size - 1
    for tile in placement.tiles:
        r, c = tile.row, tile.col
        # A cross word needs a board tile beside the new one, across the move's line (the
        # move's other tiles all lie on that line).
        if move.across:
            beside = (r > 0 and rows[r - 1][c] != EMPTY) or (r < last and rows[r + 1][c] != EMPTY)
        else:
            beside = (c > 0 and rows[r][c - 1] != EMPTY) or (c < last and rows[r][c + 1] != EMPTY)
        if beside:
            cross = _word_through(rows, laid, r, c, not move.across)
            words.append(_score_word(rows, laid, cross, ruleset, False))
    bingo = len(placement.tiles) == ruleset.bingo_size
    bonus = ruleset.bingo_bonus if bingo else 0
    return Score(tuple(words), bingo, bonus, sum(w.score for w in words) + bonus)
