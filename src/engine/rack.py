"""A rack: the tiles a player may lay this round, `?` for a joker."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.bag import Bag, tile_name
from engine.echo import echo
from engine.ruleset import Ruleset
from engine.tiles import JOKER, fold


class RackError(ValueError):
    """A rack that no bag of this ruleset could have produced; the message says why."""


@dataclass(frozen=True)
class Rack:
    """The tiles a player holds, as letters (`?` for a joker)."""

    letters: str

    @classmethod
    def parse(cls, text: str, ruleset: Ruleset) -> Rack:
        """Read `EIR?`-style racks: letters in any case, diacritics folded, spaces ignored."""
        letters = "".join(fold(text).split()).upper()
        for ch in letters:
            if ch == JOKER or ch in ruleset.tile_counts:
                continue
            if ch in ruleset.jokers_only:
                raise RackError(
                    f"rack {echo(text)}: {ch} has no tile; only a joker '?' stands for it"
                )
            raise RackError(f"rack {echo(text)}: {ch!r} is not a tile (letters A-Z, '?' a joker)")
        if len(letters) > ruleset.rack_size:
            raise RackError(
                f"rack {echo(text)}: {len(letters)} tiles, a rack holds at most {ruleset.rack_size}"
            )
        for ch, n, held in Bag.full(ruleset).shortage(Counter(letters)):
            raise RackError(f"rack {echo(text)}: {n} {tile_name(ch)}, the bag holds only {held}")
        return cls(letters)

    def counts(self) -> dict[str, int]:
        """Tiles on the rack by letter, `?` for jokers (cached: racks are frozen)."""
        counts = self.__dict__.get("_counts")
        if counts is None:
            letters = self.letters
            counts = {tile: letters.count(tile) for tile in dict.fromkeys(letters)}
            self.__dict__["_counts"] = counts
        return counts
