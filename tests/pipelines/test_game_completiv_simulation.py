"""The simulated completiv game (pipelines.simulate.completiv): the same scenario and seed
record the same events, the game is played to the end of the bag with 6 drawn per round, and
the incidents asked for happen (a letter left unmarked, a letter gone from the stock)."""

from __future__ import annotations

from typing import Any

from engine.games.projections import round_results
from ledger import EventStore
from pipelines.games.service import load_game
from pipelines.simulate.completiv import play
from pipelines.simulate.duplicate import Scenario

SCENARIO = Scenario(
    game_id="simc",
    players=4,
    seed=5,
    incidents={2: ("unmarked",), **{n: ("rule_a",) for n in range(6, 30)}},
)


def _record(url: str) -> tuple[list[tuple[str, dict[str, Any]]], Any]:
    with EventStore(url) as store:
        play(store, SCENARIO)
        state = load_game(store, SCENARIO.game_id).state
        events = [(e.type, e.payload) for e in store.read_all() if e.type != "DecisionRevoked"]
    return events, state


def test_same_completiv_scenario_and_seed_record_the_same_game(tmp_path) -> None:
    first, state = _record(f"sqlite:///{tmp_path / 'a.db'}")
    again, _ = _record(f"sqlite:///{tmp_path / 'b.db'}")
    assert first == again
    assert state.created.variant == "completiv"
    assert all(len(rnd.rack) == 6 for rnd in state.rounds if not rnd.last)
    assert state.over is not None and not state.bag
    codes = {
        view.status
        for rnd in state.rounds
        for player in round_results(state, rnd.number).players
        for view in player.submissions
    }
    assert "completiv_letter_unmarked" in codes
    notes = [
        note
        for rnd in state.rounds
        for player in rnd.players.values()
        for part in player.parts
        for note in part.judgement.notes
    ]
    assert any("completiv rule a" in note for note in notes)
