"""The move generator against a brute-force search scored by `check_move`, and the peer maxima.

The oracle lays every word of the list on every square in both directions, with every way
of taking its new letters from the rack's tiles and jokers, and keeps what `check_move`
accepts (asked first for one way only: placement and words do not depend on which tiles
are jokers, and racks are drawn from what the bag still holds beside the board). A one-tile
move is kept once: across when it forms a word across, down otherwise (the generator's
documented convention).
"""

from __future__ import annotations

import itertools
import tomllib
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.board import Board, BoardError
from engine.dictionary import Dictionary, dictionary_sha256
from engine.movegen import MoveGenerator, find_top, generate_moves
from engine.notation import Move, format_move, parse_move
from engine.rack import Rack, RackError
from engine.ruleset import Ruleset, load_ruleset, parse_ruleset
from engine.tiles import JOKER
from engine.verdict import check_move

DATA = Path(__file__).parent.parent / "data"


def _read_list(name: str) -> list[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


WORDS = _read_list("movegen-words.txt")
TWO_LETTER = frozenset(_read_list("movegen-two-letter.txt"))
DICTIONARY = Dictionary(frozenset(WORDS), TWO_LETTER, dictionary_sha256(WORDS), "movegen")
RACK_LETTERS = "AACEEIILMNORRSSTTVZX"


def _small_ruleset(size: int = 7) -> Ruleset:
    """ro-frs tiles and values on a small board with every kind of premium."""
    text = (resources.files("engine") / "rulesets" / "ro-frs.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    data["board_size"] = size
    data["premiums"] = {
        "triple_word": ["A1", "G7"],
        "double_word": ["B2", "D4", "F6"],
        "triple_letter": ["A5", "E1", "C6"],
        "double_letter": ["B4", "D2", "F3", "E7"],
    }
    return parse_ruleset(data)


SMALL = _small_ruleset()
FRS = load_ruleset("ro-frs")


def _joker_choices(word: str, new: list[int], rack: Counter) -> list[tuple[int, ...]]:
    choices = []
    for n in range(rack[JOKER] + 1):
        for jokers in itertools.combinations(new, n):
            real = Counter(word[i] for i in new if i not in jokers)
            if all(rack[letter] >= k for letter, k in real.items()):
                choices.append(jokers)
    return choices


def brute_force(
    board: Board, rack: Rack, ruleset: Ruleset, dictionary: Dictionary
) -> set[tuple[int, int, bool, str, tuple[int, ...], int]]:
    """Every legal move as (row, col, across, word, jokers, score), found the slow way."""
    size = board.size
    counts = Counter(rack.letters)
    found = set()
    for word in sorted(dictionary.words):
        for across, row, col in itertools.product((True, False), range(size), range(size)):
            dr, dc = (0, 1) if across else (1, 0)
            if row + dr * (len(word) - 1) >= size or col + dc * (len(word) - 1) >= size:
                continue
            squares = [(row + i * dr, col + i * dc) for i in range(len(word))]
            if any(board.letter(r, c) not in (None, word[i]) for i, (r, c) in enumerate(squares)):
                continue
            new = [i for i, (r, c) in enumerate(squares) if not board.occupied(r, c)]
            if not new or len(new) > len(rack.letters):
                continue
            if not across and len(new) == 1:
                r, c = squares[new[0]]
                if board.occupied(r, c - 1) or board.occupied(r, c + 1):
                    continue
            choices = _joker_choices(word, new, counts)
            if not choices:
                continue
            first = Move(row, col, across, word, choices[0])
            if not check_move(board, first, ruleset, dictionary, rack).valid:
                continue
            for jokers in choices:
                move = Move(row, col, across, word, jokers)
                verdict = check_move(board, move, ruleset, dictionary, rack)
                if verdict.valid:
                    found.add((row, col, across, word, jokers, verdict.score))
    return found


def generated(board: Board, rack: Rack, ruleset: Ruleset, dictionary: Dictionary):
    moves = generate_moves(board, rack, ruleset, dictionary)
    as_tuples = [
        (m.move.row, m.move.col, m.move.across, m.move.word, m.move.jokers, m.score) for m in moves
    ]
    assert len(as_tuples) == len(set(as_tuples)), "a move was generated twice"
    return set(as_tuples)


@st.composite
def boards(draw, size: int):
    """Words of the list laid anywhere (possibly clashing), stray letters, some board jokers."""
    grid = [["."] * size for _ in range(size)]
    for _ in range(draw(st.integers(0, 4))):
        word = draw(st.sampled_from(WORDS))
        across = draw(st.booleans())
        row, col = draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))
        for i, letter in enumerate(word):
            r, c = (row, col + i) if across else (row + i, col)
            if r >= size or c >= size:
                break
            grid[r][c] = letter.lower() if draw(st.integers(0, 7)) == 0 else letter
    for _ in range(draw(st.integers(0, 2))):
        r, c = draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))
        grid[r][c] = draw(st.sampled_from("AEIRSTCXZ"))
    return Board(tuple("".join(row) for row in grid))


