"""Duplicat-completiv (RULES 3) through the engine: the 6 drawn, the letter each player
chooses from the stock, rules a and b, the unmarked letter, the bingo, what the top takes
from the stock, the computer's top, and each player's state explained."""

from __future__ import annotations

import pytest
from game_table import T0, Table, player_result, submit_texts

from engine.bag import Bag
from engine.board import Board
from engine.games.commands import (
    CloseRound,
    CreateGame,
    DrawRack,
    Player,
)
from engine.games.completiv import player_view
from engine.games.completiv_judge import stock_of
from engine.movegen import find_top
from engine.rack import Rack


@pytest.fixture
def completiv(words):
    """A completiv game with ana, bob and cid, nothing drawn yet."""

    def make(**settings) -> Table:
        game = Table(words)
        game.run(
            CreateGame(
                game_id="c1",
                variant="completiv",
                players=(Player("ana"), Player("bob"), Player("cid")),
                settings=settings,
            )
        )
        return game

    return make


def _after_jucator(completiv) -> Table:
    """Round 1 closed on the top H4: [J]UCATOR: the only J has left the stock."""
    game = completiv()
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    submit_texts(game, 1, ana="H4: [J]UCATOR")
    game.run(CloseRound(round=1))
    return game


def test_the_round_draws_6_tiles_and_a_draw_of_7_is_refused(completiv):
    game = completiv()
    refused = game.refuse(DrawRack(round=1, tiles="UCATORS", deadline=T0))
    assert refused.code == "wrong_draw_size"
    assert "the round draws 6" in str(refused)


def test_the_vowel_consonant_rule_applies_to_the_6_drawn(completiv):
    game = completiv()
    refused = game.refuse(DrawRack(round=1, tiles="AEIOUA", deadline=T0))
    assert refused.code == "draw_breaks_vowel_rule"
    game.run(DrawRack(round=1, tiles="AEIOUR", rejected=("AEIOUA",), deadline=T0))
    assert game.state.current.rack == "AEIOUR"


def test_chosen_letter_completes_the_rack_to_7_and_earns_the_bingo(completiv):
    game = completiv()
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    submit_texts(game, 1, ana="H4: [J]UCATOR", bob="H4: JUCATOR +J = 102 p")
    for player in ("ana", "bob"):
        part = player_result(game, 1, player).parts[0]
        assert part.code is None
        assert part.judgement.verdict.bingo
        assert part.score == 102  # (20 + 6) x 2 + 50
        assert part.judgement.notes == ("J chosen from the stock (1 there) and laid",)


def test_stock_joker_chosen_and_named_only_after_the_word_scores_as_a_joker(completiv):
    """The notation defect: `H4: JUCATOR +(C)` was read as a real C (102, rack JUATOR)."""
    game = completiv()
    game.run(DrawRack(round=1, tiles="JUATOR", deadline=T0))
    submit_texts(game, 1, ana="H4: JUCATOR +(C)", bob="H4: JU[(C)]ATOR", cid="H4: JU(C)ATOR +(C)")
    for player in ("ana", "bob", "cid"):
        part = player_result(game, 1, player).parts[0]
        assert (part.code, part.score) == (None, 100)


def test_rule_a_letter_gone_from_the_stock_counts_as_its_joker_less_its_value(completiv):
    game = _after_jucator(completiv)
    game.run(DrawRack(round=2, tiles="AEIRST", deadline=T0))
    assert stock_of(game.state.context.ruleset, game.state.board, "AEIRST").count("J") == 0
    submit_texts(game, 2, ana="11E: [J]ARISTE", bob="11E: JARISTE +J", cid="11E: [(J)]ARISTE")
    marked_as_joker = player_result(game, 2, "cid").parts[0]
    assert (marked_as_joker.code, marked_as_joker.score) == (None, 91)
    for player in ("ana", "bob"):
        part = player_result(game, 2, player).parts[0]
        assert part.code is None
        assert part.score == 91 - 10
        assert part.judgement.move.jokers == (0,)
        assert "completiv rule a" in part.judgement.notes[0]
        assert "its value 10 is subtracted" in part.judgement.notes[0]


