"""What an arbiter asks of a game: one frozen dataclass per command.

A variant's `decide(state, command)` checks a command against the game so far and answers with
the events to record (or refuses with a `GameRuleError`). Every command carries who gives it
(`actor`), where the fact comes from (`source`: a slip number, a forum comment id) and when it
happened (`received_at`: a submission's arrival); the service layer writes these into each
recorded event's meta.

A command that asks for one event as given (a submission, an annulment, a game created...)
extends that event's class, so that its fields are written once, in the record format's
`events`, and `event_of` reads the event back out of the command.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime

from engine.games import events as ev


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
class CreateGame(ev.GameCreated, Command):
    """Open a game: GameCreated, then PlayerJoined for each player given (`players`).

    The variant is duplicate unless named; `settings` are game settings and ruleset overrides
    (see `engine.games.settings`); `seed_commitment` (hex SHA-256 of the secret seed) is
    required when `draw` is `seeded`.
    """

    variant: str = "duplicate"
    players: tuple[Player, ...] = ()


@dataclass(frozen=True)
class JoinPlayer(ev.PlayerJoined, Command):
    """A player joining the game after it was created."""


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
class Submit(ev.SubmissionReceived, Command):
    """A player's move as written (`text`); `part` > 1 only in a last round (RULES 2.8).

    The arrival time is the command's `received_at`.
    """


@dataclass(frozen=True)
class DeclareReplacement(ev.ReplacementDeclared, Command):
    """Anticipation: the replacement a player wrote on the round's slip (`-A+B`, `-C+Do`),
    recorded as written; the rules read it against the player's group and stock."""


@dataclass(frozen=True)
class ChooseTop(ev.TopChosen, Command):
    """The arbiter's choice among equal tops (`move` in notation; in a last round, the parts
    of a sequence separated by `;`)."""


@dataclass(frozen=True)
class Annul(ev.SubmissionAnnulled, Command):
    """Annul a player's submission (`part` of a last round's sequence): it scores 0."""


@dataclass(frozen=True)
class Penalise(ev.PenaltyGiven, Command):
    """Take `points` off a player's score in a round, saying why."""


@dataclass(frozen=True)
class Warn(ev.WarningGiven, Command):
    """The arbiter's warning (avertisment) to a player in a round."""


@dataclass(frozen=True)
class Correct(ev.SubmissionCorrected, Command):
    """The arbiter's reading of a submission (`text`), judged as if received with the original."""


@dataclass(frozen=True)
class Revoke(ev.DecisionRevoked, Command):
    """Undo a decision (annulment, penalty, warning, top choice, correction) by its event id."""


@dataclass(frozen=True)
class CloseRound(ev.RoundClosed, Command):
    """Publish the round. With `top_source: computer` and no top recorded yet, decide also
    records the computer's top (a TopChosen) before the RoundClosed."""


@dataclass(frozen=True)
class RevealSeed(ev.SeedRevealed, Command):
    """Publish a seeded game's secret seed, which anyone can then hash to the commitment."""


@dataclass(frozen=True)
class EndGame(ev.GameEnded, Command):
    """End the game, saying why (the bag empty, the last round played)."""


def event_of(command: Command) -> ev.Event:
    """The event a command carries, without its envelope facts: what the command records when
    the rules take it as given (for a CreateGame, the GameCreated before the players join)."""
    kind = type(command).__mro__[1]
    if ev.EVENT_TYPES.get(kind.__name__) is not kind:
        raise TypeError(f"{type(command).__name__} carries no event: the variant makes its events")
    return kind(**{f.name: getattr(command, f.name) for f in fields(kind)})
