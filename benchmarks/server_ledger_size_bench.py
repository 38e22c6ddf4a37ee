"""A submission through the server costs the same however many events the ledger holds: the
latency of slips and of a game's standings over HTTP, on a federation ledger of 10,000 events
and of 1,000,000.

    python benchmarks/server_ledger_size_bench.py [--events 10000,1000000] [--players 200]
        [--cache DIR] [--quick]

For each size the ledger is built once by bulk insert (`proof_bench.build_ledger`: properly
chained rows of other games' history, cached in DIR) and copied; on the copy, accounts are
made through the accounts' service (the game's chief arbiter, and 1 + 2 x P players, each
with an API token), a game of those players is created with its first round drawn (`arbitru
game create|draw`), and a checkpoint is signed over everything (`arbitru ledger checkpoint`),
as a federation's ledger is kept. Then a real `arbitru serve` is started on it with
ARBITRU_CHECKPOINT_KEY set (a SQLite ledger, one process) and timed, each figure sent to
answered:

- the first request after the start (cold: the roster is loaded, the ledger checked, the game
  folded), a slip;
- P slips one after the other, by P players (one each);
- P slips all at once, by P other players (`server_bench.rush`: two client processes on the
  same machine);
- the game's standings (GET), 50 times, while the round is open and after it is closed (the
  close itself, which signs a checkpoint, timed once).

Printed: median, p95, p99 and max in milliseconds, and the CPU seconds the server spent on
each part (on a shared machine, what the work itself cost), and the load average before and
after each size. --quick: 2,000 events and 10
players (a check that the script runs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from proof_bench import build_ledger  # benchmarks/proof_bench.py
from server_bench import RACK, cpu_seconds, p99, rush, serve  # benchmarks/server_bench.py
from tail import p95  # benchmarks/tail.py

from ledger import EventStore
from pipelines.accounts.credentials import issue_token
from pipelines.accounts.service import create_account, grant_role

ARBITRU = str(Path(sys.executable).with_name("arbitru"))
GAME = "scale"
SLIP = "H8: SERAT"  # what server_bench.rush sends
READS = 50


def arbitru(*args: str) -> None:
    """An `arbitru` command, which must succeed."""
    done = subprocess.run([ARBITRU, *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"arbitru {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")


def prepared(cache: Path, events: int, players: list[str], folder: Path) -> tuple[str, Path]:
    """A copy of the cached ledger of `events` events with the accounts, the game (its round
    open) and a checkpoint over all of it; its URL and the checkpoint key's file."""
    base = cache / f"ledger-{events}.db"
    if not base.is_file():
        print(f"building a ledger of {events:,} events once, in {base}")
        started = time.perf_counter()
        build_ledger(base, events)
        print(f"  built in {time.perf_counter() - started:.1f} s")
    work = folder / "ledger.db"
    shutil.copyfile(base, work)
    url = f"sqlite:///{work}"
    tokens = {}
    with EventStore(url) as store:
        for account in ["chief", *players]:
            create_account(store, account, account.title(), actor="bench")
            tokens[account] = issue_token(store, account)
        grant_role(store, "chief", "chief", game_id=GAME, actor="bench")
    roster = folder / "players.txt"
    roster.write_text("\n".join(players) + "\n")
    arbitru("game", "create", GAME, "--players", str(roster), "--db", url)
    arbitru("game", "draw", GAME, "--tiles", RACK, "--db", url)
    key = folder / "federation.key"
    arbitru("keys", "new", str(key))
    started = time.perf_counter()
    arbitru("ledger", "checkpoint", "--key", str(key), "--db", url)
    print(f"  checkpoint over {events:,} events and more: {time.perf_counter() - started:.1f} s")
    (folder / "tokens").write_text("\n".join(f"{a} {t}" for a, t in tokens.items()))
    flushed(work)
    return url, key


def flushed(database: Path) -> None:
    """The copied ledger written out to the disk before the server starts: the copy leaves
    hundreds of megabytes in the page cache for the kernel to write back, and the server's
    first commits (SQLite syncs each one) would wait for them, a cost of the set-up that
    grows with the ledger, not of a submission."""
    for path in (database, database.with_name(database.name + "-wal")):
        if path.is_file():
            with path.open("rb") as file:
                os.fsync(file.fileno())


