"""What the games' routes take from a request's path and query, and the game a path names:
the one this process keeps folded (`pipelines.games.kept`), caught up from the ledger first, so
that what another process or `arbitru game` wrote meanwhile is seen."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query, Request

from pipelines.games.service import Game, stream_of
from pipelines.server.bodies import ID_PATTERN
from pipelines.server.callers import server_of
from pipelines.server.problems import Problem

GameId = Annotated[str, Path(pattern=ID_PATTERN, max_length=64, description="A game id.")]
Round = Annotated[int, Path(ge=1, le=10_000, description="The round's number.")]
DryRun = Annotated[bool, Query(description="Show what it would append and change; write nothing.")]


def held_game(request: Request, game: str, *, fresh: bool = True) -> Game:
    """The game now (404 `not_found` when the ledger holds no such game); with `fresh`
    False, as this process last read or wrote it, if it keeps it (not asking the ledger what
    came after: for what only grows, see `games_api._slip`)."""
    server = server_of(request)
    if not fresh and (kept := server.games.last(stream_of(game))) is not None:
        return kept
    return server.games.current(server.store, stream_of(game))


def unusable(held: Game) -> Problem:
    """The refusal of a page that reads a game whose first event is no usable GameCreated."""
    return Problem(409, f"{held.stream} cannot be read: no usable GameCreated", "unusable")
