"""The server's application: one FastAPI app over one ledger, its routes under `/api/v1`.

`create_app(url)` opens the ledger (creating it on first use, as `arbitru game create` does)
when the server starts and closes it when it stops. Each process keeps the games it serves
folded (`pipelines.games.kept`) and the roster of accounts and grants caught up from the
ledger; several processes on one PostgreSQL ledger each keep their own, and each asks the
ledger what came after what it holds before answering.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import FastAPI

from ledger.default_url import DEFAULT_URL
from pipelines.games.kept import KeptGames
from pipelines.server import problems
from pipelines.server.json_bodies import JsonBodies
from pipelines.server.limits import BodyLimit

if TYPE_CHECKING:
    from ledger import EventStore
    from pipelines.accounts.roster import Roster
    from pipelines.server.live import Broker

API = "/api/v1"


@dataclass
class Server:
    """What a server process holds: the ledger, the games kept folded, the roster, the
    live streams' broker (while the app runs)."""

    store: EventStore
    games: KeptGames = field(default_factory=KeptGames)
    _roster: Roster | None = None
    _roster_lock: threading.Lock = field(default_factory=threading.Lock)
    live: Broker | None = None

    def wake(self) -> None:
        """Called after every write this process committed (from any thread): the live
        streams look again, in this process at once and, on PostgreSQL, in the others by a
        notification sent after the answer (`pipelines.server.live`). Never raises."""
        broker = self.live
        if broker is not None:
            broker.wake()

    def roster(self) -> Roster:
        """Accounts and grants as the ledger holds them now (caught up from the last seq
        folded)."""
        from pipelines.accounts.roster import load_roster

        with self._roster_lock:
            held = self._roster
        now = load_roster(self.store) if held is None else held.caught_up(self.store)
        with self._roster_lock:
            if self._roster is None or self._roster.seq < now.seq:
                self._roster = now
        return now


def create_app(url: str = DEFAULT_URL) -> FastAPI:
    """The server on the ledger at `url`."""
    from ledger import EventStore
    from pipelines.server import accounts_api, games_api, ledger_api, live, live_api

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = EventStore(url)
        app.state.server = Server(store)
        try:
            async with live.broadcasting(app.state.server):
                yield
        finally:
            store.close()

    app = FastAPI(
        title="Arbitru",
        summary="Duplicate Scrabble tournaments: players submit, arbiters decide, everyone "
        "watches, auditors verify.",
        version=_version(),
        openapi_url=f"{API}/openapi.json",
        docs_url=f"{API}/docs",
        redoc_url=None,
        lifespan=lifespan,
    )
    problems.install(app)
    app.add_middleware(JsonBodies)  # inside BodyLimit: a body reaches it at most 64 KiB
    app.add_middleware(BodyLimit)
    for router in (games_api.router, ledger_api.router, accounts_api.router, live_api.router):
        app.include_router(router, prefix=API)
    return app


def app_from_environment() -> FastAPI:
    """The app for each worker process uvicorn starts (`arbitru serve --workers N`): the
    ledger's URL comes from ARBITRU_DB, which `arbitru serve` sets."""
    return create_app(os.environ.get("ARBITRU_DB", DEFAULT_URL))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arbitru")
    except PackageNotFoundError:
        return "0"
