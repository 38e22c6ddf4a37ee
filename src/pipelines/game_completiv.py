"""What `arbitru game` shows of a duplicat-completiv game beyond the common views: a player's
rack with their chosen letter, the stock and their score at the moment, with what was read
into their submission (rule a or b, the unmarked letter, a letter not laid), in words and as
JSON (keys added, never renamed)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from engine.games.completiv import player_view
from engine.games.state import GameState
from pipelines.limits import escaped as escape


def _completiv(state: GameState) -> bool:
    return state.created is not None and state.created.variant == "completiv"


def player_json(state: GameState, player_id: str) -> dict[str, Any] | None:
    """`game replay --player P --json`: the player's `completiv` object (None otherwise)."""
    if not _completiv(state):
        return None
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


def show_player(out: Console, state: GameState, player_id: str) -> None:
    """A player's drawn tiles, chosen letter, rack, stock and score, explained."""
    if not _completiv(state):
        return
    view = player_view(state, player_id)
    out.print(
        f"{escape(player_id)}: drawn [bold]{view.drawn or '-'}[/]   chosen"
        f" [bold]{escape(view.chosen or '-')}[/]   rack [bold]{view.rack or '-'}[/]   stock:"
        f" {len(view.stock)} tile(s)   total: [bold]{view.score}[/]"
    )
    for line in view.explanation:
        out.print(escape(line), soft_wrap=True)
