"""Engine game tests: the default word list loaded once (through pipelines.lexicons.registry, which
tests may use) and a table to play a duplicate game on."""

from __future__ import annotations

import pytest
from game_table import Table

from engine.dictionary import Dictionary
from engine.games.commands import CreateGame, Player
from pipelines.lexicons.cache import load_dictionary


@pytest.fixture(scope="session")
def words() -> Dictionary:
    """The shipped default word list, as games use it."""
    return load_dictionary()


@pytest.fixture
def table(words):
    """A duplicate game (or one of `variant`) with players ana, bob and cid, nothing drawn yet."""

    def make(players=("ana", "bob", "cid"), variant="duplicate", **settings) -> Table:
        game = Table(words)
        extra = {k: settings.pop(k) for k in ("draw", "seed_commitment") if k in settings}
        game.run(
            CreateGame(
                game_id="g1",
                variant=variant,
                players=tuple(Player(p, p.title()) for p in players),
                settings=settings,
                **extra,
            )
        )
        return game

    return make