@st.composite
def racks(draw, board: Board, jokers: int, ruleset: Ruleset = FRS):
    """A rack the bag can still give beside `board`: 1 tile to a rack's worth (7, or 8 in
    duplicat eliptic), `jokers` of them jokers."""
    on_board = board.tile_counts()
    assume(on_board.get(JOKER, 0) + jokers <= ruleset.jokers)
    pool = [
        letter
        for letter in sorted(set(RACK_LETTERS))
        for _ in range(ruleset.tile_counts[letter] - on_board.get(letter, 0))
    ]
    assume(pool)  # a late board may hold every tile of these letters: no rack to draw from it
    chosen = draw(st.lists(st.sampled_from(range(len(pool))), unique=True, min_size=1,
                           max_size=min(len(pool), ruleset.rack_size - jokers)))  # fmt: skip
    return Rack("".join(pool[i] for i in chosen) + JOKER * jokers)


EXACTNESS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("jokers", [0, 1, 2])
@EXACTNESS
@given(data=st.data())
def test_generator_finds_exactly_the_legal_moves_of_brute_force(jokers, data):
    board = data.draw(boards(7))
    rack = data.draw(racks(board, jokers))
    assert generated(board, rack, SMALL, DICTIONARY) == brute_force(board, rack, SMALL, DICTIONARY)


@pytest.mark.parametrize("jokers", [0, 1, 2])
@EXACTNESS
@given(data=st.data())
def test_top_is_the_best_score_with_every_move_reaching_it(jokers, data):
    board = data.draw(boards(7))
    rack = data.draw(racks(board, jokers))
    every = brute_force(board, rack, SMALL, DICTIONARY)
    best = max((m[-1] for m in every), default=0)
    top = find_top(board, rack, SMALL, DICTIONARY)
    assert top.top_score == best
    at_best = {(m.move.row, m.move.col, m.move.across, m.move.word, m.move.jokers, m.score)
               for m in top.moves}  # fmt: skip
    assert at_best == {m for m in every if m[-1] == best}
    assert len(top.moves) == len(at_best)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generator_matches_brute_force_on_the_standard_board(data):
    board = data.draw(boards(15))
    rack = data.draw(racks(board, data.draw(st.integers(0, 2))))
    assert generated(board, rack, FRS, DICTIONARY) == brute_force(board, rack, FRS, DICTIONARY)


def _board(*rows: str, size: int = 7) -> Board:
    return Board(tuple(rows) + ("." * size,) * (size - len(rows)))