def test_rule_b_letter_gone_from_the_stock_with_no_joker_left_is_annulled(completiv):
    game = _after_jucator(completiv)
    game.run(DrawRack(round=2, tiles="??ARIS", deadline=T0))
    submit_texts(game, 2, ana="11E: JARI +J", bob="11E: (J)ARI")
    wrong = player_result(game, 2, "ana")
    assert (wrong.code, wrong.score) == ("completiv_letter_not_in_stock", 0)
    assert "rule b" in wrong.parts[0].judgement.problems[0].message
    assert player_result(game, 2, "bob").score == 23


def test_stock_joker_chosen_when_none_is_left_is_annulled(completiv):
    game = _after_jucator(completiv)
    game.run(DrawRack(round=2, tiles="??ARIS", deadline=T0))
    submit_texts(game, 2, ana="11E: [(J)]A(R)(I)")
    assert player_result(game, 2, "ana").code == "completiv_joker_not_in_stock"


def test_unmarked_letter_from_the_stock_is_a_notation_error_annulled(completiv):
    game = completiv()
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    submit_texts(game, 1, ana="H4: JUCATOR")
    result = player_result(game, 1, "ana")
    assert (result.code, result.score) == ("completiv_letter_unmarked", 0)
    assert "marks no letter chosen from the stock" in result.parts[0].judgement.problems[0].message


def test_a_move_of_the_drawn_tiles_alone_needs_no_mark(completiv):
    """Section 3, marking the chosen letter: a mark is needed only for a letter the 6 drawn
    tiles do not supply."""
    game = completiv()
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    submit_texts(game, 1, ana="H8: ACTOR")
    result = player_result(game, 1, "ana")
    assert result.code is None and result.score > 0
    assert result.parts[0].judgement.problems == ()


def test_chosen_letter_not_laid_is_never_taken(completiv):
    game = completiv()
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    submit_texts(game, 1, ana="H8: ACTOR +J")
    part = player_result(game, 1, "ana").parts[0]
    assert part.code is None
    assert "not laid: never taken" in part.judgement.notes[0]


def test_chosen_letter_leaves_the_stock_only_when_the_top_places_it(completiv):
    placed = _after_jucator(completiv)
    assert placed.state.bag.count("J") == 0
    assert placed.state.leftover == ""

    game = completiv()
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    stock = game.state.bag
    submit_texts(game, 1, ana="H8: ACTOR +J", bob="H8: ACT +Z")
    game.run(CloseRound(round=1))
    assert game.state.current.top.text == "H8: ACTOR +J"
    assert game.state.bag == stock
    assert game.state.bag.count("Z") == 1


def test_leftover_is_what_the_top_did_not_use_of_the_6_drawn(completiv):
    game = completiv()
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    submit_texts(game, 1, ana="H8: [B]URTA")
    game.run(CloseRound(round=1))
    assert game.state.leftover == "CO"
    assert game.state.bag.count("B") == 1
    game.run(DrawRack(round=2, tiles="AEIS", deadline=T0))
    assert game.state.current.rack == "COAEIS"


def test_computer_top_searches_the_6_drawn_with_every_letter_of_the_stock(completiv):
    game = completiv(top_source="computer")
    game.run(DrawRack(round=1, tiles="UCATOR", deadline=T0))
    context = game.state.context
    board = game.state.board
    stock = stock_of(context.ruleset, board, "UCATOR")
    best = max(
        find_top(board, Rack("UCATOR" + tile), context.ruleset, context.dictionary).top_score
        for tile in stock.counts
    )
    game.run(CloseRound(round=1))
    top = game.state.current.top
    assert top.source == "computer"
    assert top.score == best >= 102
    assert "[" in top.text  # the letter taken from the stock is marked
    assert len(game.state.bag) == 100 - 6 - 1


