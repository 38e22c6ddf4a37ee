"""`arbitru tournament table` and `arbitru season table`: what a federation publishes.

A tournament's table gives each player's place, name, club, total, solos, tops, best round
and ranking points; a season's, each player's place and points in every tournament, the
points by event type (the variant a tournament plays) and overall. Both print as a terminal
table, `--json`, or `--csv FILE` (UTF-8, a header line), with the points of the federation's
ranking system (`pipelines.season.ranking`) and the tie-break rule under the table.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ledger.default_url import DEFAULT_URL
from pipelines.cli.game_common import store, view_of
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.tournament import (
    PointsOption,
    _altered,
    _left_out,
    _tournament_json,
    _tournaments,
    points_table,
    season_app,
    show_left_out,
    tournament_app,
    tournament_named,
)
from pipelines.cli.views import err, out
from pipelines.files.whole import output_target, write_whole
from pipelines.games.limits import escaped as escape
from pipelines.games.stream_names import misnamed_streams
from pipelines.season.ranking import Award, PointsTable, as_number, shown
from pipelines.season.tournaments import (
    TIE_BREAKS,
    SeasonStanding,
    TournamentError,
    TournamentResult,
    results,
    season_standings,
    seasons,
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

TOURNAMENT_COLUMNS = (
    "rank", "player_id", "name", "club", "total", "games", "solos", "tops", "best_round",
    "points",
)  # fmt: skip
"""The columns of `tournament table --csv`, in order."""


def _order(text: str | None) -> tuple[str, ...]:
    try:
        return tie_break_order(text)
    except TournamentError as exc:
        fail(str(exc))


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """The rows under their header, as CSV in UTF-8, written whole or not at all."""
    target = output_target(path, "--csv writes a new path or replaces an earlier file")

    def lines() -> Iterable[bytes]:
        for row in (header, *rows):
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerow(["" if c is None else c for c in row])
            yield buffer.getvalue().encode("utf-8")

    return write_whole(lines(), path, target)


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


def _event(result: TournamentResult, award: Award) -> str:
    t = result.tournament
    played = sum(1 for s in result.standings if s.games)
    return f"{t.tournament_id} ({played} players, value {award.value})"


@tournament_app.command("table")
def tournament_table_command(
    tournament: Annotated[
        str, typer.Argument(help="The tournament's id, e.g. cupa-bucuresti-2026.")
    ],
    tie_break: TieBreakOption = None,
    points: PointsOption = None,
    csv_file: CsvOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """The tournament's table: place, name, club, total, solos, tops, best round and
    ranking points (the terminal shows the name, `--csv` and `--json` the id too).

    Equal totals share the place and the average of the points of the places they cover,
    unless --tie-break separates them; the rule used is printed under the table."""
    order = _order(tie_break)
    table = points_table(points)
    tournament_id = tournament.removeprefix("tournament/")
    with store(db) as opened:
        found, misnamed = tournament_named(opened, tournament_id)
        (result,) = results(opened, found, tie_break=order)
        left_out = _left_out(misnamed, found, claiming=tournament_id)
        altered = _altered(opened, [result])
    with view_of(altered):
        award = result.award(table)
        notes = _notes(table, order, [table.missing_line(_event(result, award), award)])
        rows = [
            (s.rank, s.player_id, s.name, s.club, s.total, s.games, s.solos, s.tops, s.best_round,
             award.points.get(s.player_id) if s.games else None)
            for s in result.standings
        ]  # fmt: skip
        if csv_file is not None:
            count = _write_csv(
                csv_file, TOURNAMENT_COLUMNS, [(*r[:-1], _csv_points(r[-1])) for r in rows]
            )
            err.print(f"wrote {count - 1} rows to {escape(str(csv_file))}")
            if not as_json:
                _tell(notes)
        if as_json:
            emit_json(
                {
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
                    "left_out": [m.to_dict() for m in left_out],
                    "ledger_altered": altered,
                },
                sort_keys=False,
            )
        elif csv_file is None:
            t = result.tournament
            shown_table = Table(
                title=f"{escape(t.name)} ({t.tournament_id}, season {escape(t.season)}): "
                f"{len(t.games)} game(s), value {award.value}"
            )
            shown_table.add_column("#", justify="right", no_wrap=True)
            shown_table.add_column("player")
            shown_table.add_column("club")
            for column in ("total", "games", "solos", "tops", "best", "points"):
                shown_table.add_column(column, justify="right", no_wrap=True)
            for r in rows:
                rank, player, name, club, *numbers, earned = r
                cells = [str(rank), escape(name or player), escape(club or "")]
                shown_table.add_row(*cells, *(str(n) for n in numbers), shown(earned))
            out.print(shown_table)
            _tell(notes, out)
        if as_json or csv_file is None:
            show_left_out(left_out)
        if left_out:
            raise typer.Exit(1)


def _csv_points(points: Any) -> str | None:
    return None if points is None else shown(points)


@season_app.command("table")
def season_table_command(
    season: Annotated[
        str | None, typer.Option("--season", help="The season (default: the latest one).")
    ] = None,
    tie_break: TieBreakOption = None,
    points: PointsOption = None,
    csv_file: CsvOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """The season's table: each player's place and points in every tournament, the points
    by event type and overall (`--csv` and `--json` add the id and club).

    Each tournament's places are converted by the ranking system: an event's value is its
    players (10 to 100), each value its own scale; tied players share the average."""
    order = _order(tie_break)
    table = points_table(points)
    with store(db) as opened:
        known = _tournaments(opened)
        if not known:
            fail("this ledger holds no tournament: import one (`arbitru ledger import FILE`)")
        chosen = season or seasons(known)[-1]
        of_season = [t for t in known if t.season == chosen]
        if not of_season:
            fail(f"no tournament of season {chosen} (seasons: {', '.join(seasons(known))})")
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
        if csv_file is not None:
            header = ["rank", "player_id", "name", "club"]
            header += [f"{t} {what}" for t in ids for what in ("place", "points")]
            header += [f"{kind} points" for kind in types] + ["points"]
            count = _write_csv(csv_file, header, (_season_csv(s, ids, types) for s in ranked))
            err.print(f"wrote {count - 1} rows to {escape(str(csv_file))}")
            if not as_json:
                _tell(notes)
        if as_json:
            emit_json(
                {
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
                    "left_out": [m.to_dict() for m in left_out],
                    "ledger_altered": altered,
                },
                sort_keys=False,
            )
        elif csv_file is None:
            shown_table = Table(title=f"Season {escape(chosen)}: ranking table")
            shown_table.add_column("#", justify="right", min_width=2)
            shown_table.add_column("player")
            for r in played:
                place = escape(r.tournament.place or r.tournament.name)
                shown_table.add_column(place, justify="right")
            for kind in types:
                shown_table.add_column(escape(kind), justify="right")
            shown_table.add_column("points", justify="right", style="bold", min_width=6)
            for s in ranked:
                by = {t: (place, n) for t, place, n in s.tournaments}
                kinds = dict(s.by_type)
                cells = [f"{shown(by[t][1])} ({by[t][0]})" if t in by else "" for t in ids]
                cells += [shown(kinds[k]) if k in kinds else "" for k in types]
                shown_table.add_row(
                    str(s.rank), escape(s.name or s.player_id), *cells, shown(s.points)
                )
            out.print(shown_table)
            _tell(notes, out)
        if as_json or csv_file is None:
            show_left_out(left_out)
        if left_out:
            raise typer.Exit(1)


def season_json(s: SeasonStanding) -> dict[str, Any]:
    """A season row as JSON: points to the hundredth (null where not known)."""
    return {
        "rank": s.rank, "player_id": s.player_id, "name": s.name, "club": s.club,
        "points": as_number(s.points),
        "by_type": {kind: as_number(n) for kind, n in s.by_type},
        "tournaments": [{"tournament_id": t, "place": p, "points": as_number(n)}
                        for t, p, n in s.tournaments],
    }  # fmt: skip


def _season_csv(s: SeasonStanding, ids: Sequence[str], types: Sequence[str]) -> list[object]:
    by = {t: (place, n) for t, place, n in s.tournaments}
    kinds = dict(s.by_type)
    row: list[object] = [s.rank, s.player_id, s.name, s.club]
    for t in ids:
        row += [by[t][0], _csv_points(by[t][1])] if t in by else [None, None]
    row += [_csv_points(kinds[k]) if k in kinds else None for k in types]
    return [*row, shown(s.points)]
