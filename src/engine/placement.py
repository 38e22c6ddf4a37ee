"""Where a move's tiles go: which squares are new, and whether the placement is legal.

The word is written whole, so its letters already on the board must match what is there;
the rest are the tiles laid now. Geometry rules (on the board, whole word, first move on the
centre, later moves touching the board, at least one new tile) and the rack are checked here;
the words formed are `scoring`'s business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from engine.board import Board, square_name
from engine.notation import Move
from engine.rack import Rack
from engine.tiles import JOKER


class Tile(NamedTuple):
    """A tile laid by the move: its square, the letter it shows, and whether it is a joker."""

    row: int
    col: int
    letter: str
    joker: bool

    @property
    def cell(self) -> str:
        return self.letter.lower() if self.joker else self.letter


@dataclass(frozen=True)
class Placement:
    move: Move
    tiles: tuple[Tile, ...]
    errors: tuple[str, ...]

    @property
    def legal(self) -> bool:
        return not self.errors


def _rack_errors(tiles: tuple[Tile, ...], rack: Rack, move: Move) -> list[str]:
    available = rack.counts()
    if move.chosen is not None:
        available[JOKER if move.chosen.joker else move.chosen.letter] += 1
    needed: dict[str, int] = {}
    for t in tiles:
        key = JOKER if t.joker else t.letter
        needed[key] = needed.get(key, 0) + 1
    errors = []
    for tile, n in sorted(needed.items()):
        if n > available[tile]:
            what = "jokers" if tile == JOKER else f"{tile}"
            errors.append(
                f"the move lays {n} {what} but the rack {rack.letters or '(empty)'} "
                f"holds {available[tile]}"
            )
    return errors


def place(board: Board, move: Move, rack: Rack | None = None) -> Placement:
    """Lay the move on the board (without changing it) and list every rule it breaks."""
    errors: list[str] = []
    squares = move.squares()
    off = [i for i, (r, c) in enumerate(squares) if not board.in_bounds(r, c)]
    if off:
        if off[0] == 0:
            errors.append(f"{move.coordinate} is not a square of the board")
        else:
            last_on_board = square_name(*squares[off[0] - 1])
            errors.append(f"{move.word} runs off the board after {last_on_board}")
        return Placement(move, (), tuple(errors))

    jokers = set(move.jokers)
    tiles: list[Tile] = []
    touches = False
    for i, (r, c) in enumerate(squares):
        letter = move.word[i]
        on_board = board.letter(r, c)
        if on_board is not None:
            touches = True
            if on_board != letter:
                errors.append(
                    f"square {square_name(r, c)} holds {on_board}, the move writes {letter} there"
                )
            continue
        tiles.append(Tile(r, c, letter, i in jokers))
        if not touches:
            touches = any(
                board.occupied(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            )

    dr, dc = (0, 1) if move.across else (1, 0)
    before = (move.row - dr, move.col - dc)
    last = squares[-1]
    after = (last[0] + dr, last[1] + dc)
    for (r, c), side in ((before, "before"), (after, "after")):
        if board.occupied(r, c):
            errors.append(
                f"the word continues {side} it on {square_name(r, c)} ({board.letter(r, c)}): "
                "write the whole word, including letters already on the board"
            )

    if not tiles:
        errors.append("the move lays no new tile")
    if board.is_empty():
        centre = board.centre_square()
        if centre not in squares:
            errors.append(f"the first move must cover the centre {square_name(*centre)}")
    elif not touches:
        errors.append("the move touches no tile already on the board")

    placed = tuple(tiles)
    if rack is not None:
        errors.extend(_rack_errors(placed, rack, move))
    return Placement(move, placed, tuple(errors))
