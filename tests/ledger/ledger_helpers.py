"""Small builders shared by the ledger tests (imported as a plain module: pytest puts this
folder on sys.path)."""

from __future__ import annotations

from typing import Any

from ledger import NewEvent


def game_created(game_id: str = "g1", **extra: Any) -> NewEvent:
    """The opening event of a game stream."""
    return NewEvent("GameCreated", {"game_id": game_id, "variant": "duplicate", **extra})


def rack(round_no: int, drawn: str = "AEIR?", **kwargs: Any) -> NewEvent:
    """A `RackDrawn` event."""
    return NewEvent("RackDrawn", {"round": round_no, "drawn": drawn}, **kwargs)


def tournament_created(tournament_id: str = "t1") -> NewEvent:
    """The opening event of a tournament stream."""
    return NewEvent(
        "TournamentCreated", {"tournament_id": tournament_id, "name": "Cupa", "season": "2026"}
    )
