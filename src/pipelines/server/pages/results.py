"""The public's results pages, made on the server with no script (linkable, printable):

- `GET /games/{game}`: a game's rounds with their tops and who found them, the per-round table
  with the master row (`pipelines.games.table`, as `arbitru game table` prints it) and the
  standings;
- `GET /tournaments/{tournament}`: a tournament's games, its standings and the ranking points
  of its places (`pipelines.season`, as `arbitru tournament table` prints it, with the
  federation's shipped points table and no tie-break: equal totals share the place).

Both show what the public may see, whoever reads them: every game up to its last closed round
(`pipelines.games.service.at_last_close`), an open round's provisional scores left out. A
score of zero says why (the engine's reason, in the reader's language).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from pipelines.server.callers import access, server_of
from pipelines.server.game_paths import GameId, held_game, unusable
from pipelines.server.games_read_api import public_state
from pipelines.server.pages.rendering import (
    STATUS_NAMES,
    VARIANT_NAMES,
    language,
    render,
    translated,
)
from pipelines.server.problems import Problem

if TYPE_CHECKING:
    from pipelines.games.table import GameTable
    from pipelines.season.ranking import PointsTable

router = APIRouter()


@router.get("/games/{game}", response_class=HTMLResponse)
def game_page(request: Request, game: GameId) -> HTMLResponse:
    """A game's results up to its last closed round."""
    from pipelines.games.table import game_table

    held = held_game(request, game)
    access(request, "read_results", game=held)
    state = public_state(request, held)
    if state.context is None or state.created is None:
        raise unusable(held)
    table = game_table(held.game_id, state)
    current = held.state.current
    playing = current.number if current is not None and not current.closed else None
    lang = language(request)
    return render(
        request,
        "game_results.html",
        game_id=held.game_id,
        title=state.created.title,
        tournament_id=state.created.tournament_id,
        variant=translated(lang, VARIANT_NAMES.get(table.variant, table.variant)),
        table=table,
        rounds=rounds_of(table),
        grid=grid_of(table),
        reasons=reasons_of(table),
        playing=playing,
        ended=held.state.ended,
        altered=held.altered,
    )


def rounds_of(table: GameTable) -> list[dict[str, Any]]:
    """Each closed round as the page lists it: the rack, the top (move and score; none in
    anticipation) and who reached it (a solo when one player alone did)."""
    master = {c.round: c for c in table.master.cells} if table.master is not None else {}
    found: list[dict[str, Any]] = []
    for number in range(1, table.rounds + 1):
        cells = [(row, c) for row in table.players for c in row.cells if c.round == number]
        top = master.get(number)
        found.append(
            {
                "round": number,
                "rack": top.rack if top is not None else (cells[0][1].rack if cells else ""),
                "move": top.move if top is not None else None,
                "score": top.score if top is not None else None,
                "found_by": [r.name or r.player_id for r, c in cells if c.mark in ("top", "solo")],
                "solo": any(c.mark == "solo" for _, c in cells),
            }
        )
    return found


def grid_of(table: GameTable) -> list[tuple[Any, list[Any]]]:
    """The per-round table's rows (the master row first) with a cell per round (None where
    the row has none)."""
    rows = [table.master] if table.master is not None else []
    found = []
    for row in [*rows, *table.players]:
        by_round = {c.round: c for c in row.cells}
        found.append((row, [by_round.get(n) for n in range(1, table.rounds + 1)]))
    return found


def reasons_of(table: GameTable) -> list[tuple[str, int, str, str | None]]:
    """Why a player's round scores nothing, said under the table: player, round, the reason's
    code and the engine's own message (the page says it in the reader's language)."""
    return [
        (row.name or row.player_id or "", cell.round, cell.code, cell.message)
        for row in table.players
        for cell in row.cells
        if cell.code
    ]


@router.get("/tournaments/{tournament}", response_class=HTMLResponse)
def tournament_page(request: Request, tournament: GameId) -> HTMLResponse:
    """A tournament's games, standings and ranking points, its games up to their last closed
    rounds."""
    from pipelines.games.listing import games_listed
    from pipelines.season.ranking import shown
    from pipelines.season.tournaments import read_tournaments, results

    store = server_of(request).store
    known = [t for t in read_tournaments(store) if t.tournament_id == tournament]
    if not known:
        raise Problem(404, f"no tournament {tournament} in this ledger", "not_found")
    (result,) = results(store, known, published=True)
    points = _points_table()
    award = result.award(points)
    lang = language(request)
    listed = {g["game_id"]: g for g in games_listed(store)}
    games = [
        {
            "game_id": game_id,
            "title": listed[game_id]["title"] if game_id in listed else None,
            "round": listed[game_id]["round"] if game_id in listed else None,
            "status": translated(lang, STATUS_NAMES[listed[game_id]["status"]])
            if game_id in listed
            else None,
        }
        for game_id in result.tournament.games
    ]
    rows = [
        {
            "standing": s,
            "points": shown(award.points.get(s.player_id)) if s.games else "",
        }
        for s in result.standings
    ]
    return render(
        request,
        "tournament.html",
        tournament=result.tournament,
        variant=translated(lang, VARIANT_NAMES.get(result.variant or "", result.variant or "")),
        games=games,
        rows=rows,
        award=award,
        points_name=points.name,
        altered=result.altered,
    )


@cache
def _points_table() -> PointsTable:
    """The federation's published ranking points, shipped with Arbitru (read once)."""
    from pipelines.season.ranking import PointsTable

    return PointsTable.load()
