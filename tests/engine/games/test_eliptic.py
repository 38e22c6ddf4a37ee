"""Duplicat eliptic (docs/rules.md 5) through the engine: a rack of 8, a move laying at most 7,
the bonus for exactly 7, the vowel/consonant rule over the 8, the computer's top, and the
variant's numbers as settings a game may override but not contradict."""

from __future__ import annotations

import pytest
from game_table import T0, Table, player_result, submit_texts

from engine.games.commands import CloseRound, CreateGame, DrawRack
from engine.games.draws import keeps_rule, seed_commitment
from engine.games.settings import DrawMinimum
from engine.movegen import find_top
from engine.rack import Rack
from engine.ruleset import load_ruleset


@pytest.fixture
def eliptic_game(table):
    """An eliptic game with ana, bob and cid, nothing drawn yet."""
    return lambda **settings: table(variant="eliptic", **settings)


def test_the_round_draws_8_tiles_and_a_draw_of_7_is_refused(eliptic_game):
    game = eliptic_game()
    refused = game.refuse(DrawRack(round=1, tiles="JUCATOR", deadline=T0))
    assert refused.code == "wrong_draw_size"
    assert "the round draws 8" in str(refused)
    game.run(DrawRack(round=1, tiles="JUCATORI", deadline=T0))
    assert game.state.current.rack == "JUCATORI"


def test_a_draw_of_8_vowels_breaks_the_vowel_consonant_rule_over_the_8(eliptic_game):
    game = eliptic_game()
    refused = game.refuse(DrawRack(round=1, tiles="AEIOUAEI", deadline=T0))
    assert refused.code == "draw_breaks_vowel_rule"
    assert "the rack AEIOUAEI needs 1 vowel(s) and 1 consonant(s)" in str(refused)
    game.run(DrawRack(round=1, tiles="AEIOUAER", rejected=("AEIOUAEI",), deadline=T0))
    assert game.state.current.rack == "AEIOUAER"


def test_a_submission_laying_all_8_tiles_scores_0(eliptic_game):
    game = eliptic_game()
    game.run(DrawRack(round=1, tiles="JUCATORI", deadline=T0))
    submit_texts(game, 1, ana="H4: JUCATORI")
    result = player_result(game, 1, "ana")
    assert (result.code, result.score) == ("more_than_a_move_lays", 0)
    assert str(result.parts[0].judgement.problems[0]) == (
        "the move lays 8 tiles, a move lays at most 7 of the rack's 8"
    )


def test_7_of_the_8_earn_the_50_point_bonus_and_6_earn_none(eliptic_game):
    game = eliptic_game()
    game.run(DrawRack(round=1, tiles="JUCATORI", deadline=T0))
    submit_texts(game, 1, ana="H4: JUCATOR", bob="H8: CURATI")
    seven = player_result(game, 1, "ana").parts[0]
    assert (seven.code, seven.score, seven.judgement.verdict.bonus) == (None, 102, 50)
    six = player_result(game, 1, "bob").parts[0]
    assert (six.code, six.score, six.judgement.verdict.bonus) == (None, 14, 0)


def test_the_next_draw_completes_the_tops_leftover_back_to_8(eliptic_game):
    game = eliptic_game()
    game.run(DrawRack(round=1, tiles="JUCATORI", deadline=T0))
    submit_texts(game, 1, ana="H4: JUCATOR", bob="H8: CURATI")
    game.run(CloseRound(round=1))
    assert game.state.current.top.text == "H4: JUCATOR"
    assert game.state.leftover == "I"
    game.run(DrawRack(round=2, tiles="AEIRSTN", deadline=T0))
    assert game.state.current.rack == "IAEIRSTN"
    assert game.replayed() == game.state


def test_the_computer_top_lays_at_most_7_of_the_8(eliptic_game):
    game = eliptic_game(top_source="computer")
    game.run(DrawRack(round=1, tiles="JUCATORI", deadline=T0))
    context = game.state.context
    seven = load_ruleset()
    best = max(
        find_top(game.state.board, Rack(rack), seven, context.dictionary).top_score
        for rack in {"JUCATORI"[:i] + "JUCATORI"[i + 1 :] for i in range(8)}
    )
    game.run(CloseRound(round=1))
    top = game.state.current.top
    assert (top.source, top.score) == ("computer", best)
    assert len(top.parts[0].tiles) <= 7


def test_seeded_draws_keep_the_rule_over_8_tiles(eliptic_game):
    game = eliptic_game(draw="seeded", seed_commitment=seed_commitment("eliptic-seed"))
    game.run(DrawRack(round=1, seed="eliptic-seed", deadline=T0))
    rack = game.state.current.rack
    assert len(rack) == 8
    assert keeps_rule(rack, DrawMinimum(1, 1, 1), game.state.context.ruleset.vowels)


def test_a_game_may_override_the_variants_numbers(eliptic_game):
    game = eliptic_game(bingo_bonus=40, min_vowels=2, min_consonants=2)
    ruleset = game.state.context.ruleset
    assert (ruleset.rack_size, ruleset.max_laid, ruleset.bingo_size) == (8, 7, 7)
    assert (ruleset.bingo_bonus, ruleset.min_vowels, ruleset.min_consonants) == (40, 2, 2)
    assert game.refuse(DrawRack(round=1, tiles="BCDFGLMA", deadline=T0)).code == (
        "draw_breaks_vowel_rule"
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"max_laid": 9},
            "settings.max_laid: a move lays at most 9 tiles but a rack holds 8: set max_laid to 8"
            " or less",
        ),
        (
            {"bingo_size": 8},
            "settings.bingo_size: the bonus is for 8 tiles but a move lays at most 7, so no move"
            " could earn it: set bingo_size to 7 or less",
        ),
        (
            {"min_vowels": 5, "min_consonants": 4},
            "settings.draw_minimums: from round 1, a rack of 8 tiles cannot hold 5 vowel(s) and"
            " 4 consonant(s)",
        ),
    ],
)
def test_numbers_that_cannot_go_together_are_refused_at_creation(words, settings, message):
    game = Table(words)
    refused = game.refuse(CreateGame(game_id="e1", variant="eliptic", settings=settings))
    assert (refused.code, str(refused)) == ("bad_setting", message)
