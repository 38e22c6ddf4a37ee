"""Anticipation with metagrams (RULES 4, rules 1-10 of the seed), decided and folded on the
default word list, with the seed's own examples.

Round 1 draws ABEIRST with both jokers in the stock; H8: SER(B)ATI scores 64 with a joker B,
H8: SARIT 12. The groups of rounds 2-13 are the other letters in alphabetical order, and the
last group is CARTEAS, so that round 14 can be played on a known board.
"""

from __future__ import annotations

from collections import Counter

import pytest
from game_table import Table, minutes

from engine.bag import Bag
from engine.games.anticipation_rules import seed_notation
from engine.games.anticipation_views import player_sheet
from engine.games.commands import (
    Annul,
    ChooseTop,
    CloseRound,
    CreateGame,
    DeclareReplacement,
    DrawRack,
    Player,
    RevealSeed,
    Revoke,
    Submit,
)
from engine.games.draws import seed_commitment
from engine.games.events import ReplacementDeclared
from engine.games.projections import position, round_results, standings
from engine.ruleset import load_ruleset

FIRST, LAST = "ABEIRST", "CARTEAS"


def _groups() -> list[str]:
    letters = Bag.full(load_ruleset("ro-frs")).tiles().replace("?", "")
    left = "".join(sorted((Counter(letters) - Counter(FIRST) - Counter(LAST)).elements()))
    return [FIRST, *(left[i : i + 7] for i in range(0, len(left), 7)), LAST]


GROUPS = _groups()


@pytest.fixture
def game(words):
    """An anticipation game with ana, bob and cid, round 1 (ABEIRST) drawn."""
    table = Table(words)
    table.run(
        CreateGame(game_id="a1", variant="anticipation", players=(Player("ana"), Player("bob"),
                   Player("cid")))
    )  # fmt: skip
    table.run(DrawRack(round=1, tiles=FIRST, deadline=minutes(0)))
    return table


def _replace(game: Table, player: str, text: str, rnd: int = 1, at: float = -2):
    return game.run(
        DeclareReplacement(round=rnd, player_id=player, text=text, received_at=minutes(at))
    )


def _submit(game: Table, player: str, text: str, rnd: int = 1, part: int = 1, at: float = -1):
    return game.run(
        Submit(round=rnd, player_id=player, text=text, part=part, received_at=minutes(at))
    )


def _result(game: Table, player: str, rnd: int = 1):
    return next(p for p in round_results(game.state, rnd).players if p.player_id == player)


def _close(game: Table, rnd: int = 1) -> None:
    game.run(CloseRound(round=rnd))


def _to_last_round(game: Table) -> None:
    """Close round 1, then draw and close rounds 2-13, and draw round 14 (CARTEAS)."""
    _close(game, 1)
    for number in range(2, 15):
        game.run(DrawRack(round=number, tiles=GROUPS[number - 1], deadline=minutes(0)))
        if number < 14:
            _close(game, number)


def test_rule_1_fourteen_groups_of_seven_from_the_98_letters_jokers_start_in_every_stock(words):
    game = Table(words)
    game.run(
        CreateGame(game_id="a2", variant="anticipation", players=(Player("ana"),),
                   draw="seeded", seed_commitment=seed_commitment("s"))
    )  # fmt: skip
    assert game.state.bag.count("?") == 0 and len(game.state.bag) == 98
    assert player_sheet(game.state, "ana").stock == "??"
    for number in range(1, 15):
        game.run(DrawRack(round=number, seed="s"))
        game.run(CloseRound(round=number))
    drawn = "".join(r.drawn for r in game.state.rounds)
    assert all(len(r.drawn) == 7 for r in game.state.rounds)
    assert Counter(drawn) == Counter(Bag.full(load_ruleset("ro-frs")).tiles().replace("?", ""))
    assert game.state.rounds[-1].last and not game.state.rounds[-2].last
    assert game.refuse(DrawRack(round=15, seed="s")).code == "game_over"
    game.run(RevealSeed(seed="s"))
    assert game.state.seed == "s" and not game.state.notes
    assert game.replayed() == game.state


