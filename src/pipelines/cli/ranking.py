"""`arbitru tournament table` and `arbitru season table`: what a federation publishes.

A tournament's table gives each player's place, name, club, total, solos, tops, best round
and ranking points; a season's, each player's place and points in every tournament, the
points by event type (the variant a tournament plays) and overall; both the arbiter's warnings
that stand. Both print as a terminal table, `--json`, `--csv FILE` (UTF-8, a header line) or
`--html FILE` (the printable page of `pipelines.pictures.page_html`), with the points of the
federation's ranking system (`pipelines.season.ranking`) and the tie-break rule under the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ledger.default_url import DEFAULT_URL
from pipelines.cli.game_common import options_last, store, view_of
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.tournament import (
    PointsOption,
    SeasonOption,
    TournamentArgument,
    _altered,
    _left_out,
    _tournament_json,
    points_table,
    season_app,
    season_chosen,
    show_left_out,
    tournament_app,
    tournament_named,
)
from pipelines.cli.views import err, out
from pipelines.files.spreadsheet import inert, spreadsheet_lines
from pipelines.files.whole import output_target, write_together
from pipelines.games.limits import escaped as escape
from pipelines.games.stream_names import Misnamed, misnamed_streams
from pipelines.season.ranking import Award, PointsTable, as_number, shown
from pipelines.season.tournaments import (
    TIE_BREAKS,
    SeasonStanding,
    TournamentError,
    TournamentResult,
    results,
    season_standings,
    tie_break_line,
    tie_break_order,
)

TieBreakOption = Annotated[
    str | None,
    typer.Option(
        "--tie-break",
        help=f"Break equal totals by these criteria, in order, comma-separated: "
        f"{', '.join(TIE_BREAKS)} (default: equal totals share the place).",
    ),
]
CsvOption = Annotated[
    Path | None,
    typer.Option("--csv", help="Write the table to this CSV file (UTF-8, a header line)."),
]
HtmlOption = Annotated[
    Path | None,
    typer.Option("--html", help="Write the table as one printable HTML page, notes under it."),
]

TOURNAMENT_COLUMNS = (
    "rank", "player_id", "name", "club", "total", "games", "solos", "tops", "best_round",
    "warnings", "points",
)  # fmt: skip
"""The columns of `tournament table --csv`, in order."""


@dataclass(frozen=True)
class _Asked:
    """How a ranking table was asked for: tie-broken how (--tie-break), with which points
    (--points), written to which files (--csv, --html), from the ledger at `db` (--db), as
    JSON or not (--json). Its fields are the options both tables take last, in this order
    (`options_last`)."""

    tie_break: TieBreakOption = None
    points: PointsOption = None
    csv_file: CsvOption = None
    html_file: HtmlOption = None
    db: DbOption = DEFAULT_URL
    as_json: JsonOption = False


_asked = options_last(_Asked, "asked")

Columns = Sequence[tuple[str, bool]]
"""A shown table's columns: (heading, whether it holds text rather than numbers)."""


def _order(text: str | None) -> tuple[str, ...]:
    try:
        return tie_break_order(text)
    except TournamentError as exc:
        fail(str(exc))


def _write(
    csv_file: Path | None,
    html_file: Path | None,
    csv_rows: Callable[[], Iterable[bytes]],
    html_page: Callable[[], str],
) -> bool:
    """The table to the files asked for (`--csv`, `--html`), written together, whole or not
    at all, each said on stderr; whether there was any."""
    files = []
    if csv_file is not None:
        target = output_target(csv_file, "--csv writes a new path or replaces an earlier file")
        files.append((csv_rows(), csv_file, target))
    if html_file is not None:
        target = output_target(html_file, "--html writes a new path or replaces an earlier file")
        files.append(([html_page().encode("utf-8")], html_file, target))
    if len({target for _lines, _out, target in files}) < len(files):
        fail(f"--csv and --html name the same file {csv_file}: give each its own")
    if not files:
        return False
    counts = write_together(files)
    for (_lines, name, _target), count in zip(files, counts, strict=True):
        rows = f"{count - 1} rows to " if name == csv_file else ""
        err.print(f"wrote {rows}{escape(str(name))}")
    return True


def _show(title: str, columns: Columns, rows: Iterable[Sequence[str]]) -> None:
    """A table in the terminal: text flush left, numbers right, the last column (the
    points) in bold, `warnings` headed `warn.` to leave the names room; every text escaped."""
    view = Table(title=escape(title))
    for i, (name, text) in enumerate(columns):
        last = i == len(columns) - 1
        heading = escape({"warnings": "warn."}.get(name, name))
        view.add_column(
            heading, justify="left" if text else "right", no_wrap=not text,
            style="bold" if last else None, min_width=6 if last else None,
        )  # fmt: skip
    for row in rows:
        view.add_row(*map(escape, row))
    out.print(view)


