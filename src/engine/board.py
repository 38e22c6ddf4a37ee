"""The shared board: which letter lies on which square, and which of them are jokers.

A board is an immutable grid of rows written as in board files: `.` an empty square, `A`-`Z`
a tile, a lowercase letter a joker standing for that letter. Squares are named like the
federation names them: row letter A-O from the top, column number 1-15 from the left (`H8`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.bag import Bag, tile_name
from engine.ruleset import Ruleset
from engine.tiles import fold

EMPTY = "."


class BoardError(ValueError):
    """A board text is malformed; the message names the line and the problem."""


SQUARE_NAMES = tuple(tuple(f"{chr(ord('A') + r)}{c + 1}" for c in range(26)) for r in range(26))


def square_name(row: int, col: int) -> str:
    return SQUARE_NAMES[row][col]


@dataclass(frozen=True)
class Board:
    """A board as rows of letters (`EMPTY` where no tile lies; a joker's letter in lower case)."""

    rows: tuple[str, ...]
    size: int = field(init=False, repr=False, compare=False)
    _empty: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", len(self.rows))
        object.__setattr__(self, "_empty", not "".join(self.rows).strip(EMPTY))

    @classmethod
    def empty(cls, size: int = 15) -> Board:
        return cls(tuple(EMPTY * size for _ in range(size)))

    @classmethod
    def parse(
        cls, lines: Iterable[str], size: int = 15, source: str = "board", unit: str = "line"
    ) -> Board:
        """Read board lines (trailing blank lines and surrounding spaces ignored).

        Diacritics are folded (a board typed with Ș is the board with S); anything else that
        is not `.` or a letter is refused with the line and column named (`unit` names what
        a line is: a file's "line", or a JSON board's "row").
        """
        rows = [line.strip() for line in lines]
        while rows and not rows[-1]:
            rows.pop()
        if len(rows) != size:
            raise BoardError(f"{source}: expected {size} {unit}s, found {len(rows)}")
        checked = []
        for number, raw in enumerate(rows, start=1):
            line = fold(raw)
            if len(line) != size:
                raise BoardError(
                    f"{source}, {unit} {number}: expected {size} characters, found {len(line)}"
                )
            for column, ch in enumerate(line, start=1):
                if ch != EMPTY and not ("A" <= ch <= "Z" or "a" <= ch <= "z"):
                    raise BoardError(
                        f"{source}, {unit} {number}, column {column}: unknown character {ch!r} "
                        "(expected '.', a letter A-Z, or a lowercase letter for a joker)"
                    )
            checked.append(line)
        return cls(tuple(checked))

    def check_tiles(self, ruleset: Ruleset, source: str = "board") -> None:
        """Refuse a board no game could reach: a real tile for a letter that has none (K, Q,
        W, Y are jokers only), or more tiles of a letter, or jokers, than the game has."""
        for row, line in enumerate(self.rows):
            for col, cell in enumerate(line):
                if cell.isupper() and cell not in ruleset.tile_counts:
                    raise BoardError(
                        f"{source}: {square_name(row, col)} holds a real {cell}, which has no tile;"
                        f" write a joker standing for it in lower case ({cell.lower()})"
                    )
        for tile, n, total in Bag.full(ruleset).shortage(self.tile_counts()):
            raise BoardError(f"{source}: {n} {tile_name(tile)} on the board, the game has {total}")

    def cell(self, row: int, col: int) -> str:
        """The raw cell: '.', an upper-case tile or a lower-case joker."""
        return self.rows[row][col]

    def letter(self, row: int, col: int) -> str | None:
        ch = self.rows[row][col]
        return None if ch == EMPTY else ch.upper()

    def is_empty(self) -> bool:
        return self._empty

    def occupied(self, row: int, col: int) -> bool:
        n = self.size
        return 0 <= row < n and 0 <= col < n and self.rows[row][col] != EMPTY

    def centre_square(self) -> tuple[int, int]:
        return (self.size // 2, self.size // 2)

    def tile_counts(self) -> dict[str, int]:
        """Tiles on the board by letter, jokers counted under `?` (cached: boards are frozen)."""
        counts = self.__dict__.get("_tile_counts")
        if counts is None:
            cells = "".join(self.rows)
            counts = {}
            for cell in dict.fromkeys(cells):
                if cell != EMPTY:
                    key = "?" if cell.islower() else cell
                    counts[key] = counts.get(key, 0) + cells.count(cell)
            self.__dict__["_tile_counts"] = counts
        return counts

    def with_tiles(self, tiles: Iterable[tuple[int, int, str]]) -> Board:
        """A new board with cells set ((row, col, cell) with cell a letter, lowercase = joker).

        When this board's tiles were counted, the new board's count is this one's plus the
        tiles laid on empty squares, rather than a count of every square again.
        """
        rows = list(self.rows)
        counts = self.__dict__.get("_tile_counts")
        counts = dict(counts) if counts is not None else None
        for row, col, cell in tiles:
            line = rows[row]
            if counts is not None:
                if line[col] == EMPTY and cell != EMPTY:
                    key = "?" if cell.islower() else cell
                    counts[key] = counts.get(key, 0) + 1
                else:
                    counts = None
            rows[row] = line[:col] + cell + line[col + 1 :]
        board = Board(tuple(rows))
        if counts is not None:
            board.__dict__["_tile_counts"] = counts
        return board
