"""Upper bounds for the top finder: how much a move can still score from here.

`find_top` only needs the moves that reach the best score, so it skips every start square,
and every partial word, whose bound is below the best score found so far. The bounds are
computed per position from the lines' premiums and cross-checks and the rack's tile values;
they never underestimate (that is what makes the pruned search exact), and the tighter they
are the less is searched. A move lays at most `most` tiles: the rack's, or fewer where the
ruleset says so (duplicat eliptic lays at most 7 of 8). The bingo bonus counts only where
laying `bingo_size` tiles could form a word at all: the board letters such a span would cross,
with the rack (or, when it holds more tiles, some `bingo_size` of them), must be an anagram of
some word (`Lexicon.may_have_multiset`).
"""

from __future__ import annotations

from bisect import insort
from itertools import combinations
from operator import mul

from engine.crosschecks import ANY_LETTER, NO_CROSS, Line
from engine.lexicon import LETTER_WEIGHTS, Lexicon, multiset_key

JOKER_INDEX = 26
_KEY_MASK = (1 << 64) - 1

# Bound terms for r = 0..room more tiles, and room itself.
Span = tuple[list[tuple[int, int, int, int, int, int]], int]


class Bounds:
    """Bound tables of one position for one rack, filled as the search asks for them."""

    def __init__(
        self,
        lexicon: Lexicon,
        counts: list[int],
        tile_values: list[int],
        size: int,
        bingo_size: int,
        bingo: int,
        max_laid: int,
    ) -> None:
        self.lexicon = lexicon
        self.counts = counts
        tiles = sum(counts)
        self.most = min(tiles, max_laid)
        """The most tiles a move of this rack lays."""
        self.bingo_size = bingo_size
        self.bingo = bingo if bingo_size <= self.most else 0
        have = sum(1 << i for i in range(26) if counts[i])
        self.playable = ANY_LETTER if counts[JOKER_INDEX] else have
        self.rack_values = (
            sorted((tile_values[i] for i in range(26) for _ in range(counts[i])), reverse=True)
            + [0] * counts[JOKER_INDEX]
        )
        self.rack_total = sum(self.rack_values[: self.most])
        # Real letters of the rack, most valuable first: the order bounds fill squares in.
        self.letters_by_value = sorted(
            ((i, tile_values[i]) for i in range(26) if counts[i]), key=lambda lv: -lv[1]
        )
        # Each distinct `bingo_size` tiles of the rack as (multiset key, jokers): the whole
        # rack's alone when it holds that many.
        rack = [i for i in range(27) for _ in range(counts[i])]
        self.bingo_racks = sorted(
            {
                (multiset_key(i for i in kept if i != JOKER_INDEX), kept.count(JOKER_INDEX))
                for kept in (combinations(rack, bingo_size) if self.bingo else ())
            }
        )
        self._anagrams: dict[tuple[int, int], bool] = {}
        # A copy: the search lays tiles by counting them down in `counts` itself.
        self._full_counts = list(counts)
        # `best_sums` by key; the search reads it directly, a method call costing more than
        # the lookup.
        self.cached_sums: dict[int, list[tuple[int, int]]] = {}
        self._cap_of_mask: dict[int, int] = {}
        self.caps: dict[bool, list[list[int] | None]] = {True: [None] * size, False: [None] * size}
        self.spans: dict[bool, list[list[Span | None]]] = {
            across: [[None] * size for _ in range(size)] for across in (True, False)
        }

    def span(self, line: Line, across: bool, col: int) -> Span:
        """Bound terms for moves laying their next tiles from empty square `col` onwards.

        For r = 0..room more tiles (room: how many fit before the line ends or a square no
        rack tile may take), `(W, B, E, K, P, end)` bound what those tiles and the tiles they
        reach add, `end` being the square after the word they would end. With points M and
        multiplier X so far, cross words worth C, and S the sum of the r best tiles that may
        still be laid, a move scores at most X*(M*W + B + min(W*S + E, P)) + C + K: W
        multiplies the word premiums of the next r empty squares, B is the board tiles
        reached times W, E pairs the rack's best values with what letter premiums and cross
        words add, P caps each square by the best rack value its cross-check allows, and K
        sums the perpendicular tiles of the cross words.
        """
        spans = self.spans[across][line.index]
        cells, values, masks, cross = line.cells, line.values, line.masks, line.cross
        size = len(cells)
        playable = self.playable
        rack_values = self.rack_values
        caps = self.caps[across][line.index] or self._caps(line, across)
        entries = [(1, 0, 0, 0, 0, col)]
        after = col + 1
        if (
            after < size
            and cells[after] < 0
            and line.letter_factor[col] == 1
            and line.word_factor[col] == 1
            and cross[col] == NO_CROSS
            and masks[col] & playable
        ):
            # A plain square before another empty one only adds its best tile's value.
            following, _ = spans[after] or self.span(line, across, after)
            cap = caps[col]
            for mult, board, paired, crossed, capped, end in following[: self.most]:
                entries.append((mult, board, paired, crossed, capped + mult * cap, end))
            result = (entries, len(entries) - 1)
            spans[col] = result
            return result
        extras: list[tuple[int, int]] = []
        gains: list[int] = []
        mult = 1
        board_points = 0
        crossed = 0
        capped = 0
        capped_crossed = 0
        c = col
        most = self.most
        letter_factor, word_factor = line.letter_factor, line.word_factor
        while len(entries) <= most and c < size and masks[c] & playable:
            lf = letter_factor[c]
            wf = word_factor[c]
            cw = 0 if cross[c] == NO_CROSS else wf
            if wf > 1:
                mult *= wf
                gains = sorted((f - 1) * mult + f * w for f, w in extras)
            if lf > 1 or cw:
                extras.append((lf, cw))
                insort(gains, (lf - 1) * mult + lf * cw)
            crossed += cross[c] * cw
            cap = caps[c]
            capped += cap * lf
            capped_crossed += cap * lf * cw
            c += 1
            while c < size and cells[c] >= 0:
                board_points += values[c]
                c += 1
            paired = sum(map(mul, rack_values, reversed(gains))) if gains else 0
            entries.append(
                (mult, board_points * mult, paired, crossed, mult * capped + capped_crossed, c)
            )
        result = (entries, len(entries) - 1)
        spans[col] = result
        return result

    def best_sums(self, key: int) -> list[tuple[int, int]]:
        """Per number m of tiles, the most m rack tiles can be worth and how many of the m
        the rack can fill, counting only the letters of `key & ANY_LETTER` and `key >> 26`
        jokers (worth 0, fitting anywhere).

        The search asks with the letters it still holds and a word may still use; it counts
        every copy of those the whole rack holds, a little more than may be left, so that
        the answers can be cached per position.
        """
        sums = self.cached_sums.get(key)
        if sums is not None:
            return sums
        values = [
            value
            for letter, value in self.letters_by_value
            if key >> letter & 1
            for _ in range(self._full_counts[letter])
        ]
        values += [0] * (key >> 26)
        sums = [(sum(values[:m]), min(m, len(values))) for m in range(self.most + 1)]
        self.cached_sums[key] = sums
        return sums

    def _caps(self, line: Line, across: bool) -> list[int]:
        """Per square, the most a rack tile allowed there by its cross-check is worth."""
        known = self._cap_of_mask
        caps = []
        for mask in line.masks:
            cap = known.get(mask)
            if cap is None:
                cap = next((v for x, v in self.letters_by_value if mask >> x & 1), 0)
                known[mask] = cap
            caps.append(cap)
        self.caps[across][line.index] = caps
        return caps

    def bingo_possible(self, line: Line, start: int) -> bool:
        """Whether laying `bingo_size` tiles from `start` could make a word at all.

        Laying that many tiles fixes the span, hence the board letters the word would contain:
        if no word is an anagram of those and the rack's tiles (some `bingo_size` of them
        when it holds more; jokers standing for any letter), no move from `start` earns the
        bonus.
        """
        tiles = self.bingo_size
        if not self.bingo:
            return False
        cells, masks = line.cells, line.masks
        size = len(cells)
        key = 0
        placed = 0
        c = start
        while c < size and (placed < tiles or cells[c] >= 0):
            if cells[c] >= 0:
                key += LETTER_WEIGHTS[cells[c]]
            elif masks[c] & self.playable:
                placed += 1
            else:
                break
            c += 1
        if placed < tiles:
            return False
        for rack_key, jokers in self.bingo_racks:
            crossed = ((key + rack_key) & _KEY_MASK, jokers)
            cached = self._anagrams.get(crossed)
            if cached is None:
                cached = self._anagrams[crossed] = self._any_anagram(*crossed)
            if cached:
                return True
        return False

    def _any_anagram(self, key: int, jokers: int, lowest: int = 0) -> bool:
        if not jokers:
            return self.lexicon.may_have_multiset(key & _KEY_MASK)
        return any(
            self._any_anagram(key + LETTER_WEIGHTS[x], jokers - 1, x) for x in range(lowest, 26)
        )

    def start_bound(self, line: Line, across: bool, a: int, start: int) -> int:
        """The most a move starting with the tiles from `start` to anchor `a` can score,
        bingo bonus aside; -1 when no word starts with those tiles or can end after them."""
        lexicon = self.lexicon
        node: int | None = 0
        for letter in line.cells[start:a]:
            node = lexicon.children[node].get(letter)
            if node is None:
                return -1
        entries, room = self.spans[across][line.index][a] or self.span(line, across, a)
        most = min(self.most, room, lexicon.height[node])
        ending = lexicon.lengths[node]
        while most and not ending >> (entries[most][5] - a) & 1:
            most -= 1
        if not most:
            return -1
        mult, board, paired, crossed, capped, _ = entries[most]
        best = min(mult * self.rack_total + paired, capped)
        return sum(line.values[start:a]) * mult + board + best + crossed

    def left_bounds(self, line: Line, across: bool, a: int, limit: int) -> list[int]:
        """For k = 0..limit, the most a move laying k tiles before anchor `a` can score,
        bingo bonus aside.

        A square before the anchor without a premium only adds its best tile's value to the
        bound terms of the square after it (as `span` derives them), so tables are built only
        at the anchor and at premium squares, not for every start that may never be searched.
        """
        spans = self.spans[across][line.index]
        caps = self.caps[across][line.index] or self._caps(line, across)
        most = self.most
        total = self.rack_total
        bounds = []
        entries, room = spans[a] or self.span(line, across, a)
        base = 0
        added = 0
        for k in range(limit + 1):
            start = a - k
            if k:
                if line.letter_factor[start] != 1 or line.word_factor[start] != 1:
                    entries, room = spans[start] or self.span(line, across, start)
                    base = k
                    added = 0
                else:
                    added += caps[start]
            mult, board, paired, crossed, capped, _ = entries[min(most - (k - base), room)]
            best = min(mult * total + paired, capped + mult * added)
            bounds.append(board + best + crossed)
        return bounds
