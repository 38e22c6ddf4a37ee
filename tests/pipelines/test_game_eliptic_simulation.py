"""The simulated eliptic game (duplicate's simulation, `pipelines.simulate.duplicate`, with the
variant's numbers): the same scenario and seed record the same events, every rack but the
last holds 8 tiles, the game is played to the end of the bag, no move counted lays more than
7 tiles, and the bonus goes to moves of exactly 7."""

from __future__ import annotations

from typing import Any

from ledger import EventStore
from pipelines.games.service import load_game
from pipelines.simulate.duplicate import Scenario, play

SCENARIO = Scenario(game_id="sime", players=4, seed=5, variant="eliptic")


def _record(url: str) -> tuple[list[tuple[str, dict[str, Any]]], Any]:
    with EventStore(url) as store:
        play(store, SCENARIO)
        state = load_game(store, SCENARIO.game_id).state
        events = [(e.type, e.payload) for e in store.read_all()]
    return events, state


def test_same_eliptic_scenario_and_seed_record_the_same_game_of_racks_of_8(tmp_path) -> None:
    first, state = _record(f"sqlite:///{tmp_path / 'a.db'}")
    again, _ = _record(f"sqlite:///{tmp_path / 'b.db'}")
    assert first == again
    assert state.created.variant == "eliptic"
    assert all(len(rnd.rack) == 8 for rnd in state.rounds if not rnd.last)
    assert state.over is not None and not state.bag
    counted = [
        part.judgement.verdict
        for rnd in state.rounds
        for player in rnd.players.values()
        for part in player.parts
        if part.code is None
    ]
    assert counted and max(len(v.tiles) for v in counted) == 7
    assert {len(v.tiles) for v in counted if v.bingo} == {7}
