"""The room's display (`GET /games/{game}/display`): what a projector in the hall shows, full
screen, to everyone in it: the board, the rack, the round, the time left, how many slips have
arrived; once the round closes its top, who found it, the solos, the round's scores and the
standings.

It is the public's page whoever opens it: an arbiter's laptop plugged into the projector
shows the room nothing more than the public may see (an open round's slips and provisional
scores never; the standings as the last closed round left them). The page is made whole on
the server, then `static/display.js` follows the game's live stream and reads again, from the
public API, what each notice says has changed; the board comes from this module's
`/games/{game}/display/board` (an SVG picture of the public's board), so that the script
only swaps a picture and fills texts.

Anticipation has no shared board (every player plays their own): its display shows the round,
the group drawn, the time left, the slips, each round's scores and the standings.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from pipelines.games.shapes import results_json, standings_json
from pipelines.pictures.reasons import reason_texts
from pipelines.server.callers import access
from pipelines.server.game_paths import GameId, held_game, unusable
from pipelines.server.games_read_api import game_json, public_state
from pipelines.server.pages.rendering import language, render
from pipelines.server.problems import Problem

router = APIRouter()


@router.get("/games/{game}/display", response_class=HTMLResponse)
def display_page(request: Request, game: GameId) -> HTMLResponse:
    """The display as it stands now; its script keeps it so."""
    held = held_game(request, game)
    access(request, "read_game", game=held)
    state = held.state
    if state.context is None:
        raise unusable(held)
    shown = game_json(held)
    closed = [r.number for r in state.rounds if r.closed]
    results = None
    if closed:
        results = round_table(results_json(held.game_id, state, closed[-1]))
    standings = standings_json(held.game_id, public_state(request, held))
    anticipation = shown["variant"] == "anticipation"
    script = {
        "game": held.game_id,
        "seq": held.stored[-1].seq,
        "version": held.version,
        "anticipation": anticipation,
        "results_round": closed[-1] if closed else None,
        "lang": language(request),
        "reasons": {} if language(request) == "en" else reason_texts(language(request)),
    }
    return render(
        request,
        "display.html",
        game=shown,
        results=results,
        standings=standings["standings"],
        anticipation=anticipation,
        script=script,
    )


def round_table(document: dict[str, Any]) -> dict[str, Any]:
    """A closed round's results (`results_json`) as the display shows them: the top, who
    found it, the solos, and the players by their score in the round, best first."""
    top = document["top"]
    names = {p["player_id"]: p["name"] or p["player_id"] for p in document["players"]}
    found = top["reached_by"] if top else []
    rows = sorted(document["players"], key=lambda p: (-p["total"], names[p["player_id"]]))
    return {
        "round": document["round"],
        "top": top,
        "found_by": [names.get(p, p) for p in found],
        "solos": [names[p["player_id"]] for p in document["players"] if p["solo"]],
        "rows": [
            {
                "name": names[p["player_id"]],
                "total": p["total"],
                "mark": "solo" if p["solo"] else ("top" if p["player_id"] in found else None),
                "code": p["code"],
                "message": p["message"],
            }
            for p in rows
        ],
    }


@router.get("/games/{game}/display/board")
def display_board(request: Request, game: GameId) -> Response:
    """The board as the public sees it now, an SVG picture: the board the open round is
    played on (its slips are not on it), or the last closed round's top on the board,
    highlighted. Anticipation has no shared board: 404."""
    from engine.games.projections import position
    from pipelines.pictures.board_svg import board_svg
    from pipelines.pictures.replay_html import messages

    held = held_game(request, game)
    access(request, "read_game", game=held)
    state = held.state
    if state.context is None or state.created is None:
        raise unusable(held)
    if state.created.variant == "anticipation":
        raise Problem(404, "anticipation has no shared board: each player has their own")
    spot = position(state, None)
    picture = board_svg(
        spot.board,
        state.context.ruleset,
        [(t.row, t.col) for t in spot.last_move],
        words=messages(language(request))["legend"],
    )
    return Response(picture, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})
