"""What an arbiter asks of a game: one frozen dataclass per command.

A variant's `decide(state, command)` checks a command against the game so far and answers with
the events to record (or refuses with a `GameRuleError`). Every command carries who gives it
(`actor`), where the fact comes from (`source`: a slip number, a forum comment id) and when it
happened (`received_at`: a submission's arrival); the service layer writes these into each
recorded event's meta.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.games.events import DictionaryRef


@dataclass(frozen=True, kw_only=True)
class Command:
    """Envelope facts of a command, recorded in each resulting event's meta."""

    actor: str | None = None
    source: str | None = None
    received_at: datetime | None = None


@dataclass(frozen=True)
class Player:
    """A player of a game: the id used in submissions, and a display name."""

    player_id: str
    name: str | None = None


@dataclass(frozen=True)
class CreateGame(Command):
    """Open a game: GameCreated, then PlayerJoined for each player given.

    `settings` are game settings and ruleset overrides (see `engine.games.settings`);
    `seed_commitment` (hex SHA-256 of the secret seed) is required when `draw` is `seeded`.
    """

    game_id: str
    variant: str = "duplicate"
    players: tuple[Player, ...] = ()
    tournament_id: str | None = None
    title: str | None = None
    ruleset: str = "ro-frs"
    settings: dict[str, Any] = field(default_factory=dict)
    dictionary: DictionaryRef | None = None
    draw: str = "manual"
    seed_commitment: str | None = None


@dataclass(frozen=True)
class JoinPlayer(Command):
    player_id: str
    name: str | None = None


@dataclass(frozen=True)
class DrawRack(Command):
    """Complete the rack for `round`.

    Manual draws give `tiles` (what the arbiter drew by hand) and `rejected` (draws put back
    because they broke the vowel/consonant rule, in the order drawn). Seeded draws give no
    tiles but the secret `seed`, which must hash to the game's commitment; the draw (and any
    rejected draws) are derived from it (`engine.games.draws`).
    """

    round: int
    tiles: str | None = None
    rejected: tuple[str, ...] = ()
    seed: str | None = None
    deadline: datetime | None = None


@dataclass(frozen=True)
class Submit(Command):
    """A player's move as written (`text`); `part` > 1 only in a last round (RULES 2.8).

    The arrival time is the command's `received_at`.
    """

    round: int
    player_id: str
    text: str
    part: int = 1


@dataclass(frozen=True)
class DeclareReplacement(Command):
    """Anticipation: the replacement a player wrote on the round's slip (`-A+B`, `-C+Do`),
    recorded as written; the rules read it against the player's group and stock."""

    round: int
    player_id: str
    text: str


@dataclass(frozen=True)
class ChooseTop(Command):
    """The arbiter's choice among equal tops (`move` in notation; in a last round, the parts
    of a sequence separated by `;`)."""

    round: int
    move: str


@dataclass(frozen=True)
class Annul(Command):
    round: int
    player_id: str
    reason: str
    part: int = 1


@dataclass(frozen=True)
class Penalise(Command):
    round: int
    player_id: str
    points: int
    reason: str


@dataclass(frozen=True)
class Warn(Command):
    """The arbiter's warning (avertisment) to a player in a round."""

    round: int
    player_id: str
    reason: str


@dataclass(frozen=True)
class Correct(Command):
    """The arbiter's reading of a submission (`text`), judged as if received with the original."""

    round: int
    player_id: str
    text: str
    reason: str
    part: int = 1


@dataclass(frozen=True)
class Revoke(Command):
    """Undo a decision (annulment, penalty, warning, top choice, correction) by its event id."""

    event_id: str
    reason: str


@dataclass(frozen=True)
class CloseRound(Command):
    """Publish the round. With `top_source: computer` and no top recorded yet, decide also
    records the computer's top (a TopChosen) before the RoundClosed."""

    round: int


@dataclass(frozen=True)
class RevealSeed(Command):
    seed: str


@dataclass(frozen=True)
class EndGame(Command):
    reason: str
