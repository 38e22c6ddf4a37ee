"""The late-deadline rush through the tournament server: N players, each with an account and
an API token, all start together and submit one slip each over HTTP to a real `arbitru serve`
(one process on SQLite; `--workers 2` on PostgreSQL), the path a user's browser or app takes.
Prints, per ledger and N, the submissions per second (N over the time from the release to the
last answer), the median, p99 and worst latency of one submission (first byte sent to last
byte answered), the 503s followed (a pool that did not answer in time: sent again after
Retry-After), and the CPU seconds the server's processes and the clients' spent over the
rush; fails when any slip is not answered 201 with a receipt, or is missing or doubled in the
ledger.

    python benchmarks/server_bench.py [--players 50,200,1000] [--clients 2]
                                      [--pg-url URL | --no-pg] [--quick]

Each ledger is fresh (a SQLite file in a temporary folder, or a scratch PostgreSQL database
created next to the one in --pg-url and dropped afterwards); its accounts are made once through
the accounts' service, and each N gets its own game of N players, its first round drawn, after
a rush of WARM_UP players on a game of its own has warmed the server up: a server at a
deadline has answered earlier rounds' rushes. That first rush after the start is printed too
(`cold`, its own row): the processes' first hundreds of requests run slower (0.33-0.40 CPU
seconds for 200 slips, then 0.22-0.28), in every part of the path alike.

The clients are made cheap so that the figures measure the server: --clients processes share
the players, each opening its players' connections (keep-alive, as browsers already on the
game's page hold them) and preparing each player's HTTP/1.1 request as bytes (bearer token,
Idempotency-Key, JSON body) before the rush; all are released together by a barrier and each
writes its requests on raw asyncio streams and reads the status line, headers and body. They
still run on the same machine as the server and take CPU from it (printed beside the
server's): on the project's two cores the figures are a floor. --quick: 20 players, SQLite
only (a check that the script runs).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
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
WARM_UP = 200
"""Players of a rush on a game of its own before the ones timed (or fewer, as many as the
largest N): a round's rush, as a server has answered before the deadline of a later round."""


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


def prepared(base: str, token: str, game: str, player: str) -> bytes:
    """One player's slip as the bytes of an HTTP/1.1 request, written once before the rush:
    their bearer token, an Idempotency-Key of their own, the JSON body."""
    host = base.split("//", 1)[1].split("/", 1)[0]
    path = f"{base.split(host, 1)[1]}/games/{game}/rounds/1/submissions"
    body = json.dumps({"text": "H8: SERAT"}).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
        f"Idempotency-Key: {game}-{player}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and body (by Content-Length) of one answer."""
    status_line, *lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    if "content-length" not in headers:
        raise RuntimeError(f"an answer without Content-Length: {status_line} {headers}")
    return (
        int(status_line.split()[1]),
        headers,
        await reader.readexactly(int(headers["content-length"])),
    )


async def _clients_share(
    port: int, requests: list[tuple[str, bytes]], ready, go
) -> tuple[float, float, list[float], int, str, float]:
    """One client process's share of the rush: its connections opened, then (once every
    client has opened its own, `ready`, and the rush is released, `go`) each request written
    and its answer read, timed from the first byte sent to the last byte answered. A 503
    (the server's pool did not answer in time) is sent again on the same connection after
    its Retry-After, the slip's time running on. Gives the release time, the time of its
    last answer, the latencies, how many 503s it followed, the first failure ("" none), and
    the CPU seconds it spent from the release on."""
    streams = [await asyncio.open_connection("127.0.0.1", port) for _ in requests]
    ready.wait()
    go.wait()
    released, cpu = time.perf_counter(), time.process_time()
    followed = 0
    failures: list[str] = []

    async def one(player: str, request: bytes, stream) -> float:
        nonlocal followed
        reader, writer = stream
        sent = time.perf_counter()
        while True:
            writer.write(request)
            status, headers, body = await _answer(reader)
            if status != 503:
                break
            followed += 1
            await asyncio.sleep(float(headers.get("retry-after", "1")))
        took = time.perf_counter() - sent
        if status != 201:
            failures.append(f"{player}'s slip answered {status}: {body[:300]!r}")
        elif "event_id" not in json.loads(body):
            failures.append(f"{player}'s receipt names no event: {body[:300]!r}")
        writer.close()
        return took

    latencies = await asyncio.gather(
        *(
            one(player, request, stream)
            for (player, request), stream in zip(requests, streams, strict=True)
        )
    )
    last = time.perf_counter()
    return (
        released,
        last,
        latencies,
        followed,
        failures[0] if failures else "",
        time.process_time() - cpu,
    )


