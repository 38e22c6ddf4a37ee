"""A deadline rush: fifty terminals submitting a slip to one game at the same moment, each a
real `arbitru game submit` process, on SQLite and PostgreSQL. Prints, over a few runs, the
median and p95 of the time until all fifty are recorded, the worst single submit (from its
start to its exit), one submit alone on the same machine just before (what a rush costs
beside it: on a machine shared with other work both grow), and how many were decided again
under the append lock after another terminal wrote first; fails when any terminal gives up or
any slip is missing or doubled.

    python benchmarks/rush_bench.py [--terminals N] [--runs N] [--pg-url URL | --no-pg]

Each run starts from a fresh ledger (a SQLite file in a temporary folder, or a scratch
PostgreSQL database created next to the one in --pg-url and dropped afterwards) holding one
game of N players, its first round drawn. The processes include Python's start-up and the
word list's loading, as a terminal in a hall would.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psycopg
from tail import p95

from ledger import EventStore

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
ARBITRU = str(Path(sys.executable).with_name("arbitru"))


def _arbitru(*args: str) -> None:
    subprocess.run([ARBITRU, *args], check=True, capture_output=True)


def rush(url: str, terminals: int) -> tuple[float, float, int, float]:
    """One rush on a fresh ledger at `url`: the time until every slip is recorded, the worst
    single submit, how many were decided again after a conflict, and one submit alone."""
    players = [f"p{n:03d}" for n in range(terminals)]
    _arbitru("game", "create", "hd1", *(a for p in [*players, "alone"] for a in ("--player", p)),
             "--db", url, "--actor", "bench")  # fmt: skip
    _arbitru("game", "draw", "hd1", "--tiles", "VARAEIT", "--db", url, "--actor", "bench")
    began = time.monotonic()
    _arbitru("game", "submit", "hd1", "--player", "alone", "--text", "H8: VARA", "--db", url)
    alone = time.monotonic() - began
    started = time.monotonic()
    running = [
        (time.monotonic(), subprocess.Popen(
            [ARBITRU, "game", "submit", "hd1", "--player", p, "--text", "H8: VARA", "--db", url,
             "--actor", f"terminal-{p}", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ))
        for p in players
    ]  # fmt: skip
    worst, conflicts = 0.0, 0
    for began, process in running:
        out, err = process.communicate()
        worst = max(worst, time.monotonic() - began)
        if process.returncode != 0:
            raise SystemExit(f"a terminal gave up (exit {process.returncode}): {err.strip()}")
        conflicts += json.loads(out)["conflicts"]
    total = time.monotonic() - started
    with EventStore(url, upgrade=False) as store:
        submitted = sorted(
            e.payload["player_id"]
            for e in store.read_stream("game/hd1")
            if e.type == "SubmissionReceived"
        )
    if submitted != sorted([*players, "alone"]):
        raise SystemExit(f"recorded {len(submitted) - 1} slips for {terminals} terminals")
    return total, worst, conflicts, alone


def _report(backend: str, runs: list[tuple[float, float, int, float]], terminals: int) -> None:
    totals = [total for total, _, _, _ in runs]
    print(
        f"{backend:<28} all {terminals} recorded: median {statistics.median(totals):5.1f} s, "
        f"p95 {p95(totals):5.1f} s; worst single submit {max(r[1] for r in runs):5.1f} s; "
        f"one submit alone {statistics.median(r[3] for r in runs):4.1f} s (median); "
        f"decided again under the lock {statistics.median(r[2] for r in runs):.0f} "
        f"of {terminals} (median)"
    )


def _sqlite(terminals: int, runs: int) -> None:
    found = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            found.append(rush(f"sqlite:///{Path(folder) / 'rush.db'}", terminals))
    _report("SQLite (file, WAL)", found, terminals)


def _postgres(admin_url: str, terminals: int, runs: int) -> None:
    plain = admin_url.replace("postgresql+psycopg://", "postgresql://", 1)
    found = []
    for _ in range(runs):
        name = f"arbitru_bench_{uuid.uuid4().hex[:12]}"
        try:
            with psycopg.connect(plain, autocommit=True, connect_timeout=3) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
        except psycopg.Error as exc:
            print(f"PostgreSQL: skipped, no server answers at {admin_url} ({exc})".strip())
            return
        try:
            found.append(rush(admin_url.rsplit("/", 1)[0] + f"/{name}", terminals))
        finally:
            with psycopg.connect(plain, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _report(f"PostgreSQL ({admin_url.rsplit('@', 1)[-1]})", found, terminals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--terminals", type=int, default=50, help="submits started at once")
    parser.add_argument("--runs", type=int, default=3, help="rushes per database")
    parser.add_argument("--pg-url", default=DEFAULT_PG_URL)
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}; {args.terminals} `arbitru game submit` processes "
          f"started at once, {args.runs} runs per database")  # fmt: skip
    _sqlite(args.terminals, args.runs)
    if not args.no_pg:
        _postgres(args.pg_url, args.terminals, args.runs)


if __name__ == "__main__":
    main()
