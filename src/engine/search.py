"""The pure-Python search of one position: the reference the compiled kernel is tested against,
and the generator wherever the kernel was not built.

Appel and Jacobson's search over the lexicon's DAWG. On each line (rows for moves across,
columns for moves down) a move has a leftmost anchor (an empty square next to a tile, or the
centre of an empty board) and starts either at the tiles lying just before it or on one of the
empty, untouched squares before it; from each start the word is extended through the DAWG,
square by square, honouring the cross-check masks of `engine.crosschecks`. Scores are carried
through the recursion (main-word points, word multiplier, cross-word points), so a finished
word is scored at once. Pruned searches go from the most to the least promising start and skip
what the bounds of `engine.topbound` say cannot reach the best score found so far.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappush, heapreplace
from typing import Protocol

from engine.board import Board
from engine.crosschecks import NO_CROSS, Line
from engine.lexicon import Lexicon
from engine.topbound import JOKER_INDEX, Bounds

Found = tuple[int, bool, int, int, tuple[int, ...], tuple[int, ...]]
"""A found move in line coordinates: score, across, line, first square, letters, joker indexes."""
Emit = Callable[[int, bool, int, int, list[int], list[int]], None]
Start = tuple[int, bool, Line, int, int, bool]
"""Where a search starts: bound, across, line, anchor, first square, bingo possible there."""


class Generator(Protocol):
    """What a search reads of the generator that holds it (`engine.movegen.MoveGenerator`):
    the ruleset's numbers, the lexicon, and the board's lines, which it keeps across positions."""

    lexicon: Lexicon
    two_letter: frozenset[str]
    tile_values: list[int]
    bingo_size: int
    bingo: int
    max_laid: int

    def lines(self, board: Board, across: bool) -> list[Line]: ...


def canonical(found: Found) -> tuple[int, int, int, bool, tuple[int, ...], tuple[int, ...]]:
    """Best first, then by square (row, column), across before down, word, jokers."""
    score, across, index, start, letters, jokers = found
    row, col = (index, start) if across else (start, index)
    return (-score, row, col, not across, letters, jokers)


class PositionSearch:
    """One board and rack: the lines, the rack's tiles left, the best score found so far.

    `counts` are the rack's tiles per letter 0-25, jokers at index 26 (`movegen` reads and
    checks the rack); the search lays tiles by counting them down in that list.
    """

    def __init__(self, generator: Generator, board: Board, counts: list[int]) -> None:
        self.generator = generator
        self.counts = counts
        self.most = min(sum(counts), generator.max_laid)
        """The most tiles a move of this rack lays (7 of 8 in duplicat eliptic)."""
        self.have = sum(1 << i for i in range(26) if self.counts[i])
        self.lines = {across: generator.lines(board, across) for across in (True, False)}
        self.bounds = Bounds(
            generator.lexicon,
            self.counts,
            generator.tile_values,
            board.size,
            generator.bingo_size,
            generator.bingo,
            generator.max_laid,
        )
        self.best = -1

    def every(self) -> list[Found]:
        """Every legal move, in canonical order (`canonical`)."""
        found: list[Found] = []

        def emit(
            score: int, across: bool, index: int, start: int, word: list[int], jokers: list[int]
        ) -> None:
            found.append((score, across, index, start, tuple(word), tuple(jokers)))

        for _, across, line, a, start, bingo in self.plan(prune=False):
            self.search(line, across, a, start, emit, False, bingo)
        return sorted(found, key=canonical)

    def top(self, floor: int = -1) -> list[Found]:
        """Every move at the best score (at least `floor`), in canonical order."""
        self.best = max(self.best, floor)
        found: list[Found] = []

        def emit(
            score: int, across: bool, index: int, start: int, word: list[int], jokers: list[int]
        ) -> None:
            if score < self.best:
                return
            if score > self.best:
                self.best = score
                found.clear()
            found.append((score, across, index, start, tuple(word), tuple(jokers)))

        self._pruned(emit)
        return sorted(found, key=canonical)

    def best_moves(self, n: int | None, floor: int) -> list[Found]:
        """The `n` best moves scoring at least `floor` (every one with n None), in canonical
        order: the n-th best score found so far is the bound below which the search prunes."""
        self.best = floor
        found: list[Found] = []
        scores: list[int] = []

        def emit(
            score: int, across: bool, index: int, start: int, word: list[int], jokers: list[int]
        ) -> None:
            if score < self.best:
                return
            found.append((score, across, index, start, tuple(word), tuple(jokers)))
            if n is None:
                return
            if len(scores) < n:
                heappush(scores, score)
            elif score > scores[0]:
                heapreplace(scores, score)
            if len(scores) == n and scores[0] > self.best:
                self.best = scores[0]

        self._pruned(emit)
        kept = sorted((f for f in found if f[0] >= self.best), key=canonical)
        return kept[:n]

    def _pruned(self, emit: Emit) -> None:
        """The starts searched from the most promising on, until none can reach `best`."""
        for bound, across, line, a, start, bingo in self.plan(prune=True):
            if bound < self.best:
                break
            self.search(line, across, a, start, emit, True, bingo)

    def plan(self, prune: bool) -> list[Start]:
        """Where moves start: (bound, across, line, anchor, first square, bingo possible).

        A move's leftmost anchor is its anchor; it starts either at the tiles already lying
        before the anchor or on one of the empty squares before it that touch nothing. With
        pruning, the most promising starts come first; without, the board's order.
        """
        most = self.most
        bingo_size = self.generator.bingo_size
        # Laying the most tiles a move may is a bingo when that is the bingo's number: a start
        # that leaves no other way needs one possible.
        full_rack = most if most == bingo_size else most + 1
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
                        while limit < a and limit < most - 1:
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
                        # too few for a bingo and no anagram test is needed.
                        room = self.bounds.spans[across][line.index][a][1]
                        fits = room + (a - start if cells[start] < 0 else 0) >= bingo_size
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
        emit: Emit,
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
        laid_at_most = self.most
        bingo_at = self.generator.bingo_size
        bingo = self.generator.bingo
        bingo_bound = self.bounds.bingo if bingo_here else 0
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
                rest = laid_at_most - placed
                if col < size and rest:
                    # Only the letters both on the node's edges and allowed here, lowest first.
                    todo = edges[node] & (masks[col] if counts[JOKER_INDEX] else masks[col] & have)
                    if not todo:
                        return
                    if prune:
                        entries, room = spans[col] or span(line, across, col)
                        most = rest if rest < room else room
                        if height[node] < most:
                            most = height[node]
                        # The best tiles left that a word from here may use (see `best_sums`).
                        key = reach[node] & have | counts[JOKER_INDEX] << 26
                        best_sum, laid = (sums_of(key) or best_sums(key))[most]
                        ending = lengths[node]
                        while laid and not ending >> (entries[laid][5] - col) & 1:
                            laid -= 1
                        more, board, paired, more_crossed, capped, _ = entries[laid]
                        best_tiles = more * best_sum + paired
                        if capped < best_tiles:
                            best_tiles = capped
                        bound = mult * (main * more + board + best_tiles) + crossed + more_crossed
                        # A bingo lays exactly `bingo_at` tiles: some count up to `laid` more.
                        if bingo_bound and placed <= bingo_at <= placed + laid:
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
                        open_next = masks[after] if counts[JOKER_INDEX] else masks[after] & have
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
                        if counts[JOKER_INDEX]:
                            counts[JOKER_INDEX] -= 1
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
                            counts[JOKER_INDEX] += 1
                        word.pop()
            finally:
                if walked:
                    del word[-walked:]

        extend(0, start, 0, 1, 0, 0, self.have)
