"""The compiled move generator (engine._kernel) against the pure-Python reference.

Both must give the same moves with the same scores, in the same order: every move, the top
(best score and every move reaching it), the best N and every move from a score up, for 0, 1
and 2 jokers, on the 136 peer positions with the peer's word list and on random positions
(Hypothesis; one generator of each kind is reused across examples, as a batch reuses it).
Safety: boards and racks no game could reach, and lexicon bytes altered anywhere, give the
reference's answer or a clear error, never a crashed process.
"""

from __future__ import annotations

import os
import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_movegen import DICTIONARY, FRS, SMALL, boards, racks

from engine import kernel
from engine.board import Board, BoardError
from engine.lexicon import Lexicon
from engine.movegen import MoveGenerator, Top
from engine.rack import Rack, RackError
from engine.tiles import JOKER, fold_word


def test_the_compiled_kernel_is_built_and_importable_in_ci():
    if not os.environ.get("CI"):
        pytest.skip("outside CI the pure-Python generator may stand in for the kernel")
    assert kernel.UNAVAILABLE is None


def _pair(ruleset, dictionary) -> tuple[MoveGenerator, MoveGenerator]:
    compiled = MoveGenerator(ruleset, dictionary)
    if compiled.kernel is None:
        if os.environ.get("CI"):
            pytest.fail(f"the compiled kernel is required in CI: {kernel.UNAVAILABLE}")
        pytest.skip(f"the compiled kernel is not built: {kernel.UNAVAILABLE}")
    return compiled, MoveGenerator(ruleset, dictionary, compiled=False)


def _top_of(every) -> Top:
    if not every:
        return Top(0, ())
    best = every[0].score
    return Top(best, tuple(m for m in every if m.score == best))


def assert_same_answers(compiled, reference, board, rack, n: int, above: int) -> None:
    """Every move, the top, the best n and the moves from `above` up: kernel == reference."""
    every = reference.moves(board, rack)
    assert compiled.moves(board, rack) == every
    assert compiled.top(board, rack) == reference.top(board, rack) == _top_of(every)
    assert compiled.best(board, rack, n) == reference.best(board, rack, n) == every[:n]
    from_above = [m for m in every if m.score >= above]
    assert compiled.best(board, rack, above=above) == from_above
    assert reference.best(board, rack, above=above) == from_above
    both = compiled.best(board, rack, n, above=above)
    assert both == reference.best(board, rack, n, above=above) == from_above[:n]


@pytest.fixture(scope="module")
def peer_pair(peer_dictionary):
    return _pair(FRS, peer_dictionary)


@pytest.mark.parametrize("part", range(8))
def test_kernel_gives_every_move_and_score_of_the_reference_on_the_peer_positions(
    part, peer_pair, peer_positions
):
    compiled, reference = peer_pair
    for p in peer_positions[part::8]:
        board, rack = Board.parse(p["board"]), Rack.parse(p["rack"], FRS)
        where = f"game {p['game_seed']} turn {p['turn']} rack {p['rack']}"
        assert compiled.top(board, rack).top_score == p["max_score"], where
        every = reference.moves(board, rack)
        above = every[min(len(every), 25) - 1].score if every else 0
        assert_same_answers(compiled, reference, board, rack, 10, above)


SMALL_PAIR = None
FRS_PAIR = None


def _small_pair():
    global SMALL_PAIR
    SMALL_PAIR = SMALL_PAIR or _pair(SMALL, DICTIONARY)
    return SMALL_PAIR


def _frs_pair():
    global FRS_PAIR
    FRS_PAIR = FRS_PAIR or _pair(FRS, DICTIONARY)
    return FRS_PAIR


