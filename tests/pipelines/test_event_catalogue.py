"""The engine's typed events and the ledger's catalogue name the same event types, but for the
accounts' (read by `pipelines.accounts.events`, not by a game): an event the ledger accepts can
be read by a replay or a roster, and every event the engine writes can be stored."""

from __future__ import annotations

from engine.games.events import EVENT_TYPES
from engine.games.payloads import encode_event
from ledger.catalogue import KNOWN_TYPES, STREAM_KINDS
from pipelines.accounts.events import ACCOUNT_TYPES


def test_engine_event_types_and_ledger_catalogue_are_the_same_set_but_the_accounts() -> None:
    assert set(EVENT_TYPES) == set(KNOWN_TYPES) - set(ACCOUNT_TYPES)
    assert set(ACCOUNT_TYPES) == set(STREAM_KINDS["account"].types)
    assert not set(EVENT_TYPES) & set(ACCOUNT_TYPES)


def test_each_event_class_is_named_after_its_type() -> None:
    assert all(cls.__name__ == name for name, cls in EVENT_TYPES.items())


def test_corrections_and_revocations_belong_on_game_streams() -> None:
    game_types = STREAM_KINDS["game"].types
    assert "SubmissionCorrected" in game_types and "DecisionRevoked" in game_types


def test_encoded_events_carry_a_type_of_the_catalogue() -> None:
    revoked = EVENT_TYPES["DecisionRevoked"](event_id="e1", reason="appeal upheld")
    type_name, schema, payload = encode_event(revoked)
    assert (type_name, schema, payload) == (
        "DecisionRevoked",
        1,
        {"event_id": "e1", "reason": "appeal upheld"},
    )
    assert type_name in KNOWN_TYPES
