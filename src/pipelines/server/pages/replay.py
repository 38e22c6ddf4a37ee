"""A game's replay page (`GET /games/{game}/replay`), the same page `arbitru game replay GAME
--html` writes.

The public sees the game up to its last closed round (an open round's slips are never shown
to the public); the game's arbiters (and admins, auditors: whoever sees every slip) see it
whole. A page is a pure function of the game's events, so each process keeps the last few it
made, named by the game's version and who they were made for.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from pipelines.server.callers import access, server_of
from pipelines.server.game_paths import GameId, held_game, unusable
from pipelines.server.pages.rendering import language

router = APIRouter()

PAGES_KEPT = 32
"""How many replay pages a process keeps made (each a few hundred kilobytes)."""

_pages: OrderedDict[tuple[str, int, bool, str], str] = OrderedDict()
_lock = threading.Lock()


@router.get("/games/{game}/replay", response_class=HTMLResponse)
def replay_page(
    request: Request,
    game: GameId,
    lang: Annotated[str | None, Query(pattern="^(ro|en)$")] = None,
) -> HTMLResponse:
    """The game's replay page: to its last closed round for the public, whole for the game's
    arbiters."""
    from pipelines.pictures.replay_html import messages
    from pipelines.pictures.replay_html import replay_page as page_of
    from pipelines.pictures.replay_steps import replay

    lang = lang or language(request)
    held = held_game(request, game)
    caller = access(request, "read_results", game=held)
    context = held.state.context
    if context is None:
        raise unusable(held)
    public = not caller.sees_every_slip
    key = (held.stream, held.version, public, lang)
    with _lock:
        page = _pages.get(key)
    if page is None:
        head = server_of(request).store.head()  # the ledger it was made from, read once a page
        made = replay(
            held, context.ruleset, (head.seq, head.hash), public=public,
            legend=messages(lang)["legend"],
        )  # fmt: skip
        page = page_of(made, lang)
        with _lock:
            _pages[key] = page
            while len(_pages) > PAGES_KEPT:
                _pages.popitem(last=False)
    headers = {"Cache-Control": "private, no-cache"} if not public else {}
    return HTMLResponse(page, headers=headers)
