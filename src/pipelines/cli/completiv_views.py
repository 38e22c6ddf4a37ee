"""What `arbitru game` shows of a duplicat-completiv game beyond the common views: a player's
rack with their chosen letter, the stock and their score at the moment, with what was read
into their submission (rule a or b, the unmarked letter, a letter not laid), in words (its JSON
is `pipelines.games.variant_shapes`)."""

from __future__ import annotations

from rich.console import Console

from engine.games.completiv import player_view
from engine.games.state import GameState
from pipelines.games.limits import escaped as escape
from pipelines.games.variant_shapes import completiv_game


def show_player(out: Console, state: GameState, player_id: str) -> None:
    """A player's drawn tiles, chosen letter, rack, stock and score, explained."""
    if not completiv_game(state):
        return
    view = player_view(state, player_id)
    out.print(
        f"{escape(player_id)}: drawn [bold]{view.drawn or '-'}[/]   chosen"
        f" [bold]{escape(view.chosen or '-')}[/]   rack [bold]{view.rack or '-'}[/]   stock:"
        f" {len(view.stock)} tile(s)   total: [bold]{view.score}[/]"
    )
    for line in view.explanation:
        out.print(escape(line), soft_wrap=True)
