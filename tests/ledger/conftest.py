"""Shared fixtures of the ledger tests: the backends the store contract runs against.

`sqlite` is a WAL file in the test's tmp_path; `postgres` is a fresh database on the server
at 127.0.0.1:5432, user postgres (or `ARBITRU_TEST_PG_URL`), created per test and dropped
after it, under a unique name so that parallel runs do not collide. When no PostgreSQL server
answers the PostgreSQL cases skip with a message, except under CI (`CI` set), where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ledger import EventStore

PG_ADMIN_URL = os.environ.get("ARBITRU_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite", "postgres"]

_pg_problem: list[str] = []


def _pg_unavailable() -> str | None:
    """Why PostgreSQL cannot be used, or None; asked once per session."""
    if not _pg_problem:
        try:
            with psycopg.connect(PG_ADMIN_URL, connect_timeout=3) as connection:
                connection.execute("SELECT 1")
            _pg_problem.append("")
        except psycopg.Error as exc:
            _pg_problem.append(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}".strip())
    return _pg_problem[0] or None


def require_postgres() -> None:
    """Skip (locally) or fail (under CI) when PostgreSQL is unreachable."""
    problem = _pg_unavailable()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"{problem} (required in CI)")
        pytest.skip(problem)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database, dropped after the test."""
    require_postgres()
    name = f"arbitru_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file that does not exist yet."""
    return f"sqlite:///{tmp_path / 'ledger.db'}"


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest) -> str:
    """The URL of an empty ledger database on each backend."""
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return request.getfixturevalue("sqlite_url")


@pytest.fixture
def store(db_url: str) -> Iterator[EventStore]:
    """An open, migrated, empty ledger on each backend."""
    with EventStore(db_url) as opened:
        yield opened
