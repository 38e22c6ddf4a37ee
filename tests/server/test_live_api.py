"""The live stream (`GET /games/{game}/live`) through the real server: notices in order with
the ledger's seqs, nothing of an open round's slips but their count, a reconnection that
misses nothing and repeats nothing, a heartbeat when idle, and on PostgreSQL a write through
one server process told on a stream of another."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import psycopg
import pytest

from ledger import EventStore
from tests.ledger.conftest import PG_ADMIN_URL
from tests.server.conftest import (
    Server,
    drop_pg_database,
    fresh_pg_database,
    start_server,
)

HEARTBEAT = "0.5"
"""The heartbeat of this module's SQLite server: short, for the idle test."""

SLOW_HEARTBEAT = "120"
"""The heartbeat of the PostgreSQL servers: longer than any wait here, so that only waking
(in the process, or by a notification from the other) can bring a notice in time."""

WAIT = 10.0
"""How long a test waits for its notices before failing: the read timeout of its stream
(shorter than FastAPI's own keep-alive comment, sent after 15 s of silence) and the longest
a `Stream.notices` reads."""


@dataclass
class Notice:
    event: str | None = None
    id: str | None = None
    data: Any = None
    comments: list[str] = field(default_factory=list)


class Stream:
    """An open live stream, read notice by notice (comments kept on the notice they precede;
    a block of comments alone is a notice with no event)."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.raw: list[str] = []
        self._lines = response.iter_lines()

    def next(self) -> Notice:
        notice = Notice()
        for line in self._lines:
            self.raw.append(line)
            if line == "":
                if notice.event or notice.comments or notice.id:
                    return notice
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "":
                notice.comments.append(value)
            elif name == "event":
                notice.event = value
            elif name == "id":
                notice.id = value
            elif name == "data":
                notice.data = json.loads(value)
        raise AssertionError(f"the stream ended: {self.raw}")

    def notices(self, count: int) -> list[Notice]:
        """The next `count` notices (events), skipping comments (WAIT seconds at most)."""
        found: list[Notice] = []
        deadline = time.monotonic() + WAIT
        while len(found) < count:
            assert time.monotonic() < deadline, f"only {found} within {WAIT} s: {self.raw}"
            notice = self.next()
            if notice.event is not None:
                found.append(notice)
        return found


@contextmanager
def open_stream(
    server: Server, game: str, after: int | None = None, **headers: str
) -> Iterator[Stream]:
    """The game's live stream, open (its first comment read) while the block runs."""
    params = {} if after is None else {"after": after}
    timeout = httpx.Timeout(10, read=WAIT)
    with (
        httpx.Client(base_url=server.base, headers=headers, timeout=timeout) as client,
        client.stream("GET", f"/games/{game}/live", params=params) as response,
    ):
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = Stream(response)
        first = stream.next()
        assert first.comments and first.comments[0].startswith("following game/")
        yield stream


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, _arbitru_home) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("live")
    db = f"sqlite:///{folder / 'ledger.db'}"
    with EventStore(db):
        pass
    running = start_server(db, folder / "server.log", env={"ARBITRU_LIVE_HEARTBEAT": HEARTBEAT})
    running.account("boss", "Boss", "admin")
    running.account("ana", "Ana")
    running.account("bob", "Bob")
    try:
        yield running
    finally:
        running.stop()


def new_game(server: Server, game: str, **given: Any) -> httpx.Client:
    admin = server.client("boss")
    body = {"game_id": game, "variant": "duplicate", "players": ["ana", "bob"], **given}
    made = admin.post("/games", json=body)
    assert made.status_code == 201, made.text
    return admin


