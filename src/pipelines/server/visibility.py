"""What of a game a caller sees before a round closes: nobody but the game's arbiters (and
admins, auditors) sees the others' slips of an open round, or anything that would give them
away; a player sees their own. Everything of a closed round is public.

A player's own view of an open round is the round's results narrowed to what is theirs:
their row, without what depends on the others' slips (whether their move is a solo, hence the
total, and the round's top, which is the best move submitted so far) and the decisions about
them. Nor does it hold their slips' judgement (valid or not, the points, the problems, the
row's score and reason): a player who could read that a word of theirs "is not in the
dictionary" and send another slip before the deadline would be playing with the word list
open. They see each slip as recorded (text, time, seq, superseded or late) and where its tiles
go and what they would score (as the player's page previews it, which never consults the word
list); the judgement is published with the round's close.

The public's standings are those the last closed round left (an open round's provisional
scores would tell who found the top).
"""

from __future__ import annotations

from typing import Any

from pipelines.server.access import Access
from pipelines.server.problems import Problem

OTHERS = ("solo", "total")
"""A player's row's values that the others' slips decide (known when the round closes)."""

JUDGED_ROW = ("score", "code", "message")
JUDGED_SLIP = ("valid", "points", "score", "problems", "warnings", "notes")
"""What of a player's row and of each of their slips says whether the word list took it:
withheld (null) until the round closes."""

RECORDED = frozenset({"superseded", "late", "annulled", "corrected", "revoked"})
"""A slip's statuses that say what was recorded of it, not how it was judged: shown; any
other (`counted`, or the judgement's reason) is withheld as the points are."""


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
        {
            **row,
            **dict.fromkeys(OTHERS + JUDGED_ROW),
            "submissions": [
                {
                    **slip,
                    **dict.fromkeys(JUDGED_SLIP),
                    "status": slip["status"] if slip["status"] in RECORDED else None,
                }
                for slip in row["submissions"]
            ],
        }
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
