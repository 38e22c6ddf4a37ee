"""Bad input through the real server: every refusal is problem details (a `code`, a `detail`
naming what is wrong), never a 5xx or a traceback, and the ledger is as it was. The limits are
the command line's (`pipelines.games.limits`): a slip may hold control characters but NUL, a
name, reason or source none."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import EventStore

GAME = "b1"
SLIPS = f"/games/{GAME}/rounds/1/submissions"


@pytest.fixture(scope="module")
def game(server) -> str:
    server.account("chief", "Chief", "admin")
    server.account("ana", "Ana Pop")
    server.account("bob", "Bob Ionescu")
    chief = server.client("chief")
    assert chief.post("/games", json={"game_id": GAME, "players": ["ana", "bob"]}).is_success
    assert chief.post(f"/games/{GAME}/rounds/1/draw", json={"tiles": "AERTSIO"}).is_success
    return GAME


def head(server) -> int:
    with EventStore(server.db) as store:
        return store.head().seq


def refused(answer, status: int, named: str | None = None) -> dict[str, Any]:
    """`answer` is problem details of `status`, its detail naming `named`."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert problem["status"] == status and problem["code"] and problem["detail"]
    assert "Traceback" not in answer.text
    if named is not None:
        assert named in problem["detail"], problem["detail"]
    return problem


pytestmark = pytest.mark.usefixtures("game")

CHIEF_POSTS: list[tuple[str, str, Any, int, str]] = [
    # (what, path, body, status, named in the detail)
    ("over 64 KiB", SLIPS, {"text": "H8: " + "A" * 70_000, "player": "ana"}, 413, "bytes"),
    ("a 1 MB text", "/games/b1/rounds/1/warnings",
     {"player": "ana", "reason": "x" * 1_000_000}, 413, "bytes"),
    ("a long slip", SLIPS, {"text": "H8: " + "A" * 600, "player": "ana"}, 422, "text"),
    ("a number for a text", SLIPS, {"text": 5, "player": "ana"}, 422, "text"),
    ("a text for a number", SLIPS, {"text": "H8: ARTE", "part": "one", "player": "ana"}, 422,
     "part"),
    ("a list for a text", SLIPS, {"text": ["H8: ARTE"], "player": "ana"}, 422, "text"),
    ("a part of 10", SLIPS, {"text": "H8: ARTE", "part": 10, "player": "ana"}, 422, "part"),
    ("an unknown field", SLIPS, {"text": "H8: ARTE", "player": "ana", "score": 90}, 422,
     "score"),
    ("a NUL in a slip", SLIPS, {"text": "H8: AR\x00TE", "player": "ana"}, 422, "U+0000"),
    ("a control in a reason", "/games/b1/rounds/1/warnings",
     {"player": "ana", "reason": "loud\x07"}, 422, "reason"),
    ("a NUL in a reason", "/games/b1/rounds/1/penalties",
     {"player": "ana", "points": 3, "reason": "lo\x00ud"}, 422, "reason"),
    ("a bidi override in a source", SLIPS,
     {"text": "H8: ARTE", "player": "ana", "source": "slip \u202e7"}, 422, "source"),
    ("a player id outside the pattern", SLIPS, {"text": "H8: ARTE", "player": "ana pop"}, 422,
     "player"),
    ("a player id too long", SLIPS, {"text": "H8: ARTE", "player": "a" * 65}, 422, "player"),
    ("an account id outside the pattern", "/games/b1/players", {"players": ["Ana!"]}, 422,
     "players"),
    ("a game id outside the pattern", "/games", {"game_id": "B 1", "players": []}, 422,
     "game_id"),
    ("a zoneless time", SLIPS,
     {"text": "H8: ARTE", "player": "ana", "received_at": "2026-05-01T10:00:00"}, 422,
     "received_at"),
    ("a time that is none", SLIPS,
     {"text": "H8: ARTE", "player": "ana", "received_at": "2026-13-45T10:00:00Z"}, 422,
     "received_at"),
    ("a time before 1900", SLIPS,
     {"text": "H8: ARTE", "player": "ana", "received_at": "1800-01-01T10:00:00Z"}, 422,
     "received_at"),
    ("a deadline past 9998", "/games/b1/rounds/2/draw",
     {"tiles": "AENL", "deadline": "9999-12-31T23:59:59+00:00"}, 422, "deadline"),
    ("points out of range", "/games/b1/rounds/1/penalties",
     {"player": "ana", "points": 10**12, "reason": "noise"}, 422, "points"),
    ("a boolean for a list", "/games/b1/players", {"players": True}, 422, "players"),
    ("a body that is a list", SLIPS, ["H8: ARTE"], 422, None),
    ("a revocation of an id outside the pattern", "/games/b1/revocations",
     {"event_id": "'; DROP TABLE events; --", "reason": "x"}, 422, "event_id"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "body", "status", "named"),
    [case[1:] for case in CHIEF_POSTS],
    ids=[case[0] for case in CHIEF_POSTS],
)
def test_bad_input_is_problem_details_naming_the_field_and_writes_nothing(
    server, path: str, body: Any, status: int, named: str | None
) -> None:
    seq = head(server)
    refused(server.client("chief").post(path, json=body), status, named)
    assert head(server) == seq


