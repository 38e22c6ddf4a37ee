"""Every legal move for a board and a rack, and the top: the best score and all moves reaching it.

`MoveGenerator` reads and checks the rack, then runs the compiled kernel (`engine.kernel`)
when it was built, or the pure-Python search (`engine.search`), the reference both are tested
against; both give the same moves, scores and order, and `engine.verdict.check_move` gives
every move the same score.

Conventions: a move is reported once; a one-tile move is across when it forms a word across
(its word down, if any, is then a cross word) and down only when it forms no word across.
A joker is written as an index into the move's word (`Move.jokers`); letters without tiles
(K, Q, W, Y) are only ever laid as jokers. Moves come best first, ties in square, direction
and word order (`engine.search.canonical`).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from functools import lru_cache

from engine import kernel
from engine.bag import Bag
from engine.board import Board, BoardError
from engine.crosschecks import CrossCache, Line, board_lines, cells_and_values, changed_lines
from engine.dictionary import Dictionary
from engine.lexicon import Lexicon
from engine.notation import Move
from engine.rack import Rack, RackError
from engine.ruleset import Ruleset
from engine.search import Found, PositionSearch
from engine.tiles import JOKER
from engine.topbound import JOKER_INDEX

_CROSS_CACHE_LIMIT = 200_000


@dataclass(frozen=True)
class ScoredMove:
    """A legal move and the points `check_move` gives it."""

    move: Move
    score: int


@dataclass(frozen=True)
class Top:
    """The best score on a board for a rack (0 when nothing can be played) and its moves."""

    top_score: int
    moves: tuple[ScoredMove, ...]


@lru_cache(maxsize=4)
def _lexicon_of_words(words: frozenset[str]) -> Lexicon:
    return Lexicon.from_words(words)


def lexicon_of(dictionary: Dictionary) -> Lexicon:
    """The dictionary's DAWG: its own words when they are a Lexicon, else one built (cached)."""
    words: Container[str] = dictionary.words
    if isinstance(words, Lexicon):
        return words
    if isinstance(words, frozenset | set):
        return _lexicon_of_words(frozenset(words))
    raise TypeError("the move generator needs a dictionary whose words are a Lexicon or a set")


class MoveGenerator:
    """Moves and tops under one ruleset and one dictionary, reused across positions.

    Holding it (as a batch does) keeps the cross-checks already computed: consecutive
    positions of a game share most of them.
    """

    def __init__(self, ruleset: Ruleset, dictionary: Dictionary, compiled: bool = True) -> None:
        self.ruleset = ruleset
        self.lexicon = lexicon_of(dictionary)
        self.two_letter = dictionary.two_letter
        self.tile_values = [ruleset.value(chr(65 + i)) for i in range(26)]
        self.bingo_size = ruleset.bingo_size
        self.bingo = ruleset.bingo_bonus
        self.max_laid = min(ruleset.max_laid, ruleset.rack_size)
        self._cross_cache: CrossCache = {}
        self._last_lines: dict[bool, tuple[Board, list[Line]]] = {}
        self._last_grids: tuple[Board, tuple[list[list[int]], list[list[int]]]] | None = None
        # The compiled generator when built (engine.kernel); `engine.search` is the
        # reference and the fallback.
        self.kernel = (
            kernel.for_ruleset(ruleset, self.lexicon, self.two_letter) if compiled else None
        )

    def moves(self, board: Board, rack: Rack | str) -> list[ScoredMove]:
        """All legal moves, best first (ties in square, direction and word order)."""
        counts = _checked_counts(board, rack, self.ruleset)
        if self.kernel is not None:
            return _from_kernel(self.kernel.search(board, counts, prune=False))
        return [_to_scored(f) for f in PositionSearch(self, board, counts).every()]

    def top(self, board: Board, rack: Rack | str, floor: int = -1) -> Top:
        """The best score and every move reaching it, in canonical order; with a `floor`,
        only moves scoring at least that much are looked for (none found: `Top(0, ())`),
        which prunes the search when several racks are compared on one board."""
        counts = _checked_counts(board, rack, self.ruleset)
        if self.kernel is not None:
            best = _from_kernel(self.kernel.search(board, counts, top=True, floor=max(0, floor)))
        else:
            best = [_to_scored(f) for f in PositionSearch(self, board, counts).top(floor)]
        return Top(best[0].score, tuple(best)) if best else Top(0, ())

    def best(
        self, board: Board, rack: Rack | str, n: int | None = None, above: int | None = None
    ) -> list[ScoredMove]:
        """The `n` best moves (ties at the n-th score cut in canonical order), or every move
        scoring at least `above`, or both limits at once; best first, as `moves` orders them.

        A pruned search, not a full enumeration: the n-th best score found so far (or
        `above`) is the bound below which a start or a partial word is dropped.
        """
        if n is not None and n < 1:
            raise ValueError(f"n: expected at least 1 move, got {n}")
        floor = 0 if above is None else max(0, above)
        counts = _checked_counts(board, rack, self.ruleset)
        if self.kernel is not None:
            return _from_kernel(self.kernel.search(board, counts, limit=n or 0, floor=floor))
        found = PositionSearch(self, board, counts).best_moves(n, floor)
        return [_to_scored(f) for f in found]

    def lines(self, board: Board, across: bool) -> list[Line]:
        """The board's lines with their cross-checks, reusing what the last board shares."""
        if len(self._cross_cache) > _CROSS_CACHE_LIMIT:
            self._cross_cache.clear()
        previous = None
        last = self._last_lines.get(across)
        if last is not None:
            changed = changed_lines(last[0], board, across)
            if changed is not None:
                previous = (last[1], changed)
        # The board's letters and points serve both passes (across, then down).
        if self._last_grids is None or self._last_grids[0] is not board:
            self._last_grids = (board, cells_and_values(board, self.ruleset))
        lines = board_lines(
            board,
            self.ruleset,
            self.lexicon,
            self.two_letter,
            across,
            self._cross_cache,
            previous,
            self._last_grids[1],
        )
        self._last_lines[across] = (board, lines)
        return lines


