"""`POST /games/{game}/rounds/{round}/preview`: a slip as its player writes it, placed and
scored before it is sent (the player's page draws it on the board as they type). Nothing is
recorded. The answer never says whether the words are in the game's word list
(`pipelines.games.preview`): during play that would be a dictionary to consult."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from pipelines.games.preview import preview_json
from pipelines.server import bodies
from pipelines.server.callers import access, joined_as
from pipelines.server.game_paths import GameId, Round, held_game
from pipelines.server.problems import Problem

router = APIRouter(tags=["games"])


@router.post("/games/{game}/rounds/{round}/preview", summary="Preview a slip (records nothing)")
def preview(request: Request, game: GameId, round: Round, body: bodies.Preview) -> JSONResponse:
    """Where the slip's tiles go on the board it would be judged on (in anticipation, the
    player's own) and the score the rules give it, with its words, premiums and bingo bonus;
    or why it cannot be placed (`problems`: unreadable, off the board, a tile not on the
    rack, not touching...). Whether its words are in the word list is never said. For the
    game's players (their own slip) and its arbiters (naming the `player`); an open round."""
    held = held_game(request, game)
    at = access(request, "preview", game=held)
    state = held.state
    if at.own_only("preview"):
        if body.player is not None and body.player.lower() != (at.account or "").lower():
            raise Problem(403, "a player previews only their own slips", "forbidden")
        named = at.account or ""
    elif body.player is None:
        raise Problem(422, "name the player whose slip this is (`player`)", "invalid")
    else:
        named = body.player
    player = joined_as(state.players, named)
    if player is None:
        raise Problem(404, f"{named} is not a player of {held.stream}", "not_found")
    rnd = state.round(round)
    if rnd is None:
        raise Problem(404, f"round {round} of {held.stream} has not been drawn", "not_found")
    if rnd.closed or state.context is None:
        raise Problem(409, f"round {round} of {held.stream} is closed", "round_closed")
    return JSONResponse(preview_json(state, rnd, player, body.text, body.part))
