"""The server's application: one FastAPI app over one ledger, its routes under `/api/v1` and
its HTML pages beside them (`pipelines.server.pages`).

`create_app(url)` opens the ledger (creating it on first use, as `arbitru game create` does)
when the server starts and closes it when it stops. Each process keeps the games it serves
folded and the roster of accounts and grants caught up from the ledger
(`pipelines.server.held`); several processes on one PostgreSQL ledger each keep their own,
and each asks the ledger what came after what it holds before answering.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from anyio import to_thread
from fastapi import FastAPI

from ledger.default_url import DEFAULT_URL
from pipelines.server import problems
from pipelines.server.held import API, Server
from pipelines.server.json_bodies import JsonBodies
from pipelines.server.limits import BodyLimit

REQUEST_THREADS = 8
"""Threads answering requests (and live streams' looks), and as many connections to the
ledger kept open, and one more for the thread committing the batches of slips
(`pipelines.server.batches`), so that no thread waits for a connection to be opened: a connection
is taken without a test round trip (`pre_ping`), a dropped one failing one request (503)
before the pool is refilled. Few, not anyio's forty: one process runs Python on one core at a
time, and in a rush the thread holding the append lock competed for the interpreter with
every other thread's parsing and checking at each of its round trips to the database, which
lengthened the section every slip waits through (benchmarks/server_bench.py, PostgreSQL, 200
players: 116-133 slips/s with 40 threads, 137 with 16, 149-158 with 8 or 4). Requests beyond
them wait in the event loop, holding nothing."""

SWITCH_INTERVAL_S = 0.0005
"""How long a thread holding Python's interpreter lock runs before one waiting for it gets
it (Python's default: 5 ms)."""


def create_app(url: str = DEFAULT_URL, *, warm: bool = False) -> FastAPI:
    """The server on the ledger at `url`; `warm`: a process of `arbitru serve` of its own,
    which gets ready before it answers (`_warmed_up`)."""
    from ledger import EventStore
    from pipelines.server import accounts_api, games_api, ledger_api, live, live_api, pages

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        store = EventStore(url, pool_size=REQUEST_THREADS + 1, pre_ping=False)
        app.state.server = Server(store)
        if warm:
            await to_thread.run_sync(_warmed_up)
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
    from pipelines.server.pages.errors import problem_page

    problems.install(app, page=problem_page)
    app.add_middleware(JsonBodies)  # inside BodyLimit: a body reaches it at most 64 KiB
    app.add_middleware(BodyLimit)
    for router in (games_api.router, ledger_api.router, accounts_api.router, live_api.router):
        app.include_router(router, prefix=API)
    pages.install(app)  # HTML pages, outside the API and its OpenAPI document
    return app


def app_from_environment() -> FastAPI:
    """The app for each worker process uvicorn starts (`arbitru serve --workers N`): the
    ledger's URL comes from ARBITRU_DB, which `arbitru serve` sets."""
    return create_app(os.environ.get("ARBITRU_DB", DEFAULT_URL), warm=True)


COLLECT_EVERY = 10_000
"""New container objects between two passes of the cyclic garbage collector in a server
process (Python's default: 700)."""


def _warmed_up() -> None:
    """Get a server process ready before it answers: the default word list loaded (the first
    slip no longer waits for it), then everything the process holds from its start (modules,
    the word list's structures) put out of the cyclic garbage collector's reach. Each full
    pass of the collector walked all of it and freed none of it: 50 to 60 ms during which the
    process answered nothing, a few times a minute in a rush (as many ms on the p99 of the
    rushes they fell in). What requests make later is still collected, less often."""
    import gc

    from pipelines.games.contexts import dictionary_ref
    from pipelines.games.errors import ServiceError

    try:
        dictionary_ref(None)
    except ServiceError as exc:  # a game on another list still plays; this one says why
        problems.log.warning("the default word list could not be loaded: %s", exc)
    gc.collect()
    gc.freeze()
    gc.set_threshold(COLLECT_EVERY, *gc.get_threshold()[1:])


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arbitru")
    except PackageNotFoundError:
        return "0"
