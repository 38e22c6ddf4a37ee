"""What `arbitru game` shows of an anticipation game beyond the common views: each player's
replacement as read, and a player's own sheet (board, group, stock, eliminated letters, score,
every round explained), in words (its JSON is `pipelines.games.variant_shapes`)."""

from __future__ import annotations

from rich.console import Console

from engine.games.anticipation_rules import show_tiles
from engine.games.anticipation_state import Replacing
from engine.games.anticipation_views import player_sheet
from engine.games.state import GameState
from pipelines.games.limits import escaped as escape
from pipelines.games.variant_shapes import anticipation_game


def replacing_text(replacing: Replacing) -> str:
    """`-B+Bo applied: ...` or `-A+B counts as none: ...`."""
    verdict = "applied" if replacing.applied else "counts as none"
    return f"replacement {replacing.text!r} {verdict}: {replacing.message}"


def own_boards_note(state: GameState) -> str | None:
    """What a round's results show instead of the common board and top in anticipation."""
    if not anticipation_game(state):
        return None
    return (
        "every player plays their own board (no top): `arbitru game replay GAME --player P`"
        " shows a player's board"
    )


def show_sheet(out: Console, state: GameState, player_id: str | None) -> None:
    """A player's stock, eliminated letters and score, and each round explained (in an
    anticipation game; without a player, how to see one's own board)."""
    if not anticipation_game(state):
        return
    if player_id is None:
        out.print("every player plays their own board: give --player P to see theirs")
        return
    sheet = player_sheet(state, player_id)
    eliminated = sheet.eliminated.replace("?", "(joker)") or "-"
    out.print(
        f"{escape(player_id)}: stock [bold]{show_tiles(sheet.stock) or '-'}[/]   eliminated: "
        f"{eliminated}   total: [bold]{sheet.total}[/]"
    )
    for line in sheet.rounds:
        status = "" if line.closed else " (open)"
        out.print(f"[bold]round {line.number}[/]{status}: " + escape("; ".join(line.explanations)),
                  soft_wrap=True)  # fmt: skip