def test_rule_1_a_manual_draw_holds_letters_only_and_no_draw_is_rejected(game):
    _close(game)
    assert game.refuse(DrawRack(round=2, tiles="AAAAAA?")).code == "tiles_not_in_bag"
    refused = game.refuse(DrawRack(round=2, tiles="AAAAAAA", rejected=("EEEEEEE",)))
    assert refused.code == "rejected_draw_was_valid"
    assert game.refuse(DrawRack(round=2, tiles="AAAA")).code == "wrong_draw_size"


def test_rule_2_one_submission_a_round_the_latest_before_the_deadline_counts(game):
    _submit(game, "ana", "H8: SARIT", at=-3)
    _submit(game, "ana", "H8: BASTI", at=-1)
    assert (
        game.refuse(
            Submit(round=1, player_id="ana", text="H8: SARIT", part=2, received_at=minutes(-1))
        ).code
        == "part_not_allowed"
    )
    result = _result(game, "ana")
    assert [s.status for s in result.submissions] == ["superseded", "counted"]
    assert result.parts[0].judgement.move.word == "BASTI"


def test_rule_3_a_replacement_puts_the_letter_replaced_in_the_stock_which_keeps_two(game):
    _replace(game, "ana", "-B+Bo")
    _submit(game, "ana", "H8: SER(B)ATI")
    _close(game)
    assert player_sheet(game.state, "ana").stock == "?B"
    game.run(DrawRack(round=2, tiles=GROUPS[1], deadline=minutes(0)))
    _replace(game, "ana", "-A+B", rnd=2)
    sheet = player_sheet(game.state, "ana")
    assert (sheet.group, sheet.stock) == ("BAAAAAA", "?A")
    _replace(game, "bob", "-A+Eo", rnd=2)
    assert player_sheet(game.state, "bob").group == "?AAAAAA"
    assert player_sheet(game.state, "bob").stock == "?A"
    assert player_sheet(game.state, "bob").rounds[-1].group == "(E)AAAAAA"


def test_rule_4_replacing_is_optional_the_group_drawn_is_played(game):
    _submit(game, "bob", "H8: SARIT")
    result = _result(game, "bob")
    assert (result.score, result.parts[0].rack, result.replacement) == (12, FIRST, None)
    assert player_sheet(game.state, "bob").rounds[0].explanations[1] == "no replacement"


def test_rule_5_a_joker_may_replace_the_same_letter_keeping_the_real_one_in_the_stock(game):
    _replace(game, "ana", "-B+Bo")
    _submit(game, "ana", "H8: SER(B)ATI")
    _replace(game, "bob", "-B+Bo")
    _submit(game, "bob", "H8: SERBoATI")
    _replace(game, "cid", "-B+Bo")
    _submit(game, "cid", "H8: (S)ERBATI")
    for player in ("ana", "bob"):
        result = _result(game, player)
        assert result.score == 64, player
        assert result.parts[0].judgement.verdict.bonus == 50, "all 7 letters of the group"
        tiles = result.parts[0].tiles
        assert [(t.letter, t.joker) for t in tiles if t.joker] == [("B", True)]
    assert _result(game, "cid").code == "tile_not_on_rack"
    _close(game)
    assert player_sheet(game.state, "ana").stock == "?B"
    assert player_sheet(game.state, "ana").eliminated == ""


def test_rule_5_a_joker_taken_for_a_letter_stands_for_that_letter_only(game):
    _replace(game, "ana", "-B+(D)")
    _submit(game, "ana", "H8: SER(B)ATI")
    result = _result(game, "ana")
    assert (result.score, result.code) == (0, "joker_not_as_declared")


def test_rule_6_letters_the_submission_does_not_use_are_eliminated(game):
    _submit(game, "ana", "H8: SARIT")
    _close(game)
    sheet = player_sheet(game.state, "ana")
    assert (sheet.eliminated, sheet.stock) == ("BE", "??")
    assert sheet.rounds[0].explanations[-1] == "eliminated: B, E"
    assert player_sheet(game.state, "cid").eliminated == FIRST


def test_rule_7_a_replacement_stands_even_when_the_letter_taken_is_not_used(game):
    _replace(game, "ana", "-B+Bo")
    _submit(game, "ana", "H8: SARIT")
    assert _result(game, "ana").score == 12
    _close(game)
    sheet = player_sheet(game.state, "ana")
    assert Counter(sheet.eliminated) == Counter("E?")
    assert Counter(sheet.stock) == Counter("B?")
    assert sheet.board.rows[7] == ".......SARIT..."


