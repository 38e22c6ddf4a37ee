"""The late-deadline rush on PostgreSQL: two hundred players submitting through two server
processes on one ledger in the same second, some of them losing the answer (the connection
closed before it is read) and retrying with the same Idempotency-Key, one server killed with
SIGKILL in the middle. Every slip is recorded exactly once, every 201 is in the ledger, and the
chain verifies: what `writes.write` promises of retries, held against real processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from ledger import EventStore
from pipelines.accounts.credentials import issue_token
from pipelines.accounts.service import create_account, grant_role
from tests.server.conftest import (
    API,
    Server,
    arbitru_command,
    drop_pg_database,
    fresh_pg_database,
    start_server,
)

pytestmark = pytest.mark.heavy

PLAYERS = [f"p{n:03d}" for n in range(1, 201)]
RACK = "AERTSIO"
SLIP = {"text": "H8: SERAT"}


@dataclass
class Ledger:
    """A PostgreSQL ledger with an admin and two hundred players, each with a token."""

    db: str
    tokens: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def ledger() -> Iterator[Ledger]:
    db, name = fresh_pg_database()
    made = Ledger(db)
    try:
        with EventStore(db, upgrade=True) as store:
            for account in ["boss", *PLAYERS]:
                create_account(store, account, account.title(), actor="operator")
                made.tokens[account] = issue_token(store, account)
            grant_role(store, "boss", "admin", actor="operator")
        yield made
    finally:
        drop_pg_database(name)


def open_round(server: Server, ledger: Ledger, game: str) -> None:
    """A game of the two hundred (a hundred at a time, as a request takes), its first round
    drawn."""
    admin = {"Authorization": f"Bearer {ledger.tokens['boss']}"}
    with httpx.Client(base_url=server.base, headers=admin, timeout=60) as client:
        made = client.post(
            "/games", json={"game_id": game, "variant": "duplicate", "players": PLAYERS[:100]}
        )
        assert made.status_code == 201, made.text
        joined = client.post(f"/games/{game}/players", json={"players": PLAYERS[100:]})
        assert joined.status_code == 201, joined.text
        drawn = client.post(f"/games/{game}/rounds/1/draw", json={"tiles": RACK})
        assert drawn.status_code == 201, drawn.text


def submissions(ledger: Ledger, game: str) -> Counter[str]:
    """How many SubmissionReceived the ledger holds per player."""
    with EventStore(ledger.db) as store:
        events = store.read_stream(f"game/{game}")
    return Counter(e.payload["player_id"] for e in events if e.type == "SubmissionReceived")


def verify(ledger: Ledger) -> None:
    done = subprocess.run(
        [*arbitru_command(), "ledger", "verify", "--db", ledger.db],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


async def dropped(server: Server, player: str, token: str, path: str, key: str) -> None:
    """The whole request sent, the connection closed before the answer is read."""
    _, writer = await asyncio.open_connection("127.0.0.1", server.port)
    body = b'{"text": "H8: SERAT"}'
    writer.write(
        (
            f"POST {API}{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nIdempotency-Key: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        + body
    )
    await writer.drain()
    writer.close()


async def submit(
    servers: list[Server], player: str, token: str, game: str, how: str, start: asyncio.Event
) -> httpx.Response:
    """One player's slip: sent as `how` says to the first server, then retried with the same
    key through the others in turn until one answers."""
    path = f"/games/{game}/rounds/1/submissions"
    key = f"slip-{game}-{player}"
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": key}
    await start.wait()
    if how == "dropped":
        await dropped(servers[0], player, token, path, key)
    async with httpx.AsyncClient(headers=headers) as client:
        if how == "impatient":
            with contextlib.suppress(httpx.TimeoutException):
                await client.post(
                    servers[0].base + path, json=SLIP, timeout=httpx.Timeout(5, read=0.001)
                )
        for attempt in range(40):
            server = servers[attempt % len(servers)]
            try:
                answer = await client.post(server.base + path, json=SLIP, timeout=30)
            except httpx.TransportError:
                await asyncio.sleep(0.05)
                continue
            if answer.status_code != 503:  # busy: sent again, as Retry-After says
                return answer
            await asyncio.sleep(float(answer.headers.get("Retry-After", "1")))
    raise AssertionError(f"{player}'s slip was never answered")


def way_of(n: int) -> str:
    return ("patient", "dropped", "impatient", "patient")[n % 4]


def test_two_hundred_players_through_two_servers_each_slip_recorded_once(ledger, tmp_path):
    first = start_server(ledger.db, tmp_path / "a.log")
    second = start_server(ledger.db, tmp_path / "b.log")
    try:
        open_round(first, ledger, "rush")

        async def everyone() -> list[httpx.Response]:
            start = asyncio.Event()
            tasks = [
                asyncio.create_task(
                    submit(
                        [first, second] if n % 2 else [second, first],
                        player,
                        ledger.tokens[player],
                        "rush",
                        way_of(n),
                        start,
                    )
                )
                for n, player in enumerate(PLAYERS)
            ]
            await asyncio.sleep(0.1)
            start.set()
            return await asyncio.gather(*tasks)

        answers = asyncio.run(everyone())
    finally:
        first.stop()
        second.stop()
    assert Counter(a.status_code for a in answers) == {201: 200}, [
        a.text for a in answers if a.status_code != 201
    ][:3]
    receipts = [a.json() for a in answers]
    assert len({r["event_id"] for r in receipts}) == 200
    assert submissions(ledger, "rush") == dict.fromkeys(PLAYERS, 1)
    verify(ledger)


def test_a_server_killed_mid_rush_loses_no_answered_slip_and_retries_record_the_rest_once(
    ledger, tmp_path
):
    doomed = start_server(ledger.db, tmp_path / "doomed.log")
    survivor = start_server(ledger.db, tmp_path / "survivor.log")
    try:
        open_round(survivor, ledger, "killed")
        answered_by_doomed: list[dict] = []

        async def everyone() -> list[httpx.Response]:
            start = asyncio.Event()

            async def through_doomed_first(player: str) -> httpx.Response:
                answer = await submit(
                    [doomed, survivor], player, ledger.tokens[player], "killed", "patient", start
                )
                if answer.status_code == 201 and doomed.process.poll() is None:
                    answered_by_doomed.append(answer.json())
                return answer

            async def killer() -> None:
                await start.wait()
                while len(answered_by_doomed) < 30:
                    await asyncio.sleep(0.001)
                os.kill(doomed.process.pid, signal.SIGKILL)

            tasks = [asyncio.create_task(through_doomed_first(p)) for p in PLAYERS]
            kill = asyncio.create_task(killer())
            await asyncio.sleep(0.1)
            start.set()
            answers = await asyncio.gather(*tasks)
            await kill
            return answers

        answers = asyncio.run(everyone())
        assert doomed.process.wait(10) == -signal.SIGKILL
    finally:
        doomed.stop()
        survivor.stop()
    assert Counter(a.status_code for a in answers) == {201: 200}, [
        a.text for a in answers if a.status_code != 201
    ][:3]
    with EventStore(ledger.db) as store:
        found = store.find_events([r["event_id"] for r in answered_by_doomed])
    assert len(found) == len(answered_by_doomed) >= 30
    assert submissions(ledger, "killed") == dict.fromkeys(PLAYERS, 1)
    verify(ledger)
