"""The event catalogue of EVENTS.md, as data: which event types exist and on which streams.

The ledger validates envelopes, not game rules, but the kind of stream an event belongs to and
the event that must open each stream are structure: a game stream that does not start with
`GameCreated` cannot be read by anyone. New event types are added here (and in EVENTS.md).
"""

from __future__ import annotations

from types import MappingProxyType

STREAM_KINDS: MappingProxyType[str, dict[str, object]] = MappingProxyType(
    {
        "tournament": {
            "opened_by": "TournamentCreated",
            "types": ("TournamentCreated", "PlayerRegistered", "GameAdded"),
        },
        "game": {
            "opened_by": "GameCreated",
            "types": (
                "GameCreated",
                "PlayerJoined",
                "RackDrawn",
                "SubmissionReceived",
                "ReplacementDeclared",
                "SubmissionAnnulled",
                "PenaltyGiven",
                "TopChosen",
                "RoundClosed",
                "SeedRevealed",
                "GameEnded",
            ),
        },
    }
)
"""Per stream kind (the part of the stream id before `/`): the event that must be version 1
and the event types the stream may hold."""

KNOWN_TYPES: frozenset[str] = frozenset(
    t for kind in STREAM_KINDS.values() for t in kind["types"]  # type: ignore[attr-defined]
)
"""Every event type name of the catalogue."""


def stream_kind(stream: str) -> str:
    """The kind of a (valid) stream id: `tournament` or `game`."""
    return stream.split("/", 1)[0]


def opening_type(stream: str) -> str:
    """The event type that must be version 1 of `stream`, and may appear nowhere else."""
    return str(STREAM_KINDS[stream_kind(stream)]["opened_by"])


def types_for(stream: str) -> tuple[str, ...]:
    """The event types a stream of this kind may hold."""
    return tuple(STREAM_KINDS[stream_kind(stream)]["types"])  # type: ignore[arg-type]
