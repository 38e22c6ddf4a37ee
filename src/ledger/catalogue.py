"""The event catalogue of EVENTS.md, as data: which event types exist and on which streams.

The ledger validates envelopes, not game rules, but the kind of stream an event belongs to and
the event that must open each stream are structure: a game stream that does not start with
`GameCreated` cannot be read by anyone. So is the id the opening event names: it must be its
stream's, so that one game, tournament or account id is one stream. New event types are added
here (and in docs/record-format.md).
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
    named_throughout: bool = False
    """Every event of the stream that carries `named_by` must name the stream's id too (an
    account's grants name the account they give a role to: none may name another)."""


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
        "account": StreamKind(
            opened_by="AccountCreated",
            named_by="account_id",
            types=("AccountCreated", "RoleGranted", "RoleRevoked"),
            named_throughout=True,
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
    `GameCreated` on game/g2 saying `game_id` g1 would make two streams claim game g1 (and, on a
    stream `named_throughout`, any event naming another id: `RoleGranted` on account/ana giving
    bob a role). A payload naming no id is the payload check's to refuse: the ledger reads only
    this one field."""
    kind = stream_kind(stream)
    if not isinstance(payload, dict):
        return None
    if event_type != kind.opened_by and not (kind.named_throughout and kind.named_by in payload):
        return None
    own = stream.split("/", 1)[1]
    named = payload.get(kind.named_by, own)
    if named == own:
        return None
    return (
        f"{event_type} on {stream} names {kind.named_by} {named!r}, not {own!r}: one id is one "
        f"stream, so {'its events name' if kind.named_throughout else 'the opening event names'} "
        f"its own stream's id (name {own!r}, or put the events on the stream of {named!r})"
    )


STREAM_FORMAT = f"({'|'.join(STREAM_KINDS)})/[a-z0-9][a-z0-9-]{{0,63}}"
"""A stream id, as a regular expression: a stream kind, a slash and a lowercase id
(docs/record-format.md)."""
