"""The late-deadline rush through the tournament server: N players, each with an account and
an API token, all start together and submit one slip each over HTTP to a real `arbitru serve`
(one process on SQLite; `--workers 2` on PostgreSQL), the path a user's browser or app takes.
Prints, per ledger and N, the submissions per second (N over the time until the last answer),
the median, p99 and worst latency of one submission (sent to answered), and the CPU seconds the
server's processes spent; fails when any slip is not answered 201 or is missing or doubled in
the ledger.

    python benchmarks/server_bench.py [--players 50,200,1000] [--pg-url URL | --no-pg] [--quick]

Each ledger is fresh (a SQLite file in a temporary folder, or a scratch PostgreSQL database
created next to the one in --pg-url and dropped afterwards); its accounts are made once through
the accounts' service, and each N gets its own game of N players, its first round drawn. The
clients (asyncio, httpx) run on the same machine as the server and take CPU from it: on the
project's two cores the figures are a floor, not what a server alone would do. --quick: 20
players, SQLite only (a check that the script runs).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import psycopg

from ledger import EventStore
from pipelines.accounts.credentials import issue_token
from pipelines.accounts.service import create_account, grant_role

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
ARBITRU = str(Path(sys.executable).with_name("arbitru"))
RACK = "AERTSIO"


def p99(values: list[float]) -> float:
    """The 99th percentile by nearest rank (one of the values)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accounts(url: str, players: int) -> dict[str, str]:
    """An admin and `players` players on the ledger at `url`, each with a token."""
    tokens = {}
    with EventStore(url, upgrade=True) as store:
        for account in ["boss", *(f"p{n:04d}" for n in range(players))]:
            create_account(store, account, account.title(), actor="bench")
            tokens[account] = issue_token(store, account)
        grant_role(store, "boss", "admin", actor="bench")
    return tokens


def serve(url: str, workers: int, log: Path) -> tuple[subprocess.Popen, str]:
    """`arbitru serve` on a free port, waited for; the process and its API's base URL."""
    port = free_port()
    process = subprocess.Popen(
        [ARBITRU, "serve", "--db", url, "--port", str(port), "--workers", str(workers),
         "--log-level", "warning"],
        stdout=log.open("ab"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/api/v1"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"arbitru serve ended with {process.returncode}: {log.read_text()}")
        try:
            httpx.get(f"{base}/openapi.json", timeout=2).raise_for_status()
            return process, base
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    sys.exit(f"arbitru serve did not answer within a minute: {log.read_text()}")


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process and its children (uvicorn's workers) so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for each in [pid, *(int(c) for c in children.read_text().split())]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def open_round(base: str, tokens: dict[str, str], game: str, players: list[str]) -> None:
    admin = {"Authorization": f"Bearer {tokens['boss']}"}
    with httpx.Client(base_url=base, headers=admin, timeout=120) as client:
        made = client.post(
            "/games", json={"game_id": game, "variant": "duplicate", "players": players[:100]}
        )
        made.raise_for_status()
        for start in range(100, len(players), 100):
            joined = client.post(
                f"/games/{game}/players", json={"players": players[start : start + 100]}
            )
            joined.raise_for_status()
        client.post(f"/games/{game}/rounds/1/draw", json={"tiles": RACK}).raise_for_status()


async def rush(
    base: str, tokens: dict[str, str], game: str, players: list[str]
) -> tuple[float, list[float]]:
    """Everyone at once, one slip each: the time until the last answer, and each latency."""
    limits = httpx.Limits(max_connections=len(players), max_keepalive_connections=len(players))
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:
        start = asyncio.Event()

        async def one(player: str) -> float:
            headers = {
                "Authorization": f"Bearer {tokens[player]}",
                "Idempotency-Key": f"{game}-{player}",
            }
            await start.wait()
            sent = time.perf_counter()
            answer = await client.post(
                f"/games/{game}/rounds/1/submissions", json={"text": "H8: SERAT"}, headers=headers
            )
            took = time.perf_counter() - sent
            if answer.status_code != 201:
                sys.exit(f"{player}'s slip answered {answer.status_code}: {answer.text[:300]}")
            return took

        tasks = [asyncio.create_task(one(p)) for p in players]
        await asyncio.sleep(0.2)
        began = time.perf_counter()
        start.set()
        latencies = await asyncio.gather(*tasks)
        return time.perf_counter() - began, latencies


def counted(url: str, game: str) -> int:
    with EventStore(url) as store:
        slips = [e.payload["player_id"] for e in store.read_stream(f"game/{game}")
                 if e.type == "SubmissionReceived"]  # fmt: skip
    if len(slips) != len(set(slips)):
        sys.exit(f"{game}: a slip recorded twice")
    return len(slips)


def bench(label: str, url: str, workers: int, sizes: list[int], folder: Path) -> None:
    tokens = accounts(url, max(sizes))
    process, base = serve(url, workers, folder / f"{label}.log")
    try:
        for n in sizes:
            game = f"rush{n}"
            players = [f"p{i:04d}" for i in range(n)]
            open_round(base, tokens, game, players)
            cpu_before = cpu_seconds(process.pid)
            wall, latencies = asyncio.run(rush(base, tokens, game, players))
            cpu = cpu_seconds(process.pid) - cpu_before
            if counted(url, game) != n:
                sys.exit(f"{label}, {n} players: {counted(url, game)} slips in the ledger")
            ms = [x * 1000 for x in (statistics.median(latencies), p99(latencies), max(latencies))]
            print(f"{label:<22} {n:>7} {n / wall:>9.0f} {ms[0]:>9.1f} {ms[1]:>9.1f} {ms[2]:>9.1f}"
                  f" {cpu:>8.2f}", flush=True)  # fmt: skip
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="50,200,1000", help="comma-separated player counts")
    parser.add_argument(
        "--pg-url",
        default=DEFAULT_PG_URL,
        help="a PostgreSQL database to create scratch ones beside",
    )
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument("--quick", action="store_true", help="20 players, SQLite only")
    args = parser.parse_args()
    sizes = [20] if args.quick else [int(n) for n in args.players.split(",")]
    heads = ("players", "slips/s", "p50 ms", "p99 ms", "max ms", "cpu s")
    print(
        f"{'ledger':<22} "
        + " ".join(f"{h:>{w}}" for h, w in zip(heads, (7, 9, 9, 9, 9, 8), strict=True))
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ.setdefault("ARBITRU_HOME", str(folder / "home"))
        bench("SQLite, 1 process", f"sqlite:///{folder / 'ledger.db'}", 1, sizes, folder)
        if args.quick or args.no_pg:
            return
        name = f"arbitru_bench_{uuid.uuid4().hex[:12]}"
        admin = args.pg_url.replace("postgresql+psycopg://", "postgresql://", 1)
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        try:
            bench(
                "PostgreSQL, 2 workers", f"{args.pg_url.rsplit('/', 1)[0]}/{name}", 2, sizes, folder
            )
        finally:
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
