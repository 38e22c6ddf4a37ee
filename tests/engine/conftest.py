from pathlib import Path

import pytest

from engine.board import Board
from engine.dictionary import Dictionary
from engine.notation import Move, parse_move
from engine.ruleset import Ruleset, load_ruleset
from engine.tiles import fold_word

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="session")
def ruleset() -> Ruleset:
    return load_ruleset("ro-frs")


@pytest.fixture(scope="session")
def small_dictionary() -> Dictionary:
    lines = (DATA / "words-small.txt").read_text(encoding="utf-8").splitlines()
    words = [fold_word(line) for line in lines if line and not line.startswith("#")]
    return Dictionary.from_words((w for w in words if w), name="words-small")


def _board_with(*words: tuple[str, str]) -> Board:
    """An otherwise empty board with words laid at coordinates (`("H8", "VARA")`, `("8F", …)`)."""
    board = Board.empty()
    for coordinate, word in words:
        move = parse_move(f"{coordinate}: {word}")
        assert isinstance(move, Move), move
        board = board.with_tiles((r, c, word[i]) for i, (r, c) in enumerate(move.squares()))
    return board


@pytest.fixture(scope="session")
def board_with():
    """Build a board from (coordinate, word) pairs; lowercase letters are jokers."""
    return _board_with
