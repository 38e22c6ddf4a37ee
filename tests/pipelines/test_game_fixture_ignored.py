"""A ledger may hold events the rules would have refused (imported from a file written by
hand or by another tool). Their payloads decode, so the import takes them; the replay keeps
each one, shows it as ignored with its reason, and judges the rest of the game as if it were
not there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipelines.cli.arbitru import app

runner = CliRunner()

GAME = "g-import"
STREAM = f"game/{GAME}"
DRAW_ID = "5b0e6d3c-1f2a-4c3b-8d4e-5f6a7b8c9d01"
BAD_TOP_ID = "5b0e6d3c-1f2a-4c3b-8d4e-5f6a7b8c9d02"


def _line(event_type: str, payload: dict[str, Any], **envelope: Any) -> dict[str, Any]:
    return {"stream": STREAM, "type": event_type, "payload": payload, **envelope}


def _submission(player: str, text: str, at: str, round_number: int = 1) -> dict[str, Any]:
    return _line(
        "SubmissionReceived",
        {"round": round_number, "player_id": player, "text": text},
        meta={"received_at": at, "source": f"bilet {player}"},
    )


LINES = [
    _line("GameCreated", {"game_id": GAME, "variant": "duplicate"}),
    _line("PlayerJoined", {"player_id": "ana", "name": "Ana Popescu"}),
    _line("PlayerJoined", {"player_id": "dan", "name": "Dan Ionescu"}),
    # one Z in the bag: seven are refused, then the real draw
    _line("RackDrawn", {"round": 1, "drawn": "ZZZZZZZ"}),
    _line(
        "RackDrawn",
        {"round": 1, "drawn": "VARASTE", "deadline": "2026-11-28T10:03:00Z"},
        event_id=DRAW_ID,
    ),
    _submission("ana", "8D: VARSATE", "2026-11-28T10:01:00Z"),
    _submission("dan", "8E: SEVA", "2026-11-28T10:02:00Z"),
    _submission("ion", "8D: VERSATA", "2026-11-28T10:02:30Z"),
    _line("TopChosen", {"round": 1, "move": "8E: SEVA"}, event_id=BAD_TOP_ID),
    _line("DecisionRevoked", {"event_id": DRAW_ID, "reason": "appeal"}),
    _line("RoundClosed", {"round": 1}),
    _submission("dan", "8D: VERSATA", "2026-11-28T10:04:00Z"),
    _line("SubmissionAnnulled", {"round": 1, "player_id": "ana", "reason": "too late to annul"}),
]

IGNORED = {
    # line of the file: (type, reason code)
    4: ("RackDrawn", "tiles_not_in_bag"),
    8: ("SubmissionReceived", "unknown_player"),
    9: ("TopChosen", "not_a_top"),
    10: ("DecisionRevoked", "not_a_decision"),
    12: ("SubmissionReceived", "round_closed"),
    13: ("SubmissionAnnulled", "round_closed"),
}


@pytest.fixture
def ledger(default_home: Path, db_url: str, tmp_path: Path) -> str:
    source = tmp_path / "hand-written.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    result = runner.invoke(app, ["ledger", "import", str(source), "--db", db_url, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["imported"] == len(LINES)
    return db_url


def _view(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["game", *args, "--json"])
    assert result.exit_code == 0, result.stderr or result.output
    return json.loads(result.stdout)


def test_events_decide_would_refuse_replay_as_ignored_with_their_reason(ledger: str) -> None:
    game = _view("standings", GAME, "--db", ledger)
    ignored = {(i["seq"], i["type"], i["code"]) for i in game["ignored"]}
    assert ignored == {(line, kind, code) for line, (kind, code) in IGNORED.items()}
    reasons = {i["code"]: i["message"] for i in game["ignored"]}
    assert "Z" in reasons["tiles_not_in_bag"]
    assert "ion" in reasons["unknown_player"]
    assert "RackDrawn" in reasons["not_a_decision"]
    in_round = _view("results", GAME, "--round", "1", "--db", ledger)["ignored"]
    assert {i["seq"] for i in in_round} == set(IGNORED) - {10}, "the revocation names no round"


def test_the_rest_of_the_game_is_judged_as_if_they_were_not_there(ledger: str) -> None:
    results = _view("results", GAME, "--round", "1", "--db", ledger)
    assert results["rack"] == "VARASTE" and results["closed"] is True
    scores = {p["player_id"]: (p["score"], p["code"]) for p in results["players"]}
    assert scores == {"ana": (94, None), "dan": (22, None)}
    assert results["top"]["text"].startswith("8D: VARSATE") and results["top"]["score"] == 94
    assert results["top"]["solo"] == "ana"
    standings = _view("standings", GAME, "--db", ledger)
    assert [(s["player_id"], s["total"]) for s in standings["standings"]] == [
        ("ana", 104),
        ("dan", 22),
    ]


def test_replaying_to_just_before_a_refused_draw_and_after_it_shows_the_same_bag(
    ledger: str,
) -> None:
    before = _view("replay", GAME, "--at", "3", "--db", ledger)
    after = _view("replay", GAME, "--at", "4", "--db", ledger)
    assert before["bag"] == after["bag"] and after["bag"]["count"] == 100
    drawn = _view("replay", GAME, "--at", "5", "--db", ledger)
    assert drawn["bag"]["count"] == 93 and drawn["rack"] == "VARASTE"