def test_rule_8_last_round_stock_submission_first_then_the_group_neither_compulsory(game):
    _replace(game, "ana", "-B+Bo")
    _submit(game, "ana", "H8: SER(B)ATI")
    _to_last_round(game)
    assert game.state.current.last
    _submit(game, "ana", "10F: B(A)R", rnd=14, part=1)
    _submit(game, "ana", "I10: CARE", rnd=14, part=2)
    _submit(game, "bob", "H8: CARTEA", rnd=14, part=2)
    refused = game.refuse(
        Submit(round=14, player_id="cid", text="H8: CARTEA", part=3, received_at=minutes(-1))
    )
    assert refused.code == "part_not_allowed"
    ana = _result(game, "ana", 14)
    assert [(p.part, p.rack, p.score) for p in ana.parts] == [(1, "?B", 28), (2, LAST, 22)]
    assert "".join(row[9] for row in ana.parts[1].board.rows[5:8]) == "BaR"
    assert _result(game, "bob", 14).score == 14
    _close(game, 14)
    sheet = player_sheet(game.state, "ana")
    assert sheet.stock == ""
    assert sheet.total == 64 + 28 + 22
    assert Counter(sheet.eliminated[-3:]) == Counter("TAS")
    assert game.state.over is not None
    assert game.refuse(DrawRack(round=15, tiles="AAAAAAA")).code == "game_over"


def test_rule_8_a_stock_submission_with_a_real_stock_letter_only(game):
    _replace(game, "ana", "-B+Bo")
    _submit(game, "ana", "H8: SER(B)ATI")
    _to_last_round(game)
    _submit(game, "ana", "10F: BUR", rnd=14, part=1)
    assert _result(game, "ana", 14).code == "tile_not_on_rack"


def test_rule_9_an_annulment_does_not_undo_the_replacement_and_a_replacement_never_changes(game):
    declared = _replace(game, "ana", "-B+Bo")
    _submit(game, "ana", "H8: SER(B)ATI")
    annulment = game.run(Annul(round=1, player_id="ana", reason="numele lipsă"))
    assert _result(game, "ana").score == 0
    assert (
        game.refuse(
            DeclareReplacement(round=1, player_id="ana", text="-A+(E)", received_at=minutes(-1))
        ).code
        == "replacement_declared"
    )
    assert game.refuse(Revoke(event_id=declared[0].event_id, reason="x")).code == "not_a_decision"
    sheet = player_sheet(game.state, "ana")
    assert "the annulment does not undo the round's replacement (rule 9)" in (
        sheet.rounds[0].explanations
    )
    game.run(Revoke(event_id=annulment[0].event_id, reason="contestație admisă"))
    assert _result(game, "ana").score == 64
    game.run(Annul(round=1, player_id="ana", reason="a doua oară"))
    _close(game)
    sheet = player_sheet(game.state, "ana")
    assert (sheet.stock, Counter(sheet.eliminated)) == ("?B", Counter("A?EIRST"))
    assert sheet.board.is_empty()


def test_rule_9_a_second_replacement_recorded_in_a_file_is_ignored(game):
    _replace(game, "ana", "-B+Bo")
    game.record(ReplacementDeclared(1, "ana", "-A+(E)"), minutes(-1))
    assert game.state.ignored[-1].code == "replacement_declared"
    assert _result(game, "ana").replacement.text == "-B+Bo"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("-A+B", "taken_letter_not_in_stock"),
        ("-C+Do", "replaced_letter_not_in_group"),
        ("A pentru B", "replacement_unreadable"),
    ],
)
def test_rule_10_a_replacement_written_in_error_counts_as_none(game, text, code):
    _replace(game, "ana", text)
    _submit(game, "ana", "H8: SARIT")
    result = _result(game, "ana")
    assert (result.replacement.code, result.parts[0].rack, result.score) == (code, FIRST, 12)
    assert "counts as no replacement" in result.replacement.message
    _close(game)
    sheet = player_sheet(game.state, "ana")
    assert (sheet.stock, sheet.eliminated) == ("??", "BE")
    assert "counts as none" in sheet.rounds[0].explanations[1]


def test_rule_10_the_submission_is_judged_against_the_unmodified_group(game):
    _replace(game, "ana", "-X+Bo")
    _submit(game, "ana", "H8: SER(B)ATI")
    assert _result(game, "ana").code == "tile_not_on_rack"


