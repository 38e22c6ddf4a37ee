"""The verdict on one move: legal or not and why, its words and points, the claim checked.

This is what an arbiter needs for a submission: every broken rule named (placement, rack,
words not in the dictionary), the score it earns (0 when invalid), and a note when the
player's claimed score differs from the computed one (the claim never changes the score).
"""

from __future__ import annotations

from typing import NamedTuple

from engine.board import Board
from engine.dictionary import Dictionary
from engine.notation import Move
from engine.placement import Tile, place
from engine.problems import Problem
from engine.rack import Rack
from engine.ruleset import Ruleset
from engine.scoring import WordScore, score_placement


class Verdict(NamedTuple):
    """A judged move; `points_if_valid` is what it would score without its errors.

    `problems` are the errors with their stable codes (`engine.problems`); `errors` are their
    messages, kept for the `engine score --json` contract.
    """

    move: Move
    valid: bool
    score: int
    words: tuple[WordScore, ...]
    bingo: bool
    bonus: int
    tiles: tuple[Tile, ...]
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    points_if_valid: int
    problems: tuple[Problem, ...] = ()


def check_move(
    board: Board,
    move: Move,
    ruleset: Ruleset,
    dictionary: Dictionary | None,
    rack: Rack | None = None,
) -> Verdict:
    """Judge a parsed move on a board; `dictionary=None` skips the word check."""
    if board.size != ruleset.board_size:
        size = ruleset.board_size
        error = f"the board is {board.size}x{board.size}, {ruleset.name} plays on {size}x{size}"
        problem = Problem("wrong_board_size", error)
        return Verdict(move, False, 0, (), False, 0, (), (error,), (), 0, (problem,))
    placement = place(board, move, ruleset, rack)
    errors = list(placement.problems)
    score = score_placement(board, placement, ruleset)
    if placement.tiles and not score.words:
        errors.append(Problem("no_word", "the move forms no word of two letters or more"))
    if dictionary is not None:
        accepts = dictionary.accepts
        unknown = [w.word for w in score.words if not accepts(w.word)]
        if unknown:
            named = f" {dictionary.name}" if dictionary.name else ""
            errors.extend(
                Problem("not_in_dictionary", f"{word} is not in the dictionary{named}")
                for word in unknown
            )
    valid = not errors
    earned = score.total if valid else 0
    return Verdict(
        move,
        valid,
        earned,
        score.words,
        score.bingo,
        score.bonus,
        placement.tiles,
        tuple([p.message for p in errors]),
        _claim_warnings(move, earned),
        score.total,
        tuple(errors),
    )


def _claim_warnings(move: Move, earned: int) -> tuple[str, ...]:
    if move.claimed is not None and move.claimed != earned:
        return (f"claimed {move.claimed} points, computed {earned}",)
    return ()


def as_written(verdict: Verdict, move: Move) -> Verdict:
    """The verdict on `move`, given the verdict on a move laying the same tiles that differs
    from it only in what was written beside it (an online game's prefix, a claimed score):
    only the move and the claim's warning change."""
    return verdict._replace(move=move, warnings=_claim_warnings(move, verdict.score))
