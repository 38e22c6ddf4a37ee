"""The board as an SVG picture: premium squares coloured, tiles with their values, jokers
marked, the last move highlighted, row letters and column numbers around the grid.

The output is a pure function of its inputs (no timestamps, no random ids, attributes in a
fixed order), so the same replay always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape, quoteattr

from engine.board import EMPTY, Board, square_name
from engine.ruleset import PREMIUM_LABELS, Ruleset

CELL = 36
MARGIN = 28
_PREMIUM_FILL = {"TW": "#d9534f", "DW": "#f4b6b0", "TL": "#3b7dd8", "DL": "#b7d4f2"}
_PREMIUM_INK = {"TW": "#ffffff", "DW": "#6d2620", "TL": "#ffffff", "DL": "#1c4370"}
_PLAIN_FILL = "#e9e4d4"
_TILE_FILL = "#f6e7b4"
_NEW_TILE_FILL = "#ffd54a"
_NEW_TILE_STROKE = "#c62828"
_JOKER_INK = "#b71c1c"
_LEGEND = ("TW", "DW", "TL", "DL")
_WORDS = {
    "TW": "triple word",
    "DW": "double word",
    "TL": "triple letter",
    "DL": "double letter",
    "joker": "joker",
    "last_move": "last move",
}


def board_svg(
    board: Board,
    ruleset: Ruleset,
    highlight: Iterable[tuple[int, int]] = (),
    title: str | None = None,
    *,
    words: Mapping[str, str] | None = None,
    id_prefix: str = "",
) -> str:
    """The SVG document of `board`; `highlight` squares (row, col) are the last move's tiles.
    `words` says the legend in another language (keys TW, DW, TL, DL, joker, last_move; the
    English ones by default); `id_prefix` keeps the squares' ids unique on a page that holds
    several boards (the replay's)."""
    new = set(highlight)
    size = board.size
    grid = size * CELL
    title_height = 24 if title else 0
    legend, lines = _legend(MARGIN + title_height + grid + 8, words, grid + 2 * MARGIN)
    legend_height = 26 + 18 * (lines - 1)
    width = grid + 2 * MARGIN
    height = grid + 2 * MARGIN + title_height + legend_height
    top = MARGIN + title_height
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    if title:
        parts.append(
            f'<text x="{width // 2}" y="20" font-size="16" '
            f'font-weight="bold" text-anchor="middle">{escape(title)}</text>'
        )
    parts += _coordinates(size, top)
    for row in range(size):
        for col in range(size):
            parts += _square(board, ruleset, row, col, top, (row, col) in new, id_prefix)
    parts += legend
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _coordinates(size: int, top: int) -> list[str]:
    """Column numbers above the grid, row letters to its left."""
    parts = []
    for col in range(size):
        x = MARGIN + col * CELL + CELL // 2
        parts.append(
            f'<text class="coordinate" x="{x}" y="{top - 8}" font-size="12" '
            f'text-anchor="middle">{col + 1}</text>'
        )
    for row in range(size):
        y = top + row * CELL + CELL // 2 + 4
        parts.append(
            f'<text class="coordinate" x="{MARGIN // 2}" y="{y}" font-size="12" '
            f'text-anchor="middle">{chr(ord("A") + row)}</text>'
        )
    return parts


def _square(
    board: Board, ruleset: Ruleset, row: int, col: int, top: int, new: bool, id_prefix: str = ""
) -> list[str]:
    x, y = MARGIN + col * CELL, top + row * CELL
    name = square_name(row, col)
    cell = board.cell(row, col)
    label = PREMIUM_LABELS.get((ruleset.letter_factor[row][col], ruleset.word_factor[row][col]))
    ground = _PREMIUM_FILL.get(label or "", _PLAIN_FILL)
    klass = "square" + (" " + label if label else "")
    parts = [
        f'<rect id={quoteattr(id_prefix + name)} class="{klass}" x="{x}" '
        f'y="{y}" width="{CELL}" height="{CELL}" fill="{ground}" stroke="#ffffff" '
        'stroke-width="1"/>'
    ]
    if cell == EMPTY:
        if label:
            parts.append(
                f'<text x="{x + CELL // 2}" y="{y + CELL // 2 + 4}" font-size="10" '
                f'fill="{_PREMIUM_INK[label]}" text-anchor="middle">{label}</text>'
            )
        return parts
    joker = cell.islower()
    letter = cell.upper()
    classes = "tile" + (" joker" if joker else "") + (" last-move" if new else "")
    fill = _NEW_TILE_FILL if new else _TILE_FILL
    stroke = f' stroke="{_NEW_TILE_STROKE}" stroke-width="3"' if new else ' stroke="#8d6e63"'
    parts.append(
        f'<rect class="{classes}" data-square="{name}" x="{x + 2}" y="{y + 2}" '
        f'width="{CELL - 4}" height="{CELL - 4}" rx="4" fill="{fill}"{stroke}/>'
    )
    ink = _JOKER_INK if joker else "#212121"
    style = ' font-style="italic"' if joker else ""
    parts.append(
        f'<text x="{x + CELL // 2}" y="{y + CELL // 2 + 7}" font-size="20" font-weight="bold" '
        f'fill="{ink}"{style} text-anchor="middle">{escape(letter)}</text>'
    )
    if joker:
        parts.append(
            f'<circle class="joker-mark" cx="{x + CELL // 2}" cy="{y + CELL // 2}" '
            f'r="{CELL // 2 - 5}" fill="none" stroke="{_JOKER_INK}" stroke-width="1.5"/>'
        )
    else:
        parts.append(
            f'<text x="{x + CELL - 5}" y="{y + CELL - 5}" font-size="9" fill="#424242" '
            f'text-anchor="end">{ruleset.value(letter)}</text>'
        )
    return parts


_LETTER_WIDTH = 6.5
"""About how wide a letter of the legend's 11-pixel text is: where other words are given, each
item takes the room its words need, and the items go on as many lines as that takes."""


def _legend(y: int, words: Mapping[str, str] | None, width: int) -> tuple[list[str], int]:
    """What the colours mean, and how a joker and the last move look; and how many lines it
    took (one, in English: the items at fixed places)."""
    said = {**_WORDS, **(words or {})}
    fixed = {**dict.fromkeys(_LEGEND, 104), "joker": 60, "last_move": 0}

    def room(key: str) -> int:
        return fixed[key] if words is None else 16 + round(_LETTER_WIDTH * len(said[key])) + 14

    parts: list[str] = []
    x, lines = MARGIN, 1
    for key in (*_LEGEND, "joker", "last_move"):
        if words is not None and x > MARGIN and x + room(key) - 14 > width - MARGIN // 2:
            x, y, lines = MARGIN, y + 18, lines + 1
        if key == "joker":
            parts.append(
                f'<circle cx="{x + 6}" cy="{y + 6}" r="6" fill="none" stroke="{_JOKER_INK}" '
                'stroke-width="1.5"/>'
            )
        elif key == "last_move":
            parts.append(
                f'<rect x="{x}" y="{y}" width="12" height="12" fill="{_NEW_TILE_FILL}" '
                f'stroke="{_NEW_TILE_STROKE}" stroke-width="2"/>'
            )
        else:
            parts.append(
                f'<rect x="{x}" y="{y}" width="12" height="12" fill="{_PREMIUM_FILL[key]}"/>'
            )
        parts.append(f'<text x="{x + 16}" y="{y + 10}" font-size="11">{escape(said[key])}</text>')
        x += room(key)
    return parts, lines