def test_letters_without_tiles_are_played_only_as_jokers():
    board = _board(".......", ".......", ".......", "..TAXI.")
    with_jokers = generate_moves(board, Rack("I??"), SMALL, DICTIONARY)
    kiwi = [m.move for m in with_jokers if m.move.word == "KIWI"]
    assert sorted(format_move(move) for move in kiwi) == ["6A: (K)I(W)I", "6C: (K)I(W)I"]
    for m in with_jokers:
        for i, letter in enumerate(m.move.word):
            if letter in "KQWY" and board.letter(*m.move.squares()[i]) is None:
                assert i in m.move.jokers, format_move(m.move)
    without = generate_moves(board, Rack("AEIRSTU"), SMALL, DICTIONARY)
    assert not any(set(m.move.word) & set("KQWY") for m in without)


def test_a_two_letter_word_off_the_two_letter_list_is_never_formed():
    board = _board(".......", ".......", ".......", "...M...")
    moves = generate_moves(board, Rack("AE"), SMALL, DICTIONARY)
    assert "AM" in DICTIONARY.words and "AM" not in DICTIONARY.two_letter
    assert {format_move(m.move) for m in moves} == {"D4: MA", "4D: MA"}


def test_one_tile_move_is_reported_once_across_when_it_forms_a_word_across():
    board = _board(".......", ".......", "...A...", "..A....", ".......")
    moves = [m for m in generate_moves(board, Rack("L"), SMALL, DICTIONARY)]
    laid_at_d4 = [m.move for m in moves if (3, 3) in m.move.squares() and len(m.move.word) == 2]
    assert [format_move(move) for move in laid_at_d4] == ["D3: AL"]
    verdict = check_move(board, laid_at_d4[0], SMALL, DICTIONARY)
    assert [w.word for w in verdict.words] == ["AL", "AL"]


def test_first_move_covers_the_centre_and_a_full_rack_earns_the_bonus():
    moves = generate_moves(Board.empty(7), Rack("CASTANE"), SMALL, DICTIONARY)
    assert all((3, 3) in m.move.squares() for m in moves)
    best = moves[0]
    assert (
        best.move.word == "CASTANE"
        and best.score == check_move(Board.empty(7), best.move, SMALL, DICTIONARY).score
    )
    assert best.score > SMALL.bingo_bonus


def test_top_of_a_rack_that_cannot_play_is_zero_with_no_moves():
    top = find_top(_board(".......", ".......", ".......", "...X..."), Rack("U"), SMALL, DICTIONARY)
    assert (top.top_score, top.moves) == (0, ())


def test_moves_come_best_first_in_a_fixed_order():
    board = _board(".......", ".......", "..CASA.", ".......")
    first = generate_moves(board, Rack("RATE?"), SMALL, DICTIONARY)
    again = MoveGenerator(SMALL, DICTIONARY).moves(board, Rack("RATE?"))
    assert first == again
    scores = [m.score for m in first]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize(
    ("rack", "message"),
    [
        ("AEIRSTUV", "8 tiles, a rack holds at most 7"),
        ("KA", "K has no tile"),
        ("A1", "is not a tile"),
    ],
)
def test_a_rack_no_bag_could_give_is_refused_clearly(rack, message):
    with pytest.raises(RackError, match=message):
        find_top(Board.empty(), rack, FRS, DICTIONARY)


def test_a_rack_holding_tiles_already_on_the_board_is_refused_clearly():
    board = _board(".......", ".......", ".......", "..TAXI.", size=7)
    with pytest.raises(RackError, match="rack AX: the game has 1 X, 1 on the board, and the"):
        find_top(board, Rack("AX"), SMALL, DICTIONARY)


def test_a_board_of_another_size_is_refused_clearly():
    with pytest.raises(BoardError, match="the board is 7x7; ro-frs plays on 15x15"):
        find_top(Board.empty(7), "AER", FRS, DICTIONARY)


