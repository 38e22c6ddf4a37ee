"""Where a move's tiles go: which squares are new, and whether the placement is legal.

The word is written whole, so its letters already on the board must match what is there;
the rest are the tiles laid now. Geometry rules (on the board, whole word, first move on the
centre, later moves touching the board, at least one new tile), the tile set (no real K, no
more tiles than a rack holds or a move may lay, or the bag has) and the rack are checked
here; the words formed are `scoring`'s business.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.bag import Bag
from engine.board import EMPTY, Board, square_name
from engine.echo import echo
from engine.notation import Move
from engine.problems import Problem
from engine.rack import Rack
from engine.ruleset import Ruleset
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


class Placement(NamedTuple):
    move: Move
    tiles: tuple[Tile, ...]
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> tuple[str, ...]:
        return tuple(p.message for p in self.problems)


def _count(tiles: tuple[Tile, ...]) -> dict[str, int]:
    """How many of each tile the move lays (`?` for jokers)."""
    needed: dict[str, int] = {}
    for t in tiles:
        key = JOKER if t.joker else t.letter
        needed[key] = needed.get(key, 0) + 1
    return needed


def _name(tile: str, n: int) -> str:
    if tile == JOKER:
        return "joker" if n == 1 else "jokers"
    return tile


def _tile_set_errors(
    board: Board, move: Move, tiles: tuple[Tile, ...], needed: dict[str, int], ruleset: Ruleset
) -> list[Problem]:
    """Rules that hold with or without a rack: real tiles only, a rack's worth, the bag's."""
    counts = ruleset.tile_counts
    errors = [
        Problem(
            "no_tile_for_letter",
            f"{letter} has no tile: only a joker can stand for it, written ({letter})",
        )
        for letter in sorted(t for t in needed if t not in counts and t != JOKER)
    ]
    if len(tiles) > ruleset.rack_size:
        errors.append(
            Problem(
                "too_many_tiles",
                f"the move lays {len(tiles)} tiles, a rack holds at most {ruleset.rack_size}",
            )
        )
    elif len(tiles) > ruleset.max_laid:
        errors.append(
            Problem(
                "more_than_a_move_lays",
                f"the move lays {len(tiles)} tiles, a move lays at most {ruleset.max_laid} of"
                f" the rack's {ruleset.rack_size}",
            )
        )
    on_board = board.tile_counts()
    full = Bag.full(ruleset).counts
    if [tile for tile, n in needed.items() if n + on_board.get(tile, 0) > full.get(tile, 0)]:
        laid_and_lying = {
            tile: n + on_board.get(tile, 0)
            for tile, n in needed.items()
            if tile == JOKER or tile in counts
        }
        errors.extend(
            Problem(
                "more_than_the_game_has",
                f"the move lays {needed[tile]} {_name(tile, needed[tile])} but the game has"
                f" {total} and {on_board.get(tile, 0)} already lie on the board",
            )
            for tile, _, total in Bag.full(ruleset).shortage(laid_and_lying)
        )
    chosen = move.chosen
    if chosen is not None:
        if not chosen.joker and chosen.letter not in ruleset.tile_counts:
            errors.append(
                Problem(
                    "completiv_letter_no_tile",
                    f"the completiv letter {chosen.letter} has no tile: take the joker, "
                    f"written +({chosen.letter})",
                )
            )
        if chosen.at is not None:
            r, c = move.squares()[chosen.at]
            if board.occupied(r, c):
                errors.append(
                    Problem(
                        "completiv_letter_on_board",
                        f"the completiv letter [{chosen.letter}] is on {square_name(r, c)},"
                        " already on the board: mark a tile laid now",
                    )
                )
    return errors


def _rack_errors(needed: dict[str, int], rack: Rack, move: Move) -> list[Problem]:
    letters = rack.letters
    chosen = move.chosen
    extra = (JOKER if chosen.joker else chosen.letter) if chosen is not None else None
    short = []
    for tile, n in needed.items():
        held = letters.count(tile) + (tile == extra)
        if n > held:
            short.append((tile, n, held))
    return [
        Problem(
            "tile_not_on_rack",
            f"the move lays {n} {_name(tile, n)} but the rack {rack.letters or '(empty)'}"
            f" holds {held}",
        )
        for tile, n, held in sorted(short)
    ]


def place(board: Board, move: Move, ruleset: Ruleset, rack: Rack | None = None) -> Placement:
    """Lay the move on the board (without changing it) and list every rule it breaks."""
    errors: list[Problem] = []
    n = board.size
    squares = move.squares()
    row, col = squares[0]
    if not (0 <= row < n and 0 <= col < n):
        message = f"{move.coordinate} is not a square of the board"
        return Placement(move, (), (Problem("off_board", message),))
    end_row, end_col = squares[-1]
    if end_row >= n or end_col >= n:
        last_on_board = square_name(min(end_row, n - 1), min(end_col, n - 1))
        message = f"{echo(move.word, quote=False)} runs off the board after {last_on_board}"
        return Placement(move, (), (Problem("off_board", message),))

    rows = board.rows
    jokers = move.jokers
    tiles: list[Tile] = []
    touches = False
    for i, (r, c) in enumerate(squares):
        letter = move.word[i]
        cell = rows[r][c]
        if cell != EMPTY:
            touches = True
            if cell.upper() != letter:
                held = cell.upper()
                errors.append(
                    Problem(
                        "square_mismatch",
                        f"square {square_name(r, c)} holds {held}, the move writes {letter} there",
                    )
                )
            continue
        tiles.append(tuple.__new__(Tile, (r, c, letter, i in jokers)))
        if not touches:
            touches = (
                (r > 0 and rows[r - 1][c] != EMPTY)
                or (r < n - 1 and rows[r + 1][c] != EMPTY)
                or (c > 0 and rows[r][c - 1] != EMPTY)
                or (c < n - 1 and rows[r][c + 1] != EMPTY)
            )

    dr, dc = (0, 1) if move.across else (1, 0)
    for (r, c), side in (((row - dr, col - dc), "before"), ((end_row + dr, end_col + dc), "after")):
        if board.occupied(r, c):
            errors.append(
                Problem(
                    "word_incomplete",
                    f"the word continues {side} it on {square_name(r, c)} ({board.letter(r, c)}):"
                    " write the whole word, including letters already on the board",
                )
            )

    if not tiles:
        errors.append(Problem("no_new_tile", "the move lays no new tile"))
    if board.is_empty():
        centre = board.centre_square()
        if centre not in squares:
            message = f"the first move must cover the centre {square_name(*centre)}"
            errors.append(Problem("not_on_centre", message))
    elif not touches:
        errors.append(Problem("not_touching", "the move touches no tile already on the board"))

    placed = tuple(tiles)
    needed = _count(placed)
    errors.extend(_tile_set_errors(board, move, placed, needed, ruleset))
    if rack is not None:
        errors.extend(_rack_errors(needed, rack, move))
    return Placement(move, placed, tuple(errors))