def _client(port: int, requests: list[tuple[str, bytes]], ready, go, results) -> None:
    """A client process: its share of the rush, given back through `results`; a client that
    fails breaks the barriers, so that the others and the script stop rather than wait."""
    try:
        results.put(asyncio.run(_clients_share(port, requests, ready, go)))
    except Exception as exc:
        ready.abort()
        go.abort()
        results.put((0.0, 0.0, [], 0, f"a client failed: {exc!r}", 0.0))


def rush(
    base: str, tokens: dict[str, str], game: str, players: list[str], clients: int, pid: int
) -> tuple[float, list[float], int, float, float]:
    """Everyone at once, one slip each, from `clients` processes each holding its share of the
    players' connections: the time from the release to the last answer, each latency, the
    503s followed, the client processes' CPU seconds and the server's over the rush."""
    port = int(base.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
    requests = [(p, prepared(base, tokens[p], game, p)) for p in players]
    context = multiprocessing.get_context("fork")
    ready, go = context.Barrier(clients + 1), context.Barrier(clients + 1)
    results = context.Queue()
    processes = [
        context.Process(target=_client, args=(port, requests[i::clients], ready, go, results))
        for i in range(clients)
    ]
    for process in processes:
        process.start()
    server_before = cpu_seconds(pid)
    with contextlib.suppress(threading.BrokenBarrierError):  # a client failed: said below
        ready.wait(timeout=120)
        server_before = cpu_seconds(pid)
        go.wait(timeout=120)
    shares = [results.get(timeout=600) for _ in processes]
    server_cpu = cpu_seconds(pid) - server_before
    for process in processes:
        process.join()
    if failure := next((share[4] for share in shares if share[4]), ""):
        sys.exit(failure)
    wall = max(share[1] for share in shares) - min(share[0] for share in shares)
    latencies = [took for share in shares for took in share[2]]
    followed = sum(share[3] for share in shares)
    return wall, latencies, followed, sum(share[5] for share in shares), server_cpu


def counted(url: str, game: str) -> int:
    with EventStore(url) as store:
        slips = [e.payload["player_id"] for e in store.read_stream(f"game/{game}")
                 if e.type == "SubmissionReceived"]  # fmt: skip
    if len(slips) != len(set(slips)):
        sys.exit(f"{game}: a slip recorded twice")
    return len(slips)


def bench(label: str, url: str, workers: int, sizes: list[int], clients: int, folder: Path) -> None:
    tokens = accounts(url, max(sizes))
    process, base = serve(url, workers, folder / f"{label}.log")
    try:
        rushes = [("warm", min(WARM_UP, max(sizes)), "cold"), *((f"rush{n}", n, "") for n in sizes)]
        for game, n, said in rushes:
            players = [f"p{i:04d}" for i in range(n)]
            open_round(base, tokens, game, players)
            wall, latencies, followed, client_cpu, server_cpu = rush(
                base, tokens, game, players, min(clients, n), process.pid
            )
            if counted(url, game) != n:
                sys.exit(f"{label}, {n} players: {counted(url, game)} slips in the ledger")
            ms = [x * 1000 for x in (statistics.median(latencies), p99(latencies), max(latencies))]
            cpu = f"{server_cpu:>10.2f} {client_cpu:>10.2f}"
            print(f"{label:<22} {n:>7} {n / wall:>9.0f} {ms[0]:>9.1f} {ms[1]:>9.1f} {ms[2]:>9.1f}"
                  f" {followed:>6} {cpu} {said}", flush=True)  # fmt: skip
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
    parser.add_argument(
        "--clients", type=int, default=2, help="client processes sharing the players (default 2)"
    )
    parser.add_argument("--quick", action="store_true", help="20 players, SQLite only")
    args = parser.parse_args()
    sizes = [20] if args.quick else [int(n) for n in args.players.split(",")]
    heads = ("players", "slips/s", "p50 ms", "p99 ms", "max ms", "503s", "server cpu", "client cpu")
    widths = (7, 9, 9, 9, 9, 6, 10, 10)
    print(f"{'ledger':<22} " + " ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ.setdefault("ARBITRU_HOME", str(folder / "home"))
        bench(
            "SQLite, 1 process", f"sqlite:///{folder / 'ledger.db'}", 1, sizes, args.clients, folder
        )
        if args.quick or args.no_pg:
            return
        name = f"arbitru_bench_{uuid.uuid4().hex[:12]}"
        admin = args.pg_url.replace("postgresql+psycopg://", "postgresql://", 1)
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        try:
            bench(
                "PostgreSQL, 2 workers",
                f"{args.pg_url.rsplit('/', 1)[0]}/{name}",
                2,
                sizes,
                args.clients,
                folder,
            )
        finally:
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