MANY = settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("jokers", [0, 1, 2])
@MANY
@given(data=st.data())
def test_kernel_equals_the_reference_on_random_small_boards(jokers, data):
    compiled, reference = _small_pair()
    board = data.draw(boards(7))
    rack = data.draw(racks(board, jokers))
    n, above = data.draw(st.integers(1, 30)), data.draw(st.integers(0, 60))
    assert_same_answers(compiled, reference, board, rack, n, above)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_kernel_equals_the_reference_on_random_standard_boards(data):
    compiled, reference = _frs_pair()
    board = data.draw(boards(15))
    rack = data.draw(racks(board, data.draw(st.integers(0, 2))))
    n, above = data.draw(st.integers(1, 30)), data.draw(st.integers(0, 80))
    assert_same_answers(compiled, reference, board, rack, n, above)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_kernel_equals_the_reference_for_eliptic_racks_on_random_standard_boards(data, eliptic):
    """A rack of up to 8 tiles, of which a move lays at most 7, the bonus for exactly 7."""
    compiled, reference = _pair(eliptic, DICTIONARY)
    board = data.draw(boards(15))
    rack = data.draw(racks(board, data.draw(st.integers(0, 2)), eliptic))
    n, above = data.draw(st.integers(1, 30)), data.draw(st.integers(0, 80))
    assert_same_answers(compiled, reference, board, rack, n, above)


def test_kernel_gives_every_move_of_the_reference_for_eliptic_racks_on_peer_positions(
    peer_dictionary, eliptic_positions, eliptic
):
    compiled, reference = _pair(eliptic, peer_dictionary)
    for board, rack in eliptic_positions[::2]:
        rack = Rack.parse(rack, eliptic)
        every = reference.moves(board, rack)
        laid = [sum(not board.occupied(r, c) for r, c in m.move.squares()) for m in every]
        assert max(laid, default=0) <= 7, rack.letters
        above = every[min(len(every), 25) - 1].score if every else 0
        assert_same_answers(compiled, reference, board, rack, 10, above)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_kernel_equals_the_reference_for_random_racks_on_peer_boards(
    data, peer_pair, peer_positions
):
    """Real mid-game boards and the full word list, with racks the bag could still give."""
    compiled, reference = peer_pair
    p = data.draw(st.sampled_from(peer_positions))
    board = Board.parse(p["board"])
    rack = data.draw(racks(board, data.draw(st.integers(0, 2))))
    every = reference.moves(board, rack)
    assert compiled.moves(board, rack) == every
    assert compiled.top(board, rack) == _top_of(every)
    n = data.draw(st.integers(1, 40))
    assert compiled.best(board, rack, n) == reference.best(board, rack, n) == every[:n]


def _outcome(ask, generator):
    try:
        return ask(generator)
    except (BoardError, RackError) as exc:
        return (type(exc).__name__, str(exc))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    rows=st.lists(
        st.text(alphabet=".........AEIRSTXZKQWYaeikzq", min_size=15, max_size=15),
        min_size=15,
        max_size=15,
    ),
    rack=st.text(alphabet="AEIRSTXZKQWY?ae -", max_size=9),
    n=st.integers(1, 50),
)
def test_any_board_and_rack_give_the_references_answer_or_its_error_never_a_crash(rows, rack, n):
    """Boards no game could reach (stray tiles, K as a tile, many jokers) and any rack text."""
    compiled, reference = _frs_pair()
    board = Board.parse(rows)
    try:
        parsed = Rack.parse(rack, FRS)
    except RackError:
        return
    for ask in (
        lambda g: g.top(board, parsed),
        lambda g: g.best(board, parsed, n),
        lambda g: g.moves(board, parsed),
    ):
        assert _outcome(ask, compiled) == _outcome(ask, reference)


def test_a_board_of_another_size_is_refused_by_the_kernel_as_by_the_reference():
    compiled, reference = _frs_pair()
    for generator in (compiled, reference):
        with pytest.raises(BoardError, match="the board is 7x7; ro-frs plays on 15x15"):
            generator.top(Board.empty(7), "AER")
        with pytest.raises(BoardError, match="the board is 7x7"):
            generator.best(Board.empty(7), "AER", 5)


