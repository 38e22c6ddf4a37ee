"""Duplicat-completiv's judging (RULES 3): each player adds one letter from the stock.

The round draws 6 tiles; every player completes them to 7 with one letter of their choice
from the stock (the tiles neither on the board nor on the drawn rack), marked `[X]` in the
word or `+X` after it, the stock's joker as `[(X)]` or `+(X)`. A submission is judged on the
drawn rack with that one extra tile:

- the chosen letter not laid: it was never taken (it stays in the stock), and the move is
  judged on the drawn tiles alone;
- the chosen letter laid and in the stock: the move counts as written (7 tiles: the bingo);
- laid but no longer in the stock, a joker still there (rule a): the letter counts as that
  joker, worth 0, and the letter's value is subtracted as well; where the letter is written
  after the word and several new tiles show it, the reading that scores least is taken; the
  mark is the player's declaration, so this holds even when the drawn tiles hold another
  copy of the letter (that copy then stays unused);
- laid, not in the stock, no joker left (rule b), or the stock's joker chosen when none is
  left: the submission is wrong and scores 0;
- a letter the drawn rack lacks laid without any mark: a notation error, 0.

The stock depends only on the board and the drawn rack, so judging keeps the context's cache
by (board, rack, text). The computer's top searches the drawn rack with each letter the
stock holds (the joker last), each search bounded below by the best score found so far.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from engine.bag import Bag
from engine.board import Board
from engine.games.context import GameContext, Judgement
from engine.movegen import ScoredMove, Top, find_top
from engine.notation import Chosen, Move, format_tile
from engine.problems import Problem
from engine.rack import Rack
from engine.ruleset import Ruleset
from engine.tiles import JOKER
from engine.verdict import Verdict


def stock_of(ruleset: Ruleset, board: Board, rack: str) -> Bag:
    """The tiles a player may choose from: neither on the board nor on the drawn rack."""
    return Bag.full(ruleset).without_board(board.tile_counts()).without_board(Counter(rack))


def _new_tiles(board: Board, move: Move) -> list[tuple[int, str]]:
    """(index in the word, tile key) of each square the move lays a tile on."""
    jokers = set(move.jokers)
    return [
        (i, JOKER if i in jokers else move.word[i])
        for i, (r, c) in enumerate(move.squares())
        if not board.occupied(r, c)
    ]


def beyond_rack(verdict: Verdict, rack: str) -> Counter[str]:
    """The tiles a move lays that the drawn rack does not hold."""
    laid = Counter(JOKER if t.joker else t.letter for t in verdict.tiles)
    return laid - Counter(rack)


@dataclass(frozen=True, eq=False)
class CompletivContext(GameContext):
    """A completiv game's context: judging with the chosen letter, the top over the stock."""

    _stocks: dict[tuple[tuple[str, ...], str], Bag] = field(default_factory=dict, repr=False)

    def stock(self, board: Board, rack: str) -> Bag:
        """`stock_of` the board and drawn rack (cached: every player of a round has the same)."""
        key = (board.rows, rack)
        found = self._stocks.get(key)
        if found is None:
            found = self._stocks[key] = stock_of(self.ruleset, board, rack)
        return found

    def _judge_move(
        self, board: Board, rack: str, text: str, move: Move, verdict: Verdict
    ) -> Judgement:
        beyond = beyond_rack(verdict, rack)
        chosen = move.chosen
        if chosen is None:
            return self._unmarked(text, move, verdict, beyond, rack)
        mark = format_tile(chosen.letter, chosen.joker)
        tile = JOKER if chosen.joker else chosen.letter
        stock = self.stock(board, rack)
        declared = not stock.count(tile) and _lays(board, move, chosen, tile)
        if not beyond and not declared:
            note = f"{mark} chosen from the stock is not laid: never taken, it stays in the stock"
            return Judgement(text, move, verdict, verdict.problems, verdict.score, (note,))
        if beyond and beyond != Counter({tile: 1}):
            return Judgement(text, move, verdict, verdict.problems, verdict.score)
        if stock.count(tile):
            note = f"{mark} chosen from the stock ({stock.count(tile)} there) and laid"
            return Judgement(text, move, verdict, verdict.problems, verdict.score, (note,))
        if chosen.joker:
            problem = Problem(
                "completiv_joker_not_in_stock",
                f"the stock's joker {mark} was chosen but no joker is left in the stock",
            )
            return Judgement(text, move, verdict, (problem, *_besides_count(verdict)), 0)
        if not stock.count(JOKER):
            problem = Problem(
                "completiv_letter_not_in_stock",
                f"{chosen.letter} is no longer in the stock and no joker is left in it:"
                " the submission is wrong (completiv rule b)",
            )
            return Judgement(text, move, verdict, (problem, *_besides_count(verdict)), 0)
        return self._as_joker(board, rack, text, move, chosen)

    def _unmarked(
        self, text: str, move: Move, verdict: Verdict, beyond: Counter[str], rack: str
    ) -> Judgement:
        """No chosen letter marked: one tile beyond the drawn rack is a notation error."""
        if sum(beyond.values()) != 1:
            return Judgement(text, move, verdict, verdict.problems, verdict.score)
        (tile,) = beyond
        name = "the stock's joker" if tile == JOKER else tile
        problem = Problem(
            "completiv_letter_unmarked",
            f"the move lays {name}, which the drawn rack {rack or '(empty)'} does not hold, and"
            f" marks no letter chosen from the stock ([X] in the word or +X after it): a"
            " notation error, the submission is annulled",
        )
        problems = tuple(p for p in verdict.problems if p.code != "tile_not_on_rack")
        return Judgement(text, move, verdict, (*problems, problem), 0)

    def _as_joker(
        self, board: Board, rack: str, text: str, move: Move, chosen: Chosen
    ) -> Judgement:
        """Rule a: the chosen letter, gone from the stock, counts as the stock's joker."""
        places = (
            [chosen.at]
            if chosen.at is not None
            else [i for i, key in _new_tiles(board, move) if key == chosen.letter]
        )
        readings = []
        for at in places:
            moved = replace(
                move,
                jokers=tuple(sorted({*move.jokers, at})),
                chosen=Chosen(chosen.letter, True, chosen.at),
            )
            verdict = self.check(board, rack, moved)
            readings.append((verdict.points_if_valid, at, moved, verdict))
        _, at, moved, verdict = min(readings, key=lambda r: (r[0], r[1]))
        value = self.ruleset.value(chosen.letter)
        note = (
            f"{chosen.letter} is no longer in the stock and a joker is: the {chosen.letter}"
            f" (letter {at + 1} of {move.word}) counts as that joker, worth 0, and its value"
            f" {value} is subtracted (completiv rule a)"
        )
        score = verdict.score - value if verdict.valid else 0
        return Judgement(text, moved, verdict, verdict.problems, score, (note,))

    def top(self, board: Board, rack: str) -> Top:
        """The best moves of the drawn rack completed with any one letter of the stock."""
        stock = self.stock(board, rack)
        choices = sorted(stock.counts, key=lambda t: (t == JOKER, t)) or [""]
        best = 0
        found: dict[tuple, ScoredMove] = {}
        for tile in choices:
            top = find_top(board, Rack(rack + tile), self.ruleset, self.dictionary, best)
            if not top.moves:
                continue
            if top.top_score > best:
                best, found = top.top_score, {}
            for scored in top.moves:
                move = marked(board, rack, scored.move)
                key = (move.row, move.col, move.across, move.word, move.jokers)
                found.setdefault(key, ScoredMove(move, scored.score))
        moves = sorted(found.values(), key=_canonical)
        return Top(best if moves else 0, tuple(moves))


