"""The JSON shapes only two variants have, beside the common ones (`pipelines.games.shapes`):
an anticipation player's replacement as read and their own sheet (board, group, stock,
eliminated letters, score, every round explained), and a duplicat-completiv player's rack with
their chosen letter. Keys are added, never renamed; the terminal's words for the same facts
are the command line's (`pipelines.cli.anticipation_views`, `pipelines.cli.completiv_views`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.games.payloads import format_time
from engine.games.state import GameState

if TYPE_CHECKING:
    from engine.games.anticipation_state import Replacing

# Each variant's own modules are imported by the function that shapes that variant's facts,
# as the game that has them was folded by them: the other variants' views never load them.


def replacing_json(replacing: Replacing | None) -> dict[str, Any] | None:
    if replacing is None:
        return None
    from engine.games.anticipation_rules import show_tiles

    return {
        "event_id": replacing.event_id,
        "seq": replacing.seq,
        "text": replacing.text,
        "received_at": format_time(replacing.received_at) if replacing.received_at else None,
        "source": replacing.source,
        "applied": replacing.applied,
        "code": replacing.code,
        "message": replacing.message,
        "group": show_tiles(replacing.group, replacing.joker_for),
        "stock": replacing.stock,
        "joker_for": replacing.joker_for,
    }


def anticipation_game(state: GameState) -> bool:
    """Whether every player plays their own board (an anticipation game)."""
    return state.created is not None and state.created.variant == "anticipation"


def sheet_json(state: GameState, player_id: str) -> dict[str, Any]:
    """A player's own side of an anticipation game at the moment folded."""
    from engine.games.anticipation_views import player_sheet

    sheet = player_sheet(state, player_id)
    return {
        "player_id": sheet.player_id,
        "round": sheet.round,
        "board": list(sheet.board.rows),
        "group": sheet.group,
        "stock": sheet.stock,
        "eliminated": sheet.eliminated,
        "total": sheet.total,
        "rounds": [
            {
                "round": line.number,
                "drawn": line.drawn,
                "replacement": line.replacement,
                "replacement_code": line.replacement_code,
                "group": line.group,
                "stock": line.stock,
                "score": line.score,
                "penalty": line.penalty,
                "eliminated": line.eliminated,
                "closed": line.closed,
                "explanations": list(line.explanations),
            }
            for line in sheet.rounds
        ],
    }


def completiv_game(state: GameState) -> bool:
    """Whether each player completes their rack with a chosen letter (duplicat-completiv)."""
    return state.created is not None and state.created.variant == "completiv"


def player_json(state: GameState, player_id: str) -> dict[str, Any] | None:
    """`game replay --player P --json`: the player's `completiv` object (None otherwise)."""
    if not completiv_game(state):
        return None
    from engine.games.completiv import player_view

    view = player_view(state, player_id)
    return {
        "round": view.round,
        "drawn": view.drawn,
        "chosen": view.chosen,
        "rack": view.rack,
        "stock": {"count": len(view.stock), "tiles": view.stock.tiles()},
        "score": view.score,
        "explanation": list(view.explanation),
    }
