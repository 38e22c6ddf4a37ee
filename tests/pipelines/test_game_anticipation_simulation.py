"""The simulated anticipation game (pipelines.simulate.anticipation) with a season's roster:
the players are the roster's, the same scenario and seed record the same events, all 14
groups are played, and the incidents asked for happen (a change of mind, an unreadable slip
read by the arbiter, an annulment revoked on appeal, a late slip, a penalty)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.games.projections import round_results
from ledger import EventStore
from pipelines.games.service import load_game
from pipelines.simulate.anticipation import Scenario, play
from pipelines.simulate.players import make_players

ROSTER = make_players(5, random.Random(7))
SCENARIO = Scenario(
    game_id="sima",
    players=len(ROSTER),
    seed=8,
    roster=ROSTER,
    incidents={2: ("resubmit",), 3: ("correct", "late"), 4: ("annul_revoked",), 5: ("penalty",)},
)


def _record(url: str) -> tuple[list[tuple[str, dict[str, Any]]], Any, Any]:
    with EventStore(url) as store:
        played = play(store, SCENARIO)
        state = load_game(store, SCENARIO.game_id).state
        events = [(e.type, e.payload) for e in store.read_all() if e.type != "DecisionRevoked"]
    return events, state, played


def test_an_anticipation_game_plays_the_roster_and_the_incidents_asked_for(tmp_path) -> None:
    first, state, played = _record(f"sqlite:///{tmp_path / 'a.db'}")
    again, _, _ = _record(f"sqlite:///{tmp_path / 'b.db'}")
    assert first == again
    assert state.created.variant == "anticipation"
    assert [p.player_id for p in played.players] == [p.player_id for p in ROSTER]
    assert list(state.players) == [p.player_id for p in ROSTER]
    assert len(state.rounds) == 14 and not state.bag and state.ended is not None
    statuses = {
        rnd.number: Counter(
            view.status
            for player in round_results(state, rnd.number).players
            for view in player.submissions
        )
        for rnd in state.rounds
    }
    assert statuses[2]["superseded"] == 1
    assert statuses[3]["corrected"] == 1 and statuses[3]["late"] >= 1
    assert {"superseded", "correction", "annul_revoked", "penalty", "late"} <= set(played.happened)
    types = Counter(t for t, _ in first)
    assert types["SubmissionCorrected"] == 1 and types["PenaltyGiven"] == 1
    annulled = state.rounds[3].standing("SubmissionAnnulled")
    assert annulled == ()  # revoked on appeal: the annulment no longer stands
