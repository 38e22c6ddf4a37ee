"""Ledger throughput: appends (batches of 1 and of 100), reading, and read + verify of the
whole chain, on SQLite and PostgreSQL; then the time and peak memory of `arbitru ledger
import` of a season-sized file (200,000 events by default), and of importing its export again
(every event already stored, so all skipped).

    python benchmarks/ledger_bench.py [--events N] [--import-events N] [--pg-url URL | --no-pg]

Targets on SQLite (issue 3): at least 5,000 events/s appended in batches of 100 and at least
100,000 events/s read and verified. Import (issue 7): under 150 MB resident whatever the file
size; each import runs in a fresh process, whose peak resident size the kernel reports when it
ends (`wait4`). The SQLite file lives in a temporary folder; the PostgreSQL part runs in a
scratch database created next to the one in --pg-url and dropped afterwards, and is skipped
with a message when no server answers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg

from ledger import EventStore, NewEvent, verify_store

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _events(count: int, first_round: int) -> list[NewEvent]:
    return [
        NewEvent(
            "SubmissionReceived",
            {"round": first_round + i, "player_id": f"p{i % 40}", "text": "H4: JU(C)ATOR = 52 p"},
            {"actor": "arbitru-ana", "received_at": "2026-11-30T08:07:35Z"},
        )
        for i in range(count)
    ]


def _rate(count: int, work: Callable[[], object], repeat: int = 1) -> float:
    """Events per second of the fastest of `repeat` runs (reads repeat: other processes on a
    shared machine only ever slow a run down)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return count / best


def bench(url: str, events: int, singles: int) -> dict[str, float]:
    """Events per second for each operation on the ledger at `url` (which must be empty)."""
    with EventStore(url) as store:
        opening = NewEvent("GameCreated", {"game_id": "bench", "variant": "duplicate"})
        store.append("game/bench", [opening], expected_version=0)

        def append_singles() -> None:
            for i in range(singles):
                store.append("game/bench", _events(1, i))

        def append_hundreds() -> None:
            for start in range(0, events, 100):
                store.append("game/bench", _events(100, start))

        results = {
            "append, batches of 1": _rate(singles, append_singles),
            "append, batches of 100": _rate(events, append_hundreds),
        }
        total = store.head().seq
        results["read (iter_all)"] = _rate(
            total, lambda: sum(1 for _ in store.iter_all()), repeat=3
        )
        outcome: list[bool] = []
        results["read + verify (ledger verify)"] = _rate(
            total, lambda: outcome.append(verify_store(store).ok), repeat=3
        )
        if not all(outcome):
            raise SystemExit("verification failed on a freshly written ledger")
        return results


def _report(backend: str, results: dict[str, float]) -> None:
    print(f"\n{backend}")
    for name, rate in results.items():
        print(f"  {name:<32} {rate:>12,.0f} events/s")


def _postgres(admin_url: str, events: int, singles: int) -> None:
    plain = admin_url.replace("postgresql+psycopg://", "postgresql://", 1)
    name = f"arbitru_bench_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(plain, autocommit=True, connect_timeout=3) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        print(f"\nPostgreSQL: skipped, no server answers at {admin_url} ({exc})".strip())
        return
    try:
        url = admin_url.rsplit("/", 1)[0] + f"/{name}"
        _report(f"PostgreSQL ({admin_url.rsplit('@', 1)[-1]})", bench(url, events, singles))
    finally:
        with psycopg.connect(plain, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _season_file(path: Path, events: int, per_game: int = 200) -> int:
    """A file of whole games as a federation's season would hold them: each game opened by
    GameCreated, then submissions. Returns its size in bytes."""
    with path.open("w", encoding="utf-8") as out:
        for n in range(events):
            game, index = divmod(n, per_game)
            stream = f"game/s{game}"
            if index == 0:
                payload = {"game_id": f"s{game}", "variant": "duplicate"}
                line = {"type": "GameCreated", "payload": payload}
            else:
                line = {
                    "type": "SubmissionReceived",
                    "payload": {
                        "round": index,
                        "player_id": f"p{index % 40}",
                        "text": "H4: JU(C)ATOR",
                    },
                    "meta": {"actor": "arbitru-ana", "received_at": "2026-11-30T08:07:35Z"},
                }
            line = {"stream": stream, "event_id": str(uuid.UUID(int=n + 1)), **line}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path.stat().st_size


def _run_measured(*args: str) -> tuple[float, float]:
    """Run `arbitru ARGS` in a fresh process: (seconds, peak resident MB)."""
    script = Path(sys.executable).with_name("arbitru")
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(script), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"arbitru {' '.join(args)} failed: {err.decode(errors='replace')}")
    return elapsed, usage.ru_maxrss / 1024  # kilobytes on Linux


def bench_import(folder: Path, events: int) -> None:
    """Time and peak memory of importing a season, then of importing its export again."""
    source = folder / "season.jsonl"
    size = _season_file(source, events)
    db = f"sqlite:///{folder / 'season.db'}"
    print(f"\nImport into SQLite, each in a fresh `arbitru` process ({events:,} events)")
    seconds, peak = _run_measured("ledger", "import", str(source), "--db", db)
    print(f"  {'import, new events':<32} {seconds:>8.1f} s  {peak:>6.0f} MB peak  ", end="")
    print(f"({size / 2**20:.0f} MB file, {events / seconds:,.0f} events/s)")
    export = folder / "export.jsonl"
    _run_measured("ledger", "export", "--db", db, "--out", str(export))
    seconds, peak = _run_measured("ledger", "import", str(export), "--db", db)
    print(
        f"  {'import of its export, skipped':<32} {seconds:>8.1f} s  {peak:>6.0f} MB peak  ", end=""
    )
    print(f"({export.stat().st_size / 2**20:.0f} MB file)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000, help="events appended by 100")
    parser.add_argument("--singles", type=int, default=1_000, help="events appended one by one")
    parser.add_argument("--pg-url", default=DEFAULT_PG_URL)
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument(
        "--import-events", type=int, default=200_000, help="events of the imported file (0: skip)"
    )
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}; {args.events} events in batches of 100, ", end="")
    print(f"{args.singles} one by one; SQLite in WAL mode with synchronous=FULL")
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        _report("SQLite (file, WAL)", bench(url, args.events, args.singles))
    if not args.no_pg:
        _postgres(args.pg_url, args.events, args.singles)
    if args.import_events:
        with tempfile.TemporaryDirectory() as folder:
            bench_import(Path(folder), args.import_events)


if __name__ == "__main__":
    main()
