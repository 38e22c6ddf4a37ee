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
    lexicon: Lexicon, two_letter: frozenset[str], before: tuple[int, ...], after: tuple[int, ...]
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


CrossCache = dict[tuple[tuple[int, ...], tuple[int, ...]], int]


def _oriented(board: Board, across: bool) -> tuple[str, ...]:
    return board.rows if across else tuple("".join(col) for col in zip(*board.rows, strict=True))


def changed_lines(old: Board, new: Board, across: bool) -> set[int] | None:
    """The lines whose cells, cross-checks or anchors can differ between two boards.

    A square that changed changes its own line, and the cross-checks of the two squares just
    beyond the perpendicular run of tiles through it (in either board). None when every line
    must be recomputed (another size, or an empty board and its centre anchor).
    """
    if old.size != new.size or old.is_empty() or new.is_empty():
        return None
    before, after = _oriented(old, across), _oriented(new, across)
    size = new.size
    lines: set[int] = set()
    for r in range(size):
        if before[r] == after[r]:
            continue
        for c in range(size):
            if before[r][c] == after[r][c]:
                continue
            lines.add(r)
            for rows in (before, after):
                up = r
                while up > 0 and rows[up - 1][c] != ".":
                    up -= 1
                down = r
                while down + 1 < size and rows[down + 1][c] != ".":
                    down += 1
                lines.update(line for line in (up - 1, down + 1) if 0 <= line < size)
    return lines


# A board's letters (EMPTY where none) and tile points, row by row.
Grid = list[list[int]]


def cells_and_values(board: Board, ruleset: Ruleset) -> tuple[Grid, Grid]:
    """The board's letters 0-25 (EMPTY where none) and tile points (0 for a joker), by row."""
    cells, jokers = _grid(board)
    points = [ruleset.value(chr(65 + i)) for i in range(26)]
    values = [
        [0 if joker else points[cell] if cell != EMPTY else 0 for cell, joker in squares]
        for squares in map(zip, cells, jokers)
    ]
    return cells, values


def transposed(grid: list[list[int]] | tuple[tuple[int, ...], ...]) -> Grid:
    """Columns as rows: the board as the pass down sees it."""
    return [list(col) for col in zip(*grid, strict=True)]


def board_lines(
    board: Board,
    ruleset: Ruleset,
    lexicon: Lexicon,
    two_letter: frozenset[str],
    across: bool,
    cache: CrossCache | None = None,
    previous: tuple[list[Line], set[int]] | None = None,
    grids: tuple[Grid, Grid] | None = None,
) -> list[Line]:
    """The lines of `board` for moves across (its rows) or down (its columns).

    `cache` keeps cross-check masks between positions played with the same lexicon and
    two-letter list; `previous` gives the lines of an earlier board and which of them
    changed (`changed_lines`): the others are reused as they are. Consecutive positions of a
    game share most of both. `grids`, when given, is `cells_and_values(board, ruleset)`,
    which the passes across and down can then share.
    """
    cells, values = grids or cells_and_values(board, ruleset)
    size = board.size
    letter_factor, word_factor = ruleset.letter_factor, ruleset.word_factor
    centre = board.centre_square()
    if not across:
        cells, values, letter_factor, word_factor = (
            transposed(grid) for grid in (cells, values, letter_factor, word_factor)
        )
        centre = (centre[1], centre[0])
    empty_board = all(cell == EMPTY for row in cells for cell in row)
    tiled = [any(cell != EMPTY for cell in row) for row in cells]
    untouched = (ANY_LETTER,) * size
    no_cross = (NO_CROSS,) * size
    lines = []
    for r in range(size):
        if previous is not None and r not in previous[1]:
            lines.append(previous[0][r])
            continue
        near = tiled[r] or (r > 0 and tiled[r - 1]) or (r + 1 < size and tiled[r + 1])
        if not near and not (empty_board and r == centre[0]):
            lines.append(
                Line(
                    r,
                    tuple(cells[r]),
                    tuple(values[r]),
                    untouched,
                    no_cross,
                    tuple(letter_factor[r]),
                    tuple(word_factor[r]),
                    (),
                )
            )
            continue
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
            before = tuple(cells[i][c] for i in range(top, r))
            after = tuple(cells[i][c] for i in range(r + 1, bottom + 1))
            if cache is None:
                masks[c] = _cross_check(lexicon, two_letter, before, after)
            else:
                mask = cache.get((before, after))
                if mask is None:
                    mask = _cross_check(lexicon, two_letter, before, after)
                    cache[(before, after)] = mask
                masks[c] = mask
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