def _page(
    title: str, columns: Columns, rows: Sequence[Sequence[str]], notes: Sequence[str]
) -> Callable[[], str]:
    """The `--html` page of a table, built only when asked for."""

    def built() -> str:
        from pipelines.pictures.page_html import table_page

        return table_page(title, columns, rows, notes)

    return built


def _notes(table: PointsTable, order: Sequence[str], lines: Iterable[str | None]) -> list[str]:
    """What is printed under a table: the ranking system, each event without all its
    points, the tie-break rule."""
    return [
        f"Ranking points: {table.name}; an event's value is its players, 10 to 100.",
        *(line for line in lines if line),
        tie_break_line(order),
    ]


def _tell(notes: Iterable[str], console=err) -> None:
    """The lines under a table (on stderr when the table went to a CSV file)."""
    for note in notes:
        console.print(note, markup=False, soft_wrap=True)


@dataclass(frozen=True)
class _Published:
    """A ranking table in every form it is published in: shown (terminal, `--html`) under
    its title, with the notes under it, and as `--json` (`body`, then the streams left out
    and why the ledger fails its check, if it does)."""

    title: str
    columns: Columns
    shown_rows: Sequence[Sequence[str]]
    notes: Sequence[str]
    body: dict[str, Any]
    left_out: list[Misnamed]
    altered: str | None


def _publish(table: _Published, csv_lines: Callable[[], Iterable[bytes]], asked: _Asked) -> None:
    """The table where it was asked for: the `--csv`/`--html` files (the notes then on
    stderr), `--json`, or else the terminal; the streams left out named on stderr unless
    only files were written, and exit 1 when there are any."""
    written = _write(
        asked.csv_file,
        asked.html_file,
        csv_lines,
        _page(table.title, table.columns, table.shown_rows, table.notes),
    )
    if written and not asked.as_json:
        _tell(table.notes)
    if asked.as_json:
        emit_json(
            {
                **table.body,
                "left_out": [m.to_dict() for m in table.left_out],
                "ledger_altered": table.altered,
            },
            sort_keys=False,
        )
    elif not written:
        _show(table.title, table.columns, table.shown_rows)
        _tell(table.notes, out)
    if asked.as_json or not written:
        show_left_out(table.left_out)
    if table.left_out:
        raise typer.Exit(1)


def _event(result: TournamentResult, award: Award) -> str:
    t = result.tournament
    played = sum(1 for s in result.standings if s.games)
    return f"{t.tournament_id} ({played} players, value {award.value})"


@tournament_app.command("table")
@_asked
def tournament_table_command(tournament: TournamentArgument, asked: _Asked) -> None:
    """The tournament's table: place, name, club, total, solos, tops, best round, warnings
    and ranking points (the terminal and `--html` show the name, `--csv` and `--json` the id
    too).

    Equal totals share the place and the average of the points of the places they cover,
    unless --tie-break separates them; the rule used is printed under the table."""
    order = _order(asked.tie_break)
    table = points_table(asked.points)
    tournament_id = tournament.removeprefix("tournament/")
    with store(asked.db) as opened:
        found, misnamed = tournament_named(opened, tournament_id)
        (result,) = results(opened, found, tie_break=order)
        left_out = _left_out(misnamed, found, claiming=tournament_id)
        altered = _altered(opened, [result])
    with view_of(altered):
        award = result.award(table)
        notes = _notes(table, order, [table.missing_line(_event(result, award), award)])
        rows = [
            (s.rank, s.player_id, s.name, s.club, s.total, s.games, s.solos, s.tops, s.best_round,
             s.warnings, award.points.get(s.player_id) if s.games else None)
            for s in result.standings
        ]  # fmt: skip
        t = result.tournament
        title = (
            f"{t.name} ({t.tournament_id}, season {t.season}): {len(t.games)} game(s), "
            f"value {award.value}"
        )
        columns = [("#", False), ("player", True), ("club", True)]
        columns += [(c, False) for c in ("total", "games", "solos", "tops", "best", "warnings")]
        columns.append(("points", False))
        shown_rows = [
            [str(rank), name or player, club or "", *map(str, numbers), shown(earned)]
            for rank, player, name, club, *numbers, earned in rows
        ]
        csv_rows = [
            (rank, player, inert(name or ""), inert(club or ""), *numbers, _csv_points(earned))
            for rank, player, name, club, *numbers, earned in rows
        ]
        body = {
            "tournament": _tournament_json(result.tournament),
            "variant": result.variant,
            "value": award.value,
            "points_table": table.name,
            "tie_break": list(order),
            "notes": notes,
            "standings": [
                dict(zip(TOURNAMENT_COLUMNS, (*r[:-1], as_number(r[-1])), strict=True))
                for r in rows
            ],
        }
        _publish(
            _Published(title, columns, shown_rows, notes, body, left_out, altered),
            lambda: spreadsheet_lines(TOURNAMENT_COLUMNS, csv_rows),
            asked,
        )


