"""The end of a duplicate game through the real CLI (RULES 2.1): once the draw has emptied
the bag, a leftover that breaks the vowel/consonant rule ends the game; no round is drawn
from it. The game is a simulated one whose last top leaves a leftover of consonants only
(scenario seed 3; which ones depends on how the simulated players play)."""

from __future__ import annotations

from pathlib import Path

import pytest
from game_cli_helpers import Arbiter

from ledger import EventStore, NewEvent
from pipelines.games.service import load_game
from pipelines.simulate.duplicate import Scenario, play

pytestmark = pytest.mark.usefixtures("default_home")

SCENARIO = Scenario(game_id="hd1", players=2, seed=3)


def test_a_leftover_breaking_the_rule_after_the_bag_is_empty_ends_the_game(
    db_url: str, tmp_path: Path
) -> None:
    with EventStore(f"sqlite:///{tmp_path / 'simulated.db'}") as simulated:
        play(simulated, SCENARIO)
        events = simulated.read_stream("game/hd1")
    closes = [i for i, e in enumerate(events) if e.type == "RoundClosed"]
    kept = events[: closes[-1] + 1]  # up to the close of the round whose draw emptied the bag
    with EventStore(db_url) as store:
        store.append("game/hd1", [NewEvent(e.type, e.payload, e.meta, e.event_id) for e in kept])
        state = load_game(store, "hd1").state
    last = state.rounds[-1]
    leftover = state.leftover
    assert last.last and len(state.bag) == 0 and leftover and not set(leftover) & set("AEIOU")
    broken = f"the leftover {leftover} has not 1 vowel(s) and 1 consonant(s)"
    assert state.over == f"the bag is empty and {broken}: end the game"
    arbiter = Arbiter(db_url)
    refused = arbiter.refused(1, "draw", "hd1", "--tiles", "")
    assert broken in refused
    arbiter.ok("end", "hd1", "--reason", f"the leftover {leftover} breaks the vowel/consonant rule")
