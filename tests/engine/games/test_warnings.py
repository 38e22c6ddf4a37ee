"""The arbiter's warning (avertisment): a decision like a penalty, counted per player, costing
points only when the game sets `warnings_penalty_after` and `warnings_penalty_points`.

Round 1 draws CARTEAS (H4: CARTEA scores 14); round 2 ONIREL after it.
"""

from __future__ import annotations

import pytest
from game_table import T0, Table

from engine.games.commands import CloseRound, CreateGame, DrawRack, Player, Revoke, Submit, Warn
from engine.games.events import WarningGiven
from engine.games.payloads import decode_event, encode_event
from engine.games.projections import round_results, standings
from engine.games.settings import read_settings
from engine.ruleset import load_ruleset

PENALTY_EVERY_TWO = {"warnings_penalty_after": 2, "warnings_penalty_points": 10}


def _round_one(table, **settings):
    game = table(**settings)
    game.run(DrawRack(round=1, tiles="CARTEAS", deadline=T0))
    game.run(Submit(round=1, player_id="ana", text="H4: CARTEA"))
    game.run(Submit(round=1, player_id="bob", text="H4: CARTEA"))
    return game


def _warn(game, player="ana", rnd=1, reason="talking during the round"):
    (recorded,) = game.run(Warn(round=rnd, player_id=player, reason=reason))
    return recorded


def _result(game, player="ana", rnd=1):
    return next(p for p in round_results(game.state, rnd).players if p.player_id == player)


def _standing(game, player="ana"):
    return next(s for s in standings(game.state) if s.player_id == player)


def test_warning_is_recorded_as_a_warning_given_with_its_reason(table):
    game = _round_one(table)
    recorded = _warn(game, reason="phone rang")
    assert recorded.event == WarningGiven(round=1, player_id="ana", reason="phone rang")
    (decision,) = game.state.round(1).decisions
    assert (decision.type_name, decision.player_id, decision.reason) == (
        "WarningGiven",
        "ana",
        "phone rang",
    )


def test_warning_payload_round_trips_through_the_record_format():
    event = WarningGiven(round=3, player_id="ana", reason="phone rang")
    type_name, schema, payload = encode_event(event)
    assert (type_name, payload) == ("WarningGiven", {"round": 3, "player_id": "ana",
                                                     "reason": "phone rang"})  # fmt: skip
    assert decode_event(type_name, schema, payload) == event


def test_warning_is_counted_per_player_in_round_results_and_standings(table):
    game = _round_one(table)
    _warn(game)
    _warn(game)
    _warn(game, player="bob")
    assert (_result(game).warnings, _result(game, "bob").warnings) == (2, 1)
    assert (_standing(game).warnings, _standing(game, "bob").warnings) == (2, 1)
    assert _standing(game, "cid").warnings == 0


def test_warnings_cost_no_points_by_default(table):
    game = _round_one(table)
    for _ in range(5):
        _warn(game)
    result = _result(game)
    assert (result.penalty, result.total) == (0, 14)
    assert _standing(game).total == _standing(game, "bob").total == 14


def test_every_nth_warning_becomes_a_penalty_when_the_game_sets_it(table):
    game = _round_one(table, **PENALTY_EVERY_TWO)
    _warn(game)
    assert (_result(game).penalty, _result(game).total) == (0, 14)
    _warn(game)
    assert (_result(game).penalty, _result(game).total) == (10, 4)
    _warn(game)
    assert _result(game).penalty == 10
    _warn(game)
    assert (_result(game).penalty, _standing(game).total) == (20, -6)
    assert _standing(game, "bob").total == 14


def test_warnings_are_counted_over_the_game_for_the_penalty_in_the_round_of_the_nth(table):
    game = _round_one(table, **PENALTY_EVERY_TWO)
    _warn(game)
    game.run(CloseRound(round=1))
    game.run(DrawRack(round=2, tiles="ONIREL", deadline=T0))
    _warn(game, rnd=2)
    assert (_result(game, rnd=1).penalty, _result(game, rnd=2).penalty) == (0, 10)
    assert _standing(game).warnings == 2
    assert _standing(game).total == 14 - 10


def test_revoked_warning_no_longer_counts_nor_costs(table):
    game = _round_one(table, **PENALTY_EVERY_TWO)
    first = _warn(game)
    _warn(game)
    assert _result(game).penalty == 10
    game.run(Revoke(event_id=first.event_id, reason="appeal upheld"))
    result = _result(game)
    assert (result.warnings, result.penalty, result.total) == (1, 0, 14)
    assert game.state.round(1).decisions[0].revoked_by is not None


def test_warning_to_an_unknown_player_or_a_closed_round_is_refused(table):
    game = _round_one(table)
    assert game.refuse(Warn(round=1, player_id="zoe", reason="x")).code == "unknown_player"
    game.run(CloseRound(round=1))
    assert game.refuse(Warn(round=1, player_id="ana", reason="x")).code == "round_closed"


def test_warning_after_the_close_cannot_be_revoked(table):
    game = _round_one(table)
    warning = _warn(game)
    game.run(CloseRound(round=1))
    error = game.refuse(Revoke(event_id=warning.event_id, reason="late appeal"))
    assert error.code == "round_closed"


def test_replay_of_warnings_equals_the_incremental_state(table):
    game = _round_one(table, **PENALTY_EVERY_TWO)
    first = _warn(game)
    _warn(game)
    _warn(game, player="bob")
    game.run(Revoke(event_id=first.event_id, reason="appeal"))
    _warn(game)
    replayed = game.replayed()
    assert standings(replayed) == standings(game.state)
    assert round_results(replayed, 1) == round_results(game.state, 1)


@pytest.mark.parametrize(
    "settings, problem",
    [
        ({"warnings_penalty_after": 3}, "set warnings_penalty_points too"),
        ({"warnings_penalty_points": 10}, "set warnings_penalty_after too"),
        ({"warnings_penalty_after": 0, "warnings_penalty_points": 10}, "warnings_penalty_after"),
        ({"warnings_penalty_after": 3, "warnings_penalty_points": "ten"}, "points"),
    ],
)
def test_warnings_penalty_setting_needs_both_whole_numbers(settings, problem):
    _, game = read_settings(load_ruleset(), settings)
    assert (game.warnings_after, game.warnings_points) == (0, 0)
    assert any(problem in p for p in game.problems), game.problems


def test_creating_a_game_with_half_a_warnings_penalty_is_refused(words):
    settings = {"warnings_penalty_after": 3}
    command = CreateGame(game_id="g1", players=(Player("ana", "Ana"),), settings=settings)
    error = Table(words).refuse(command)
    assert "warnings_penalty_points" in str(error)
