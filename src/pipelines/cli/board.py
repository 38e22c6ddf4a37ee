"""The board drawn for a terminal: premiums shaded, a move's tiles highlighted."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text

from engine.board import EMPTY, Board
from engine.ruleset import PREMIUM_LABELS, Ruleset

_PREMIUM_STYLE = {(1, 3): "on red", (1, 2): "on magenta", (3, 1): "on blue", (2, 1): "on cyan"}


def board_table(
    board: Board, ruleset: Ruleset, highlight: Iterable[tuple[int, int, str]] = ()
) -> Table:
    """A rich table of the board; `highlight` cells (row, col, cell) are drawn as laid now."""
    new = {(r, c): cell for r, c, cell in highlight}
    table = Table(show_header=True, show_lines=False, box=None, padding=(0, 0), pad_edge=False)
    table.add_column("", justify="left", min_width=3)
    for col in range(board.size):
        table.add_column(f"{col + 1:>2}", justify="center", min_width=3)
    for row in range(board.size):
        cells: list[Text | str] = [Text(chr(ord("A") + row), style="bold")]
        for col in range(board.size):
            cell = new.get((row, col), board.cell(row, col))
            factors = (ruleset.letter_factor[row][col], ruleset.word_factor[row][col])
            if (row, col) in new:
                cells.append(Text(f" {cell} ", style="bold black on bright_yellow"))
            elif cell != EMPTY:
                cells.append(Text(f" {cell} ", style="bold"))
            elif factors in _PREMIUM_STYLE:
                label = PREMIUM_LABELS[factors]
                cells.append(Text(f"{label:^3}", style=f"dim {_PREMIUM_STYLE[factors]}"))
            else:
                cells.append(Text(" · ", style="dim"))
        table.add_row(*cells)
    return table
