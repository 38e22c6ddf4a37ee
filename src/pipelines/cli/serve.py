"""`arbitru serve`: the tournament server (`pipelines.server`) on uvicorn.

On the embedded SQLite ledger it runs one process (SQLite has one writer at a time, and one
process keeps every game folded once); on PostgreSQL, `--workers N` processes serve the same
ledger, each catching up from it, their live streams woken across processes by PostgreSQL's
own notifications. TLS is a reverse proxy's job (README: "A tournament on the network").
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from ledger.default_url import DEFAULT_URL
from pipelines.cli.inputs import DbOption, fail


def serve_command(
    db: DbOption = DEFAULT_URL,
    host: Annotated[
        str, typer.Option("--host", help="The address to listen on (default: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="The port.")] = 8000,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            help="Server processes (PostgreSQL only: the SQLite ledger is served by one).",
        ),
    ] = 1,
    log_level: Annotated[
        str, typer.Option("--log-level", help="critical, error, warning, info or debug.")
    ] = "info",
) -> None:
    """Serve the tournament server's API (and live streams) over HTTP."""
    if log_level not in ("critical", "error", "warning", "info", "debug"):
        fail(f"--log-level {log_level!r}: give critical, error, warning, info or debug")
    if workers > 1 and not db.startswith("postgresql"):
        fail(
            "--workers above 1 needs a PostgreSQL ledger (--db postgresql+psycopg://...): the "
            "SQLite ledger is served by one process"
        )
    _open_or_fail(db)
    import uvicorn

    os.environ["ARBITRU_DB"] = db
    uvicorn.run(
        "pipelines.server.app:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        proxy_headers=True,
        timeout_graceful_shutdown=5,
    )


def _open_or_fail(db: str) -> None:
    """Open (creating or migrating) the ledger once before any worker starts, so that a wrong
    URL is said here, once, and workers never race to migrate it."""
    from pipelines.cli.game_common import store

    with store(db, create=True):
        pass