def test_tops_equal_the_independent_solvers_maxima_and_move_counts_on_136_peer_positions(
    peer_dictionary, peer_positions
):
    generator = MoveGenerator(FRS, peer_dictionary)
    positions = peer_positions
    assert len(positions) == 136
    for p in positions:
        board = Board.parse(p["board"])
        rack = Rack.parse(p["rack"], FRS)
        top = generator.top(board, rack)
        where = f"game {p['game_seed']} turn {p['turn']} rack {p['rack']}"
        assert top.top_score == p["max_score"], where
        assert len(top.moves) == p["moves_at_max_score"], where
        played = parse_move(f"{p['played']['coord']}: {p['played']['word']}")
        verdict = check_move(board, played, FRS, peer_dictionary, rack)
        assert (verdict.valid, verdict.score) == (True, p["played"]["points"]), where
        for found in top.moves:
            again = check_move(board, found.move, FRS, peer_dictionary, rack)
            assert (again.valid, again.score) == (True, top.top_score), where


def test_the_eliptic_top_is_the_best_top_of_the_racks_of_7_within_the_8_on_50_peer_positions(
    peer_dictionary, eliptic_positions, eliptic
):
    """Duplicat eliptic lays at most 7 of the rack's 8: its top is the best of the tops of the
    rack's 7-tile sub-racks (the brute force), with every move reaching it from any of them."""
    eight = MoveGenerator(eliptic, peer_dictionary)
    seven = MoveGenerator(FRS, peer_dictionary)
    for board, rack in eliptic_positions:
        top = eight.top(board, Rack.parse(rack, eliptic))
        tops = [seven.top(board, Rack(rack[:i] + rack[i + 1 :])) for i in range(len(rack))]
        best = max(t.top_score for t in tops)
        assert top.top_score == best, rack
        assert set(top.moves) == {m for t in tops if t.top_score == best for m in t.moves}, rack
        for found in top.moves:
            verdict = check_move(board, found.move, eliptic, peer_dictionary, Rack(rack))
            assert (verdict.valid, verdict.score) == (True, best), rack


@pytest.mark.parametrize("compiled", [True, False])
def test_no_eliptic_move_lays_all_8_tiles_and_7_of_them_earn_the_bonus(compiled, eliptic):
    dictionary = Dictionary.from_words(["JUCATORI", "JUCATOR", "ACTORI", "ACTOR"])
    generator = MoveGenerator(eliptic, dictionary, compiled=compiled)
    moves = generator.moves(Board.empty(), "JUCATORI")
    assert {m.move.word for m in moves} == {"JUCATOR", "ACTORI", "ACTOR"}
    top = generator.top(Board.empty(), "JUCATORI")
    assert [(format_move(m.move), m.score) for m in top.moves] == [
        ("8D: JUCATOR", 102),
        ("H4: JUCATOR", 102),
    ]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_generator_reused_across_changing_boards_finds_what_a_fresh_one_finds(data):
    reused = MoveGenerator(SMALL, DICTIONARY)
    board = data.draw(boards(7))
    for _ in range(4):
        rack = data.draw(racks(board, data.draw(st.integers(0, 2))))
        assert reused.moves(board, rack) == MoveGenerator(SMALL, DICTIONARY).moves(board, rack)
        assert reused.top(board, rack) == MoveGenerator(SMALL, DICTIONARY).top(board, rack)
        cells = st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from("..ACERSTae"))
        board = board.with_tiles(data.draw(st.lists(cells, min_size=1, max_size=4)))


def test_a_move_is_reported_once_even_where_every_letter_completes_a_cross_word():
    words = {chr(65 + i) + "A" for i in range(26)} | {"BAAA", "BAA", "AAA"}
    dictionary = Dictionary.from_words(words)
    rows = ["." * 15] * 15
    rows[7] = ".......A.A....."
    moves = [
        format_move(m.move) for m in generate_moves(Board(tuple(rows)), "BAA", FRS, dictionary)
    ]
    assert len(moves) == len(set(moves))
    assert "G8: BAA" in moves