def _lays(board: Board, move: Move, chosen: Chosen, tile: str) -> bool:
    """Whether the move lays the chosen letter: on its marked square (`[X]`), or on some new
    square (`+X`). The mark is the player's declaration: a marked letter laid counts as the
    one chosen even when the drawn tiles hold another copy of it (RULES 3)."""
    return any(key == tile and chosen.at in (None, i) for i, key in _new_tiles(board, move))


def _besides_count(verdict: Verdict) -> tuple[Problem, ...]:
    """The verdict's problems but the tile count, which the stock's problem says already."""
    return tuple(p for p in verdict.problems if p.code != "more_than_the_game_has")


def marked(board: Board, rack: str, move: Move) -> Move:
    """A generated move with its tile from the stock marked in place (`[X]`, `[(X)]`)."""
    laid = _new_tiles(board, move)
    extra = Counter(key for _, key in laid) - Counter(rack)
    if not extra:
        return move
    (tile,) = extra
    at = next(i for i, key in laid if key == tile)
    return replace(move, chosen=Chosen(move.word[at], tile == JOKER, at))


def _canonical(scored: ScoredMove) -> tuple:
    move = scored.move
    at = move.chosen.at if move.chosen is not None else -1
    return (-scored.score, move.row, move.col, not move.across, move.word, move.jokers, at)