def tokens_of(folder: Path) -> dict[str, str]:
    return dict(line.split() for line in (folder / "tokens").read_text().splitlines())


def submitted(client: httpx.Client, tokens: dict[str, str], player: str) -> float:
    """One slip by `player`, which must be answered 201; its latency in seconds."""
    headers = {"Authorization": f"Bearer {tokens[player]}", "Idempotency-Key": f"{GAME}-{player}"}
    sent = time.perf_counter()
    url = f"/games/{GAME}/rounds/1/submissions"
    answer = client.post(url, json={"text": SLIP}, headers=headers)
    took = time.perf_counter() - sent
    if answer.status_code != 201:
        sys.exit(f"{player}'s slip answered {answer.status_code}: {answer.text[:300]}")
    return took


def read_standings(client: httpx.Client) -> list[float]:
    latencies = []
    for _ in range(READS):
        sent = time.perf_counter()
        client.get(f"/games/{GAME}/standings").raise_for_status()
        latencies.append(time.perf_counter() - sent)
    return latencies


def closed(client: httpx.Client) -> float:
    """The round closed by its chief arbiter; the latency in seconds."""
    sent = time.perf_counter()
    client.post(f"/games/{GAME}/rounds/1/close", json={}).raise_for_status()
    return time.perf_counter() - sent


def timer(pid: int, events: int) -> Callable[[str, Callable[[], list[float]]], None]:
    """What times one part of the run: its latencies and the server's CPU seconds, printed."""

    def part(what: str, work: Callable[[], list[float]]) -> None:
        before = cpu_seconds(pid)
        seconds = work()
        line(events, what, seconds, cpu_seconds(pid) - before)

    return part


def line(events: int, what: str, seconds: list[float], cpu: float) -> None:
    ms = [s * 1000 for s in seconds]
    figures = (statistics.median(ms), p95(ms), p99(ms), max(ms))
    print(
        f"{events:>9,} {what:<30} {len(ms):>5}"
        + "".join(f" {f:>9.1f}" for f in figures)
        + f" {cpu:>7.2f}",
        flush=True,
    )


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def bench(cache: Path, events: int, per_part: int) -> None:
    players = [f"p{n:04d}" for n in range(1 + 2 * per_part)]
    cold, one_by_one, together = players[0], players[1 : 1 + per_part], players[1 + per_part :]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        url, key = prepared(cache, events, players, folder)
        tokens = tokens_of(folder)
        os.environ["ARBITRU_CHECKPOINT_KEY"] = str(key)  # the server's, as a federation runs it
        process, base = serve(url, 1, folder / "server.log")
        print(f"  load average before the run: {load()}", flush=True)
        try:
            part = timer(process.pid, events)
            with httpx.Client(base_url=base, timeout=300) as client:
                part("first slip after start (cold)", lambda: [submitted(client, tokens, cold)])
                part(
                    "slips one after the other",
                    lambda: [submitted(client, tokens, p) for p in one_by_one],
                )
            part("slips all at once", lambda: rush(base, tokens, GAME, together, 2, process.pid)[1])
            chief = {"Authorization": f"Bearer {tokens['chief']}"}
            with httpx.Client(base_url=base, timeout=300, headers=chief) as client:
                part("standings, round open", lambda: read_standings(client))
                part("round close (signs)", lambda: [closed(client)])
                part("standings, round closed", lambda: read_standings(client))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(30)
        print(f"  load average after the run: {load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", default="10000,1000000", help="comma-separated ledger sizes")
    parser.add_argument("--players", type=int, default=200, help="slips in each part")
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "arbitru-proof-bench"
    )
    parser.add_argument("--quick", action="store_true", help="2,000 events, 10 players")
    args = parser.parse_args()
    sizes = [2000] if args.quick else [int(n) for n in args.events.split(",")]
    per_part = 10 if args.quick else args.players
    args.cache.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("ARBITRU_HOME", str(args.cache / "home"))
    heads = ("n", "median", "p95", "p99", "max", "cpu s")
    print(
        f"{'events':>9} {'what (ms, sent to answered)':<30} "
        + " ".join(f"{h:>{w}}" for h, w in zip(heads, (5, 9, 9, 9, 9, 7), strict=True))
    )
    for events in sizes:
        bench(args.cache, events, per_part)


if __name__ == "__main__":
    main()
