"""The record format's events as typed values: one frozen dataclass per event type.

Each class is named after its event type and its fields are the payload's fields (EVENTS.md of
the record format, restated in docs/); optional fields default to None, `()` or the default the
record format states. A `Recorded` is an event as a game folds it: with the envelope facts the
rules need (id, stream version, arrival time, who recorded it and from which slip). Reading a
stored payload into its event, and writing one back, is `payloads`' part.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Union, get_args

VARIANTS = ("duplicate", "completiv", "eliptic", "anticipation")
DRAW_MODES = ("manual", "seeded")
"""The values GameCreated's `variant` and `draw` may take."""


@dataclass(frozen=True)
class DictionaryRef:
    """The word list a game is played with, as GameCreated records it."""

    name: str | None = None
    sha256: str | None = None
    words: int | None = None


# --- tournament stream -------------------------------------------------------------------


@dataclass(frozen=True)
class TournamentCreated:
    """A tournament: its name, season and, when known, its dates, federation and place."""

    tournament_id: str
    name: str
    season: str
    starts_on: str | None = None
    ends_on: str | None = None
    federation: str | None = None
    place: str | None = None


@dataclass(frozen=True)
class PlayerRegistered:
    """A player entered in a tournament, with their club and licence when known."""

    player_id: str
    name: str
    club: str | None = None
    licence: str | None = None


@dataclass(frozen=True)
class GameAdded:
    """A game counted in the tournament (the game's own stream says the rest)."""

    game_id: str


# --- game stream -------------------------------------------------------------------------


@dataclass(frozen=True)
class GameCreated:
    """The first event of a game: variant, rules, settings, dictionary and draw mode."""

    game_id: str
    variant: str
    tournament_id: str | None = None
    title: str | None = None
    ruleset: str = "ro-frs"
    settings: dict[str, Any] = field(default_factory=dict)
    dictionary: DictionaryRef | None = None
    draw: str = "manual"
    seed_commitment: str | None = None


@dataclass(frozen=True)
class PlayerJoined:
    """A player taking part in the game (with the name shown, when given)."""

    player_id: str
    name: str | None = None


@dataclass(frozen=True)
class RackDrawn:
    """The tiles drawn to complete the rack, the draws sent back to the bag, the deadline."""

    round: int
    drawn: str
    rejected: tuple[str, ...] = ()
    deadline: datetime | None = None


@dataclass(frozen=True)
class SubmissionReceived:
    """A player's slip for a round as written (`part` of a last round's sequence)."""

    round: int
    player_id: str
    text: str
    part: int = 1


@dataclass(frozen=True)
class ReplacementDeclared:
    """Anticipation: a player's replacement for a round as written (`-B+Bo`)."""

    round: int
    player_id: str
    text: str


@dataclass(frozen=True)
class SubmissionAnnulled:
    """The arbiter annuls a player's submission (`part`): it scores 0, saying why."""

    round: int
    player_id: str
    reason: str
    part: int = 1


@dataclass(frozen=True)
class PenaltyGiven:
    """The arbiter takes `points` off a player's score in a round, saying why."""

    round: int
    player_id: str
    points: int
    reason: str


@dataclass(frozen=True)
class WarningGiven:
    """The arbiter's warning (avertisment) to a player in a round: counted, costs no points
    unless the game's `warnings_penalty_after` setting turns every Nth one into a penalty."""

    round: int
    player_id: str
    reason: str


@dataclass(frozen=True)
class SubmissionCorrected:
    """The arbiter's reading (`text`) of a player's slip, judged in its stead."""

    round: int
    player_id: str
    text: str
    reason: str
    part: int = 1


@dataclass(frozen=True)
class DecisionRevoked:
    """An arbiter's decision (by its event id) undone, saying why."""

    event_id: str
    reason: str


@dataclass(frozen=True)
class TopChosen:
    """The arbiter's choice among equal tops (`move` in notation)."""

    round: int
    move: str


@dataclass(frozen=True)
class RoundClosed:
    """The round is published: its top is placed and its scores stand."""

    round: int


@dataclass(frozen=True)
class SeedRevealed:
    """A seeded game's seed made public, so that anyone can check every draw."""

    seed: str


@dataclass(frozen=True)
class GameEnded:
    """The game is over, saying why."""

    reason: str


Event = Union[  # noqa: UP007 (a runtime alias, usable in isinstance checks' documentation)
    TournamentCreated,
    PlayerRegistered,
    GameAdded,
    GameCreated,
    PlayerJoined,
    RackDrawn,
    SubmissionReceived,
    ReplacementDeclared,
    SubmissionAnnulled,
    PenaltyGiven,
    WarningGiven,
    SubmissionCorrected,
    DecisionRevoked,
    TopChosen,
    RoundClosed,
    SeedRevealed,
    GameEnded,
]

EVENT_TYPES: Mapping[str, type] = types.MappingProxyType(
    {cls.__name__: cls for cls in get_args(Event)}
)
"""Every event type of the record format, by name."""

DECISIONS = (
    "SubmissionAnnulled",
    "PenaltyGiven",
    "WarningGiven",
    "TopChosen",
    "SubmissionCorrected",
)
"""The arbiter's decisions a `DecisionRevoked` may undo."""


@dataclass(frozen=True)
class Undecodable:
    """A stored event that could not be decoded: kept, so that a replay shows it as ignored."""

    type_name: str
    schema: int
    payload: Any
    error: str


@dataclass(frozen=True)
class Recorded:
    """An event as a game folds it, with the envelope facts the rules use.

    `received_at` is meta.received_at (when the fact happened: a submission's arrival);
    `actor` and `source` are meta's (the arbiter who recorded it, the slip or comment).
    """

    event: Event | Undecodable
    event_id: str = ""
    seq: int | None = None
    version: int = 0
    received_at: datetime | None = None
    actor: str | None = None
    source: str | None = None
