"""Opening a ledger database: engines from URLs, the SQLite settings the ledger relies on,
serialised write transactions, and migrations applied before first use.

Writers are serialised so that `seq` order is commit order: a reader following the log by
`seq` then never skips an event that commits later with a lower `seq`. On SQLite every write
transaction starts with `BEGIN IMMEDIATE` (the database's single write lock, taken up front,
waited for under a busy timeout); on PostgreSQL it starts by taking a transaction-level
advisory lock. Reads start a plain deferred transaction, for a consistent snapshot.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from ledger.errors import DatabaseError

DEFAULT_URL = "sqlite:///arbitru.db"
"""The embedded default: a SQLite file in the current directory (DESIGN.md)."""

APPEND_LOCK_KEY = 0x4172626974727531
"""PostgreSQL advisory lock taken by every write transaction (the bytes of "Arbitru1")."""

MIGRATE_LOCK_KEY = 0x4172626974727532
"""PostgreSQL advisory lock taken while migrating, so that concurrent first uses upgrade once."""

SQLITE_BUSY_TIMEOUT_S = 60.0
"""How long a SQLite writer waits for the write lock before giving up."""

_WRITE = "arbitru_write"


def normalise_url(url: str) -> sa.URL:
    """Parse a database URL; plain `postgresql://` URLs use the psycopg 3 driver."""
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise DatabaseError(
            f"{url!r} is not a database URL; use e.g. sqlite:///arbitru.db or "
            "postgresql+psycopg://user@host:5432/dbname"
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise DatabaseError(
            f"unsupported database {parsed.get_backend_name()!r} in {url!r}; "
            "Arbitru's ledger runs on SQLite (sqlite:///FILE) or PostgreSQL "
            "(postgresql+psycopg://...)"
        )
    return parsed


def create_db_engine(url: str) -> Engine:
    """An engine for a ledger URL, configured for serialised writes on either backend."""
    parsed = normalise_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed)
    try:
        return sa.create_engine(parsed, connect_args={"connect_timeout": 10}, pool_pre_ping=True)
    except ImportError as exc:
        raise DatabaseError(f"the PostgreSQL driver is missing ({exc}); install psycopg") from None


def is_postgres(engine: Engine) -> bool:
    """True when the engine talks to PostgreSQL."""
    return engine.dialect.name == "postgresql"


def _sqlite_engine(url: sa.URL) -> Engine:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        folder = Path(database).expanduser().resolve().parent
        if not folder.is_dir():
            raise DatabaseError(
                f"cannot create the SQLite ledger {database!r}: folder {folder} does not exist"
            )
    engine = sa.create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get(_WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


@contextmanager
def write_transaction(engine: Engine, lock_key: int = APPEND_LOCK_KEY) -> Iterator[Connection]:
    """A transaction holding the ledger's write lock from its first statement to its end;
    committed when the block ends normally, rolled back otherwise."""
    with engine.connect() as connection:
        connection = connection.execution_options(**{_WRITE: True})
        with connection.begin():
            if is_postgres(engine):
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(lock_key)))
            yield connection


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction: one consistent snapshot of the ledger."""
    with engine.connect() as connection, connection.begin():
        yield connection


def migrations_config(connection: Connection | None = None) -> Any:
    """The Alembic configuration of the ledger, built in code: the scripts ship inside the
    package (`ledger.migrations`), so no alembic.ini or working directory is needed."""
    from alembic.config import Config

    scripts = importlib.resources.files("ledger.migrations")
    config = Config()
    config.set_main_option("script_location", str(scripts))
    config.set_main_option("path_separator", "os")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """The newest migration the installed code knows."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(migrations_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    """The migration the database is at (`None` for an empty database)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> tuple[str | None, str | None]:
    """Bring the database to the newest schema, under the write lock so that processes opening
    a fresh ledger at the same moment migrate it once. Returns (before, after) revisions."""
    from alembic import command

    head = head_revision()
    try:
        with write_transaction(engine, MIGRATE_LOCK_KEY) as connection:
            before = current_revision(connection)
            if before != head:
                command.upgrade(migrations_config(connection), "head")
            return before, head
    except sa.exc.OperationalError as exc:
        raise unreachable(engine, exc) from None
    except sa.exc.DatabaseError as exc:
        raise DatabaseError(
            f"{engine.url.render_as_string(hide_password=True)} is not usable as an "
            f"Arbitru ledger: {_first_line(exc)}"
        ) from None


def ensure_schema(engine: Engine) -> None:
    """Migrate before first use; a cheap check when the database is already current."""
    try:
        with read_transaction(engine) as connection:
            current = current_revision(connection)
    except sa.exc.OperationalError as exc:
        raise unreachable(engine, exc) from None
    except sa.exc.DatabaseError as exc:
        raise DatabaseError(
            f"{engine.url.render_as_string(hide_password=True)} is not an Arbitru ledger "
            f"database: {_first_line(exc)}"
        ) from None
    head = head_revision()
    if current == head:
        return
    known = _known_revisions()
    if current is not None and current not in known:
        raise DatabaseError(
            f"the database is at schema revision {current}, which this version of Arbitru "
            "does not know; upgrade Arbitru"
        )
    upgrade(engine)


def unreachable(engine: Engine, exc: Exception) -> DatabaseError:
    """The error for a database that cannot be reached or opened, saying what to check."""
    return DatabaseError(
        f"cannot open the database {engine.url.render_as_string(hide_password=True)}: "
        f"{_first_line(exc)}; check the URL (--db or ARBITRU_DB) and that the server is running"
    )


def _known_revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(migrations_config())
    return {rev.revision for rev in scripts.walk_revisions()}


def _first_line(exc: Exception) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