def test_the_compiled_search_refuses_a_board_of_another_size_itself():
    """The user's message is the generator's (above); the kernel still reads no further than
    the board it is given, whoever calls it."""
    compiled, _ = _frs_pair()
    counts = [0] * 27
    counts[0] = 1
    with pytest.raises(ValueError, match="board: expected 225 squares, got 49"):
        compiled.kernel.search(Board.empty(7), counts, top=True)


def test_best_asks_for_at_least_one_move():
    compiled, reference = _frs_pair()
    for generator in (compiled, reference):
        with pytest.raises(ValueError, match="n: expected at least 1 move"):
            generator.best(Board.empty(), "AER", 0)


def test_lexicon_bytes_altered_anywhere_are_refused_or_searched_safely():
    """The kernel checks the arrays it reads (edges, labels, targets, sizes) itself."""
    lexicon = Lexicon.from_words(["CASA", "CASE", "ACASA", "SAC", "AS", "SA", "CA"])
    data = lexicon.data
    board = Board.parse(["." * 15] * 7 + [".......CASA...."] + ["." * 15] * 7)
    rng = random.Random(11)
    usable = 0
    for _ in range(400):
        altered = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            altered[rng.randrange(len(altered))] = rng.randrange(256)
        cut = len(altered) if rng.random() < 0.9 else rng.randrange(len(altered))
        built = kernel.for_ruleset(
            FRS, SimpleNamespace(data=bytes(altered[:cut])), frozenset({"AS", "SA"})
        )
        if built is not None:
            usable += 1
            counts = [0] * 27
            counts[0], counts[18], counts[26] = 1, 1, 1
            assert isinstance(built.search(board, counts, top=True), list)
    assert 0 < usable < 400


def test_kernel_is_refused_for_racks_beyond_its_limits_and_the_reference_serves_them():
    big = FRS.with_settings({"rack_size": 20})
    generator = MoveGenerator(big, DICTIONARY)
    assert generator.kernel is None
    board = Board.parse(["." * 15] * 7 + [".......CASA...."] + ["." * 15] * 7)
    reference = MoveGenerator(FRS, DICTIONARY, compiled=False)
    assert generator.top(board, "RATE") == reference.top(board, "RATE")


def test_a_rack_of_jokers_only_finds_the_references_moves():
    compiled, reference = _frs_pair()
    board = Board.parse(["." * 15] * 7 + [".......CASA...."] + ["." * 15] * 7)
    assert_same_answers(compiled, reference, board, Rack(JOKER * 2), 7, 3)


def _both_builds(words) -> tuple[bytes, bytes]:
    if kernel.UNAVAILABLE is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the compiled kernel is required in CI: {kernel.UNAVAILABLE}")
        pytest.skip(f"the compiled kernel is not built: {kernel.UNAVAILABLE}")
    return Lexicon.from_words(words).data, Lexicon.from_words(words, compiled=False).to_bytes()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(words=st.lists(st.text(alphabet="ABCDEȘăâ' ", min_size=0, max_size=12), max_size=60))
def test_compiled_lexicon_build_gives_the_python_builds_bytes_for_any_list(words):
    storable = [w for w in words if not w.strip() or fold_word(w)]
    compiled, python = _both_builds(storable)
    assert compiled == python


def test_compiled_lexicon_build_gives_the_python_builds_bytes_for_a_real_list(peer_dictionary):
    words = list(peer_dictionary.words)[::7]
    compiled, python = _both_builds(words)
    assert compiled == python
    assert list(Lexicon.from_bytes(compiled)) == sorted(set(words))


def test_compiled_lexicon_build_refuses_what_the_python_build_refuses():
    for words in (["CASA", "CA$A"], ["ÆON"]):
        with pytest.raises(ValueError, match="only letters A-Z"):
            Lexicon.from_words(words)