def _csv_points(points: Any) -> str | None:
    return None if points is None else shown(points)


@season_app.command("table")
@_asked
def season_table_command(season: SeasonOption = None, *, asked: _Asked) -> None:
    """The season's table: each player's place and points in every tournament, the points
    by event type, the warnings and the points overall (`--csv` and `--json` add the id and
    club).

    Each tournament's places are converted by the ranking system: an event's value is its
    players (10 to 100), each value its own scale; tied players share the average."""
    order = _order(asked.tie_break)
    table = points_table(asked.points)
    with store(asked.db) as opened:
        chosen, of_season = season_chosen(opened, season)
        played = results(opened, of_season, tie_break=order)
        left_out = _left_out(misnamed_streams(opened), of_season)
        altered = _altered(opened, played)
    with view_of(altered):
        ranked = season_standings(played, table)
        awards = [r.award(table) for r in played]
        notes = _notes(
            table,
            order,
            [table.missing_line(_event(r, a), a) for r, a in zip(played, awards, strict=True)],
        )
        types = sorted({r.variant or "none" for r in played})
        ids = [r.tournament.tournament_id for r in played]
        header = ["rank", "player_id", "name", "club"]
        header += [f"{t} {what}" for t in ids for what in ("place", "points")]
        header += [f"{kind} points" for kind in types] + ["warnings", "points"]
        title = f"Season {chosen}: ranking table"
        columns = [("#", False), ("player", True)]
        columns += [(r.tournament.place or r.tournament.name, False) for r in played]
        columns += [(kind, False) for kind in types] + [("warnings", False), ("points", False)]
        shown_rows = [_season_shown(s, ids, types) for s in ranked]
        body = {
            "season": chosen,
            "points_table": table.name,
            "tie_break": list(order),
            "tournaments": [
                {
                    "tournament_id": r.tournament.tournament_id,
                    "name": r.tournament.name,
                    "variant": r.variant,
                    "value": a.value,
                }
                for r, a in zip(played, awards, strict=True)
            ],
            "notes": notes,
            "standings": [season_json(s) for s in ranked],
        }
        _publish(
            _Published(title, columns, shown_rows, notes, body, left_out, altered),
            lambda: spreadsheet_lines(header, (_season_csv(s, ids, types) for s in ranked)),
            asked,
        )


def season_json(s: SeasonStanding) -> dict[str, Any]:
    """A season row as JSON: points to the hundredth (null where not known)."""
    return {
        "rank": s.rank, "player_id": s.player_id, "name": s.name, "club": s.club,
        "points": as_number(s.points),
        "by_type": {kind: as_number(n) for kind, n in s.by_type},
        "tournaments": [{"tournament_id": t, "place": p, "points": as_number(n)}
                        for t, p, n in s.tournaments],
        "warnings": s.warnings,
    }  # fmt: skip


def _season_shown(s: SeasonStanding, ids: Sequence[str], types: Sequence[str]) -> list[str]:
    """A season row as shown (terminal, `--html`): points (place) in each tournament."""
    by = {t: (place, n) for t, place, n in s.tournaments}
    kinds = dict(s.by_type)
    cells = [s.rank, s.name or s.player_id]
    cells += [f"{shown(by[t][1])} ({by[t][0]})" if t in by else "" for t in ids]
    cells += [shown(kinds[k]) if k in kinds else "" for k in types]
    return [*map(str, cells), str(s.warnings), shown(s.points)]


def _season_csv(s: SeasonStanding, ids: Sequence[str], types: Sequence[str]) -> list[object]:
    by = {t: (place, n) for t, place, n in s.tournaments}
    kinds = dict(s.by_type)
    row: list[object] = [s.rank, s.player_id, inert(s.name or ""), inert(s.club or "")]
    for t in ids:
        row += [by[t][0], _csv_points(by[t][1])] if t in by else [None, None]
    row += [_csv_points(kinds[k]) if k in kinds else None for k in types]
    return [*row, s.warnings, shown(s.points)]
