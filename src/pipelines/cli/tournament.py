"""`arbitru tournament standings`, `arbitru season standings` and `arbitru simulate`; and
`arbitru tournament sigles`, a tournament's standings as a SIGLES file (`pipelines.season.sigles`).

Standings are read from the ledger (every game replayed; nothing is written to it). `simulate`
plays a seeded sample season (`pipelines.simulate.season`) into a scratch ledger and writes it
as a ledger export, importable with `arbitru ledger import`.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from ledger.default_url import DEFAULT_URL
from ledger.jsonl import row_line
from pipelines.cli.exits import ExitCode
from pipelines.cli.game_common import store, view_of
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.views import err, out
from pipelines.files.whole import output_target, write_whole
from pipelines.games.limits import escaped as escape
from pipelines.games.service import events_altered, ledger_altered
from pipelines.games.stream_names import Misnamed, misnamed_streams
from pipelines.season.ranking import RankingError, as_number, shown
from pipelines.season.sigles import sigles_lines
from pipelines.season.tournaments import (
    PointsTable,
    SeasonStanding,
    Tournament,
    TournamentError,
    TournamentResult,
    TournamentStanding,
    read_tournaments,
    results,
    season_standings,
    seasons,
)
from pipelines.simulate.season import PLACES, fixed_record, plan_season, play_season

if TYPE_CHECKING:
    from ledger import EventStore

tournament_app = typer.Typer(
    help="Tournaments: standings across their games.", no_args_is_help=True
)
season_app = typer.Typer(
    help="Seasons: ranking points over their tournaments.", no_args_is_help=True
)

PointsOption = Annotated[
    Path | None,
    typer.Option(
        "--points",
        help="A TOML file of ranking scales (`name`, and under [scales] one line per event "
        "value 10-100: the points of places 1, 2, 3, ...); default: the federation's "
        "published scales shipped with Arbitru.",
    ),
]
TournamentArgument = Annotated[
    str, typer.Argument(help="The tournament's id, e.g. cupa-bucuresti-2026.")
]
SeasonOption = Annotated[
    str | None, typer.Option("--season", help="The season (default: the latest one).")
]


@tournament_app.command("standings")
def tournament_standings_command(
    tournament: TournamentArgument,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """Players ranked by the sum of their game totals.

    Ties share the place; with the games each played and their solos. A stream whose
    opening event names another id (an older ledger) is left out and named: exit 1."""
    tournament_id = tournament.removeprefix("tournament/")
    with store(db) as opened:
        found, misnamed = tournament_named(opened, tournament_id)
        (result,) = results(opened, found)
        altered = _altered(opened, [result])
    left_out = _left_out(misnamed, [result.tournament], claiming=tournament_id)
    with view_of(altered):
        if as_json:
            emit_json(
                {
                    "tournament": _tournament_json(result.tournament),
                    "standings": [asdict(s) for s in result.standings],
                    "left_out": [m.to_dict() for m in left_out],
                    "ledger_altered": altered,
                }
            )
        else:
            show_tournament(result.tournament, result.standings)
            show_left_out(left_out)
    if left_out:
        raise typer.Exit(1)


@tournament_app.command("sigles")
def tournament_sigles_command(
    tournament: TournamentArgument,
    out_file: Annotated[
        Path,
        typer.Option("--out", help="The SIGLES file to write (a new path or an earlier file)."),
    ],
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """Write the tournament's results as a SIGLES file for French-system federations.

    Latin-1 lines "place","name","total" in the order of the standings, ties sharing the
    place; names with a letter Latin-1 lacks (ș ț ă) are transliterated and listed on stderr.
    Nothing is written from an altered ledger, or when a stream is left out (exit 1)."""
    target = output_target(out_file)
    tournament_id = tournament.removeprefix("tournament/")
    with store(db) as opened:
        found, misnamed = tournament_named(opened, tournament_id)
        (result,) = results(opened, found)
        altered = _altered(opened, [result])
        left_out = _left_out(misnamed, found, claiming=tournament_id)
    if altered is not None:
        fail(
            f"the ledger fails its integrity check, so nothing was written: {altered}",
            ExitCode.NEGATIVE,
        )
    if left_out:
        show_left_out(left_out)
        fail(
            f"{len(left_out)} stream(s) of {tournament_id} left out, so its results would be "
            "incomplete: nothing was written",
            ExitCode.NEGATIVE,
        )
    if not result.standings:
        fail(f"tournament {tournament_id} has no player yet: there is nothing to write")
    written = sigles_lines(result.standings)
    if written.transliterated:
        changed = "; ".join(f"{a} -> {b}" for a, b in written.transliterated)
        err.print(
            f"{len(written.transliterated)} name(s) transliterated, as Latin-1 lacks their "
            f"letters: {changed}",
            markup=False,
            soft_wrap=True,
        )
    count = write_whole(written.lines, out_file, target)
    if as_json:
        emit_json(
            {
                "tournament_id": tournament_id,
                "out": str(out_file),
                "players": count,
                "encoding": "latin-1",
                "transliterated": [
                    {"recorded": a, "written": b} for a, b in written.transliterated
                ],
            }
        )
        return
    out.print(
        f"wrote {count} player(s) of {tournament_id} to {out_file} (SIGLES, Latin-1)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


@season_app.command("standings")
def season_standings_command(
    season: SeasonOption = None,
    points: PointsOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """Players ranked by ranking points summed over the season's tournaments.

    Each tournament place is converted by the ranking system: an event's value is its
    players (10 to 100), each value its own scale; tied players share the average."""
    table = points_table(points)
    with store(db) as opened:
        chosen, of_season = season_chosen(opened, season)
        played = results(opened, of_season)
        ranked = season_standings(played, table)
        altered = _altered(opened, played)
        left_out = _left_out(misnamed_streams(opened), of_season)
    missing = [table.missing_line(_event_name(r), r.award(table)) for r in played]
    missing = [line for line in missing if line]
    with view_of(altered):
        if as_json:
            emit_json(
                {
                    "season": chosen,
                    "points_table": {"name": table.name, "values": list(table.scales)},
                    "missing": missing,
                    "tournaments": [t.tournament_id for t in of_season],
                    "standings": [_season_json(s) for s in ranked],
                    "left_out": [m.to_dict() for m in left_out],
                    "ledger_altered": altered,
                }
            )  # fmt: skip
        else:
            show_season(chosen, of_season, ranked, table)
            for line in missing:
                out.print(line, markup=False, soft_wrap=True)
            show_left_out(left_out)
    if left_out:
        raise typer.Exit(1)


def _altered(opened: EventStore, found: Sequence[TournamentResult]) -> str | None:
    """Why the ledger fails its quick check, or some event of these tournaments or of their
    games no longer gives its hash; None when everything holds."""
    problems = (
        ledger_altered(opened),
        *(r.altered for r in found),
        *(events_altered(opened.read_stream(f"tournament/{r.tournament.tournament_id}"))
          for r in found),
    )  # fmt: skip
    return next((problem for problem in problems if problem is not None), None)


def points_table(path: Path | None) -> PointsTable:
    """The points table asked for, or a clear error."""
    try:
        return PointsTable.load(path)
    except RankingError as exc:
        fail(str(exc))


def _event_name(result: TournamentResult) -> str:
    """A tournament as the line about its missing points names it."""
    played = sum(1 for s in result.standings if s.games)
    return f"{result.tournament.tournament_id} ({played} players)"


def tournament_named(
    opened: EventStore, tournament_id: str
) -> tuple[list[Tournament], dict[str, Misnamed]]:
    """The one tournament of that id (as a list, as `results` takes it) and the ledger's
    misnamed streams; an id no tournament has is an error listing those there are, and saying
    why when a stream of that id is left out."""
    known = _tournaments(opened)
    misnamed = misnamed_streams(opened)
    found = [t for t in known if t.tournament_id == tournament_id]
    if not found:
        listed = ", ".join(t.tournament_id for t in known) or "none"
        asked = misnamed.get(f"tournament/{tournament_id}")
        why = f"; tournament/{tournament_id} is left out: {asked.problem}" if asked else ""
        fail(f"no tournament {tournament_id} in this ledger (tournaments: {listed}){why}")
    return found, misnamed


def season_chosen(opened: EventStore, season: str | None) -> tuple[str, list[Tournament]]:
    """The season asked for (by default the latest) and its tournaments; a ledger without
    tournaments, or a season none of them plays in, is an error naming the seasons there are."""
    known = _tournaments(opened)
    if not known:
        fail("this ledger holds no tournament: import one (`arbitru ledger import FILE`)")
    chosen = season or seasons(known)[-1]
    of_season = [t for t in known if t.season == chosen]
    if not of_season:
        fail(f"no tournament of season {chosen} (seasons: {', '.join(seasons(known))})")
    return chosen, of_season


def _tournaments(opened: EventStore) -> tuple[Tournament, ...]:
    try:
        return read_tournaments(opened)
    except TournamentError as exc:
        fail(str(exc))


def _left_out(
    misnamed: dict[str, Misnamed], tournaments: list[Tournament], claiming: str | None = None
) -> list[Misnamed]:
    """The streams left out of these standings: the tournaments' games whose GameCreated
    names another game, the game streams whose GameCreated names one of the tournaments'
    games, and the tournament streams naming another tournament (only those claiming or
    bearing the id `claiming`, when given)."""
    ids = {g for t in tournaments for g in t.games}
    return [
        m
        for m in misnamed.values()
        if (m.stream.startswith("game/") and (m.stream.split("/", 1)[1] in ids or m.named in ids))
        or (
            m.stream.startswith("tournament/")
            and (claiming is None or claiming in (m.named, m.stream.split("/", 1)[1]))
        )
    ]


def show_left_out(left_out: list[Misnamed]) -> None:
    """One line on stderr for each stream left out, naming it and what is wrong."""
    for m in left_out:
        err.print(m.line, markup=False, soft_wrap=True)


def _tournament_json(t: Tournament) -> dict[str, Any]:
    return {
        "tournament_id": t.tournament_id, "name": t.name, "season": t.season,
        "starts_on": t.starts_on, "ends_on": t.ends_on, "place": t.place,
        "players": len(t.players), "games": list(t.games),
    }  # fmt: skip


def _season_json(s: SeasonStanding) -> dict[str, Any]:
    return {
        "rank": s.rank, "player_id": s.player_id, "name": s.name,
        "points": as_number(s.points),
        "tournaments": [{"tournament_id": t, "place": p, "points": as_number(n)}
                        for t, p, n in s.tournaments],
    }  # fmt: skip


def show_tournament(t: Tournament, ranked: tuple[TournamentStanding, ...]) -> None:
    """A tournament's standings: place, player, total over its games, games played, solos."""
    title = (
        f"{escape(t.name)} ({t.tournament_id}, season {escape(t.season)}): {len(t.games)} game(s)"
    )
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("player")
    table.add_column("name")
    for column in ("total", "games", "solos"):
        table.add_column(column, justify="right")
    for s in ranked:
        cells = (s.rank, s.player_id, escape(s.name or ""), s.total, s.games, s.solos)
        table.add_row(*(str(cell) for cell in cells))
    out.print(table)


