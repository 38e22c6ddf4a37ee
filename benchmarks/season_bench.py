"""Recompute throughput on a season of at least 1,000,000 events, on SQLite and PostgreSQL.

    python benchmarks/season_bench.py [--events N] [--workers W] [--pg-url URL | --no-pg]

The season is the sample game of fixtures/games (a real 14-player, 22-round duplicate game
with late, corrected and annulled slips, 396 events) replicated under as many game ids as it
takes to reach N events (2,526 games for the default 1,000,000), each copy with its own event
ids, so that every game is judged from scratch (a game's judgements are cached per game, never
across games). The ledger is built once and kept (SQLite: in the temporary folder; PostgreSQL:
in a database `arbitru_season_bench` beside the one in --pg-url), then reused while it holds
the same number of events.

It times `recompute --rebuild` through the same functions the command calls (every game
replayed in W worker processes, the read models dropped, created and filled in one
transaction), and then a second run with nothing new. It prints events/s and player-rounds/s
(target: at least 20,000 events/s on this 2-core machine), and events per CPU-second, which
other processes sharing the machine disturb much less than the wall-clock rate. On SQLite it
then times the Parquet export of the same season against pyarrow writing the same rows
without Arbitru (`export_bench.py`; target: at most 1.5 times as long).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
import uuid
from pathlib import Path

import export_bench  # benchmarks/export_bench.py: the Parquet export against raw pyarrow
import psycopg
import sqlalchemy as sa

from ledger import EventStore, NewEvent
from pipelines.season.recompute import Selection, plan, recompute, workers_for

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "games" / "duplicate-game.jsonl"
GAME = "cb26-p1"
DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BENCH_DB = "arbitru_season_bench"
TARGET = 20_000


def _template() -> tuple[list[dict], list[dict]]:
    events = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    tournament = [e for e in events if e["stream"].startswith("tournament/")]
    game = [e for e in events if e["stream"] == f"game/{GAME}"]
    return tournament, game


def _copy(game: list[dict], game_id: str) -> list[NewEvent]:
    """The sample game as game `game_id`: new event ids, references to them renamed."""
    renamed = {e["event_id"]: str(uuid.uuid4()) for e in game}
    copied = []
    for e in game:
        payload = {
            k: renamed.get(v, v) if isinstance(v, str) else v for k, v in e["payload"].items()
        }
        if e["type"] == "GameCreated":
            payload["game_id"] = game_id
        copied.append(NewEvent(e["type"], payload, e["meta"], event_id=renamed[e["event_id"]]))
    return copied


def build(url: str, events: int) -> int:
    """A ledger of at least `events` events (kept when it already has them; a build that was
    interrupted goes on from the games already stored); its size."""
    tournament, game = _template()
    games = -(-(events - len(tournament)) // len(game))
    total = len(tournament) + games * len(game)
    with EventStore(url) as store:
        if store.head().seq == total:
            return total
        with store.engine.connect() as connection:
            stored = set(
                connection.execute(sa.text("SELECT DISTINCT stream FROM events")).scalars()
            )
        start = time.perf_counter()
        if tournament[0]["stream"] not in stored:
            with store.writer() as writer:
                writer.append(
                    tournament[0]["stream"],
                    [NewEvent(e["type"], e["payload"], e["meta"]) for e in tournament],
                )
        todo = [n for n in range(games) if f"game/bench-{n:05d}" not in stored]
        for first in range(0, len(todo), 50):
            with store.writer() as writer:
                for n in todo[first : first + 50]:
                    writer.append(f"game/bench-{n:05d}", _copy(game, f"bench-{n:05d}"))
            print(
                f"\r  building: {min(first + 50, len(todo))}/{len(todo)} games", end="", flush=True
            )
        took = time.perf_counter() - start
        print(f"\r  built {total:,} events ({games:,} games) in {took:.0f} s")
    return total


def _cpu_s() -> float:
    """CPU time of this process and of its reaped children (the worker processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bench(url: str, workers: int | None) -> dict[str, float]:
    with EventStore(url) as store:
        cpu = _cpu_s()
        start = time.perf_counter()
        work = plan(store, Selection(), everything=True)
        used = workers_for(work, workers)
        replayed = [start]
        summary = recompute(
            store,
            work,
            workers=workers,
            rebuild=True,
            on_game=lambda _source: replayed.__setitem__(0, time.perf_counter()),
        )
        elapsed = time.perf_counter() - start
        cpu = _cpu_s() - cpu
        again = time.perf_counter()
        idle = recompute(store, plan(store, Selection()))
        idle_s = time.perf_counter() - again
    assert idle.games == 0
    return {
        "games": summary.games,
        "events": summary.events,
        "player_rounds": summary.rows["player_rounds"],
        "seconds": elapsed,
        "write_s": start + elapsed - replayed[0],
        "events_per_s": summary.events / elapsed,
        "player_rounds_per_s": summary.rows["player_rounds"] / elapsed,
        "workers": used,
        "cpu_s": cpu,
        "events_per_cpu_s": summary.events / cpu,
        "idle_s": idle_s,
    }


def _report(name: str, figures: dict[str, float]) -> None:
    verdict = "meets" if figures["events_per_s"] >= TARGET else "below"
    print(
        f"{name}: {figures['games']:,} games, {figures['events']:,} events, "
        f"{figures['player_rounds']:,} player-rounds in {figures['seconds']:.1f} s with "
        f"{figures['workers']} worker(s): {figures['events_per_s']:,.0f} events/s, "
        f"{figures['player_rounds_per_s']:,.0f} player-rounds/s ({verdict} the "
        f"{TARGET:,} events/s target); a second run with nothing new: {figures['idle_s']:.2f} s"
    )
    print(
        f"  replayed in {figures['seconds'] - figures['write_s']:.1f} s, written in one "
        f"transaction in {figures['write_s']:.1f} s (from the last game replayed to the commit)"
    )
    print(
        f"  CPU time {figures['cpu_s']:.1f} s: {figures['events_per_cpu_s']:,.0f} events per "
        "CPU-second (wall-clock rates fall when other processes share the cores; this less)"
    )


def _pg_bench_url(pg_url: str) -> str | None:
    base = sa.make_url(pg_url)
    admin = base.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as connection:
            found = connection.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (BENCH_DB,)
            ).fetchone()
            if not found:
                connection.execute(f"CREATE DATABASE {BENCH_DB}")
    except psycopg.OperationalError as exc:
        print(f"PostgreSQL skipped: {str(exc).strip().splitlines()[0]}")
        return None
    return base.set(database=BENCH_DB).render_as_string(hide_password=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--pg-url", default=DEFAULT_PG_URL)
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    args = parser.parse_args()
    print(f"recompute of a season of {args.events:,}+ events on {os.cpu_count()} core(s)")
    if not args.no_sqlite:
        folder = Path(tempfile.gettempdir()) / "arbitru-season-bench"
        folder.mkdir(exist_ok=True)
        url = f"sqlite:///{folder / f'season-{args.events}.db'}"
        build(url, args.events)
        _report("SQLite", bench(url, args.workers))
        export_bench.report(export_bench.export_figures(url))
    if not args.no_pg:
        url = _pg_bench_url(args.pg_url)
        if url is not None:
            build(url, args.events)
            _report("PostgreSQL", bench(url, args.workers))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
