"""The home page (`/`): the ledger's games, each with the pages it has, and for a signed-in
account the games it plays and arbitrates first in line (`Play`, `Console`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from pipelines.server.callers import joined_as, server_of
from pipelines.server.pages.rendering import (
    STATUS_NAMES,
    VARIANT_NAMES,
    language,
    render,
    signed_in_account,
    translated,
)

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> HTMLResponse:
    from pipelines.games.listing import games_listed

    server = server_of(request)
    account = signed_in_account(request)
    games = games_listed(server.store, players=True)
    roster = server.roster() if account is not None else None
    for game in games:
        game["plays"] = account is not None and joined_as(game["players"], account) is not None
        game["arbitrates"] = roster is not None and bool(
            roster.game_roles(account, game["game_id"], game["tournament_id"])
            or roster.is_admin(account)
        )
    games.sort(key=lambda g: (not (g["plays"] or g["arbitrates"]), g["game_id"]))
    lang = language(request)
    return render(
        request,
        "home.html",
        games=games,
        variant_names={k: translated(lang, v) for k, v in VARIANT_NAMES.items()},
        status_names={k: translated(lang, v) for k, v in STATUS_NAMES.items()},
    )