def posted(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(path, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_round_is_told_from_draw_to_close_in_order_with_the_ledgers_seqs(live_server) -> None:
    admin = new_game(live_server, "live1")
    ana, bob = live_server.client("ana"), live_server.client("bob")
    with open_stream(live_server, "live1") as stream:
        seqs = [
            posted(admin, "/games/live1/rounds/1/draw", {"tiles": "CARTEAM"})["seq"],
            posted(ana, "/games/live1/rounds/1/submissions", {"text": "H8: CARTEA"})["seq"],
            posted(bob, "/games/live1/rounds/1/submissions", {"text": "H8: CARTE"})["seq"],
            posted(admin, "/games/live1/rounds/1/close", {})["seq"],
        ]
        told = stream.notices(4)
    assert [n.event for n in told] == [
        "round_opened",
        "slip_received",
        "slip_received",
        "round_closed",
    ]
    assert [int(n.id) for n in told] == seqs
    opened, first, second, closed = (n.data for n in told)
    assert (opened["round"], opened["rack"], opened["deadline"]) == (1, "CARTEAM", None)
    assert (first["slips"], second["slips"]) == (1, 2)
    results = admin.get("/games/live1/rounds/1/results").json()
    assert closed["top"]["move"] == results["top"]["move"]
    assert closed["top"]["score"] == results["top"]["score"]
    assert closed["top"]["found_by"] == ["ana"]
    assert closed["solos"] == [p["player_id"] for p in results["players"] if p["solo"]]


def test_the_public_never_sees_an_open_rounds_move_or_player_in_the_stream(live_server) -> None:
    admin = new_game(live_server, "live2")
    ana = live_server.client("ana")
    with open_stream(live_server, "live2") as stream:
        posted(admin, "/games/live2/rounds/1/draw", {"tiles": "MECARTA"})
        slip = posted(ana, "/games/live2/rounds/1/submissions", {"text": "H8: CARTEA"})
        annulled = admin.post(
            "/games/live2/rounds/1/annulments",
            json={"player": "ana", "reason": "Unreadable slip"},
        )
        assert annulled.status_code == 201, annulled.text
        told = stream.notices(3)
        open_round = "\n".join(stream.raw)
        posted(admin, "/games/live2/rounds/1/close", {})
        posted(admin, "/games/live2/end", {"reason": "Arbiter ended"})
        told += stream.notices(2)
    assert [n.event for n in told] == [
        "round_opened",
        "slip_received",
        "decision",
        "round_closed",
        "game_ended",
    ]
    assert told[1].data == {"game_id": "live2", "version": slip["version"], "round": 1, "slips": 1}
    assert told[2].data["kind"] == "annulment" and told[2].data["round"] == 1
    for secret in ("CARTEA", "H8", "ana", "Unreadable"):
        assert secret not in open_round, secret
    assert told[4].data["reason"] == "Arbiter ended"


def test_a_client_that_reconnects_with_last_event_id_misses_nothing_and_sees_nothing_twice(
    live_server,
) -> None:
    admin = new_game(live_server, "live3")
    ana, bob = live_server.client("ana"), live_server.client("bob")
    with open_stream(live_server, "live3") as stream:
        posted(admin, "/games/live3/rounds/1/draw", {"tiles": "CARTEAM"})
        posted(ana, "/games/live3/rounds/1/submissions", {"text": "H8: CARTEA"})
        before = stream.notices(2)
    # Dropped: what happens meanwhile is told on reconnecting.
    posted(bob, "/games/live3/rounds/1/submissions", {"text": "H8: CARTE"})
    posted(admin, "/games/live3/rounds/1/close", {})
    posted(admin, "/games/live3/rounds/2/draw", {"tiles": "ISUNOR"})
    with open_stream(live_server, "live3", **{"Last-Event-ID": before[-1].id}) as stream:
        after = stream.notices(3)
        posted(ana, "/games/live3/rounds/2/submissions", {"text": "9G: MISU"})
        after += stream.notices(1)
    with open_stream(live_server, "live3", **{"Last-Event-ID": "0"}) as stream:
        everything = stream.notices(6)
    ids = [n.id for n in before + after]
    assert ids == [n.id for n in everything]
    assert len(set(ids)) == len(ids)
    assert [n.event for n in after] == [
        "slip_received",
        "round_closed",
        "round_opened",
        "slip_received",
    ]


def test_after_in_the_query_resumes_as_last_event_id_does_and_the_header_wins(
    live_server,
) -> None:
    admin = new_game(live_server, "live4")
    first = posted(admin, "/games/live4/rounds/1/draw", {"tiles": "CARTEAM"})
    second = posted(
        live_server.client("ana"), "/games/live4/rounds/1/submissions", {"text": "H8: CARTEA"}
    )
    with open_stream(live_server, "live4", first["seq"] - 1) as stream:
        assert [int(n.id) for n in stream.notices(2)] == [first["seq"], second["seq"]]
    header = {"Last-Event-ID": str(first["seq"])}
    with open_stream(live_server, "live4", first["seq"] - 1, **header) as stream:
        assert [int(n.id) for n in stream.notices(1)] == [second["seq"]]


def test_an_idle_stream_gets_a_heartbeat(live_server) -> None:
    new_game(live_server, "live5")
    with open_stream(live_server, "live5") as stream:
        assert stream.next().comments == ["heartbeat"]


def test_a_bad_resume_point_or_an_unknown_game_is_a_problem_not_a_stream(live_server) -> None:
    new_game(live_server, "live6")
    public = live_server.client(None)
    bad = public.get("/games/live6/live", headers={"Last-Event-ID": "yesterday"})
    assert bad.status_code == 422
    assert bad.headers["content-type"] == "application/problem+json"
    assert "Last-Event-ID" in bad.json()["detail"]
    missing = public.get("/games/nosuch/live")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory, _arbitru_home) -> Iterator[tuple[Server, Server, str]]:
    """Two `arbitru serve` processes on one fresh PostgreSQL ledger, with a heartbeat longer
    than any wait of the tests."""
    db, name = fresh_pg_database()
    folder = tmp_path_factory.mktemp("live-pg")
    with EventStore(db):
        pass
    env = {"ARBITRU_LIVE_HEARTBEAT": SLOW_HEARTBEAT}
    one = start_server(db, folder / "one.log", env=env)
    other = start_server(db, folder / "other.log", env=env)
    try:
        one.account("boss", "Boss", "admin")
        one.account("ana", "Ana")
        one.account("bob", "Bob")
        other.tokens = one.tokens
        yield one, other, name
    finally:
        one.stop()
        other.stop()
        drop_pg_database(name)


def test_a_slip_written_through_one_process_is_told_on_the_others_stream(two_processes) -> None:
    one, other, _ = two_processes
    admin = new_game(one, "pg1")
    with open_stream(other, "pg1") as far, open_stream(one, "pg1") as near:
        drawn = posted(admin, "/games/pg1/rounds/1/draw", {"tiles": "CARTEAM"})
        slip = posted(one.client("ana"), "/games/pg1/rounds/1/submissions", {"text": "H8: CARTEA"})
        assert [int(n.id) for n in far.notices(2)] == [drawn["seq"], slip["seq"]]
        assert [int(n.id) for n in near.notices(2)] == [drawn["seq"], slip["seq"]]


def test_a_dropped_listening_connection_is_made_again_and_nothing_is_lost(two_processes) -> None:
    one, other, name = two_processes
    admin = new_game(one, "pg2")
    with open_stream(other, "pg2") as far:
        drawn = posted(admin, "/games/pg2/rounds/1/draw", {"tiles": "CARTEAM"})
        assert [int(n.id) for n in far.notices(1)] == [drawn["seq"]]
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
            ended = connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND application_name = 'arbitru-live-listen'",
                (name,),
            ).fetchall()
        assert len(ended) == 2  # one listener per process
        slip = posted(one.client("bob"), "/games/pg2/rounds/1/submissions", {"text": "H8: CARTE"})
        assert [int(n.id) for n in far.notices(1)] == [slip["seq"]]
