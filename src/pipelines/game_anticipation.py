"""What `arbitru game` shows of an anticipation game beyond the common views: each player's
replacement as read, and a player's own sheet (board, group, stock, eliminated letters, score,
every round explained), in words and as JSON (keys added, never renamed)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from engine.games.anticipation_rules import show_tiles
from engine.games.anticipation_state import Replacing
from engine.games.anticipation_views import player_sheet
from engine.games.payloads import format_time
from engine.games.state import GameState
from pipelines.limits import escaped as escape


def replacing_text(replacing: Replacing) -> str:
    """`-B+Bo applied: ...` or `-A+B counts as none: ...`."""
    verdict = "applied" if replacing.applied else "counts as none"
    return f"replacement {replacing.text!r} {verdict}: {replacing.message}"


def replacing_json(replacing: Replacing | None) -> dict[str, Any] | None:
    if replacing is None:
        return None
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


def _anticipation(state: GameState) -> bool:
    return state.created is not None and state.created.variant == "anticipation"


def sheet_json(state: GameState, player_id: str) -> dict[str, Any]:
    """A player's own side of an anticipation game at the moment folded."""
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


def own_boards_note(state: GameState) -> str | None:
    """What a round's results show instead of the common board and top in anticipation."""
    if not _anticipation(state):
        return None
    return (
        "every player plays their own board (no top): `arbitru game replay GAME --player P`"
        " shows a player's board"
    )


def show_sheet(out: Console, state: GameState, player_id: str | None) -> None:
    """A player's stock, eliminated letters and score, and each round explained (in an
    anticipation game; without a player, how to see one's own board)."""
    if not _anticipation(state):
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
