"""The compiled move generator (`engine._kernel`), when it was built, for `engine.movegen`.

`pip install .` compiles it from `_kernel.c` when a C compiler is present; without one the
install still succeeds and the engine runs its pure-Python generator, which stays the
reference the kernel is tested against. `UNAVAILABLE` says why the kernel cannot run (None
when it can), so that a command can tell the user in one line.

The kernel reads the lexicon's cache bytes (`Lexicon.data`) and searches one position per
call: the board as text, the rack as 27 counts. It handles the rulesets the engine ships and
any other within its limits (boards up to 26x26, racks up to 16 tiles, tile values up to
1,000); `for_ruleset` returns None for the rest, and the Python generator serves them.
"""

from __future__ import annotations

from engine.board import Board
from engine.lexicon import LETTER_WEIGHTS, Lexicon
from engine.ruleset import Ruleset

try:
    from engine import _kernel
except ImportError as exc:  # built without a compiler, or for another Python
    _kernel = None
    UNAVAILABLE: str | None = f"engine._kernel could not be imported ({exc})"
else:
    UNAVAILABLE = None

# A raw result: score, row, column, across, word, joker indexes.
RawMove = tuple[int, int, int, bool, str, tuple[int, ...]]


class Kernel:
    """The compiled generator for one ruleset and one lexicon."""

    def __init__(self, compiled: object) -> None:
        self._compiled = compiled

    def search(
        self,
        board: Board,
        counts: list[int],
        *,
        top: bool = False,
        limit: int = 0,
        floor: int = 0,
        prune: bool = True,
    ) -> list[RawMove]:
        """Moves best first, in the generator's canonical order: only those at the best score
        (`top`), the best `limit`, or every one scoring at least `floor`; `prune` bounds the
        search (without it every move is enumerated, then filtered: the reference's way).

        The board is the ruleset's size: `movegen` checks it first, with the message a user
        sees (the compiled search only guards its own reads, with a ValueError)."""
        text = "".join(board.rows).encode("ascii", errors="replace")
        return self._compiled.search(text, counts, top, limit, floor, prune)  # type: ignore[attr-defined]


def for_ruleset(ruleset: Ruleset, lexicon: Lexicon, two_letter: frozenset[str]) -> Kernel | None:
    """The kernel for this ruleset and lexicon; None when it was not built or the ruleset is
    beyond its limits (the caller then uses the Python generator). It takes from the ruleset
    the premiums, the tile values, the bingo's size and bonus, and the most tiles a move lays
    (fewer than the rack holds in duplicat eliptic)."""
    if _kernel is None or ruleset.rack_size > _kernel.MAX_TILES:
        return None
    size = ruleset.board_size
    two = [0] * (26 * 26)
    for word in two_letter:
        if len(word) == 2 and word.isascii() and word.isalpha() and word.isupper():
            two[(ord(word[0]) - 65) * 26 + ord(word[1]) - 65] = 1
    try:
        compiled = _kernel.Kernel(
            lexicon.data,
            size,
            [f for row in ruleset.letter_factor for f in row],
            [f for row in ruleset.word_factor for f in row],
            [ruleset.value(chr(65 + i)) for i in range(26)],
            two,
            ruleset.bingo_size,
            ruleset.bingo_bonus,
            min(ruleset.max_laid, ruleset.rack_size),
            list(LETTER_WEIGHTS),
        )
    except (ValueError, OverflowError):
        return None
    return Kernel(compiled)
