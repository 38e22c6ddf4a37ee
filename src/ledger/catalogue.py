"""The event catalogue of EVENTS.md, as data: which event types exist and on which streams.

The ledger validates envelopes, not game rules, but the kind of stream an event belongs to and
the event that must open each stream are structure: a game stream that does not start with
`GameCreated` cannot be read by anyone. New event types are added here (and in EVENTS.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class StreamKind:
    """A kind of stream: the event that must be its version 1 (and appears nowhere else) and
    the event types it may hold."""

    opened_by: str
    types: tuple[str, ...]


STREAM_KINDS: MappingProxyType[str, StreamKind] = MappingProxyType(
    {
        "tournament": StreamKind(
            opened_by="TournamentCreated",
            types=("TournamentCreated", "PlayerRegistered", "GameAdded"),
        ),
        "game": StreamKind(
            opened_by="GameCreated",
            types=(
                "GameCreated",
                "PlayerJoined",
                "RackDrawn",
                "SubmissionReceived",
                "ReplacementDeclared",
                "SubmissionAnnulled",
                "PenaltyGiven",
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