def test_player_view_shows_the_rack_with_the_chosen_letter_stock_and_score(completiv):
    game = _after_jucator(completiv)
    game.run(DrawRack(round=2, tiles="AEIRST", deadline=T0))
    submit_texts(game, 2, ana="11E: [Z]ARISTE", bob="11E: [J]ARISTE")
    assert player_view(game.state, "ana").rack == "AEIRSTZ"
    view = player_view(game.state, "bob")
    assert (view.drawn, view.chosen, view.rack) == ("AEIRST", "J", "AEIRST?")
    assert view.stock.count("J") == 0 and view.stock.count("?") == 2
    assert view.score == 81  # round 2 so far; round 1 scored nothing
    assert any("completiv rule a" in line for line in view.explanation)
    nothing = player_view(game.state, "cid")
    assert nothing.rack == "AEIRST" and nothing.chosen is None
    assert "no submission in round 2" in nothing.explanation[0]


def test_duplicate_game_refuses_a_letter_chosen_from_the_stock(table):
    game = table()
    game.run(DrawRack(round=1, tiles="UCATORE", deadline=T0))
    submit_texts(game, 1, ana="H4: JUCATOR +J")
    assert player_result(game, 1, "ana").code == "completiv_mark_not_allowed"


def test_completiv_replay_equals_the_incremental_state(completiv):
    game = _after_jucator(completiv)
    game.run(DrawRack(round=2, tiles="AEIRST", deadline=T0))
    submit_texts(game, 2, ana="11E: [J]ARISTE", bob="11E: [(J)]ARISTE", cid="11E: REZISTA")
    game.run(CloseRound(round=2))
    assert game.replayed() == game.state
    assert game.state.bag.count("?") == 1


def test_last_round_stock_is_empty_so_a_chosen_letter_laid_is_annulled(completiv):
    """Once the draw has emptied the bag, nothing is left to choose: rule b applies."""
    game = completiv()
    context = game.state.context
    rack = "AEIRST"
    lying = Bag.full(context.ruleset).take(rack).tiles().replace("?", "e")
    cells = lying + "." * (15 * 15 - len(lying))
    board = Board(tuple(cells[i : i + 15] for i in range(0, 15 * 15, 15)))
    assert not stock_of(context.ruleset, board, rack)
    chosen = context.judge(board, rack, "K1: [J]ARISTE")
    assert chosen.problems[0].code == "completiv_letter_not_in_stock"
    assert chosen.score == 0


def test_marked_letter_gone_from_the_stock_is_rule_a_even_when_the_drawn_tiles_hold_it(
    completiv,
):
    """RULES 3: the mark is the player's declaration. The only Z is on the drawn rack, so the
    stock no longer holds one: `[Z]` and `+Z` are rule a (the Z counts as the stock's joker,
    less its value 10), the drawn Z stays unused; unmarked, the same move uses the drawn Z."""
    game = completiv()
    game.run(DrawRack(round=1, tiles="ZAREIT", deadline=T0))
    assert game.state.bag.count("Z") == 0 and game.state.bag.count("?") == 2
    submit_texts(game, 1, ana="H8: [Z]ARE", bob="H8: ZARE +Z", cid="H8: ZARE")
    plain = player_result(game, 1, "cid")
    assert (plain.code, plain.score) == (None, 26)  # (10 + 1 + 1 + 1) x 2
    for player in ("ana", "bob"):
        part = player_result(game, 1, player).parts[0]
        assert part.code is None
        assert part.judgement.move.jokers == (0,)
        assert part.score == (0 + 1 + 1 + 1) * 2 - 10
        assert "completiv rule a" in part.judgement.notes[0]
    game.run(CloseRound(round=1))
    assert game.state.current.top.text == "H8: ZARE"
    assert game.state.leftover == "IT"


def test_marked_letter_gone_from_the_stock_with_no_joker_left_is_rule_b_even_when_drawn(
    completiv,
):
    """RULES 3, rule b with the declared mark: the drawn rack holds the only Z and both
    jokers, so the stock holds neither: `[Z]` is wrong and annulled."""
    game = completiv()
    game.run(DrawRack(round=1, tiles="ZARE??", deadline=T0))
    submit_texts(game, 1, ana="H8: [Z]ARE", bob="H8: ZARE")
    wrong = player_result(game, 1, "ana")
    assert (wrong.code, wrong.score) == ("completiv_letter_not_in_stock", 0)
    assert player_result(game, 1, "bob").score == 26
