"""`arbitru serve`: the tournament server (`pipelines.server`) on uvicorn.

On the embedded SQLite ledger it runs one process (SQLite has one writer at a time, and one
process keeps every game folded once); on PostgreSQL, `--workers N` processes serve the same
ledger, each catching up from it, their live streams woken across processes by PostgreSQL's
own notifications. TLS is a reverse proxy's job (README: "A tournament on the network").

Whatever keeps it from starting (a bad option, a ledger that cannot be opened, an address that
cannot be listened on) is said in one line before any worker starts, with exit code 2, as the
other commands say unusable input. SIGTERM or Ctrl-C stops it as asked: no new connection, the
requests in flight answered (five seconds at most), the ledger closed, exit code 0. FastAPI,
pydantic and uvicorn are imported only here, when the server runs, never for a help.
"""

from __future__ import annotations

import os
import signal
import socket
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
    _listen_or_fail(host, port)
    import uvicorn

    os.environ["ARBITRU_DB"] = db
    for asked in (signal.SIGTERM, signal.SIGINT):
        signal.signal(asked, _stopped_as_asked)
    try:
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
    except SystemExit as exc:
        if exc.code:  # uvicorn's start-up failure: its own log line above says why
            fail(f"the server could not start on {host}:{port} (the lines above say why)")
        raise


def _open_or_fail(db: str) -> None:
    """Open (creating or migrating) the ledger once before any worker starts, so that a wrong
    URL is said here, once, and workers never race to migrate it."""
    from pipelines.cli.game_common import store

    with store(db, create=True):
        pass


def _listen_or_fail(host: str, port: int) -> None:
    """Bind the address once, as uvicorn will, so that a port in use or an unknown host is
    said here, in one line with exit code 2, rather than as uvicorn's start-up failure."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        fail(f"--host {host!r}: not an address of this machine ({exc})")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


def _stopped_as_asked(signum: int, frame: object) -> None:
    """What uvicorn hands a SIGTERM or SIGINT back to once it has shut down gracefully: the
    stop was asked for, so the command ends with 0 (not killed by the signal it handled)."""
