"""The games' reading routes: the game now, a round's slips and results, the standings, the
replay, in the command line's JSON shapes (`pipelines.games.shapes`), narrowed to what the
caller may see of an open round (`pipelines.server.visibility`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from engine.games.projections import position
from engine.games.state import GameState
from pipelines.games.service import Game, at_last_close, replay_to
from pipelines.games.shapes import position_json, results_json, standings_json, time_text
from pipelines.server.access import Access
from pipelines.server.callers import access, joined_as, server_of
from pipelines.server.game_paths import GameId, Round, held_game
from pipelines.server.live_events import slips
from pipelines.server.problems import Problem
from pipelines.server.visibility import not_yet, own_open_round
from pipelines.server.writes import etag

router = APIRouter(tags=["games"])


@router.get("/games/{game}", summary="The game now")
def read_game(request: Request, game: GameId) -> JSONResponse:
    """Variant, status, the round open now (rack, deadline, how many slips arrived), players,
    and the version, also sent as the ETag (for `If-Match`)."""
    now_ = held_game(request, game)
    access(request, "read_game", game=now_)
    return JSONResponse(game_json(now_), headers=etag(now_.version))


def game_json(now_: Game) -> dict[str, Any]:
    """The game now as anyone may read it, as `GET /games/{game}` answers it (the console and
    the display show it first): of an open round, its rack, its board and how many slips
    arrived, nothing more."""
    state = now_.state
    created = state.created
    current = state.current
    return {
        "game_id": now_.game_id,
        "stream": now_.stream,
        "variant": created.variant if created else None,
        "title": created.title if created else None,
        "tournament_id": created.tournament_id if created else None,
        "draw": created.draw if created else None,
        "status": "ended" if state.ended else ("over" if state.over else "playing"),
        "version": now_.version,
        "players": [{"player_id": p.player_id, "name": p.name} for p in state.players.values()],
        "round": None
        if current is None
        else {
            "round": current.number,
            "rack": current.rack,
            "deadline": time_text(current.deadline),
            "closed": current.closed,
            "last": current.last,
            "slips": slips(current),
            "board": list(current.board.rows),
        },
        "rounds_closed": sum(1 for r in state.rounds if r.closed),
        "ledger_altered": now_.altered,
    }


@router.get("/games/{game}/rounds/{round}/submissions", summary="A round's slips")
def read_submissions(request: Request, game: GameId, round: Round) -> JSONResponse:
    """The round's slips as they were judged: every slip for the game's arbiters; for a
    player, their own until the round closes; for the public, a closed round's."""
    return _round(request, game, round, "read_submissions")


@router.get("/games/{game}/rounds/{round}/results", summary="A round's results")
def round_results(request: Request, game: GameId, round: Round) -> JSONResponse:
    """As `arbitru game results GAME --round N --json`, narrowed as a round's slips are."""
    return _round(request, game, round, "read_results")


def _round(request: Request, game: str, round: int, action: str) -> JSONResponse:
    """A round's results as the caller may see them (`pipelines.server.visibility`)."""
    held = held_game(request, game)
    at = access(request, action, game=held)
    rnd = held.state.round(round)
    if rnd is None:
        raise Problem(404, f"round {round} of {held.stream} has not been drawn", "not_found")
    document = whole_results(held, round)
    if not (rnd.closed or at.sees_every_slip):
        if not at.may("submit"):  # neither its player nor an arbiter: nothing to see yet
            raise not_yet(at, round)
        document = own_open_round(document, _own_id(held, at))
    return JSONResponse({**document, "ledger_altered": held.altered}, headers=etag(held.version))


def whole_results(held: Game, round: int) -> dict[str, Any]:
    """A drawn round's results with every slip, and who recorded each decision and when: what
    its arbiters see (the console shows it first)."""
    stored = {e.event_id: e for e in held.stored}
    return results_json(held.game_id, held.state, round, stored)


def _own_id(held: Game, at: Access) -> str:
    """The player id the signed-in player joined the game as."""
    account = at.account or ""
    return joined_as(held.state.players, account) or account


@router.get("/games/{game}/standings", summary="The standings")
def standings(request: Request, game: GameId) -> JSONResponse:
    """As `arbitru game standings GAME --json`: for the public, as the last closed round left
    them (an open round's scores are its arbiters' until it closes)."""
    held = held_game(request, game)
    at = access(request, "read_results", game=held)
    state = held.state if at.sees_every_slip else public_state(request, held)
    document = standings_json(held.game_id, state)
    return JSONResponse({**document, "ledger_altered": held.altered}, headers=etag(held.version))


def public_state(request: Request, held: Game) -> GameState:
    """The game as the public sees it (`pipelines.games.service.at_last_close`): when a round
    is open, as its last closed round left it, a moment the ledger never changes, so each
    process folds it once per round."""
    current = held.state.current
    if current is None or current.closed:
        return held.state
    closed = [r.number for r in held.state.rounds if r.closed]
    key = (held.stream, closed[-1] if closed else 0)
    cache = _closed_states(request)
    found = cache.get(key)
    if found is not None:
        return found
    found = at_last_close(server_of(request).store, held)
    cache[key] = found
    while len(cache) > _CLOSED_KEPT:  # the oldest first; another thread may evict too
        try:
            cache.pop(next(iter(cache)), None)
        except (RuntimeError, StopIteration):
            break
    return found


_CLOSED_KEPT = 256
"""How many games' last-closed states a process keeps (the public's standings of open rounds)."""


def _closed_states(request: Request) -> dict[tuple[str, int], GameState]:
    state = request.app.state
    if not hasattr(state, "closed_states"):
        state.closed_states = {}
    return state.closed_states


@router.get("/games/{game}/replay", summary="The game at a moment")
def replay(
    request: Request,
    game: GameId,
    at: Annotated[int | None, Query(ge=1, description="Right after this ledger seq.")] = None,
    round: Annotated[
        int | None, Query(ge=1, le=10_000, description="When this round closed.")
    ] = None,
    player: Annotated[str | None, Query(max_length=64, description="That player's board.")] = None,
) -> JSONResponse:
    """As `arbitru game replay GAME --json`: the public replays closed rounds only."""
    if at is not None and round is not None:
        raise Problem(422, "`at` and `round` exclude each other: give one", "invalid")
    held = held_game(request, game)
    caller = access(request, "read_results", game=held)
    read = replay_to(server_of(request).store, held.stream, at=at, round_number=round)
    state = read.state
    open_then = state.current
    if not caller.sees_every_slip and open_then is not None and not open_then.closed:
        closed_since = held.state.round(open_then.number)
        if closed_since is None or not closed_since.closed:
            raise not_yet(caller, open_then.number)
    if player is not None and player not in state.players:
        raise Problem(404, f"{player} is not a player of {held.stream}", "not_found")
    document = position_json(read.game_id, state, position(state, player), player)
    return JSONResponse({**document, "ledger_altered": read.altered})
