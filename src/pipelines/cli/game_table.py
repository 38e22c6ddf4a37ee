"""`arbitru game table`: the per-round table of a game (pipelines.games.table) in the
terminal, as JSON, or written to a CSV file and a printable HTML page (read from the ledger;
the ledger is never written)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ledger.default_url import DEFAULT_URL
from pipelines.cli.game_common import GameArg, loaded, view_of
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.views import out
from pipelines.files.whole import output_target, write_together
from pipelines.games.shapes import dictionary_note
from pipelines.games.table import GameTable, Row, csv_lines, game_table, table_json

WHAT_TO_DO = "the table goes to a new path or replaces an earlier file"


def _title(table: GameTable) -> str:
    open_round = table.closed_rounds < table.rounds
    provisional = f", round {table.rounds} open (provisional)" if open_round else ""
    return f"{table.game_id} ({table.variant}): {table.rounds} round(s){provisional}"


def _terminal_row(row: Row, rounds: int) -> list[Text]:
    master = row.player_id is None
    by_round = {c.round: c for c in row.cells}
    cells = []
    for n in range(1, rounds + 1):
        cell = by_round.get(n)
        if cell is None:
            cells.append(Text(""))
        elif master:
            cells.append(Text(str(cell.score)))
        elif cell.mark == "solo":
            cells.append(Text(f"{cell.score}**", style="bold cyan"))
        elif cell.mark == "top":
            cells.append(Text(f"{cell.score}*", style="green"))
        else:
            cells.append(Text(str(cell.score), style="red" if cell.score == 0 else ""))
    pct = "-" if row.pct_of_top is None else f"{row.pct_of_top:.2f}"
    label = "master" if master else f"{row.player_id} {row.name or ''}".strip()
    sums = (row.subtotal, row.solos, row.penalties, row.warnings, row.total, row.negative, pct)
    rank = "" if row.rank is None else str(row.rank)
    return [Text(rank), Text(label), *cells, *(Text(str(v)) for v in sums)]


def show_table(table: GameTable, note: str | None) -> None:
    """The table in the terminal, the master row first and in bold, marks in colour."""
    title = Text(_title(table))  # plain text: an id is never read as markup
    view = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    view.add_column("rank", justify="right")
    view.add_column("player", no_wrap=True)
    for n in range(1, table.rounds + 1):
        view.add_column(str(n), justify="right", no_wrap=True)
    for column in ("sub", "solos", "pen.", "warn.", "total", "neg.", "% top"):
        view.add_column(column, justify="right", no_wrap=True)
    if table.master is not None:
        view.add_row(*_terminal_row(table.master, table.rounds), style="bold")
    for row in table.players:
        view.add_row(*_terminal_row(row, table.rounds))
    natural = Measurement.get(out, out.options.update_width(10_000), view).maximum
    screen = out.width
    out.width = max(screen, natural)  # wider than the screen: printed whole, never cut
    try:
        out.print(view)
    finally:
        out.width = screen
    if table.negative_from == "top":
        out.print("* top reached, ** solo top; sub: the moves' points; pen.: penalties;")
        out.print("warn.: the arbiter's warnings (their cost, if the game sets one, is in pen.);")
        out.print("neg.: total less the top total; % top: total as a percentage of the top total")
    else:
        out.print("anticipation: every player plays their own board, so there is no common top")
        out.print("and no master row; neg.: total less the winner's total")
    if note:
        out.print(f"[yellow]note:[/] {escape(note)}", soft_wrap=True)
    if table.ended:
        out.print(f"game ended: {escape(table.ended)}")


def table_command(
    game: GameArg,
    csv_file: Annotated[
        Path | None,
        typer.Option("--csv", help="Also write the table as CSV (UTF-8, a header line)."),
    ] = None,
    html_file: Annotated[
        Path | None,
        typer.Option("--html", help="Also write the table as one printable HTML page."),
    ] = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """The per-round table: each player's score round by round, with the master row.

    Round scores marked * (top) and ** (solo top), sub-total, solos, penalties, warnings, total,
    negative and % of top, and the rank; the numbers are those of `game standings`."""
    read = loaded(db, game)
    state = read.state
    if state.context is None or state.created is None:
        fail(f"{read.stream} cannot be read: its first event is not a usable GameCreated")
    table = game_table(read.game_id, state)
    files = []
    if csv_file is not None:
        files.append((csv_lines(table), csv_file, output_target(csv_file, WHAT_TO_DO)))
    if html_file is not None:
        from pipelines.pictures.table_html import table_html

        page = table_html(table, _title(table))
        files.append(([page.encode("utf-8")], html_file, output_target(html_file, WHAT_TO_DO)))
    if len({target for _lines, _out, target in files}) < len(files):
        fail(f"--csv and --html name the same file {csv_file}: give each its own")
    with view_of(read.altered):
        if files:
            write_together(files)
        if as_json:
            emit_json({**table_json(table, state), "ledger_altered": read.altered})
            return
        show_table(table, dictionary_note(state))
        for _lines, name, _target in files:
            out.print(f"wrote {escape(str(name))}")
