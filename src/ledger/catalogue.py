"""The event catalogue of EVENTS.md, as data: which event types exist and on which streams.

The ledger validates envelopes, not game rules, but the kind of stream an event belongs to and
the event that must open each stream are structure: a game stream that does not start with
`GameCreated` cannot be read by anyone. So is the id the opening event names: it must be its
stream's, so that one game or tournament id is one stream. New event types are added here (and
in EVENTS.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class StreamKind:
    """A kind of stream: the event that must be its version 1 (and appears nowhere else), the
    payload field of that event naming the stream's id, and the event types it may hold."""

    opened_by: str
    named_by: str
    types: tuple[str, ...]


STREAM_KINDS: MappingProxyType[str, StreamKind] = MappingProxyType(
    {
        "tournament": StreamKind(
            opened_by="TournamentCreated",
            named_by="tournament_id",
            types=("TournamentCreated", "PlayerRegistered", "GameAdded"),
        ),
        "game": StreamKind(
            opened_by="GameCreated",
            named_by="game_id",
            types=(
                "GameCreated",
                "PlayerJoined",
                "RackDrawn",
                "SubmissionReceived",
                "ReplacementDeclared",
                "SubmissionAnnulled",
                "PenaltyGiven",
                "WarningGiven",
                "SubmissionCorrected",
                "DecisionRevoked",
                "TopChosen",
                "RoundClosed",
                "SeedRevealed",
                "GameEnded",
            ),
        ),
    }
)
"""Stream kinds by the part of the stream id before `/`."""

KNOWN_TYPES: frozenset[str] = frozenset(t for kind in STREAM_KINDS.values() for t in kind.types)
"""Every event type name of the catalogue."""


def stream_kind(stream: str) -> StreamKind:
    """The kind of a (valid) stream id."""
    return STREAM_KINDS[stream.split("/", 1)[0]]


def kinds_holding(event_type: str) -> list[str]:
    """The names of the stream kinds on which an event type may appear."""
    return [name for name, kind in STREAM_KINDS.items() if event_type in kind.types]


def naming_problem(stream: str, event_type: str, payload: dict[str, Any]) -> str | None:
    """The problem, if any, with an opening event naming another id than its (valid) stream's:
    `GameCreated` on game/g2 saying `game_id` g1 would make two streams claim game g1. A payload
    naming no id is the payload check's to refuse: the ledger reads only this one field."""
    kind = stream_kind(stream)
    if event_type != kind.opened_by or not isinstance(payload, dict):
        return None
    own = stream.split("/", 1)[1]
    named = payload.get(kind.named_by, own)
    if named == own:
        return None
    return (
        f"{event_type} on {stream} names {kind.named_by} {named!r}, not {own!r}: one id is one "
        f"stream, so the opening event names its own stream's id (name {own!r}, or put the "
        f"events on the stream of {named!r})"
    )
