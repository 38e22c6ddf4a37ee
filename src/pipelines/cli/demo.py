"""`arbitru demo`: the whole product on a sample season, in one command, on a fresh machine.

In a new folder (`./arbitru-demo-N`, or `--dir`, which must be new or empty) it creates a
SQLite ledger, imports the sample season shipped with Arbitru (`pipelines/data/
sample-season.jsonl`, made by `arbitru simulate`) as a restore (every hash must come out the
same), verifies the hash chain, recomputes the read models (`pipelines.season.recompute`), prints
the season's standings from them (ranked by the demo's own made-up value-12 scale, copied into
the folder as demo-ranking-points.toml: the federation's is not published), writes the
Parquet export (`pipelines.season.export`), draws the final board of the season's last game
as SVG, and ends by saying where everything is and which commands to try next. Nothing
outside the folder is written, except the word list's cache under ARBITRU_HOME, built on
first use.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from engine.games.projections import position
from pipelines.cli.exits import ExitCode
from pipelines.cli.game_common import store
from pipelines.cli.inputs import fail
from pipelines.cli.tournament import show_season
from pipelines.cli.views import err, out, write_svg
from pipelines.files.errors import say_if_output_fails, system_refused
from pipelines.files.whole import output_target, write_whole
from pipelines.games.records import check_payload
from pipelines.games.service import load_game
from pipelines.season.ranking import DEMO_POINTS_FILE, PointsTable
from pipelines.season.tournaments import (
    TournamentResult,
    read_tournaments,
    results,
    season_standings,
    seasons,
)

if TYPE_CHECKING:
    from ledger import EventStore

SAMPLE = "sample-season.jsonl"
"""The sample season, in the `pipelines.data` package."""


def demo_folder(given: Path | None, cwd: Path) -> Path:
    """The folder to fill: `given` when it is new or an empty directory, else the first
    `arbitru-demo-N` that does not exist in `cwd`."""
    if given is not None:
        if given.exists() and not given.is_dir():
            fail(f"{given} exists and is not a directory: give a new folder with --dir")
        if given.is_dir() and any(given.iterdir()):
            fail(
                f"{given} is not empty: the demo writes only into a new or empty folder "
                "(give another --dir, or leave it out for ./arbitru-demo-N)"
            )
        return given
    n = 1
    while (cwd / f"arbitru-demo-{n}").exists():
        n += 1
    return cwd / f"arbitru-demo-{n}"


@contextmanager
def _step(what: str) -> Iterator[None]:
    started = time.monotonic()
    err.print(f"{what} ...", end=" ")
    yield
    err.print(f"done ({time.monotonic() - started:.1f} s)")


@contextmanager
def _undone_on_failure(target: Path, created: bool) -> Iterator[Callable[[], None]]:
    """A demo that fails before its ledger and export are whole (a full disk, Ctrl-C) leaves
    no half a folder: what it wrote is removed, and the folder too when the demo created it.
    Once the given `keep()` is called, what is written stays (and a failure says so)."""
    kept = False

    def keep() -> None:
        nonlocal kept
        kept = True

    try:
        yield keep
    except BaseException:
        if kept:
            raise
        if created:
            shutil.rmtree(target, ignore_errors=True)
        else:
            for child in target.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)
        raise


def demo_command(
    folder: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            help="The folder to create (or an empty one); default: ./arbitru-demo-N.",
            file_okay=False,
        ),
    ] = None,
) -> None:
    """Show Arbitru at work on a simulated season, in a new folder.

    Creates a SQLite ledger, imports and verifies the sample season, recomputes the read
    models, prints the season standings, writes the Parquet export and draws a final board;
    then lists the next commands to try."""
    # The ledger's import and verifier, the recompute and the Parquet writer are imported
    # when the demo runs, not by its help.
    from ledger import import_events, verify_store
    from pipelines.season.export import export_parquet
    from pipelines.season.recompute import Selection, plan, recompute

    started = time.monotonic()
    target = demo_folder(folder, Path.cwd()).absolute()
    created = not target.exists()
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        code = ExitCode.UNWRITTEN if system_refused(exc) else ExitCode.UNUSABLE
        fail(f"cannot create {target}: {exc.strerror or exc}", code)
    db = f"sqlite:///{target / 'ledger.db'}"
    out.print(f"Arbitru demo in [bold]{escape(str(target))}[/]")
    with _undone_on_failure(target, created) as keep, store(db, create=True) as opened:
        with _step("importing the sample season"):
            sample = resources.files("pipelines.data").joinpath(SAMPLE)
            with sample.open("rb") as lines:
                report = import_events(
                    opened, lines, require_same_hashes=True, payload_check=check_payload
                )
        if not report.ok:
            first = report.errors[0]
            fail(f"the shipped sample season does not import (line {first.line}: "
                 f"{'; '.join(first.problems)}): the installation is damaged")  # fmt: skip
        with _step(f"verifying the hash chain of {report.imported} events"):
            verified = verify_store(opened)
        if not verified.ok:
            problem = verified.problem.describe() if verified.problem else "unknown"
            fail(f"the imported ledger does not verify: {problem}")
        with _step(
            "recomputing: every game replayed into the read models (the first run on this "
            "machine also builds the word list's cache, a few seconds)"
        ):
            summary = recompute(opened, plan(opened, Selection()))
        if summary.problems:
            game_id, problem = summary.problems[0]
            fail(f"game {game_id} of the sample season cannot be judged: {problem}")
        tournaments = read_tournaments(opened)
        season = seasons(tournaments)[-1]
        replayed = results(opened, [t for t in tournaments if t.season == season], recomputed=True)
        points_file = _demo_points(target)
        table = PointsTable.load(points_file)
        export = target / "export"
        with _step("writing the Parquet export"):
            export_parquet(opened, export, points=table)
        say_if_output_fails(f"the demo's ledger and Parquet export are in {target}")
        keep()
        svg = target / "final-board.svg"
        last_game = _draw_final_board(opened, replayed, svg)
        variants = _variants(opened, replayed)
    out.print()
    show_season(season, [r.tournament for r in replayed], season_standings(replayed, table), table)
    _next_steps(
        target,
        db,
        verified.last_seq,
        verified.last_hash,
        export,
        svg,
        last_game,
        replayed,
        variants,
        points_file,
    )
    out.print(f"\n(the demo took {time.monotonic() - started:.1f} s)")


def _demo_points(target: Path) -> Path:
    """The demo's own value-12 scale (the federation's is not published), copied into the
    folder so that the commands it suggests can name it."""
    path = target / "demo-ranking-points.toml"
    text = resources.files("pipelines.data").joinpath(DEMO_POINTS_FILE).read_bytes()
    write_whole([text], path, output_target(path))
    return path


def _draw_final_board(opened: EventStore, replayed: tuple[TournamentResult, ...], svg: Path) -> str:
    """The board at the end of the season's last game, as SVG; that game's id."""
    game_id = replayed[-1].tournament.games[-1]
    state = load_game(opened, game_id).state
    assert state.context is not None
    spot = position(state)
    title = f"{game_id}, final board" + (f" (round {spot.round})" if spot.round else "")
    write_svg(svg, spot, state.context.ruleset, title)
    return game_id


def _variants(opened: EventStore, replayed: tuple[TournamentResult, ...]) -> dict[str, str]:
    """The first game of each variant in the season (read from each game's `GameCreated`)."""
    found: dict[str, str] = {}
    for result in replayed:
        for game_id in result.tournament.games:
            created = opened.read_stream(f"game/{game_id}", up_to_version=1)
            if created:
                found.setdefault(created[0].payload.get("variant", "duplicate"), game_id)
    return found


def _next_steps(
    target: Path,
    db: str,
    seq: int,
    head: str,
    export: Path,
    svg: Path,
    game_id: str,
    replayed: tuple[TournamentResult, ...],
    variants: dict[str, str],
    points_file: Path,
) -> None:
    first = replayed[0].tournament
    points = escape(str(points_file))
    tries = [
        (f"arbitru tournament standings {first.tournament_id}", "a tournament's standings"),
        (
            f"arbitru tournament table {first.tournament_id} --tie-break solos,tops --points "
            f"{points}",
            "its ranking table, ties broken",
        ),
        (f"arbitru season table --points {points}", "the season's ranking table"),
        (f"arbitru game replay {game_id} --round 5", "the board after round 5"),
        (f"arbitru game results {game_id} --round 5", "every score of round 5 explained"),
        (f"arbitru game standings {game_id}", "a game's standings"),
    ]
    if "completiv" in variants:
        tries.append((f"arbitru game results {variants['completiv']} --round 2",
                      "completiv: the letter each player took"))  # fmt: skip
    if "anticipation" in variants:
        tries.append((f"arbitru game replay {variants['anticipation']} --player p02",
                      "anticipation: a player's own board"))  # fmt: skip
    if "eliptic" in variants:
        tries.append((f"arbitru game results {variants['eliptic']} --round 1",
                      "eliptic: 8 tiles on the rack, at most 7 laid"))  # fmt: skip
    tries += [
        ("arbitru ledger verify", "check the hash chain again"),
        ("arbitru season table", "the federation's scales: no value-12 scale yet, no points"),
    ]
    standings = export / "standings" / "**" / "*.parquet"
    sql = (
        f"SELECT player_id, any_value(name) AS name, sum(ranking_points) AS points FROM "
        f"read_parquet('{standings}', hive_partitioning=true) WHERE level = 'tournament' "
        "GROUP BY player_id ORDER BY points DESC, player_id LIMIT 5"
    )
    duckdb = f'python -c "import duckdb; duckdb.sql(\\"{sql}\\").show()"'
    width = max(len(command) for command, _ in tries) + 2
    lines = "\n".join(f"  {escape(c).ljust(width)}[dim]# {why}[/]" for c, why in tries)
    out.print(
        f"""
[bold]Where everything is[/]
  ledger (SQLite)  {escape(str(target / "ledger.db"))}
                   head seq {seq}, hash {head}
  read models      the read_* tables of the same database (`arbitru recompute`)
  Parquet export   {escape(str(export))}  (MANIFEST.json lists every file)
  final board      {escape(str(svg))}

[bold]Try next[/], with the ledger named once for all:
  export ARBITRU_DB={escape(db)}
{lines}

The season standings again, from the Parquet export, in DuckDB (pip install duckdb):
  {escape(duckdb)}

The tournament server on this ledger (Ctrl-C stops it), then its standings in a browser:
    arbitru serve
    http://127.0.0.1:8000/api/v1/games/{escape(game_id)}/standings""",
        soft_wrap=True,
    )
