"""The per-round table of a game as one printable HTML page (`game table --html FILE`, the
page of `pipelines.pictures.page_html`): each round's cell telling on hover (its `title`) the
rack, the move and its score, or why it scores nothing."""

from __future__ import annotations

from html import escape

from pipelines.games.table import Cell, GameTable, Row
from pipelines.pictures.page_html import page


def _hover(cell: Cell, master: bool) -> str:
    move = cell.move or "no move"
    text = f"round {cell.round}: rack {cell.rack or '-'}; {move}; {cell.score} point(s)"
    if cell.solo_bonus:
        text += f"; solo +{cell.solo_bonus}"
    if cell.penalty:
        text += f"; penalty -{cell.penalty}"
    if cell.warnings:
        text += f"; {cell.warnings} warning(s)"
    if cell.message and not master:
        text += f" ({cell.message})"
    return text


def _cell_html(cell: Cell | None, master: bool) -> str:
    if cell is None:
        return "<td></td>"
    classes = [cell.mark] if cell.mark and not master else []
    if cell.score == 0 and not master:
        classes.append("zero")
    mark = {"top": "*", "solo": "**"}.get(cell.mark or "", "") if not master else ""
    attribute = f' class="{" ".join(classes)}"' if classes else ""
    title = escape(_hover(cell, master), quote=True)
    return f'<td{attribute} title="{title}">{cell.score}{mark}</td>'


def _row_html(row: Row, rounds: int) -> str:
    master = row.player_id is None
    by_round: dict[int, Cell] = {c.round: c for c in row.cells}
    pct = "" if row.pct_of_top is None else f"{row.pct_of_top:.2f}"
    sums = (row.subtotal, row.solos, row.penalties, row.warnings, row.total, row.negative, pct)
    label = "master" if master else f"{row.player_id} {row.name or ''}".strip()
    cells = [
        f"<td>{'' if row.rank is None else row.rank}</td>",
        f'<td class="name">{escape(label)}</td>',
        *(_cell_html(by_round.get(n), master) for n in range(1, rounds + 1)),
        *(f"<td>{value}</td>" for value in sums),
    ]
    klass = ' class="master"' if master else ""
    return f"<tr{klass}>{''.join(cells)}</tr>"


def table_html(table: GameTable, title: str) -> str:
    """The page: a heading, the table (master row first), and a legend of the marks."""
    heads = [
        '<th>rank</th><th class="name">player</th>',
        *(f"<th>{n}</th>" for n in range(1, table.rounds + 1)),
        "<th>sub-total</th><th>solos</th><th>penalties</th><th>warnings</th><th>total</th>",
        "<th>negative</th><th>% of top</th>",
    ]
    rows = [table.master] if table.master is not None else []
    body = "\n".join(_row_html(r, table.rounds) for r in [*rows, *table.players])
    if table.negative_from == "top":
        legend = (
            "* the round's top reached, ** solo top (the solo bonus is in the total); "
            "negative: total less the top total. Hover a score for the rack and the move."
        )
    else:
        legend = (
            "Anticipation: every player plays their own board, so there is no common top and "
            "no master row; negative: total less the winner's. Hover a score for the rack "
            "and the move."
        )
    return page(title, "".join(heads), body, [legend])
