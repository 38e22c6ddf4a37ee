"""Duplicate rules (RULES 2.2-2.8) decided and folded on the default word list.

Round 1 draws CARTEAS: H4: CARTEA, H7: CARTEA and H8: CARTEA score 14 (different moves with
the top score), H8: CARTE 12, H6: TACE 8, H8: ARC 6.
"""

from __future__ import annotations

import dataclasses

import pytest
from game_table import T0, Table, minutes

from engine.games.commands import (
    Annul,
    ChooseTop,
    CloseRound,
    Correct,
    DrawRack,
    EndGame,
    JoinPlayer,
    Penalise,
    Revoke,
    Submit,
)
from engine.games.context import GameContext
from engine.games.events import (
    GameCreated,
    PlayerJoined,
    RackDrawn,
    RoundClosed,
    SubmissionReceived,
    TopChosen,
)
from engine.games.projections import position, round_results, standings
from engine.games.settings import read_settings
from engine.ruleset import load_ruleset


def _round_one(table, **settings) -> Table:
    game = table(**settings)
    game.run(DrawRack(round=1, tiles="CARTEAS", deadline=T0))
    return game


def _submit(game: Table, player: str, text: str, at: float = -1, part: int = 1, rnd: int = 1):
    return game.run(
        Submit(round=rnd, player_id=player, text=text, part=part, received_at=minutes(at))
    )


def _result(game: Table, player: str, rnd: int = 1):
    return next(p for p in round_results(game.state, rnd).players if p.player_id == player)


def test_later_submission_before_deadline_replaces_earlier(table):
    game = _round_one(table)
    _submit(game, "ana", "H8: ARC", at=-3)
    _submit(game, "ana", "H4: CARTEA", at=-1)
    result = _result(game, "ana")
    assert result.score == 14
    assert [(s.text, s.status) for s in result.submissions] == [
        ("H8: ARC", "superseded"),
        ("H4: CARTEA", "counted"),
    ]


def test_late_submission_is_kept_and_scores_zero(table):
    game = _round_one(table)
    _submit(game, "bob", "H4: CARTEA", at=2)
    result = _result(game, "bob")
    assert (result.score, result.code) == (0, "late")
    assert [s.status for s in result.submissions] == ["late"]


def test_late_submission_does_not_replace_one_before_the_deadline(table):
    game = _round_one(table)
    _submit(game, "bob", "H8: ARC", at=-1)
    _submit(game, "bob", "H4: CARTEA", at=1)
    result = _result(game, "bob")
    assert result.score == 6
    assert [s.status for s in result.submissions] == ["counted", "late"]


def test_submission_without_deadline_is_never_late(table):
    game = table()
    game.run(DrawRack(round=1, tiles="CARTEAS"))
    _submit(game, "ana", "H4: CARTEA", at=600)
    assert _result(game, "ana").score == 14


def test_unreadable_submission_is_kept_marked_and_scores_zero(table):
    game = _round_one(table)
    _submit(game, "cid", "I think CARTEA somewhere")
    result = _result(game, "cid")
    assert (result.score, result.code) == (0, "unreadable")
    assert result.submissions[0].text == "I think CARTEA somewhere"
    assert "expected" in result.submissions[0].judgement.problems[0].message


@pytest.mark.parametrize(
    "text, code",
    [
        ("H8: TEST", "tile_not_on_rack"),
        ("H8: CARTEAS", "not_in_dictionary"),
        ("A1: ARC", "not_on_centre"),
        ("H8: KA(K)", "no_tile_for_letter"),
    ],
)
def test_invalid_submission_scores_zero_with_its_reason_code(table, text, code):
    game = _round_one(table)
    _submit(game, "ana", text)
    result = _result(game, "ana")
    assert result.score == 0
    assert code in [p.code for p in result.parts[0].judgement.problems]


def test_submission_from_unknown_player_is_refused(table):
    game = _round_one(table)
    error = game.refuse(Submit(round=1, player_id="zoe", text="H8: ARC", received_at=T0))
    assert error.code == "unknown_player" and "zoe" in str(error)


def test_submission_for_a_round_not_drawn_is_refused(table):
    game = _round_one(table)
    assert game.refuse(Submit(round=2, player_id="ana", text="H8: ARC")).code == "round_not_drawn"


