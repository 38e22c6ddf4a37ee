"""The real server for the server's tests: `arbitru serve` started as a process on a loopback
port, over a ledger of the test module's own (SQLite, and PostgreSQL where a module asks for
both), talked to over HTTP with httpx. Accounts are made through the accounts' service on the
same ledger, as the operator's `arbitru accounts` makes them."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import pytest

from ledger import EventStore
from pipelines.accounts.credentials import issue_token
from pipelines.accounts.service import create_account, grant_role
from tests.ledger.conftest import PG_ADMIN_URL, require_postgres

API = "/api/v1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def arbitru_command() -> list[str]:
    """The installed `arbitru` script beside this interpreter (what a user runs)."""
    beside = Path(sys.executable).parent / "arbitru"
    return [str(beside)] if beside.exists() else [shutil.which("arbitru") or "arbitru"]


@dataclass
class Server:
    """A running `arbitru serve` and the ledger it serves."""

    db: str
    port: int
    process: subprocess.Popen
    log: Path
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    def client(self, account: str | None = None, **headers: str) -> httpx.Client:
        """A client signed in as `account` (by its API token), or the public's."""
        sent = dict(headers)
        if account is not None:
            sent["Authorization"] = f"Bearer {self.tokens[account]}"
        return httpx.Client(base_url=self.base, headers=sent, timeout=30)

    def account(
        self,
        account: str,
        name: str | None = None,
        role: str | None = None,
        *,
        game: str | None = None,
        tournament: str | None = None,
    ) -> str:
        """An account (made once) with a token, and `role` granted; its token."""
        with EventStore(self.db) as store:
            if account not in self.tokens:
                create_account(store, account, name or account.title(), actor="operator")
                self.tokens[account] = issue_token(store, account)
            if role is not None:
                grant_role(
                    store, account, role, game_id=game, tournament_id=tournament, actor="operator"
                )
        return self.tokens[account]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(db: str, log: Path, *extra: str, env: dict[str, str] | None = None) -> Server:
    """`arbitru serve --db DB --port P`, waited for until it answers (a minute at most)."""
    port = free_port()
    with log.open("ab") as out:
        process = subprocess.Popen(
            [*arbitru_command(), "serve", "--db", db, "--port", str(port), *extra],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
    server = Server(db, port, process, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"arbitru serve ended with {process.returncode}: {log.read_text()}")
        try:
            if httpx.get(f"{server.base}/openapi.json", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.1)
    server.stop()
    pytest.fail(f"arbitru serve did not answer within a minute: {log.read_text()}")


def fresh_pg_database() -> tuple[str, str]:
    """A new PostgreSQL database: its SQLAlchemy URL and its name (to drop)."""
    require_postgres()
    name = f"arbitru_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    return f"{base}/{name}", name


def drop_pg_database(name: str) -> None:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module", params=["sqlite"])
def server(request, tmp_path_factory, _arbitru_home) -> Iterator[Server]:
    """The server on a new ledger of this module's (SQLite; a module that also wants
    PostgreSQL overrides `params` with `pytest.mark.parametrize("server", [...],
    indirect=True)`)."""
    folder = tmp_path_factory.mktemp("server")
    dropped = None
    if request.param == "postgres":
        db, dropped = fresh_pg_database()
    else:
        db = f"sqlite:///{folder / 'ledger.db'}"
    with EventStore(db):
        pass
    running = start_server(db, folder / "server.log")
    try:
        yield running
    finally:
        running.stop()
        if dropped is not None:
            drop_pg_database(dropped)
