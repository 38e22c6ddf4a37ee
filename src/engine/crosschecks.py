"""Lines of the board as the move generator sees them, with cross-checks and anchors.

The generator works on one line at a time (a row for moves across, a column for moves down)
and never looks sideways while it recurses: everything it needs from the perpendicular
direction is computed here once per position. For each empty square: which letters may go
there (a 26-bit mask of letters that complete a dictionary word with the tiles above and
below it) and the points those perpendicular tiles bring to the cross word. Anchors are the
empty squares next to a tile, where every move must lay at least one tile.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import Board
from engine.lexicon import Lexicon
from engine.ruleset import Ruleset

ANY_LETTER = (1 << 26) - 1
NO_CROSS = -1
EMPTY = -1


@dataclass(frozen=True)
class Line:
    """One row (moves across) or column (moves down), squares numbered along the line.

    `cells`: letter 0-25 of the tile on a square, EMPTY (-1) if none; `values`: a tile's points
    (0 for a joker); `masks`: letters allowed on an empty square; `cross`: points of the
    perpendicular tiles of the cross word an empty square would join, NO_CROSS (-1) if it
    joins none; `letter_factor`, `word_factor`: premiums along the line; `anchors`: empty
    squares where a move may be anchored, in order.
    """

    index: int
    cells: tuple[int, ...]
    values: tuple[int, ...]
    masks: tuple[int, ...]
    cross: tuple[int, ...]
    letter_factor: tuple[int, ...]
    word_factor: tuple[int, ...]
    anchors: tuple[int, ...]


def _grid(board: Board) -> tuple[list[list[int]], list[list[int]]]:
    cells = [[EMPTY if ch == "." else ord(ch.upper()) - 65 for ch in row] for row in board.rows]
    jokers = [[1 if ch.islower() else 0 for ch in row] for row in board.rows]
    return cells, jokers


def _cross_check(
    lexicon: Lexicon, two_letter: frozenset[str], before: list[int], after: list[int]
) -> int:
    """Letters L such that before + L + after is a word (two-letter words: on the list too)."""
    children = lexicon.children
    terminal = lexicon.terminal
    node: int | None = 0
    for letter in before:
        node = children[node].get(letter)
        if node is None:
            return 0
    mask = 0
    for letter, child in children[node].items():
        end: int | None = child
        for following in after:
            end = children[end].get(following)
            if end is None:
                break
        if end is None or not terminal[end]:
            continue
        if len(before) + len(after) == 1:
            word = "".join(chr(65 + x) for x in (*before, letter, *after))
            if word not in two_letter:
                continue
        mask |= 1 << letter
    return mask


def board_lines(
    board: Board,
    ruleset: Ruleset,
    lexicon: Lexicon,
    two_letter: frozenset[str],
    across: bool,
) -> list[Line]:
    """The lines of `board` for moves across (its rows) or down (its columns)."""
    cells, jokers = _grid(board)
    size = board.size
    values = [
        [0 if cells[r][c] == EMPTY or jokers[r][c] else ruleset.value(chr(65 + cells[r][c]))
         for c in range(size)]
        for r in range(size)
    ]  # fmt: skip
    letter_factor = [list(row) for row in ruleset.letter_factor]
    word_factor = [list(row) for row in ruleset.word_factor]
    centre = board.centre_square()
    if not across:
        cells, values, letter_factor, word_factor = (
            [list(col) for col in zip(*grid, strict=True)]
            for grid in (cells, values, letter_factor, word_factor)
        )
        centre = (centre[1], centre[0])
    empty_board = all(cell == EMPTY for row in cells for cell in row)
    lines = []
    for r in range(size):
        masks = [ANY_LETTER] * size
        cross = [NO_CROSS] * size
        anchors = []
        for c in range(size):
            if cells[r][c] != EMPTY:
                masks[c] = 0
                continue
            above = r > 0 and cells[r - 1][c] != EMPTY
            below = r + 1 < size and cells[r + 1][c] != EMPTY
            beside = (c > 0 and cells[r][c - 1] != EMPTY) or (
                c + 1 < size and cells[r][c + 1] != EMPTY
            )
            if above or below or beside or (empty_board and (r, c) == centre):
                anchors.append(c)
            if not (above or below):
                continue
            top = r
            while top > 0 and cells[top - 1][c] != EMPTY:
                top -= 1
            bottom = r
            while bottom + 1 < size and cells[bottom + 1][c] != EMPTY:
                bottom += 1
            before = [cells[i][c] for i in range(top, r)]
            after = [cells[i][c] for i in range(r + 1, bottom + 1)]
            masks[c] = _cross_check(lexicon, two_letter, before, after)
            cross[c] = sum(values[i][c] for i in range(top, bottom + 1) if i != r)
        lines.append(
            Line(
                index=r,
                cells=tuple(cells[r]),
                values=tuple(values[r]),
                masks=tuple(masks),
                cross=tuple(cross),
                letter_factor=tuple(letter_factor[r]),
                word_factor=tuple(word_factor[r]),
                anchors=tuple(anchors),
            )
        )
    return lines
