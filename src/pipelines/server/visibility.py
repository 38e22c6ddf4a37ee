"""What of a game a caller sees before a round closes: nobody but the game's arbiters (and
admins, auditors) sees the others' slips of an open round, or anything that would give them
away; a player sees their own. Everything of a closed round is public.

A player's own view of an open round is the round's results narrowed to what is theirs:
their row, without what depends on the others' slips (whether their move is a solo, hence the
total, and the round's top, which is the best move submitted so far) and the decisions about
them. The public's standings are those the last closed round left (an open round's provisional
scores would tell who found the top).
"""

from __future__ import annotations

from typing import Any

from pipelines.server.access import Access
from pipelines.server.problems import Problem

OTHERS = ("solo", "total")
"""A player's row's values that the others' slips decide (known when the round closes)."""


def not_yet(at: Access, round: int) -> Problem:
    """The refusal of an open round's results to a caller who may not see them yet: 401 when
    signing in could help (the public), 403 otherwise."""
    detail = f"round {round} is open: its results are published when it closes"
    if at.account is None:
        return Problem(401, detail, "unauthenticated", headers={"WWW-Authenticate": "Bearer"})
    return Problem(403, detail, "forbidden")


def own_open_round(document: dict[str, Any], player: str) -> dict[str, Any]:
    """An open round's results (`results_json` of `player` only) as that player may see them."""
    rows = [
        {**row, **dict.fromkeys(OTHERS)}
        for row in document["players"]
        if row["player_id"] == player
    ]
    return {
        **document,
        "top": None,
        "tied": [],
        "players": rows,
        "decisions": [d for d in document["decisions"] if d["player_id"] == player],
        "ignored": [],
        "notes": [],
    }
