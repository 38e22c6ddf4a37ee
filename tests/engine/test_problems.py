from engine.notation import parse_move
from engine.problems import CODES
from engine.rack import Rack
from engine.verdict import check_move


def test_every_problem_of_a_verdict_has_a_known_code_and_its_message(
    ruleset, board_with, small_dictionary
):
    board = board_with(("H8", "VARA"))
    verdict = check_move(board, parse_move("A1: QZQ"), ruleset, small_dictionary, Rack("AB"))
    codes = [p.code for p in verdict.problems]
    assert {"not_touching", "no_tile_for_letter", "tile_not_on_rack"} <= set(codes)
    assert all(code in CODES for code in codes)
    assert verdict.errors == tuple(p.message for p in verdict.problems)


def test_word_not_in_dictionary_has_its_code(ruleset, board_with, small_dictionary):
    verdict = check_move(board_with(), parse_move("H8: XZXZ"), ruleset, small_dictionary)
    assert "not_in_dictionary" in [p.code for p in verdict.problems]


def test_every_code_the_game_rules_use_is_listed_with_its_meaning():
    import re
    from pathlib import Path

    import engine.games

    used = set()
    for path in Path(engine.games.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'(?:_Ignore|GameRuleError|Problem|Note)\(\s*"([a-z_]+)"', text))
    assert used, "the pattern finds the codes"
    assert used - CODES.keys() == set()
