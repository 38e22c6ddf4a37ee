"""The tile supply: how many of each tile a bag holds, `?` for jokers.

One type counts tiles for every rule that needs it: a full game's tiles (no rack, board or
move may hold more copies of a tile than the game has), the bag between draws (a draw takes
only tiles still in it; rejected draws go back), and the canonical order seeded draws index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from engine.ruleset import Ruleset
from engine.tiles import JOKER


class BagError(ValueError):
    """Tiles asked of a bag that does not hold them; the message names each shortage."""


@lru_cache(maxsize=8)
def _full(ruleset: Ruleset) -> Bag:
    counts = dict(ruleset.tile_counts)
    counts[JOKER] = ruleset.jokers
    return Bag(counts)


def tile_name(tile: str, n: int = 2) -> str:
    """`jokers`/`joker` or `E tiles`, for messages."""
    if tile == JOKER:
        return "joker" if n == 1 else "jokers"
    return f"{tile} tile" if n == 1 else f"{tile} tiles"


@dataclass(frozen=True)
class Bag:
    """A multiset of tiles (letters A-Z, `?` a joker). Immutable: taking gives a new bag."""

    counts: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        clean = {t: n for t, n in sorted(self.counts.items()) if n > 0}
        object.__setattr__(self, "counts", MappingProxyType(clean))

    def __hash__(self) -> int:
        return hash(tuple(self.counts.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bag) and dict(self.counts) == dict(other.counts)

    @classmethod
    def full(cls, ruleset: Ruleset) -> Bag:
        """Every tile of a game under this ruleset."""
        return _full(ruleset)

    @classmethod
    def of(cls, tiles: Iterable[str]) -> Bag:
        """The tiles of a text such as `EIR?` (letters as given, `?` a joker)."""
        return cls(Counter(tiles))

    def __len__(self) -> int:
        return sum(self.counts.values())

    def count(self, tile: str) -> int:
        return self.counts.get(tile, 0)

    def tiles(self) -> str:
        """Every tile, in canonical order: sorted by character code, so jokers `?` first."""
        return "".join(tile * n for tile, n in self.counts.items())

    def shortage(self, wanted: Mapping[str, int]) -> list[tuple[str, int, int]]:
        """(tile, wanted, held) for each tile wanted beyond what the bag holds, in tile order."""
        return [
            (tile, n, self.counts.get(tile, 0))
            for tile, n in sorted(wanted.items())
            if n > self.counts.get(tile, 0)
        ]

    def take(self, tiles: Iterable[str]) -> Bag:
        """The bag without these tiles; `BagError` naming every tile it lacks."""
        wanted = Counter(tiles)
        short = self.shortage(wanted)
        if short:
            raise BagError(
                "; ".join(
                    f"{n} {tile_name(tile, n)} wanted, the bag holds {held}"
                    for tile, n, held in short
                )
            )
        counts = dict(self.counts)
        for tile, n in wanted.items():
            counts[tile] -= n
        return Bag(counts)

    def put(self, tiles: Iterable[str]) -> Bag:
        """The bag with these tiles back in it."""
        counts = Counter(self.counts)
        counts.update(tiles)
        return Bag(counts)

    def without_board(self, board_counts: Mapping[str, int]) -> Bag:
        """The bag less the tiles lying on a board (counted as `Board.tile_counts`), clamped at
        zero: a board is checked against the full bag separately."""
        return Bag({t: n - board_counts.get(t, 0) for t, n in self.counts.items()})
