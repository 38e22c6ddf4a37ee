"""The ledger's games at a glance (`arbitru game list`, the server's home page): each game's
variant, title, tournament, last round drawn and status, read from the four kinds of event
that set them, without folding any game.

A game's `round` is its last round drawn; its status is `ended`, `open` (that round is
open), `closed` (it is closed) or `created` (no round drawn yet).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ledger import EventStore

_LISTED = ("GameCreated", "RackDrawn", "RoundClosed", "GameEnded")


def games_listed(store: EventStore, *, players: bool = False) -> list[dict[str, Any]]:
    """Every game of the ledger, by game id: `game_id`, `stream`, `variant`, `title`,
    `tournament_id`, `round` and `status`; with `players`, also the ids of the players
    joined (`players`), for a page that shows an account the games it plays."""
    import sqlalchemy as sa

    from ledger.database import read_transaction
    from ledger.schema import events as e

    with read_transaction(store.engine) as connection:
        rows = connection.execute(
            sa.select(e.c.stream, e.c.type, e.c.payload)
            .where(
                e.c.stream.like("game/%"),
                e.c.type.in_((*_LISTED, "PlayerJoined") if players else _LISTED),
            )
            .order_by(e.c.seq)
        ).all()
    games: dict[str, dict[str, Any]] = {}
    for stream, type_name, payload in rows:
        payload = json.loads(payload) if isinstance(payload, str | bytes) else payload
        payload = payload if isinstance(payload, dict) else {}
        game = games.setdefault(
            stream,
            {"game_id": stream.split("/", 1)[1], "stream": stream, "variant": None,
             "title": None, "tournament_id": None, "round": 0, "status": "created"},
        )  # fmt: skip
        if players:
            game.setdefault("players", [])
        number = payload.get("round")
        if type_name == "GameCreated":
            game.update({k: payload.get(k) for k in ("variant", "title", "tournament_id")})
        elif type_name == "RackDrawn" and isinstance(number, int) and number > game["round"]:
            game.update({"round": number, "status": "open"})
        elif type_name == "RoundClosed" and number == game["round"]:
            game["status"] = "closed"
        elif type_name == "GameEnded":
            game["status"] = "ended"
        elif type_name == "PlayerJoined" and isinstance(payload.get("player_id"), str):
            game["players"].append(payload["player_id"])
    return sorted(games.values(), key=lambda g: g["game_id"])
