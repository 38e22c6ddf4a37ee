"""Every legal move for a board and a rack, and the top: the best score and all moves reaching it.

Appel and Jacobson's generator over the lexicon's DAWG. On each line (rows for moves across,
columns for moves down) a move has a leftmost anchor (an empty square next to a tile, or the
centre of an empty board) and starts either at the tiles lying just before it or on one of the
empty, untouched squares before it; from each start the word is extended through the DAWG,
square by square, honouring the cross-check masks of `engine.crosschecks`. Scores are carried
through the recursion (main-word points, word multiplier, cross-word points), so a finished
word is scored at once; `engine.verdict.check_move` gives every move the same score.

Conventions: a move is reported once; a one-tile move is across when it forms a word across
(its word down, if any, is then a cross word) and down only when it forms no word across.
A joker is written as an index into the move's word (`Move.jokers`); letters without tiles
(K, Q, W, Y) are only ever laid as jokers. `find_top` searches start squares from the most to
the least promising and prunes with the bounds of `engine.topbound`.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass
from functools import lru_cache
from heapq import heappush, heapreplace

from engine import kernel
from engine.bag import Bag
from engine.board import Board, BoardError
from engine.crosschecks import (
    NO_CROSS,
    CrossCache,
    Line,
    board_lines,
    cells_and_values,
    changed_lines,
)
from engine.dictionary import Dictionary
from engine.lexicon import Lexicon
from engine.notation import Move
from engine.rack import Rack, RackError
from engine.ruleset import Ruleset
from engine.tiles import JOKER
from engine.topbound import JOKER_INDEX as _JOKER
from engine.topbound import Bounds

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


# A found move in line coordinates: score, across, line, first square, letters, joker indexes.
_Found = tuple[int, bool, int, int, tuple[int, ...], tuple[int, ...]]
_Emit = Callable[[int, bool, int, int, list[int], list[int]], None]
# Where a search starts: bound, across, line, anchor, first square, bingo possible there.
_Start = tuple[int, bool, Line, int, int, bool]


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
        self._cross_cache: CrossCache = {}
        self._last_lines: dict[bool, tuple[Board, list[Line]]] = {}
        self._last_grids: tuple[Board, tuple[list[list[int]], list[list[int]]]] | None = None
        # The compiled generator when built (engine.kernel); this module's search is the
        # reference and the fallback.
        self.kernel = (
            kernel.for_ruleset(ruleset, self.lexicon, self.two_letter, self.bingo_size, self.bingo)
            if compiled
            else None
        )

    def moves(self, board: Board, rack: Rack | str) -> list[ScoredMove]:
        """All legal moves, best first (ties in square, direction and word order)."""
        if self.kernel is not None:
            counts = _checked_counts(board, rack, self.ruleset)
            return _from_kernel(self.kernel.search(board, counts, prune=False))
        position = _Position(self, board, rack)
        found: list[_Found] = []

        def emit(
            score: int, across: bool, index: int, start: int, word: list[int], jokers: list[int]
        ) -> None:
            found.append((score, across, index, start, tuple(word), tuple(jokers)))

        for _, across, line, a, start, bingo in position.plan(prune=False):
            position.search(line, across, a, start, emit, False, bingo)
        return [_to_scored(f) for f in sorted(found, key=_order)]

    def top(self, board: Board, rack: Rack | str, floor: int = -1) -> Top:
        """The best score and every move reaching it, in canonical order; with a `floor`,
        only moves scoring at least that much are looked for (none found: `Top(0, ())`),
        which prunes the search when several racks are compared on one board."""
        if self.kernel is not None:
            counts = _checked_counts(board, rack, self.ruleset)
            found = self.kernel.search(board, counts, top=True, floor=max(0, floor))
            best = _from_kernel(found)
            return Top(best[0].score, tuple(best)) if best else Top(0, ())
        position = _Position(self, board, rack)
        position.best = max(position.best, floor)
        found: list[_Found] = []

        def emit(
            score: int, across: bool, index: int, start: int, word: list[int], jokers: list[int]
        ) -> None:
            if score < position.best:
                return
            if score > position.best:
                position.best = score
                found.clear()
            found.append((score, across, index, start, tuple(word), tuple(jokers)))

        for bound, across, line, a, start, bingo in position.plan(prune=True):
            if bound < position.best:
                break
            position.search(line, across, a, start, emit, True, bingo)
        if not found:
            return Top(0, ())
        moves = tuple(_to_scored(f) for f in sorted(found, key=_order))
        return Top(moves[0].score, moves)

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
        if self.kernel is not None:
            counts = _checked_counts(board, rack, self.ruleset)
            return _from_kernel(self.kernel.search(board, counts, limit=n or 0, floor=floor))
        position = _Position(self, board, rack)
        position.best = floor
        found: list[_Found] = []
        scores: list[int] = []

        def emit(
            score: int, across: bool, index: int, start: int, word: list[int], jokers: list[int]
        ) -> None:
            if score < position.best:
                return
            found.append((score, across, index, start, tuple(word), tuple(jokers)))
            if n is None:
                return
            if len(scores) < n:
                heappush(scores, score)
            elif score > scores[0]:
                heapreplace(scores, score)
            if len(scores) == n and scores[0] > position.best:
                position.best = scores[0]

        for bound, across, line, a, start, bingo in position.plan(prune=True):
            if bound < position.best:
                break
            position.search(line, across, a, start, emit, True, bingo)
        kept = sorted((f for f in found if f[0] >= position.best), key=_order)
        return [_to_scored(f) for f in kept[:n]]

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
        counts[_JOKER if ch == JOKER else ord(ch) - 65] += 1
    return counts


def _checked_counts(board: Board, rack: Rack | str, ruleset: Ruleset) -> list[int]:
    """The rack's counts (`_rack_counts`) for a board of the ruleset's size (else BoardError)."""
    if board.size != ruleset.board_size:
        raise BoardError(
            f"the board is {board.size}x{board.size}; {ruleset.name} plays on "
            f"{ruleset.board_size}x{ruleset.board_size}"
        )
    return _rack_counts(rack, board, ruleset)


class _Position:
    """One board and rack: the lines, the rack's tiles left, the best score found so far."""

    def __init__(self, generator: MoveGenerator, board: Board, rack: Rack | str) -> None:
        self.generator = generator
        self.counts = _checked_counts(board, rack, generator.ruleset)
        self.tiles = sum(self.counts)
        self.have = sum(1 << i for i in range(26) if self.counts[i])
        self.lines = {across: generator.lines(board, across) for across in (True, False)}
        self.bounds = Bounds(
            generator.lexicon,
            self.counts,
            generator.tile_values,
            board.size,
            generator.bingo_size,
            generator.bingo,
        )
        self.best = -1

    def plan(self, prune: bool) -> list[_Start]:
        """Where moves start: (bound, across, line, anchor, first square, bingo possible).

        A move's leftmost anchor is its anchor; it starts either at the tiles already lying
        before the anchor or on one of the empty squares before it that touch nothing. With
        pruning, the most promising starts come first; without, the board's order.
        """
        tiles = self.tiles
        # Laying a full rack is a bingo: a start that leaves no other way needs one possible.
        full_rack = tiles if tiles == self.generator.bingo_size else tiles + 1
        planned = []
        for across in (True, False):
            for line in self.lines[across]:
                cells, cross = line.cells, line.cross
                for a in line.anchors:
                    if a > 0 and cells[a - 1] >= 0:
                        start = a
                        while start > 0 and cells[start - 1] >= 0:
                            start -= 1
                        starts = [start]
                        if prune:
                            bounds = [self.bounds.start_bound(line, across, a, start)]
                    else:
                        limit = 0
                        while limit < a and limit < tiles - 1:
                            square = a - limit - 1
                            # An anchor (a square joining a cross word) ends the left part,
                            # even where every letter would complete that cross word.
                            if cells[square] >= 0 or cross[square] != NO_CROSS:
                                break
                            if square > 0 and cells[square - 1] >= 0:
                                break
                            limit += 1
                        starts = [a - k for k in range(limit + 1)]
                        if prune:
                            bounds = self.bounds.left_bounds(line, across, a, limit)
                    for i, start in enumerate(starts):
                        if not prune:
                            planned.append((0, across, line, a, start, True))
                            continue
                        if bounds[i] < 0:
                            continue
                        # The bound tables already say how many tiles fit from the anchor on:
                        # too few for the whole rack and no anagram test is needed.
                        room = self.bounds.spans[across][line.index][a][1]
                        fits = room + (a - start if cells[start] < 0 else 0) >= tiles
                        bingo = fits and self.bounds.bingo_possible(line, start)
                        if not bingo and cells[start] < 0 and a - start + 1 >= full_rack:
                            continue
                        bound = bounds[i] + (self.bounds.bingo if bingo else 0)
                        planned.append((bound, across, line, a, start, bingo))
        if prune:
            planned.sort(key=lambda p: -p[0])
        return planned

    def search(
        self,
        line: Line,
        across: bool,
        a: int,
        start: int,
        emit: _Emit,
        prune: bool,
        bingo_here: bool,
    ) -> None:
        """Every move of `line` starting at `start` whose leftmost anchor is `a` (with
        pruning: only those that may still reach the best score found so far)."""
        lexicon = self.generator.lexicon
        children = lexicon.children
        edges = lexicon.edges
        terminal = lexicon.terminal
        reach = lexicon.reach
        height = lexicon.height
        lengths = lexicon.lengths
        counts = self.counts
        tile_values = self.generator.tile_values
        two_letter = self.generator.two_letter
        cells, values, masks, cross = line.cells, line.values, line.masks, line.cross
        letter_factor, word_factor = line.letter_factor, line.word_factor
        size = len(cells)
        tiles = self.tiles
        bingo_at = self.generator.bingo_size
        bingo = self.generator.bingo
        bingo_bound = bingo if bingo_here and tiles == bingo_at else 0
        index = line.index
        skip_single = not across and cross[a] != NO_CROSS
        must_end = a + 1
        forced = 0
        while must_end < size and cells[must_end] >= 0:
            forced |= 1 << cells[must_end]
            must_end += 1
        bounds = self.bounds
        span = bounds.span
        spans = bounds.spans[across][line.index]
        sums_of = bounds.cached_sums.get
        best_sums = bounds.best_sums
        word: list[int] = []
        jokers: list[int] = []

        def finish(main: int, mult: int, crossed: int, placed: int, end: int) -> None:
            if len(word) < 2 or (placed == 1 and skip_single):
                return
            if len(word) == 2 and "".join(chr(65 + x) for x in word) not in two_letter:
                return
            score = main * mult + crossed + (bingo if placed == bingo_at else 0)
            emit(score, across, index, end - len(word), word, jokers)

        def extend(
            node: int, col: int, main: int, mult: int, crossed: int, placed: int, have: int
        ) -> None:
            walked = 0
            # The board letters walked are taken off the word however the call ends.
            try:
                while col < size and cells[col] >= 0:
                    node = children[node].get(cells[col], -1)
                    if node < 0:
                        return
                    word.append(cells[col])
                    main += values[col]
                    walked += 1
                    col += 1
                if col > a:
                    if terminal[node]:
                        finish(main, mult, crossed, placed, col)
                elif height[node] < must_end - col or reach[node] & forced != forced:
                    return
                rest = tiles - placed
                if col < size and rest:
                    # Only the letters both on the node's edges and allowed here, lowest first.
                    todo = edges[node] & (masks[col] if counts[_JOKER] else masks[col] & have)
                    if not todo:
                        return
                    if prune:
                        entries, room = spans[col] or span(line, across, col)
                        most = rest if rest < room else room
                        if height[node] < most:
                            most = height[node]
                        # The best tiles left that a word from here may use (see `best_sums`).
                        key = reach[node] & have | counts[_JOKER] << 26
                        best_sum, laid = (sums_of(key) or best_sums(key))[most]
                        ending = lengths[node]
                        while laid and not ending >> (entries[laid][5] - col) & 1:
                            laid -= 1
                        more, board, paired, more_crossed, capped, _ = entries[laid]
                        best_tiles = more * best_sum + paired
                        if capped < best_tiles:
                            best_tiles = capped
                        bound = mult * (main * more + board + best_tiles) + crossed + more_crossed
                        if bingo_bound and laid == rest:
                            bound += bingo_bound
                        if not laid or bound < self.best:
                            return
                    kids = children[node]
                    lf = letter_factor[col]
                    wf = word_factor[col]
                    cx = cross[col]
                    after = col + 1
                    follow = 1 << cells[after] if after < size and cells[after] >= 0 else 0
                    # Where the next square is empty, a child that can neither end a word there
                    # nor take one of the tiles that may be left is not worth a call.
                    open_next = 0
                    if not follow and after < size and rest > 1:
                        open_next = masks[after] if counts[_JOKER] else masks[after] & have
                    early = col < a
                    while todo:
                        bit = todo & -todo
                        todo ^= bit
                        letter = bit.bit_length() - 1
                        child = kids[letter]
                        if follow:
                            if not edges[child] & follow:
                                continue
                        elif not edges[child] & open_next and (early or not terminal[child]):
                            continue
                        if early and (
                            height[child] < must_end - after or reach[child] & forced != forced
                        ):
                            continue
                        word.append(letter)
                        if counts[letter]:
                            counts[letter] -= 1
                            v = tile_values[letter] * lf
                            extend(
                                child,
                                after,
                                main + v,
                                mult * wf,
                                crossed if cx < 0 else crossed + (cx + v) * wf,
                                placed + 1,
                                have if counts[letter] else have & ~(1 << letter),
                            )
                            counts[letter] += 1
                        if counts[_JOKER]:
                            counts[_JOKER] -= 1
                            jokers.append(len(word) - 1)
                            extend(
                                child,
                                after,
                                main,
                                mult * wf,
                                crossed if cx < 0 else crossed + cx * wf,
                                placed + 1,
                                have,
                            )
                            jokers.pop()
                            counts[_JOKER] += 1
                        word.pop()
            finally:
                if walked:
                    del word[-walked:]

        extend(0, start, 0, 1, 0, 0, self.have)


def _to_scored(found: _Found) -> ScoredMove:
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


def _order(found: _Found) -> tuple[int, int, int, bool, tuple[int, ...], tuple[int, ...]]:
    score, across, index, start, letters, jokers = found
    row, col = (index, start) if across else (start, index)
    return (-score, row, col, not across, letters, jokers)


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
