"""The catalogue of EVENTS.md as the ledger enforces it: the corrections without editing
(`SubmissionCorrected`, `DecisionRevoked`) belong on game streams and nowhere else, on SQLite
and PostgreSQL alike."""

from __future__ import annotations

import pytest
from ledger_helpers import game_created, tournament_created

from ledger import EnvelopeError, EventStore, NewEvent
from ledger.catalogue import KNOWN_TYPES, STREAM_KINDS

CORRECTIONS = [
    NewEvent(
        "SubmissionCorrected",
        {"round": 1, "player_id": "ana", "text": "H8: VARA", "reason": "illegible slip"},
    ),
    NewEvent(
        "DecisionRevoked", {"event_id": "7e0f0c53-3a4f-4b39-a1c4-61f1f3c3ec51", "reason": "appeal"}
    ),
]


def test_corrections_are_game_stream_types() -> None:
    assert {"SubmissionCorrected", "DecisionRevoked"} <= set(STREAM_KINDS["game"].types)
    assert not {"SubmissionCorrected", "DecisionRevoked"} & set(STREAM_KINDS["tournament"].types)
    assert {"SubmissionCorrected", "DecisionRevoked"} <= KNOWN_TYPES


@pytest.mark.parametrize("event", CORRECTIONS, ids=lambda e: e.type)
def test_corrections_are_accepted_on_a_game_stream(store: EventStore, event: NewEvent) -> None:
    store.append("game/g1", [game_created()], expected_version=0)
    [recorded] = store.append("game/g1", [event], expected_version=1)
    assert (recorded.type, recorded.version) == (event.type, 2)
    assert [e.type for e in store.read_stream("game/g1")] == ["GameCreated", event.type]


@pytest.mark.parametrize("event", CORRECTIONS, ids=lambda e: e.type)
def test_corrections_are_refused_on_a_tournament_stream(store: EventStore, event: NewEvent) -> None:
    store.append("tournament/t1", [tournament_created()], expected_version=0)
    with pytest.raises(EnvelopeError, match=f"type {event.type} belongs on game streams"):
        store.append("tournament/t1", [event], expected_version=1)
    assert store.stream_version("tournament/t1") == 1
