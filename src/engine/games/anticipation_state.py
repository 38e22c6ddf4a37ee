"""Anticipation's own part of a game's state: each player's sheet, and a round's replacement.

Plain values with no rules in them, so that the shared state (`state`) can hold them without
knowing the anticipation rules, which read and build them (`anticipation_rules`) and import
the state in turn: the import goes one way, from the rules to the state to these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine.board import Board
from engine.placement import Tile
from engine.tiles import JOKER

INITIAL_STOCK = JOKER * 2
"""Every player's stock before round 1: the two jokers (rule 1)."""


@dataclass(frozen=True)
class Sheet:
    """A player's own side of the game after the rounds closed so far: their board, their
    stock, the letters eliminated (in order), and the tiles their last counted move laid."""

    board: Board
    stock: str = INITIAL_STOCK
    eliminated: str = ""
    last_move: tuple[Tile, ...] = ()


EMPTY_SHEET = Sheet(Board.empty())


@dataclass(frozen=True)
class Replacing:
    """A player's replacement for a round, as written on the slip and as the rules read it.

    `code` is None when it was applied, else why it counts as none (rule 10); `group` and
    `stock` are what the player has after it (the group as drawn and the stock as it was when
    it counts as none); `joker_for` names the letter a joker taken from the stock stands for.
    """

    event_id: str
    seq: int | None
    text: str
    received_at: datetime | None
    source: str | None
    code: str | None
    message: str
    group: str
    stock: str
    joker_for: str | None = None

    @property
    def applied(self) -> bool:
        return self.code is None
