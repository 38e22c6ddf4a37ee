"""Everything around a write through the real server: the receipt and what the server stamps
(the actor, the arrival), a paper slip's own arrival, a late slip, Idempotency-Key (a retry,
a reused key, a retry racing its first try, a refused write retried), If-Match, and dry runs
on every decision route. The ledger itself is read to check what was, or was not, written."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from engine.games.payloads import format_time
from ledger import EventStore

PLAYERS = ["ana", "bob"]


@pytest.fixture(scope="module")
def accounts(server) -> None:
    server.account("chief", "Chief", "admin")
    server.account("ana", "Ana Pop")
    server.account("bob", "Bob Ionescu")
    server.account("clerk", "Clerk")


def head(server) -> int:
    with EventStore(server.db) as store:
        return store.head().seq


def stream(server, game: str) -> list[Any]:
    with EventStore(server.db) as store:
        return list(store.read_stream(f"game/{game}"))


def new_game(server, game: str, deadline: datetime | None = None) -> None:
    """A duplicate game of ana and bob, its round 1 drawn by the chief; `clerk` its data-entry."""
    chief = server.client("chief")
    made = chief.post("/games", json={"game_id": game, "players": PLAYERS})
    assert made.status_code == 201, made.text
    draw: dict[str, Any] = {"tiles": "AERTSIO"}
    if deadline is not None:
        draw["deadline"] = format_time(deadline)
    drawn = chief.post(f"/games/{game}/rounds/1/draw", json=draw)
    assert drawn.status_code == 201, drawn.text
    server.account("clerk", role="data-entry", game=game)


def slip(client: httpx.Client, game: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return client.post(f"/games/{game}/rounds/1/submissions", json=body, headers=headers)


pytestmark = pytest.mark.usefixtures("accounts")


def test_a_receipt_is_the_last_event_as_the_ledger_holds_it_stamped_by_the_server(
    server,
) -> None:
    new_game(server, "w-receipt")
    before = datetime.now(UTC)
    answer = slip(server.client("ana"), "w-receipt", {"text": "H8: SERAT"})
    after = datetime.now(UTC)
    assert answer.status_code == 201, answer.text
    receipt = answer.json()
    assert set(receipt) == {
        "event_id", "stream", "version", "seq", "hash", "received_at", "events",
    }  # fmt: skip
    last = stream(server, "w-receipt")[-1]
    assert (receipt["event_id"], receipt["stream"], receipt["version"]) == (
        last.event_id, last.stream, last.version,
    )  # fmt: skip
    assert (receipt["seq"], receipt["hash"]) == (last.seq, last.hash)
    assert answer.headers["etag"] == f'"{last.version}"'
    [event] = receipt["events"]
    assert event["type"] == "SubmissionReceived" and event["meta"] == last.meta
    assert last.meta["actor"] == "ana" and "source" not in last.meta
    arrived = datetime.fromisoformat(last.meta["received_at"])
    assert before - timedelta(seconds=1) <= arrived <= after + timedelta(seconds=1)
    assert receipt["received_at"] == last.meta["received_at"]


def test_the_actor_is_the_signed_in_account_and_no_body_names_another(server) -> None:
    new_game(server, "w-actor")
    seq = head(server)
    forged = slip(server.client("ana"), "w-actor", {"text": "H8: SERAT", "actor": "bob"})
    assert forged.status_code == 422 and "actor" in forged.json()["detail"]
    assert head(server) == seq
    drawn = stream(server, "w-actor")[-1]
    assert drawn.type == "RackDrawn" and drawn.meta["actor"] == "chief"


@pytest.mark.parametrize("given", [{"received_at": "2026-01-01T10:00:00Z"}, {"source": "slip 12"}])
def test_a_player_giving_an_arrival_or_a_source_is_refused_403(server, given) -> None:
    game = f"w-own-{len(given['received_at' if 'received_at' in given else 'source'])}"
    new_game(server, game)
    seq = head(server)
    answer = slip(server.client("ana"), game, {"text": "H8: SERAT", **given})
    assert answer.status_code == 403, answer.text
    assert answer.json()["code"] == "forbidden"
    assert head(server) == seq


def test_a_player_submits_only_their_own_slip(server) -> None:
    new_game(server, "w-other")
    seq = head(server)
    answer = slip(server.client("ana"), "w-other", {"text": "H8: SERAT", "player": "bob"})
    assert answer.status_code == 403, answer.text
    assert head(server) == seq


def test_a_data_entry_arbiter_enters_a_paper_slip_with_its_arrival_and_source(server) -> None:
    new_game(server, "w-paper")
    handed_in = datetime.now(UTC).replace(microsecond=0)
    answer = slip(
        server.client("clerk"),
        "w-paper",
        {"text": "H8: SERAT", "player": "bob", "received_at": format_time(handed_in),
         "source": "paper slip 7"},
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    last = stream(server, "w-paper")[-1]
    assert last.payload["player_id"] == "bob"
    assert last.meta == {
        "actor": "clerk", "source": "paper slip 7", "received_at": format_time(handed_in),
    }  # fmt: skip
    assert answer.json()["received_at"] == format_time(handed_in)


def test_a_paper_slip_handed_in_after_now_is_refused_and_nothing_written(server) -> None:
    new_game(server, "w-future")
    seq = head(server)
    later = format_time(datetime.now(UTC) + timedelta(hours=1))
    answer = slip(
        server.client("clerk"), "w-future", {"text": "H8: SERAT", "player": "bob",
                                             "received_at": later},
    )  # fmt: skip
    assert answer.status_code in (409, 422), answer.text
    assert "in the future" in answer.json()["detail"]
    assert head(server) == seq


def test_a_slip_after_the_deadline_is_recorded_and_scores_0_late(server) -> None:
    new_game(server, "w-late", deadline=datetime.now(UTC) - timedelta(minutes=1))
    answer = slip(server.client("ana"), "w-late", {"text": "H8: SERAT"})
    assert answer.status_code == 201, answer.text
    closed = server.client("chief").post("/games/w-late/rounds/1/close", json={})
    assert closed.status_code == 201, closed.text
    results = server.client().get("/games/w-late/rounds/1/results").json()
    ana = next(p for p in results["players"] if p["player_id"] == "ana")
    assert ana["total"] == 0
    assert ana["submissions"][0]["status"] == "late"


def test_a_retry_with_the_same_key_answers_the_same_receipt_and_records_once(server) -> None:
    new_game(server, "w-retry")
    ana = server.client("ana")
    key = str(uuid.uuid4())
    first = slip(ana, "w-retry", {"text": "H8: SERAT"}, **{"Idempotency-Key": key})
    seq = head(server)
    again = slip(ana, "w-retry", {"text": "H8: SERAT"}, **{"Idempotency-Key": key})
    assert first.status_code == again.status_code == 201, again.text
    assert again.json() == first.json()
    assert head(server) == seq
    assert [e.type for e in stream(server, "w-retry")].count("SubmissionReceived") == 1


def test_the_same_key_with_another_body_is_refused_422_and_nothing_written(server) -> None:
    new_game(server, "w-reuse")
    ana = server.client("ana")
    key = str(uuid.uuid4())
    assert slip(ana, "w-reuse", {"text": "H8: SERAT"}, **{"Idempotency-Key": key}).is_success
    seq = head(server)
    other = slip(ana, "w-reuse", {"text": "H8: ARTE"}, **{"Idempotency-Key": key})
    assert other.status_code == 422, other.text
    assert other.json()["code"] == "idempotency_key_reused"
    assert head(server) == seq


def racing(server, game: str, key: str) -> list[httpx.Response]:
    """The same slip with the same key sent twice at the same moment, by two connections."""
    answers: list[httpx.Response] = []
    start = threading.Barrier(2)

    def send() -> None:
        with server.client("ana") as client:
            start.wait()
            answers.append(slip(client, game, {"text": "H8: SERAT"}, **{"Idempotency-Key": key}))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_a_retry_racing_its_first_try_records_once_and_both_get_the_receipt(server) -> None:
    new_game(server, "w-race")
    for attempt in range(4):
        answers = racing(server, "w-race", str(uuid.uuid4()))
        assert [a.status_code for a in answers] == [201, 201], [a.text for a in answers]
        assert answers[0].json() == answers[1].json()
        slips = [e for e in stream(server, "w-race") if e.type == "SubmissionReceived"]
        assert len(slips) == attempt + 1


def test_a_refused_write_retried_with_its_key_is_refused_again(server) -> None:
    new_game(server, "w-refused")
    chief = server.client("chief")
    key = str(uuid.uuid4())
    seq = head(server)
    for _ in range(2):  # round 1 is drawn already: a second draw is refused, both times
        answer = chief.post(
            "/games/w-refused/rounds/1/draw", json={"tiles": "AERTSIO"},
            headers={"Idempotency-Key": key},
        )  # fmt: skip
        assert answer.status_code == 409, answer.text
        assert answer.headers["content-type"] == "application/problem+json"
    assert head(server) == seq


def test_a_malformed_idempotency_key_is_refused_422(server) -> None:
    new_game(server, "w-badkey")
    seq = head(server)
    answer = slip(server.client("ana"), "w-badkey", {"text": "H8: SERAT"},
                  **{"Idempotency-Key": "has spaces in it"})  # fmt: skip
    assert answer.status_code == 422 and "Idempotency-Key" in answer.json()["detail"]
    assert head(server) == seq


def test_if_match_a_stale_version_is_refused_412_with_the_current_one(server) -> None:
    new_game(server, "w-match")
    chief = server.client("chief")
    version = int(chief.get("/games/w-match").headers["etag"].strip('"'))
    assert slip(server.client("ana"), "w-match", {"text": "H8: SERAT"}).is_success
    seq = head(server)
    penalty = {"player": "ana", "points": 5, "reason": "noise"}
    stale = chief.post("/games/w-match/rounds/1/penalties", json=penalty,
                       headers={"If-Match": f'"{version}"'})  # fmt: skip
    assert stale.status_code == 412, stale.text
    assert stale.headers["etag"] == f'"{version + 1}"'
    assert head(server) == seq
    fresh = chief.post("/games/w-match/rounds/1/penalties", json=penalty,
                       headers={"If-Match": stale.headers["etag"]})  # fmt: skip
    assert fresh.status_code == 201, fresh.text
    assert fresh.headers["etag"] == f'"{version + 2}"'


def test_a_malformed_if_match_is_refused_422(server) -> None:
    new_game(server, "w-badmatch")
    seq = head(server)
    answer = server.client("chief").post(
        "/games/w-badmatch/rounds/1/close", json={}, headers={"If-Match": "version seven"}
    )
    assert answer.status_code == 422 and "If-Match" in answer.json()["detail"]
    assert head(server) == seq


DECISIONS: list[tuple[str, dict[str, Any]]] = [
    ("rounds/1/top", {"move": "8B: AIESTOR"}),
    ("rounds/1/annulments", {"player": "ana", "reason": "copied"}),
    ("rounds/1/penalties", {"player": "ana", "points": 5, "reason": "noise"}),
    ("rounds/1/warnings", {"player": "ana", "reason": "noise"}),
    ("rounds/1/corrections", {"player": "ana", "text": "H8: SERATE", "reason": "read again"}),
    ("rounds/1/submissions", {"text": "H8: ARTE", "player": "bob"}),
    ("rounds/1/close", {}),
    ("players", {"players": ["clerk"]}),
    ("end", {"reason": "the hall closes"}),
    ("rounds/2/draw", {"tiles": "AENLUIC"}),
]


def test_a_dry_run_on_every_decision_route_writes_nothing(server) -> None:
    new_game(server, "w-dry")
    chief = server.client("chief")
    assert slip(server.client("ana"), "w-dry", {"text": "8B: AIESTOR"}).is_success
    given = chief.post("/games/w-dry/rounds/1/penalties",
                       json={"player": "bob", "points": 2, "reason": "noise"})  # fmt: skip
    assert given.status_code == 201, given.text
    seq = head(server)
    revoking = chief.post(
        "/games/w-dry/revocations", params={"dry_run": "true"},
        json={"event_id": given.json()["event_id"], "reason": "a mistake"},
    )  # fmt: skip
    assert revoking.status_code == 200 and revoking.json()["events"], revoking.text
    assert head(server) == seq
    for path, body in DECISIONS:
        if path == "end":  # a game ends, and a round is drawn, after the last one closed
            assert chief.post("/games/w-dry/rounds/1/close", json={}).is_success
            seq = head(server)
        answer = chief.post(f"/games/w-dry/{path}", params={"dry_run": "true"}, json=body)
        assert answer.status_code == 200, (path, answer.text)
        shown = answer.json()
        assert shown["dry_run"] is True and shown["events"], path
        assert "changes" in shown, path
        assert head(server) == seq, path