def test_submission_for_a_closed_round_is_refused(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    game.run(CloseRound(round=1))
    error = game.refuse(Submit(round=1, player_id="bob", text="H8: ARC"))
    assert error.code == "round_closed"


def test_nothing_about_a_closed_round_is_accepted(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    (penalty,) = game.run(Penalise(round=1, player_id="ana", points=5, reason="noise"))
    game.run(CloseRound(round=1))
    for command in (
        Annul(round=1, player_id="ana", reason="late slip"),
        Penalise(round=1, player_id="ana", points=1, reason="x"),
        Correct(round=1, player_id="ana", text="H8: ARC", reason="x"),
        ChooseTop(round=1, move="H4: CARTEA"),
        CloseRound(round=1),
        Revoke(event_id=penalty.event_id, reason="appeal"),
    ):
        assert game.refuse(command).code == "round_closed"


def test_top_is_the_best_valid_submission_and_goes_on_the_board(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTE")
    _submit(game, "cid", "H8: CARTEAS")
    game.run(CloseRound(round=1))
    top = game.state.round(1).top
    assert (top.text, top.score, top.source) == ("H4: CARTEA", 14, "players")
    assert game.state.board.rows[7] == "...CARTEA......"
    assert game.state.leftover == "S"


def test_later_round_draws_what_brings_the_leftover_back_to_seven(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    game.run(CloseRound(round=1))
    error = game.refuse(DrawRack(round=2, tiles="ONIRULE"))
    assert error.code == "wrong_draw_size" and "draws 6" in str(error)
    game.run(DrawRack(round=2, tiles="ONIREL"))
    assert position(game.state).rack == "SONIREL"
    assert len(position(game.state).bag) == 100 - 6 - 7


def test_next_round_cannot_be_drawn_before_the_round_is_closed(table):
    game = _round_one(table)
    assert game.refuse(DrawRack(round=2, tiles="ONIREL")).code == "round_not_closed"


def test_equal_tops_with_different_moves_wait_for_top_chosen(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTEA")
    error = game.refuse(CloseRound(round=1))
    assert error.code == "top_not_chosen" and "H4: CARTEA" in str(error)
    game.run(ChooseTop(round=1, move="H8: CARTEA"))
    game.run(CloseRound(round=1))
    top = game.state.round(1).top
    assert (top.text, top.source, top.solo) == ("H8: CARTEA", "arbiter", None)
    assert game.state.board.rows[7] == ".......CARTEA.."


def test_equal_tops_with_the_same_move_need_no_choice(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "h4 cartea = 14 p")
    game.run(CloseRound(round=1))
    assert game.state.round(1).top.reached_by == ("ana", "bob")


def test_top_chosen_that_is_not_a_top_is_refused(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTE")
    error = game.refuse(ChooseTop(round=1, move="H8: CARTE"))
    assert error.code == "not_a_top" and "the top score is 14" in str(error)


def test_recorded_top_chosen_that_is_not_a_top_is_ignored_with_its_reason(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTE")
    game.record(TopChosen(1, "H8: CARTE"))
    game.record(RoundClosed(1))
    assert game.state.round(1).top.text == "H4: CARTEA"
    (note,) = game.state.ignored
    assert (note.type_name, note.code, note.round) == ("TopChosen", "not_a_top", 1)


def test_recorded_close_without_choice_between_equal_tops_places_the_first_and_says_so(table):
    game = _round_one(table)
    _submit(game, "ana", "H7: CARTEA")
    _submit(game, "bob", "H4: CARTEA")
    game.record(RoundClosed(1))
    assert game.state.round(1).top.text == "H7: CARTEA"
    assert [n.code for n in game.state.notes] == ["top_interpreted"]


def test_computer_top_is_recorded_at_close_when_top_source_is_computer(table):
    game = _round_one(table, top_source="computer")
    _submit(game, "ana", "H4: CARTEA")
    events = game.run(CloseRound(round=1))
    assert [type(r.event).__name__ for r in events] == ["TopChosen", "RoundClosed"]
    top = game.state.round(1).top
    assert (top.source, top.score) == ("computer", 66)
    assert _result(game, "ana").total == 14
    assert top.solo is None


def test_choosing_a_move_below_the_computer_top_is_refused(table):
    game = _round_one(table, top_source="computer")
    assert game.refuse(ChooseTop(round=1, move="H4: CARTEA")).code == "not_a_top"


def test_solo_bonus_only_when_exactly_one_player_reaches_top(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTE")
    results = {p.player_id: p for p in round_results(game.state, 1).players}
    assert (results["ana"].solo, results["ana"].bonus, results["ana"].total) == (True, 10, 24)
    _submit(game, "cid", "H4: CARTEA")
    results = {p.player_id: p for p in round_results(game.state, 1).players}
    assert not results["ana"].solo and results["ana"].total == 14


def test_solo_bonus_value_and_minimum_players_come_from_settings(table):
    game = _round_one(table, solo_bonus=7)
    _submit(game, "ana", "H4: CARTEA")
    assert _result(game, "ana").bonus == 7
    few = _round_one(table, solo_min_players=4)
    _submit(few, "ana", "H4: CARTEA")
    assert _result(few, "ana").bonus == 0


def test_annulled_submission_scores_zero(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTE")
    game.run(Annul(round=1, player_id="ana", reason="word copied from a neighbour"))
    assert (_result(game, "ana").total, _result(game, "ana").code) == (0, "annulled")
    assert _result(game, "bob").solo


def test_an_annulment_and_its_revocation_are_new_events_nothing_is_edited_or_deleted(table):
    game = _round_one(table)
    (sent,) = _submit(game, "ana", "H4: CARTEA")
    before = list(game.log)
    (annulled,) = game.run(Annul(round=1, player_id="ana", reason="x"))
    game.run(Revoke(event_id=annulled.event_id, reason="appeal upheld"))
    assert game.log[: len(before)] == before  # what was recorded stays as it was
    rnd = game.state.round(1)
    assert [r.event_id for r in rnd.players["ana"].received] == [sent.event_id]
    (decision,) = rnd.decisions
    assert decision.event_id == annulled.event_id and decision.revoked_by is not None


def test_annulling_a_player_who_sent_nothing_is_refused(table):
    game = _round_one(table)
    assert game.refuse(Annul(round=1, player_id="ana", reason="x")).code == "nothing_to_annul"


def test_penalty_is_subtracted_from_the_round_score(table):
    game = _round_one(table)
    _submit(game, "ana", "H8: CARTE")
    _submit(game, "bob", "H4: CARTEA")
    game.run(Penalise(round=1, player_id="ana", points=5, reason="phone rang"))
    result = _result(game, "ana")
    assert (result.score, result.penalty, result.total) == (12, 5, 7)


def test_correction_is_judged_as_if_received_with_the_original_and_both_are_shown(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTFA", at=-2)
    game.run(Correct(round=1, player_id="ana", text="H4: CARTEA", reason="illegible E",
                     received_at=minutes(5)))  # fmt: skip
    result = _result(game, "ana")
    assert result.score == 14 and result.code is None
    assert [(s.text, s.status) for s in result.submissions] == [
        ("H4: CARTFA", "corrected"),
        ("H4: CARTEA", "counted"),
    ]


def test_correction_of_a_late_submission_stays_late(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTFA", at=2)
    game.run(Correct(round=1, player_id="ana", text="H4: CARTEA", reason="typo"))
    assert _result(game, "ana").code == "late"


@pytest.mark.parametrize("decision", ["annul", "penalty", "correction"])
def test_revocation_undoes_a_decision_about_a_player(table, decision):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    commands = {
        "annul": Annul(round=1, player_id="ana", reason="x"),
        "penalty": Penalise(round=1, player_id="ana", points=3, reason="x"),
        "correction": Correct(round=1, player_id="ana", text="H8: ARC", reason="x"),
    }
    (made,) = game.run(commands[decision])
    assert _result(game, "ana").total != 24
    game.run(Revoke(event_id=made.event_id, reason="appeal upheld"))
    assert _result(game, "ana").total == 24


def test_revocation_undoes_a_top_choice(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTEA")
    (choice,) = game.run(ChooseTop(round=1, move="H8: CARTEA"))
    game.run(Revoke(event_id=choice.event_id, reason="wrong slip read"))
    assert game.refuse(CloseRound(round=1)).code == "top_not_chosen"


def test_revocation_of_an_event_that_is_not_a_decision_is_refused(table):
    game = _round_one(table)
    (submission,) = _submit(game, "ana", "H4: CARTEA")
    error = game.refuse(Revoke(event_id=submission.event_id, reason="x"))
    assert error.code == "not_a_decision" and "SubmissionReceived" in str(error)
    assert game.refuse(Revoke(event_id="nope", reason="x")).code == "unknown_event"


def test_revoked_decision_cannot_be_revoked_again(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    (annul,) = game.run(Annul(round=1, player_id="ana", reason="x"))
    game.run(Revoke(event_id=annul.event_id, reason="appeal"))
    assert game.refuse(Revoke(event_id=annul.event_id, reason="again")).code == "already_revoked"


def test_several_parts_only_in_the_last_round(table):
    game = _round_one(table)
    error = game.refuse(Submit(round=1, player_id="ana", text="H8: ARC", part=2))
    assert error.code == "part_not_allowed"


def _small_bag_game(words, **settings) -> Table:
    """Ten tiles (CARTEAS, then ACL): round 2 draws the last three, a last round."""
    ruleset = dataclasses.replace(
        load_ruleset(),
        tile_counts={"C": 2, "A": 3, "R": 1, "T": 1, "E": 1, "S": 1, "L": 1},
        jokers=0,
    )

    class SmallBag(Table):
        def resolve(self, created):
            return GameContext(*read_settings(ruleset, created.settings), words)

    game = SmallBag(words)
    game.record(GameCreated("g1", "duplicate", settings=settings))
    for player in ("ana", "bob", "cid"):
        game.record(PlayerJoined(player))
    game.run(DrawRack(round=1, tiles="CARTEAS", deadline=T0))
    _submit(game, "ana", "H4: CARTEA")
    if settings.get("top_source") != "computer":
        game.run(CloseRound(round=1))
    else:
        game.record(TopChosen(1, "H4: CARTEA"))  # not the computer's: imported as played
        game.run(CloseRound(round=1))
    return game


def test_last_round_accepts_parts_each_on_the_players_own_board(words):
    game = _small_bag_game(words)
    error = game.refuse(DrawRack(round=2, tiles="AC"))
    assert error.code == "wrong_draw_size"
    game.run(DrawRack(round=2, tiles="ACL", deadline=T0))
    assert game.state.round(2).last and position(game.state).rack == "SACL"
    _submit(game, "ana", "5E: CALA", rnd=2)
    _submit(game, "ana", "5D: SCALA", rnd=2, part=2)
    _submit(game, "bob", "5D: CLASA", rnd=2)
    _submit(game, "cid", "G3: CAS", rnd=2)
    _submit(game, "cid", "4F: LAC", rnd=2, part=2)
    scores = {p.player_id: p.score for p in round_results(game.state, 2).players}
    assert scores == {"ana": 13, "bob": 10, "cid": 11}
    assert position(game.state, "ana").board.rows[3][3:5] == ".S"


def test_last_round_top_is_the_best_sequence_and_ends_the_game_when_played_out(words):
    game = _small_bag_game(words)
    game.run(DrawRack(round=2, tiles="ACL", deadline=T0))
    _submit(game, "ana", "5E: CALA", rnd=2)
    _submit(game, "ana", "5D: SCALA", rnd=2, part=2)
    _submit(game, "bob", "5D: CLASA", rnd=2)
    game.run(CloseRound(round=2))
    top = game.state.round(2).top
    assert (top.text, top.score, top.solo) == ("5E: CALA; 5D: SCALA", 13, "ana")
    assert game.state.over == "the bag is empty and the rack played out"
    assert game.refuse(DrawRack(round=3, tiles="")).code == "game_over"


def test_draw_of_tiles_not_in_the_bag_is_refused_naming_them(table):
    game = table()
    error = game.refuse(DrawRack(round=1, tiles="ZZAEIOU"))
    assert error.code == "tiles_not_in_bag" and "2 Z drawn, the bag holds 1" in str(error)


def test_game_ended_refuses_further_commands(table):
    game = _round_one(table)
    assert game.refuse(EndGame(reason="done")).code == "round_not_closed"
    _submit(game, "ana", "H4: CARTEA")
    game.run(CloseRound(round=1))
    game.run(EndGame(reason="time is up"))
    assert game.refuse(JoinPlayer(player_id="dan")).code == "game_ended"
    assert game.refuse(DrawRack(round=2, tiles="ONIREL")).code == "game_ended"


def test_recorded_events_that_break_the_rules_are_kept_as_ignored(table):
    game = _round_one(table)
    game.record(SubmissionReceived(1, "zoe", "H8: ARC"))
    game.record(SubmissionReceived(3, "ana", "H8: ARC"))
    game.record(RackDrawn(2, "ZZ"))
    codes = [(n.type_name, n.code) for n in game.state.ignored]
    assert codes == [
        ("SubmissionReceived", "unknown_player"),
        ("SubmissionReceived", "round_not_drawn"),
        ("RackDrawn", "round_not_closed"),
    ]
    assert game.replayed() == game.state


def test_standings_ties_share_the_place_with_total_solos_and_pct(table):
    game = _round_one(table, solo_bonus=0)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTE")
    _submit(game, "cid", "H8: CARTE")
    game.run(CloseRound(round=1))
    ranked = [(s.rank, s.player_id, s.total, s.solos, s.pct) for s in standings(game.state)]
    assert ranked == [
        (1, "ana", 14, 1, 100.0),
        (2, "bob", 12, 0, 85.71),
        (2, "cid", 12, 0, 85.71),
    ]


def test_top_choice_that_an_annulment_made_stale_must_be_chosen_again(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA")
    _submit(game, "bob", "H8: CARTEA")
    _submit(game, "cid", "H7: CARTEA")
    game.run(ChooseTop(round=1, move="H8: CARTEA"))
    game.run(Annul(round=1, player_id="bob", reason="copied"))
    assert game.refuse(CloseRound(round=1)).code == "top_not_chosen"
    game.run(ChooseTop(round=1, move="H7: CARTEA"))
    game.run(CloseRound(round=1))
    assert game.state.round(1).top.text == "H7: CARTEA"


def test_penalty_of_no_points_is_refused_naming_the_field(table):
    game = _round_one(table)
    error = game.refuse(Penalise(round=1, player_id="ana", points=0, reason="x"))
    assert error.code == "bad_points" and "PenaltyGiven.points" in str(error)


def test_computer_top_of_a_last_round_is_its_best_move_then_the_best_with_the_tiles_left(words):
    game = _small_bag_game(words, top_source="computer")
    game.run(DrawRack(round=2, tiles="ACL", deadline=T0))
    _submit(game, "ana", "5E: CALA", rnd=2)
    _submit(game, "ana", "5D: SCALA", rnd=2, part=2)
    (chosen, _) = game.run(CloseRound(round=2))
    top = game.state.round(2).top
    assert (top.source, top.score) == ("computer", 10)
    assert chosen.event.move == top.text and ";" not in top.text
    assert game.state.leftover == "" and game.state.over is not None


def test_later_arrival_counts_even_when_its_slip_was_entered_first(table):
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA", at=-1)
    _submit(game, "ana", "H8: ARC", at=-5)
    result = _result(game, "ana")
    assert result.score == 14
    assert [s.status for s in result.submissions] == ["counted", "superseded"]


def test_the_same_move_written_two_ways_is_judged_as_each_player_wrote_it(table):
    """Section 4, notation: a claimed score and an online game's prefix are not part of the
    move. Players laying the same tiles are placed and scored once, but each verdict keeps the
    move as its player wrote it, and only a wrong claim earns the claim's warning."""
    game = _round_one(table)
    _submit(game, "ana", "H4: CARTEA = 99 p")
    _submit(game, "bob", "P1-T1 - H4: CARTEA")
    verdicts = {
        player: round_.players[player].parts[0].judgement.verdict
        for round_ in game.state.rounds
        for player in ("ana", "bob")
    }
    ana, bob = verdicts["ana"], verdicts["bob"]
    assert ana.score == bob.score == 14
    assert (ana.move.claimed, ana.move.prefix) == (99, None)
    assert (bob.move.claimed, bob.move.prefix) == (None, "P1-T1")
    assert ana.warnings == ("claimed 99 points, computed 14",)
    assert bob.warnings == ()
