"""Properties of scoring that hold for every board and move (Hypothesis)."""

from hypothesis import given
from hypothesis import strategies as st

from engine.board import Board
from engine.notation import Move
from engine.verdict import check_move

cells = st.sampled_from("..........ABCEILMNORSTUVXZab")


@st.composite
def boards(draw):
    return Board(tuple("".join(draw(st.lists(cells, min_size=15, max_size=15))) for _ in range(15)))


@st.composite
def moves(draw):
    word = draw(st.text(st.sampled_from("ABCDEILMNORSTUVXZ"), min_size=1, max_size=8))
    jokers = tuple(sorted(draw(st.sets(st.integers(0, len(word) - 1), max_size=2))))
    return Move(draw(st.integers(-1, 15)), draw(st.integers(-1, 15)), draw(st.booleans()),
                word, jokers)  # fmt: skip


def transposed(board: Board) -> Board:
    return Board(tuple("".join(row[c] for row in board.rows) for c in range(board.size)))


@given(boards(), moves())
def test_a_move_scores_the_same_across_as_down_on_the_transposed_board(ruleset, board, move):
    flipped = Move(move.col, move.row, not move.across, move.word, move.jokers)
    here = check_move(board, move, ruleset, None)
    there = check_move(transposed(board), flipped, ruleset, None)
    assert (here.valid, here.score, here.points_if_valid) == (
        there.valid,
        there.score,
        there.points_if_valid,
    )
    assert sorted(w.word for w in here.words) == sorted(w.word for w in there.words)


@given(boards(), moves())
def test_score_is_the_sum_of_the_words_and_the_bonus(ruleset, board, move):
    verdict = check_move(board, move, ruleset, None)
    assert verdict.points_if_valid == sum(w.score for w in verdict.words) + verdict.bonus
    assert verdict.score == (verdict.points_if_valid if verdict.valid else 0)
    assert verdict.valid == (not verdict.errors)
    for word in verdict.words:
        assert word.score == sum(s.points for s in word.squares) * word.word_factor