def test_a_late_replacement_counts_as_none(game):
    _replace(game, "ana", "-B+Bo", at=1)
    assert _result(game, "ana").replacement.code == "late"


def test_there_is_no_top_and_each_player_has_their_own_board(game):
    _submit(game, "ana", "H8: SARIT")
    _submit(game, "bob", "H8: BASTI")
    assert game.refuse(ChooseTop(round=1, move="H8: SARIT")).code == "no_top"
    assert round_results(game.state, 1).top is None
    _close(game)
    assert position(game.state, "ana").board.rows[7] == ".......SARIT..."
    assert position(game.state, "bob").board.rows[7] == ".......BASTI..."
    assert [(s.player_id, s.total) for s in standings(game.state)][:2] == [("bob", 28), ("ana", 12)]
    assert game.replayed() == game.state


def test_a_superseded_submission_is_shown_read_in_the_seeds_notation(game):
    _replace(game, "ana", "-B+Bo")
    _submit(game, "ana", "H8: SERBoATI", at=-3)
    _submit(game, "ana", "H8: SARIT", at=-1)
    superseded, counted = _result(game, "ana").submissions
    assert (superseded.status, counted.status) == ("superseded", "counted")
    assert (superseded.judgement.move.word, superseded.judgement.move.jokers) == ("SERBATI", (3,))


def test_an_anticipation_game_has_no_top_source(words):
    refused = Table(words).refuse(
        CreateGame(game_id="a3", variant="anticipation", settings={"top_source": "computer"})
    )
    assert refused.code == "bad_setting"


@pytest.mark.parametrize(
    ("wrong", "code", "message"),
    [
        ({"ruleset": "ro-nope"}, "unknown_ruleset", "unknown ruleset 'ro-nope' (shipped: ro-frs)"),
        (
            {"settings": {"draw_size": "seven"}},
            "bad_setting",
            "settings.draw_size: expected a whole number >= 1, got 'seven'",
        ),
        (
            {"draw": "seeded"},
            "seed_commitment_missing",
            "a seeded game records the SHA-256 of its secret seed: give the seed commitment",
        ),
        (
            {"seed_commitment": seed_commitment("s")},
            "seed_commitment_unexpected",
            "a seed commitment is for seeded draws: use --draw seeded",
        ),
        (
            {"players": (Player("ana"), Player("ana"))},
            "player_exists",
            "players listed twice: ana",
        ),
        ({"game_id": " "}, "bad_game_id", "GameCreated.game_id: expected a non-empty id"),
    ],
)
def test_an_anticipation_game_is_refused_what_a_duplicate_game_is_with_the_same_message(
    words, wrong, code, message
):
    """Both variants check a creation with the same function (duplicate.created_events), so
    comparing them alone would pass whatever it said: each refusal is pinned too."""

    def refusal(variant: str) -> tuple[str, str]:
        command = CreateGame(**{"game_id": "a4", "variant": variant, **wrong})
        refused = Table(words).refuse(command)
        return refused.code, str(refused)

    assert refusal("anticipation") == (code, message) == refusal("duplicate")


def test_an_anticipation_game_is_created_once(game):
    refused = game.refuse(CreateGame(game_id="a5", variant="anticipation"))
    assert (refused.code, str(refused)) == ("game_exists", "game a1 already exists")


def test_all_seven_letters_of_a_group_laid_earn_the_50_bonus(game):
    _submit(game, "ana", "H8: SERBATI")
    _submit(game, "bob", "H8: SARIT")
    whole, part = _result(game, "ana"), _result(game, "bob")
    assert whole.parts[0].judgement.verdict.bonus == 50
    assert whole.score == whole.parts[0].judgement.verdict.score > 50
    assert part.parts[0].judgement.verdict.bonus == 0


def test_notation_capital_then_o_is_a_joker_for_that_capital_a_joker_o_is_written_in_brackets():
    assert seed_notation("H8: SERBoATI") == "H8: SER(B)ATI"
    assert seed_notation("H8: PoRT") == "H8: (P)RT"  # not P and a joker O
    assert seed_notation("H8: P(O)RT") == "H8: P(O)RT"
    assert seed_notation("H8: SERBATI") == "H8: SERBATI"