RAW: list[tuple[str, str, bytes, str, int]] = [
    ("malformed JSON", SLIPS, b'{"text": "H8: ARTE", ', "application/json", 422),
    ("JSON that is not UTF-8", SLIPS, b'{"text": "H8: \xff\xfe"}', "application/json", 422),
    ("a JSON lone surrogate escape", SLIPS, b'{"text": "H8: \\ud800", "player": "ana"}',
     "application/json", 422),
    ("a JSON number too deep", SLIPS, b'{"text": "H8: ARTE", "part": 1e999}',
     "application/json", 422),
    ("form data", SLIPS, b"text=H8%3A+ARTE&player=ana", "application/x-www-form-urlencoded",
     415),
    ("plain text", SLIPS, b'{"text": "H8: ARTE", "player": "ana"}', "text/plain", 415),
    ("a nested bomb", "/games", b'{"game_id": "b9", "settings": ' + b'{"a": ' * 5000 +
     b"1" + b"}" * 5001, "application/json", 422),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "content", "content_type", "status"),
    [case[1:] for case in RAW],
    ids=[case[0] for case in RAW],
)
def test_a_body_that_is_not_the_json_asked_for_is_refused(
    server, path: str, content: bytes, content_type: str, status: int
) -> None:
    seq = head(server)
    answer = server.client("chief").post(
        path, content=content, headers={"Content-Type": content_type}
    )
    refused(answer, status, "Content-Type" if status == 415 else None)
    assert head(server) == seq


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/games/B_1", 422),
        ("GET", "/games/" + "a" * 65, 422),
        ("GET", "/games/nope", 404),
        ("GET", "/games/nope/standings", 404),
        ("GET", "/games/nope/rounds/1/results", 404),
        ("POST", "/games/nope/rounds/1/close", 404),
        ("POST", "/games/nope/rounds/1/submissions", 404),
        ("GET", "/games/b1/rounds/0/results", 422),
        ("GET", f"/games/b1/rounds/{10**9}/results", 422),
        ("POST", "/games/b1/rounds/0/close", 422),
        ("POST", f"/games/b1/rounds/{10**9}/draw", 422),
        ("GET", "/games/b1/rounds/x/results", 422),
        ("GET", "/games/b1/rounds/7/results", 404),
        ("GET", "/games/b1/replay?at=-1", 422),
        ("GET", "/games/b1/replay?round=1&at=3", 422),
        ("GET", "/games/b1/replay?player=nobody", 404),
    ],
)
def test_paths_outside_the_pattern_or_naming_nothing_are_refused(
    server, method: str, path: str, status: int
) -> None:
    seq = head(server)
    body = {"text": "H8: ARTE", "player": "ana"} if path.endswith("submissions") else {}
    answer = server.client("chief").request(method, path, json=body if method == "POST" else None)
    refused(answer, status)
    assert head(server) == seq


def test_a_slip_may_hold_a_control_character_but_nul_recorded_as_written(server) -> None:
    """As `arbitru game submit --text` takes it: the slip is the player's, kept exactly."""
    text = "H8: AR\x07TE\x1b[2J"
    answer = server.client("ana").post(SLIPS, json={"text": text})
    assert answer.status_code == 201, answer.text
    with EventStore(server.db) as store:
        [event] = store.find_events([answer.json()["event_id"]]).values()
    assert event.payload["text"] == text


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(min_size=1, max_size=520))
def test_any_slip_text_is_recorded_exactly_or_refused_never_a_5xx(server, text: str) -> None:
    seq = head(server)
    answer = server.client("ana").post(SLIPS, json={"text": text})
    assert answer.status_code < 500, answer.text
    if answer.status_code == 201:
        [event] = answer.json()["events"]
        assert event["payload"]["text"] in (text, unicodedata.normalize("NFC", text))
        assert head(server) == seq + 1
    else:
        refused(answer, 422, "text")
        assert head(server) == seq


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(reason=st.text(max_size=120), title=st.text(max_size=60))
def test_any_reason_or_title_is_taken_or_refused_naming_it_never_a_5xx(
    server, reason: str, title: str
) -> None:
    seq = head(server)
    chief = server.client("chief")
    warned = chief.post(
        "/games/b1/rounds/1/warnings",
        params={"dry_run": "true"},
        json={"player": "bob", "reason": reason},
    )
    assert warned.status_code in (200, 422), warned.text
    if warned.status_code == 422:
        refused(warned, 422, "reason")
    made = chief.post("/games", params={"dry_run": "true"}, json={"game_id": "b2", "title": title})
    assert made.status_code in (200, 422), made.text
    if made.status_code == 422:
        refused(made, 422, "title")
    assert head(server) == seq
