"""`arbitru ledger import` refuses a line whose payload does not decode into its event type,
naming the line and the field, and writes nothing of the file; the ledger itself still stores
envelopes only (the check is the pipelines' hook, not a rule of the store)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from engine.games.payloads import decode_event
from ledger import EventStore, import_events
from ledger.catalogue import KNOWN_TYPES
from pipelines.accounts.events import ACCOUNT_TYPES, check_payload, decode
from pipelines.cli.arbitru import app

runner = CliRunner()

OPENING = {
    "stream": "game/g1",
    "type": "GameCreated",
    "payload": {"game_id": "g1", "variant": "duplicate"},
}
PLAYER = {"stream": "game/g1", "type": "PlayerJoined", "payload": {"player_id": "p1"}}
TOURNAMENT = {
    "stream": "tournament/t1",
    "type": "TournamentCreated",
    "payload": {"tournament_id": "t1", "name": "Cupa Bucureștiului", "season": "2026"},
}


def _file(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _import(path: Path, db_url: str) -> tuple[int, dict[str, Any], str]:
    result = runner.invoke(app, ["ledger", "import", str(path), "--db", db_url, "--json"])
    return result.exit_code, json.loads(result.stdout), result.stderr


def _stored(db_url: str) -> int:
    with EventStore(db_url) as store:
        return store.head().seq


def test_game_created_without_fields_is_refused_naming_line_and_field(
    db_url: str, tmp_path: Path
) -> None:
    empty_game = {"stream": "game/g2", "type": "GameCreated", "payload": {}}
    code, report, _ = _import(_file(tmp_path, [TOURNAMENT, OPENING, empty_game]), db_url)
    assert code == 1
    assert report["ok"] is False and report["imported"] == 0
    (error,) = report["errors"]
    assert error["line"] == 3
    assert "payload.game_id" in error["problems"][0]
    assert "GameCreated" in error["problems"][0]
    assert _stored(db_url) == 0


def test_every_undecodable_line_is_listed_in_file_order_and_nothing_is_written(
    db_url: str, tmp_path: Path
) -> None:
    lines = [
        OPENING,
        {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": 0, "drawn": "AEIR"}},
        PLAYER,
        {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": 1, "drawn": "AE1R"}},
        {"stream": "game/g1", "type": "SubmissionReceived",
         "payload": {"round": 1, "player_id": "p1", "text": 52}},
        {"stream": "game/g1", "type": "PenaltyGiven",
         "payload": {"round": 1, "player_id": "p1", "reason": "slow"}},
        {"stream": "game/g1", "type": "RackDrawn",
         "payload": {"round": 2, "drawn": "EIR", "deadline": "tomorrow"}},
    ]  # fmt: skip
    code, report, _ = _import(_file(tmp_path, lines), db_url)
    assert code == 1
    problems = {e["line"]: " ".join(e["problems"]) for e in report["errors"]}
    assert list(problems) == [2, 4, 5, 6, 7]
    assert "payload.round" in problems[2]
    assert "payload.drawn" in problems[4] and "'1'" in problems[4]
    assert "payload.text" in problems[5]
    assert "payload.points" in problems[6] and "missing" in problems[6]
    assert "payload.deadline" in problems[7]
    assert _stored(db_url) == 0


def test_a_payload_of_a_newer_schema_is_refused_naming_the_schema(
    sqlite_url: str, tmp_path: Path
) -> None:
    newer = {**PLAYER, "schema": 9}
    code, report, _ = _import(_file(tmp_path, [OPENING, newer]), sqlite_url)
    assert code == 1
    (error,) = report["errors"]
    assert error["line"] == 2 and error["problems"][0].startswith("schema:")
    assert _stored(sqlite_url) == 0


def test_the_human_view_names_the_line_and_the_field_on_stderr(
    sqlite_url: str, tmp_path: Path
) -> None:
    broken = {"stream": "game/g1", "type": "TopChosen", "payload": {"round": 3}}
    path = _file(tmp_path, [OPENING, broken])
    result = runner.invoke(app, ["ledger", "import", str(path), "--db", sqlite_url])
    assert result.exit_code == 1
    assert "payload.move" in result.stderr and "nothing was imported" in result.stderr
    assert _stored(sqlite_url) == 0


def test_decodable_payloads_with_fields_added_later_are_imported(
    db_url: str, tmp_path: Path
) -> None:
    later = {**PLAYER, "payload": {"player_id": "p2", "name": "Ioana Pop", "rating": 1830}}
    code, report, _ = _import(_file(tmp_path, [TOURNAMENT, OPENING, PLAYER, later]), db_url)
    assert code == 0, report
    assert report["imported"] == 4
    assert _stored(db_url) == 4


def test_the_ledger_alone_stays_envelope_only(sqlite_url: str) -> None:
    """Without the pipelines' check, the store accepts any JSON object as a payload: payload
    rules belong to whoever reads them."""
    line = json.dumps({"stream": "game/g9", "type": "GameCreated", "payload": {}}) + "\n"
    with EventStore(sqlite_url) as store:
        report = import_events(store, io.BytesIO(line.encode()))
        assert report.ok and store.head().seq == 1


def test_the_check_covers_tournament_and_game_events() -> None:
    assert check_payload("TournamentCreated", 1, {"tournament_id": "t1", "name": "C"}) == (
        "payload.season: missing (the payload of TournamentCreated does not decode)"
    )
    assert check_payload("GameAdded", 1, {"game_id": "g1"}) is None
    assert check_payload("DecisionRevoked", 1, {"event_id": "e", "reason": "appeal"}) is None
    assert "payload.variant" in str(
        check_payload("GameCreated", 1, {"game_id": "g", "variant": "x"})
    )


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    type_name=st.sampled_from(sorted(KNOWN_TYPES)),
    schema=st.integers(-2, 3),
    payload=st.dictionaries(
        st.sampled_from(["round", "player_id", "text", "drawn", "game_id", "variant", "name",
                         "points", "part", "deadline", "move", "event_id", "reason", "season",
                         "tournament_id", "settings", "dictionary", "rejected", "seed",
                         "account_id", "role"])
        | st.text(max_size=6),
        _json_values,
        max_size=6,
    ),
)  # fmt: skip
def test_any_json_payload_either_decodes_or_is_refused_naming_a_field(
    type_name: str, schema: int, payload: dict[str, Any]
) -> None:
    problem = check_payload(type_name, schema, payload)
    if problem is None and type_name in ACCOUNT_TYPES:
        decode(type_name, payload)
    elif problem is None:
        decode_event(type_name, schema, payload)
    else:
        assert problem.startswith(("payload.", "schema:")), problem
        assert problem.endswith(
            (f"(the payload of {type_name} does not decode)", f"(an event of {type_name})")
        )
