"""The season's commands at the top of `arbitru`: `recompute` (here), and the others' (export,
simulate, demo) registered beside it.

    arbitru recompute [--db URL] [--season S | --tournament T | --game G] [--follow]
                      [--rebuild] [--workers N] [--skip-verify] [--json]
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ledger import EventStore
from pipelines.cli.game_common import reported, unless_altered
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.ledger_progress import shows_progress
from pipelines.season.recompute import (
    GAMES_PER_TASK,
    MAX_WORKERS,
    GameSource,
    Plan,
    Selection,
    Summary,
    plan,
    recompute,
    recorded_head,
    workers_for,
)


@contextmanager
def _progress(console: Console, plan: Plan, shown: bool) -> Iterator[Callable[[GameSource], None]]:
    """A bar of games done, with events/s and the time left, on a terminal only."""
    if not shown or not plan.todo:
        yield lambda _source: None
        return
    started = time.monotonic()
    done_events = 0
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games  {task.fields[rate]} events/s"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("recompute", total=len(plan.todo), rate="-")

        def advance(source: GameSource) -> None:
            nonlocal done_events
            done_events += source.events
            rate = done_events / max(time.monotonic() - started, 1e-6)
            bar.update(task, advance=1, rate=f"{rate:,.0f}")

        yield advance


def recompute_command(
    db: DbOption = "sqlite:///arbitru.db",
    season: Annotated[str | None, typer.Option(help="Only the games of this season.")] = None,
    tournament: Annotated[
        str | None, typer.Option(help="Only the games of this tournament (its id).")
    ] = None,
    game: Annotated[str | None, typer.Option(help="Only this game (its id).")] = None,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            help="Replay only the games with events (or a filing) new since the last run; "
            "the rows of every other game are left as they are.",
        ),
    ] = False,
    rebuild_all: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Drop the read-model tables, create them again and replay every game "
            "(after a word-list or rules change).",
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            help="Processes replaying games (default: one per core for large jobs); at most "
            f"{MAX_WORKERS}, and capped at one per core and per {GAMES_PER_TASK} games.",
        ),
    ] = None,
    skip_verify: Annotated[
        bool,
        typer.Option(
            "--skip-verify",
            help="Replay without checking the chain first (forensic work on an altered "
            "ledger): the read models are then not vouched for.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Replay games from the ledger into the read models (per player-round results, rounds,
    game standings), in one transaction, recording the ledger head read up to. Run again with
    nothing new, it does no work. The chain is checked first: an altered ledger is refused."""
    chosen = [name for name, value in (("--season", season), ("--tournament", tournament),
                                       ("--game", game)) if value is not None]  # fmt: skip
    if len(chosen) > 1:
        fail(f"give one of --season, --tournament, --game, not {' and '.join(chosen)}")
    if rebuild_all and (chosen or follow):
        fail("--rebuild replays every game: give it without --season, --tournament, --game "
             "or --follow")  # fmt: skip
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        fail(f"--workers {workers}: give between 1 and {MAX_WORKERS} (one per core is what helps)")
    selection = Selection(season, tournament, game.removeprefix("game/") if game else None)
    console = Console(stderr=True, emoji=False)
    if skip_verify:
        console.print(
            "[bold yellow]warning:[/] --skip-verify: the ledger's chain is not checked, so "
            "these read models are not vouched for",
            soft_wrap=True,
        )
    with reported(), unless_altered("nothing was recomputed", "replays it anyway"):
        EventStore(db, upgrade=False).close()
        with EventStore(db) as store:
            before = recorded_head(store)
            work = plan(store, selection, follow=follow, everything=rebuild_all)
            if chosen and not work.selected:
                what = (
                    f"game {selection.game}" if game is not None
                    else f"game of tournament {tournament}" if tournament is not None
                    else f"game of season {season}"
                )  # fmt: skip
                fail(
                    f"no {what} in this ledger: check the id and --db (`arbitru game list` "
                    "lists the games); nothing was recomputed"
                )
            if workers is not None and work.todo:
                _say_capped(console, work, workers)
            with _progress(console, work, shows_progress(console, as_json)) as advance:
                summary = recompute(
                    store, work, workers=workers, on_game=advance, rebuild=rebuild_all,
                    verify=not skip_verify,
                )  # fmt: skip
            if work.moved:
                console.print(
                    f"the ledger changed under the read models (seq {before.seq if before else 0}"
                    " has another hash now): every game was replayed",
                    soft_wrap=True,
                    highlight=False,
                )
    _report(summary, before, as_json)
    if summary.problems:
        raise typer.Exit(1)


def _say_capped(console: Console, work: Plan, wanted: int) -> None:
    """A note on stderr when --workers asks for more processes than the work can use."""
    used = workers_for(work, wanted)
    if used < wanted:
        console.print(
            f"--workers {wanted}: using {used} ({len(work.todo)} game(s) to replay, "
            f"{GAMES_PER_TASK} a task, {os.cpu_count() or 1} core(s)); more would wait idle",
            soft_wrap=True,
            highlight=False,
        )


def _report(summary: Summary, before, as_json: bool) -> None:
    document = {
        "games": summary.games,
        "events": summary.events,
        "rows": summary.rows,
        "head": {"seq": summary.head.seq, "hash": summary.head.hash},
        "previous_head": None if before is None else {"seq": before.seq, "hash": before.hash},
        "problems": [{"game_id": g, "problem": p} for g, p in summary.problems],
    }
    if as_json:
        emit_json(document, sort_keys=False)
        return
    out = Console(emoji=False)
    if summary.games == 0:
        out.print(f"Nothing new: the read models are up to date at seq {summary.head.seq}.")
        return
    table = Table("games", "events", *summary.rows, title="Recomputed")
    table.add_row(str(summary.games), str(summary.events), *map(str, summary.rows.values()))
    out.print(table)
    out.print(f"Read models at seq {summary.head.seq} ({summary.head.hash[:16]}...).")
    for game_id, problem in summary.problems:
        Console(stderr=True, soft_wrap=True, emoji=False).print(
            f"game {game_id} has no rows: {problem}", markup=False
        )
