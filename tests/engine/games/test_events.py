"""Typed events: decoded from stored payloads (with upcasting), encoded back, refused clearly."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.games import events as ev
from engine.games import payloads
from engine.games.events import EVENT_TYPES, GameCreated, RackDrawn, SubmissionReceived, Undecodable
from engine.games.payloads import (
    EventDecodeError,
    decode_event,
    decode_recorded,
    encode_event,
    read_recorded,
)

EXAMPLES = [
    ev.TournamentCreated("t1", "Cupa", "2026"),
    ev.PlayerRegistered("ana", "Ana", club="CSM"),
    ev.GameAdded("hd1"),
    GameCreated(
        "hd1",
        "duplicate",
        settings={"solo_bonus": 10, "top_source": "players"},
        dictionary=ev.DictionaryRef("ro-frs", "a" * 64, 123),
        draw="seeded",
        seed_commitment="b" * 64,
    ),
    ev.PlayerJoined("ana", "Ana"),
    RackDrawn(2, "EIR?", ("BCD",), datetime(2026, 5, 1, 18, tzinfo=UTC)),
    SubmissionReceived(1, "ana", "P19-T1 - H4: JU(C)ATOR = 52 p", part=2),
    ev.ReplacementDeclared(3, "ana", "-B+Bo"),
    ev.SubmissionAnnulled(1, "ana", "copied"),
    ev.PenaltyGiven(1, "ana", 5, "noise"),
    ev.WarningGiven(1, "ana", "talking"),
    ev.SubmissionCorrected(1, "ana", "H4: JUCATOR", "illegible"),
    ev.DecisionRevoked("0b1c", "appeal"),
    ev.TopChosen(1, "H4: JUCATOR"),
    ev.RoundClosed(1),
    ev.SeedRevealed("s"),
    ev.GameEnded("bag empty"),
]


def test_one_event_class_per_event_type_of_the_record_format():
    assert set(EVENT_TYPES) == {type(e).__name__ for e in EXAMPLES}
    assert len(EVENT_TYPES) == 17


@pytest.mark.parametrize("type_name", sorted(EVENT_TYPES))
def test_every_event_type_has_a_decoder_for_each_of_its_fields(type_name):
    """The decoding plans are worked out when a type is first decoded, not on import: each type's
    is checked here, so that a field no reader decodes is found before any payload of it is."""
    plan = payloads._plan(type_name)
    assert [p.name for p in plan] == [f.name for f in fields(EVENT_TYPES[type_name])]


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: type(e).__name__)
def test_encoded_event_decodes_to_itself(event):
    type_name, schema, payload = encode_event(event)
    assert (type_name, schema) == (type(event).__name__, 1)
    assert decode_event(type_name, schema, payload) == event


def test_optional_fields_left_at_their_default_are_omitted():
    assert encode_event(SubmissionReceived(1, "ana", "H8: VARA"))[2] == {
        "round": 1,
        "player_id": "ana",
        "text": "H8: VARA",
    }
    assert encode_event(RackDrawn(1, "EIR?", (), datetime(2026, 5, 1, tzinfo=UTC)))[2][
        "deadline"
    ] == ("2026-05-01T00:00:00Z")


@pytest.mark.parametrize(
    "type_name, payload, field",
    [
        ("GameCreated", {}, "game_id"),
        ("GameCreated", {"game_id": "g", "variant": "chess"}, "variant"),
        ("RackDrawn", {"round": "1", "drawn": "EIR"}, "round"),
        ("RackDrawn", {"round": 0, "drawn": "EIR"}, "round"),
        ("RackDrawn", {"round": 1, "drawn": "E1R"}, "drawn"),
        ("RackDrawn", {"round": 1, "drawn": "E", "deadline": "soon"}, "deadline"),
        ("SubmissionReceived", {"round": 1, "player_id": "", "text": "x"}, "player_id"),
        ("PenaltyGiven", {"round": 1, "player_id": "a", "points": -5, "reason": "x"}, "points"),
        ("GameCreated", {"game_id": "g", "variant": "duplicate", "dictionary": {"sha256": 1}},
         "dictionary.sha256"),
    ],
)  # fmt: skip
def test_payload_that_does_not_fit_is_refused_naming_the_field(type_name, payload, field):
    with pytest.raises(EventDecodeError) as caught:
        decode_event(type_name, 1, payload)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{type_name}.{field}:")


def test_newer_schema_is_refused_and_unknown_type_named():
    with pytest.raises(EventDecodeError, match="schema 2 is newer"):
        decode_event("RoundClosed", 2, {"round": 1})
    with pytest.raises(EventDecodeError, match="unknown event type 'Foo'"):
        decode_event("Foo", 1, {})


def test_older_schema_is_upcast_before_decoding(monkeypatch):
    monkeypatch.setattr(payloads, "CURRENT_SCHEMA", 2)
    monkeypatch.setattr(
        payloads, "UPCASTERS", {("RoundClosed", 1): lambda p: {"round": p["number"]}}
    )
    assert decode_event("RoundClosed", 1, {"number": 4}) == ev.RoundClosed(4)


def test_envelope_meta_gives_arrival_actor_and_source():
    recorded = decode_recorded(
        "SubmissionReceived",
        1,
        {"round": 1, "player_id": "ana", "text": "H8: VARA"},
        {"received_at": "2026-05-01T18:00:00Z", "actor": "arb", "source": "slip 4"},
        event_id="e",
        seq=3,
        version=2,
    )
    assert recorded.received_at == datetime(2026, 5, 1, 18, tzinfo=UTC)
    assert (recorded.actor, recorded.source, recorded.seq, recorded.version) == (
        "arb",
        "slip 4",
        3,
        2,
    )


def test_undecodable_envelope_is_kept_for_replay_not_raised():
    recorded = read_recorded("GameCreated", 1, {}, {"received_at": "nonsense"})
    assert isinstance(recorded.event, Undecodable)
    assert "GameCreated.game_id: missing" in recorded.event.error


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text() | st.none(), max_size=4))
def test_decoding_any_payload_returns_an_event_or_a_decode_error(payload):
    for type_name in EVENT_TYPES:
        try:
            decode_event(type_name, 1, payload)
        except EventDecodeError as exc:
            assert exc.field is not None
