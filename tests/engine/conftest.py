import json
import lzma
import os
import random
from pathlib import Path

import pytest

from engine.bag import Bag
from engine.board import Board
from engine.dictionary import Dictionary
from engine.games.settings import read_settings
from engine.lexicon import Lexicon
from engine.notation import Move, parse_move
from engine.ruleset import Ruleset, load_ruleset
from engine.tiles import fold_word

DATA = Path(__file__).parent.parent / "data"
# The project's shared data lie beside the checkout (../shared), in CI as on a developer's machine.
PEER = Path(__file__).resolve().parents[3] / "shared" / "data" / "peer-positions"


def _peer_file(name: str) -> Path:
    path = PEER / name
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the peer positions are required in CI and missing: {path}")
        pytest.skip(f"the peer positions are not beside this checkout ({path})")
    return path


@pytest.fixture(scope="session")
def peer_dictionary() -> Dictionary:
    """The peer solver's word list, loaded from its DAWG's bytes as the CLI loads a cache."""
    path = _peer_file("wordlist-hunspell-ro-7.5.0.txt.xz")
    words = lzma.decompress(path.read_bytes()).decode("ascii").upper().split()
    lexicon = Lexicon.from_bytes(Lexicon.from_words(words).to_bytes())
    return Dictionary(lexicon, frozenset(w for w in words if len(w) == 2), "", "hunspell-ro")


@pytest.fixture(scope="session")
def peer_positions() -> list[dict]:
    """The 136 positions with an independent solver's maxima, in file order."""
    lines = _peer_file("positions.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line]


@pytest.fixture(scope="session")
def eliptic_positions(peer_positions) -> list[tuple[Board, str]]:
    """50 peer positions as duplicat eliptic racks: each position's 7 tiles and an 8th drawn
    (seeded) from what the bag still holds beside the board and the rack; positions whose bag
    is empty are passed over."""
    rng = random.Random(2026)
    found = []
    for p in peer_positions:
        board = Board.parse(p["board"])
        left = Bag.full(load_ruleset()).without_board(board.tile_counts()).take(p["rack"]).tiles()
        if left:
            found.append((board, p["rack"] + rng.choice(left)))
    assert len(found) >= 50
    return found[:50]


@pytest.fixture(scope="session")
def ruleset() -> Ruleset:
    return load_ruleset("ro-frs")


@pytest.fixture(scope="session")
def eliptic() -> Ruleset:
    """ro-frs as duplicat eliptic plays it: the variant's default settings applied."""
    return read_settings(load_ruleset("ro-frs"), {}, "eliptic")[0]


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
