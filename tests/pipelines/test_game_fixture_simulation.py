"""The simulation that makes the sample game and the benchmark's game: the same scenario and
seed record the same game, played to the end of the bag through the service layer, with the
arbiter's acts where the scenario asks for them."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.board import Board
from engine.games.projections import round_results
from engine.notation import NotationError, parse_move
from engine.ruleset import load_ruleset
from ledger import EventStore
from pipelines.games.service import load_game
from pipelines.lexicons.cache import load_dictionary
from pipelines.simulate.duplicate import Scenario, play
from pipelines.simulate.players import TIERS, Players, SimulatedPlayer, Table, make_players

SCENARIO = Scenario(
    game_id="sim",
    players=4,
    seed=11,
    incidents={2: ("annul_revoked", "late"), 3: ("penalty", "correct"), 4: ("resubmit",)},
)


def _record(url: str) -> tuple[list[tuple[str, dict[str, Any], dict[str, Any]]], Any, Any]:
    """Play the scenario into a new ledger: its events (ids referred to by position), what the
    simulation says it did, and the game's state."""
    with EventStore(url) as store:
        played = play(store, SCENARIO)
        state = load_game(store, SCENARIO.game_id).state
        ids = {e.event_id: i for i, e in enumerate(store.read_all())}
        events = [
            (
                e.type,
                {k: ids.get(v, v) if k == "event_id" else v for k, v in e.payload.items()},
                e.meta,
            )
            for e in store.read_all()
        ]
    return events, played, state


@pytest.fixture(scope="module")
def recorded(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    return _record(f"sqlite:///{tmp_path_factory.mktemp('sim') / 'first.db'}")


def test_the_same_scenario_and_seed_record_the_same_game(recorded: tuple, tmp_path: Path) -> None:
    events = recorded[0]
    assert events == _record(f"sqlite:///{tmp_path / 'second.db'}")[0]
    assert events[0][0] == "GameCreated" and events[-1][0] == "GameEnded"


def test_a_simulated_game_plays_the_bag_out_with_the_acts_asked_for(recorded: tuple) -> None:
    _, played, state = recorded
    assert state.over is not None and len(state.bag) == 0 and state.ended is not None
    assert played.rounds == len(state.rounds) and all(r.closed for r in state.rounds)
    assert played.happened["annul_revoked"] == (2,) and played.happened["penalty"] == (3,)
    second = round_results(state, 2)
    annulment = next(d for d in state.round(2).decisions if d.type_name == "SubmissionAnnulled")
    assert annulment.revoked_by is not None
    assert any(v.status == "late" for p in second.players for v in p.submissions)
    third = round_results(state, 3)
    assert any(v.correction for p in third.players for v in p.submissions)
    assert sum(p.penalty for p in third.players) == 10
    fourth = round_results(state, 4)
    assert any(v.status == "superseded" for p in fourth.players for v in p.submissions)


def test_simulated_players_write_moves_of_the_position_in_notation(default_home: Path) -> None:
    ruleset, dictionary = load_ruleset(), load_dictionary()
    strong = SimulatedPlayer("p1", "Ana Pop", TIERS["maestru"], "plain")
    players = Players((strong,), ruleset, dictionary, random.Random(3))
    table = Table(Board.empty(), "CARTEAM", 1, "P1", timedelta(minutes=3), last=False)
    texts = [slip.text for _ in range(30) for slip in players.round(table)]
    moves = [parse_move(text) for text in texts]
    assert texts and not any(isinstance(m, NotationError) for m in moves[:5])
    tops = {"CAMERAT", "MACERAT", "MARCATE", "MATRACE", "CARTEAM"}
    found = sum(1 for m in moves if not isinstance(m, NotationError) and m.word in tops)
    assert found > len(moves) / 3, "a strong player finds a top in most rounds"


def test_simulated_players_get_distinct_names_and_every_level() -> None:
    players = make_players(14, random.Random(5))
    assert len({p.name for p in players}) == 14
    assert {p.habits for p in players} == set(TIERS.values())
    assert [p.player_id for p in players][:3] == ["p01", "p02", "p03"]
