"""Points of a placement: every word it forms, with its premiums, and the bingo bonus.

Each word formed (the main word and every cross word of two or more letters) scores the sum of
its tile values; letter premiums count under newly laid tiles only, word premiums under newly
laid tiles multiply that word; jokers are worth 0; laying a full rack adds the bingo bonus.
The breakdown keeps each word's squares and premiums so that a score can be explained.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from engine.board import Board, square_name
from engine.placement import Placement, Tile
from engine.ruleset import PREMIUM_LABELS, Ruleset


class Square(NamedTuple):
    """One letter of a scored word: where, which letter, its points and the premium used.

    A named tuple rather than a dataclass: scoring builds one per letter of every word formed,
    and the arbiter's batch rescoring is bound by that cost.
    """

    name: str
    letter: str
    joker: bool
    new: bool
    points: int
    premium: str | None


@dataclass(frozen=True)
class WordScore:
    word: str
    squares: tuple[Square, ...]
    word_factor: int
    score: int
    main: bool

    @property
    def written(self) -> str:
        """The word as notation writes it, jokers in round brackets."""
        return "".join(f"({s.letter})" if s.joker else s.letter for s in self.squares)


@dataclass(frozen=True)
class Score:
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
    board: Board,
    laid: dict[tuple[int, int], Tile],
    run: list[tuple[int, int]],
    ruleset: Ruleset,
    main: bool,
) -> WordScore:
    values = ruleset.tile_values
    rows = board.rows
    total = 0
    factor = 1
    squares = []
    for r, c in run:
        tile = laid.get((r, c))
        if tile is None:
            cell = rows[r][c]
            letter, joker, new = cell.upper(), cell.islower(), False
            lf = wf = 1
        else:
            letter, joker, new = tile.letter, tile.joker, True
            lf, wf = ruleset.letter_factor[r][c], ruleset.word_factor[r][c]
        points = 0 if joker else values.get(letter, 0) * lf
        total += points
        factor *= wf
        squares.append(
            Square(square_name(r, c), letter, joker, new, points, PREMIUM_LABELS.get((lf, wf)))
        )
    return WordScore(
        word="".join(s.letter for s in squares),
        squares=tuple(squares),
        word_factor=factor,
        score=total * factor,
        main=main,
    )


def score_placement(board: Board, placement: Placement, ruleset: Ruleset) -> Score:
    """Score a placement's words (the main word first, then cross words in board order)."""
    move = placement.move
    laid = {(t.row, t.col): t for t in placement.tiles}
    words = []
    main_run = _word_through(board.rows, laid, move.row, move.col, move.across)
    if len(main_run) >= 2:
        words.append(_score_word(board, laid, main_run, ruleset, main=True))
    for tile in placement.tiles:
        cross = _word_through(board.rows, laid, tile.row, tile.col, not move.across)
        if len(cross) >= 2:
            words.append(_score_word(board, laid, cross, ruleset, main=False))
    bingo = len(placement.tiles) == ruleset.rack_size
    bonus = ruleset.bingo_bonus if bingo else 0
    return Score(tuple(words), bingo, bonus, sum(w.score for w in words) + bonus)