def _rack_counts(rack: Rack | str, board: Board, ruleset: Ruleset) -> list[int]:
    """Tiles per letter 0-25, jokers at index 26; text is read with `Rack.parse`.

    A rack holding tiles the bag no longer has beside the board (a second Z when one lies on
    the board) is refused: `check_move` would refuse every move laying them.
    """
    if isinstance(rack, str):
        rack = Rack.parse(rack, ruleset)
    on_board = board.tile_counts()
    held = {tile: n + on_board.get(tile, 0) for tile, n in rack.counts().items()}
    for tile, _, total in Bag.full(ruleset).shortage(held):
        name = "jokers" if tile == JOKER else tile
        raise RackError(
            f"rack {rack.letters}: the game has {total} {name}, "
            f"{on_board.get(tile, 0)} on the board, and the rack holds {rack.counts()[tile]} more"
        )
    counts = [0] * 27
    for ch in rack.letters:
        counts[JOKER_INDEX if ch == JOKER else ord(ch) - 65] += 1
    return counts


def _checked_counts(board: Board, rack: Rack | str, ruleset: Ruleset) -> list[int]:
    """The rack's counts (`_rack_counts`) for a board of the ruleset's size (else BoardError)."""
    if board.size != ruleset.board_size:
        raise BoardError(
            f"the board is {board.size}x{board.size}; {ruleset.name} plays on "
            f"{ruleset.board_size}x{ruleset.board_size}"
        )
    return _rack_counts(rack, board, ruleset)


def _to_scored(found: Found) -> ScoredMove:
    score, across, index, start, letters, jokers = found
    word = "".join(chr(65 + x) for x in letters)
    if across:
        return ScoredMove(Move(index, start, True, word, jokers), score)
    return ScoredMove(Move(start, index, False, word, jokers), score)


def _from_kernel(found: list[kernel.RawMove]) -> list[ScoredMove]:
    return [
        ScoredMove(Move(row, col, across, word, jokers), score)
        for score, row, col, across, word, jokers in found
    ]


@lru_cache(maxsize=4)
def _generator(ruleset: Ruleset, dictionary: Dictionary) -> MoveGenerator:
    return MoveGenerator(ruleset, dictionary)


def generate_moves(
    board: Board, rack: Rack | str, ruleset: Ruleset, dictionary: Dictionary
) -> list[ScoredMove]:
    """All legal moves, best first (ties in square, direction and word order).

    A rack given as text is read with `Rack.parse` (RackError on more tiles than a rack
    holds or a letter with no tile); a board of the wrong size raises BoardError.
    """
    return _generator(ruleset, dictionary).moves(board, rack)


def find_top(
    board: Board, rack: Rack | str, ruleset: Ruleset, dictionary: Dictionary, floor: int = -1
) -> Top:
    """The best score and every move reaching it, in canonical order (see `generate_moves`).

    The same moves at that score as `generate_moves`, found without enumerating the rest;
    with a `floor`, only moves scoring at least that much (`MoveGenerator.top`).
    """
    return _generator(ruleset, dictionary).top(board, rack, floor)