def show_season(
    season: str,
    tournaments: list[Tournament],
    ranked: tuple[SeasonStanding, ...],
    points: PointsTable,
) -> None:
    """The season's standings: points per tournament (place in brackets) and the sum; each
    tournament's column is headed by its town (its name when it has none)."""
    table = Table(title=f"Season {escape(season)}: ranking points ({escape(points.name)})")
    table.add_column("#", justify="right")
    table.add_column("player", no_wrap=True)
    for t in tournaments:
        table.add_column(escape(t.place or t.name), justify="right")
    table.add_column("points", justify="right", style="bold")
    for s in ranked:
        by_tournament = {t: (place, n) for t, place, n in s.tournaments}
        cells = [
            f"{shown(by_tournament[t.tournament_id][1])} ({by_tournament[t.tournament_id][0]})"
            if t.tournament_id in by_tournament
            else "-"
            for t in tournaments
        ]
        table.add_row(str(s.rank), escape(s.name or s.player_id), *cells, shown(s.points))
    out.print(table)


def simulate_command(
    out_file: Annotated[
        Path, typer.Option("--out", help="The JSON Lines file to write (a new path or a file).")
    ],
    seed: Annotated[int, typer.Option("--seed", help="The seed of every choice.")],
    tournaments: Annotated[
        int, typer.Option("--tournaments", min=1, max=len(PLACES), help="Tournaments.")
    ] = 3,
    games: Annotated[
        int, typer.Option("--games", min=1, max=20, help="Games in each tournament.")
    ] = 3,
    players: Annotated[
        int, typer.Option("--players", min=2, max=60, help="Players in each tournament.")
    ] = 12,
) -> None:
    """Write a simulated season as a ledger export (JSON Lines).

    Tournaments of several games (duplicate, completiv, anticipation in turn), played to the
    end by simulated players of different strength with the engine's move generator, with
    mistakes, late slips and the arbiter's corrections. The same seed and sizes write the same
    file, byte for byte. Import it with `arbitru ledger import FILE`."""
    target = output_target(out_file)
    started = time.monotonic()
    plan = plan_season(seed, tournaments, games, players)
    with (
        tempfile.TemporaryDirectory(prefix="arbitru-simulate-") as scratch,
        store(f"sqlite:///{Path(scratch) / 'played.db'}", create=True) as scratch_store,
        store(f"sqlite:///{Path(scratch) / 'season.db'}", create=True) as season_store,
    ):
        total = sum(len(t.games) for t in plan.tournaments)
        done = 0
        for tournament in plan.tournaments:
            err.print(f"playing {tournament.name} ({len(tournament.games)} game(s))")
            play_season(scratch_store, plan, only=tournament.tournament_id)
            done += len(tournament.games)
            err.print(f"  {done}/{total} games, {time.monotonic() - started:.0f} s")
        fixed_record(scratch_store, season_store, seed)
        rows = (row_line(row) for row in season_store.iter_rows())
        count = write_whole(rows, out_file, target)
    out.print(
        f"wrote {count} events of season {plan.season} ({len(plan.tournaments)} tournament(s), "
        f"{total} game(s)) to {escape(str(out_file))} in {time.monotonic() - started:.1f} s"
    )
