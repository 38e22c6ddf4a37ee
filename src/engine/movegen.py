"""Every legal move for a board and a rack, and the top: the best score and all moves reaching it.

Appel and Jacobson's generator over the lexicon's DAWG: on each line (rows for moves across,
columns for moves down) and at each anchor, left parts are built from the rack on the empty
squares before the anchor (or read from the tiles already there), then extended rightwards
through the DAWG, honouring cross-check masks (`engine.crosschecks`). Scores are carried
through the recursion (main word sum, word multiplier, cross words), so a finished word is
scored in constant time; `engine.verdict.check_move` scores every such move identically.

A move is reported once. A one-tile move is across when it forms a word across (its word
down, if any, is then a cross word) and down only when it forms no word across.
`find_top` searches anchors from the most to the least promising and skips an anchor, or a
left part, whose upper bound cannot reach the best score found so far.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass
from functools import lru_cache

from engine.board import Board, BoardError
from engine.crosschecks import ANY_LETTER, NO_CROSS, Line, board_lines
from engine.dictionary import Dictionary
from engine.lexicon import Lexicon
from engine.notation import Move
from engine.rack import Rack
from engine.ruleset import Ruleset
from engine.tiles import JOKER

_JOKER = 26


@dataclass(frozen=True)
class ScoredMove:
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


def _rack_counts(rack: Rack | str, ruleset: Ruleset) -> list[int]:
    """Tiles per letter 0-25, jokers at index 26."""
    if isinstance(rack, str):
        rack = Rack.parse(rack, ruleset)
    counts = [0] * 27
    for ch in rack.letters:
        counts[_JOKER if ch == JOKER else ord(ch) - 65] += 1
    return counts


def _check_board(board: Board, ruleset: Ruleset) -> None:
    if board.size != ruleset.board_size:
        raise BoardError(
            f"the board is {board.size}x{board.size}; {ruleset.name} plays on "
            f"{ruleset.board_size}x{ruleset.board_size}"
        )


class _Search:
    """One position's search state: rack counts, tables, and where found moves go."""

    def __init__(
        self,
        board: Board,
        rack: Rack | str,
        ruleset: Ruleset,
        dictionary: Dictionary,
    ) -> None:
        _check_board(board, ruleset)
        self.counts = _rack_counts(rack, ruleset)
        self.tiles = sum(self.counts)
        self.lexicon = lexicon_of(dictionary)
        self.two_letter = dictionary.two_letter
        self.tile_values = [ruleset.value(chr(65 + i)) for i in range(26)]
        self.rack_size = ruleset.rack_size
        self.bingo = ruleset.bingo_bonus
        self.lines = {
            across: board_lines(board, ruleset, self.lexicon, dictionary.two_letter, across)
            for across in (True, False)
        }
        self.empty_board = board.is_empty()

    def anchor(self, line: Line, across: bool, a: int, emit: _Emit) -> None:
        """Every move of `line` whose leftmost anchor is square `a`."""
        children = self.lexicon.children
        terminal = self.lexicon.terminal
        counts = self.counts
        tile_values = self.tile_values
        two_letter = self.two_letter
        cells, values, masks, cross = line.cells, line.values, line.masks, line.cross
        letter_factor, word_factor = line.letter_factor, line.word_factor
        size = len(cells)
        tiles = self.tiles
        bingo_at = self.rack_size
        bingo = self.bingo
        index = line.index
        skip_single = not across and cross[a] != NO_CROSS
        word: list[int] = []
        jokers: list[int] = []

        def finish(main: int, mult: int, crossed: int, placed: int, end: int) -> None:
            if len(word) < 2 or (placed == 1 and skip_single):
                return
            if len(word) == 2 and "".join(chr(65 + x) for x in word) not in two_letter:
                return
            score = main * mult + crossed + (bingo if placed == bingo_at else 0)
            emit(score, across, index, end - len(word), word, jokers)

        def extend(node: int, col: int, main: int, mult: int, crossed: int, placed: int) -> None:
            walked = 0
            while col < size and cells[col] >= 0:
                node = children[node].get(cells[col], -1)
                if node < 0:
                    if walked:
                        del word[-walked:]
                    return
                word.append(cells[col])
                main += values[col]
                walked += 1
                col += 1
            if col > a and terminal[node]:
                finish(main, mult, crossed, placed, col)
            if col < size and placed < tiles:
                mask = masks[col]
                lf = letter_factor[col]
                wf = word_factor[col]
                cx = cross[col]
                for letter, child in children[node].items():
                    if not (mask >> letter) & 1:
                        continue
                    word.append(letter)
                    if counts[letter]:
                        counts[letter] -= 1
                        v = tile_values[letter] * lf
                        extend(
                            child,
                            col + 1,
                            main + v,
                            mult * wf,
                            crossed if cx < 0 else crossed + (cx + v) * wf,
                            placed + 1,
                        )
                        counts[letter] += 1
                    if counts[_JOKER]:
                        counts[_JOKER] -= 1
                        jokers.append(len(word) - 1)
                        extend(
                            child,
                            col + 1,
                            main,
                            mult * wf,
                            crossed if cx < 0 else crossed + cx * wf,
                            placed + 1,
                        )
                        jokers.pop()
                        counts[_JOKER] += 1
                    word.pop()
            if walked:
                del word[-walked:]

        if a > 0 and cells[a - 1] >= 0:
            start = a
            while start > 0 and cells[start - 1] >= 0:
                start -= 1
            node = 0
            main = 0
            for col in range(start, a):
                node = children[node].get(cells[col], -1)
                if node < 0:
                    return
                word.append(cells[col])
                main += values[col]
            extend(node, a, main, 1, 0, 0)
            return

        limit = 0
        while limit < a and limit < tiles - 1:
            square = a - limit - 1
            if cells[square] >= 0 or masks[square] != ANY_LETTER:
                break
            if square > 0 and cells[square - 1] >= 0:
                break
            limit += 1
        left_values: list[int] = []

        def left(node: int, k: int) -> None:
            start = a - k
            main = 0
            mult = 1
            for i in range(k):
                main += left_values[i] * letter_factor[start + i]
                mult *= word_factor[start + i]
            extend(node, a, main, mult, 0, k)
            if k == limit:
                return
            for letter, child in children[node].items():
                word.append(letter)
                if counts[letter]:
                    counts[letter] -= 1
                    left_values.append(tile_values[letter])
                    left(child, k + 1)
                    left_values.pop()
                    counts[letter] += 1
                if counts[_JOKER]:
                    counts[_JOKER] -= 1
                    jokers.append(k)
                    left_values.append(0)
                    left(child, k + 1)
                    left_values.pop()
                    jokers.pop()
                    counts[_JOKER] += 1
                word.pop()

        left(0, 0)


def _to_scored(found: _Found) -> ScoredMove:
    score, across, index, start, letters, jokers = found
    word = "".join(chr(65 + x) for x in letters)
    move = Move(index, start, True, word, jokers) if across else Move(start, index, False, word, jokers)
    return ScoredMove(move, score)


def _order(found: _Found) -> tuple:
    score, across, index, start, letters, jokers = found
    row, col = (index, start) if across else (start, index)
    return (-score, row, col, not across, letters, jokers)


def generate_moves(
    board: Board, rack: Rack | str, ruleset: Ruleset, dictionary: Dictionary
) -> list[ScoredMove]:
    """All legal moves, best first (ties in square, direction and word order)."""
    search = _Search(board, rack, ruleset, dictionary)
    found: list[_Found] = []

    def emit(
        score: int, across: bool, index: int, start: int, word: list[int], jokers: list[int]
    ) -> None:
        found.append((score, across, index, start, tuple(word), tuple(jokers)))

    for across in (True, False):
        for line in search.lines[across]:
            for a in line.anchors:
                search.anchor(line, across, a, emit)
    return [_to_scored(f) for f in sorted(found, key=_order)]
