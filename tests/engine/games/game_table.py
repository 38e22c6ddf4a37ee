"""A game table for engine tests: commands decided and folded like the service does."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from engine.dictionary import Dictionary
from engine.games.commands import Command, Submit
from engine.games.events import Event, Recorded
from engine.games.projections import PlayerResult, round_results
from engine.games.replay import GameRuleError, context_for, decide, evolve, initial_state, replay
from engine.games.state import GameState

T0 = datetime(2026, 5, 1, 18, 0, tzinfo=UTC)
"""Every round's deadline in these tests."""


def minutes(n: float) -> datetime:
    """A time n minutes after the deadline (negative: before it)."""
    return T0 + timedelta(minutes=n)


class Table:
    """One game: decide each command on the current state, fold the events, keep the log."""

    def __init__(self, dictionary: Dictionary) -> None:
        self.dictionary = dictionary
        self.log: list[Recorded] = []
        self.state: GameState = initial_state(self.resolve)

    def resolve(self, created):
        return context_for(created, self.dictionary)

    def run(self, command: Command) -> list[Recorded]:
        events = decide(self.state, command)
        return [self.record(e, command.received_at, command.actor, command.source) for e in events]

    def refuse(self, command: Command) -> GameRuleError:
        before = len(self.log)
        with pytest.raises(GameRuleError) as caught:
            self.run(command)
        assert len(self.log) == before
        return caught.value

    def record(
        self,
        event: Event,
        received_at: datetime | None = None,
        actor: str | None = None,
        source: str | None = None,
    ) -> Recorded:
        """Fold an event as recorded, without deciding it (an imported file's event)."""
        n = len(self.log) + 1
        recorded = Recorded(event, str(uuid.uuid4()), n, n, received_at, actor, source)
        self.log.append(recorded)
        self.state = evolve(self.state, recorded)
        return recorded

    def replayed(self) -> GameState:
        return replay(self.log, self.resolve)


def submit_texts(game: Table, number: int, **texts: str) -> None:
    """Each player's text for round `number`, received a minute before the deadline."""
    for player, text in texts.items():
        game.run(Submit(round=number, player_id=player, text=text, received_at=minutes(-1)))


def player_result(game: Table, number: int, player: str) -> PlayerResult:
    """A player's results of round `number`."""
    return next(p for p in round_results(game.state, number).players if p.player_id == player)
