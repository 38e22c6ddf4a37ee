"""Opening a ledger database: engines from URLs, the SQLite settings the ledger relies on,
serialised write transactions, and migrations applied before first use.

Writers are serialised so that `seq` order is commit order: a reader following the log by
`seq` then never skips an event that commits later with a lower `seq`. On SQLite every write
transaction starts with `BEGIN IMMEDIATE` (the database's single write lock, taken up front,
waited for under a busy timeout), the threads of one process first queueing for a lock of
their own (`_sqlite_writer_lock`); on PostgreSQL it starts by taking a transaction-level
advisory lock. Reads start a plain deferred transaction, for a consistent snapshot.

An engine opened `read_only` (what the reading commands use) never writes. On SQLite it is a
normal connection with `query_only` set when the file and its folder may be written (so that
the last reader still tidies the `-wal` and `-shm` files away), and otherwise a SQLite
read-only connection: `immutable=1` when no `-wal` file holds committed events (nothing is
created beside the file, no lock is taken), `mode=ro` when one does (its events must be read).
An in-memory SQLite database is refused for writing: its events would vanish with the process.

The schema revision is read with one plain query and compared with `REVISIONS`, so that
opening a ledger that is already current never imports Alembic (a tenth of a second a
command); Alembic is imported only to migrate.
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from ledger.errors import DatabaseError, NoLedger

APPEND_LOCK_KEY = 0x4172626974727531
"""PostgreSQL advisory lock taken by every write transaction (the bytes of "Arbitru1")."""

MIGRATE_LOCK_KEY = 0x4172626974727532
"""PostgreSQL advisory lock taken while migrating, so that concurrent first uses upgrade once."""

REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007")
"""Every migration this code knows, oldest first (the scripts in `migrations_dir()`); the last
is the schema it writes. A test keeps this equal to Alembic's own history of the scripts."""

HEAD_REVISION = REVISIONS[-1]

SQLITE_BUSY_TIMEOUT_S = 60.0
"""How long a SQLite writer waits for the write lock before giving up."""

_WRITE = "arbitru_write"

_sqlite_writers: weakref.WeakKeyDictionary[Engine, threading.RLock] = weakref.WeakKeyDictionary()
_sqlite_writers_lock = threading.Lock()

_held = threading.local()
"""Per thread: the write transaction it holds on each engine (by `id`), which its reads use."""


def normalise_url(url: str) -> sa.URL:
    """Parse a database URL; plain `postgresql://` URLs use the psycopg 3 driver."""
    try:
        parsed = sa.make_url(url)
    except (sa.exc.ArgumentError, ValueError) as exc:
        detail = f" ({exc})" if isinstance(exc, ValueError) else ""
        raise DatabaseError(
            f"{url!r} is not a database URL{detail}; use e.g. sqlite:///arbitru.db or "
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


def create_db_engine(
    url: str, *, read_only: bool = False, pool_size: int | None = None, pre_ping: bool = True
) -> Engine:
    """An engine for a ledger URL, configured for serialised writes on either backend, or,
    `read_only`, for reading only (see the module docstring). On PostgreSQL the isolation
    level is pinned to READ COMMITTED whatever the server's default: a writer must see the
    last event committed before it obtained the lock, which a snapshot taken at the
    transaction's first statement (REPEATABLE READ) would not show.

    `pool_size` keeps that many connections (SQLAlchemy's default: 5, and 10 more opened and
    closed as needed): a server gives as many as it runs request threads, so that none waits
    for a connection while another opens and closes one. `pre_ping` tests each connection
    with a round trip as it is taken from the pool (a command, run once, loses little; a
    server, a round trip per query, and without it a connection the database dropped fails
    one request, which answers 503, and the pool is refilled)."""
    parsed = normalise_url(url)
    pool = {} if pool_size is None else {"pool_size": pool_size, "max_overflow": 0}
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed, read_only, pool)
    try:
        return sa.create_engine(
            parsed,
            connect_args={"connect_timeout": 10},
            pool_pre_ping=pre_ping,
            isolation_level="READ COMMITTED",
            **pool,
        )
    except ImportError as exc:
        raise DatabaseError(f"the PostgreSQL driver is missing ({exc}); install psycopg") from None


def is_postgres(engine: Engine) -> bool:
    """True when the engine talks to PostgreSQL."""
    return engine.dialect.name == "postgresql"


def is_in_memory(url: sa.URL) -> bool:
    """True for a SQLite database held in the process's memory: `sqlite://`,
    `sqlite:///:memory:`, `sqlite:///file::memory:` and any `mode=memory` URI."""
    if url.get_backend_name() != "sqlite":
        return False
    database = url.database or ""
    name = database.removeprefix("file:").split("?", 1)[0]
    return (
        database in ("", ":memory:")
        or url.query.get("mode") == "memory"
        or (database.startswith("file:") and name in ("", ":memory:"))
    )


def refuse_in_memory(engine: Engine) -> None:
    """Refuse to write to an in-memory SQLite database: every event would be lost when the
    process ends, after being reported as recorded."""
    if is_in_memory(engine.url):
        raise DatabaseError(
            f"{engine.url.render_as_string(hide_password=True)} is an in-memory SQLite "
            "database: what is written there vanishes when the command ends. Give a file, "
            "e.g. sqlite:///arbitru.db, or a PostgreSQL URL"
        )


def _sqlite_file(url: sa.URL) -> Path | None:
    """The file of a plain SQLite URL (`sqlite:///PATH`); None for memory and `file:` URIs."""
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or database.startswith("file:") or is_in_memory(url):
        return None
    return Path(database).expanduser()


def _sqlite_engine(url: sa.URL, read_only: bool, pool: dict[str, int]) -> Engine:
    path = _sqlite_file(url)
    if path is not None:
        folder = path.resolve().parent
        if not folder.is_dir():
            raise DatabaseError(
                f"cannot create the SQLite ledger {url.database!r}: folder {folder} does not exist"
            )
    read_url = _read_only_url(url, path) if read_only and path is not None else None
    engine = sa.create_engine(
        read_url or url,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S},
        poolclass=sa.pool.SingletonThreadPool if is_in_memory(url) else None,
        **({} if is_in_memory(url) else pool),
    )
    if read_url is not None:
        engine.url = url  # messages name the database as the user gave it

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        if read_only:
            cursor.execute("PRAGMA query_only = ON")
        else:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get(_WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _read_only_url(url: sa.URL, path: Path) -> sa.URL | None:
    """The SQLite URI that reads `path` without writing anything, or None when a normal
    connection does (see the module docstring); None too for a missing file, which the
    caller reports."""
    if not path.is_file() or (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return None
    wal = path.with_name(path.name + "-wal")
    pending = wal.is_file() and wal.stat().st_size > 0
    shm = path.with_name(path.name + "-shm")
    if pending and not shm.is_file() and not os.access(path.parent, os.W_OK):
        raise DatabaseError(
            f"the SQLite ledger {path} has committed events still in {wal.name}, which SQLite "
            f"reads only with an index file {shm.name} beside it, and none can be created in "
            f"the read-only folder {path.parent}: copy {path.name} and {wal.name} together to "
            "a folder you may write, or ask the ledger's owner to run any Arbitru command on "
            "it (the last connection to close merges the -wal file into the database)"
        )
    query = {**url.query, "uri": "true", "mode": "ro"}
    if not pending:
        query["immutable"] = "1"
    return url.set(database="file:" + quote(str(path.resolve())), query=query)


@contextmanager
def write_transaction(
    engine: Engine, lock_key: int | None = APPEND_LOCK_KEY
) -> Iterator[Connection]:
    """A transaction holding the ledger's write lock from its first statement to its end;
    committed when the block ends normally, rolled back otherwise. `lock_key` None takes no
    PostgreSQL advisory lock (a write to a plain table beside the chain, which must not wait
    for appends); on SQLite every write transaction holds the database's one write lock."""
    refuse_in_memory(engine)
    with _sqlite_writer_lock(engine), engine.connect() as connection:
        connection = connection.execution_options(**{_WRITE: True})
        with connection.begin():
            if is_postgres(engine) and lock_key is not None:
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(lock_key)))
            held = _held_by_this_thread()
            before = held.get(id(engine))
            held[id(engine)] = connection
            try:
                yield connection
            finally:
                if before is None:
                    del held[id(engine)]
                else:
                    held[id(engine)] = before


def _sqlite_writer_lock(engine: Engine) -> threading.RLock | contextlib.nullcontext[None]:
    """What a thread of this process holds, on SQLite, before it asks for the database's
    write lock: one lock per engine, taken before a connection is. SQLite's busy handler
    polls for its lock, sleeping up to 100 ms between tries, so that threads of a server
    queued for it behind each other waited a sleep each rather than for the writer before
    them, and held the pool's connections while they did; queued on a lock of the process,
    each is woken as the one before it ends, and takes a connection only then. Other
    processes (terminals writing the same file) still meet at SQLite's own lock. PostgreSQL
    queues its advisory lock's waiters itself."""
    if is_postgres(engine):
        return contextlib.nullcontext()
    with _sqlite_writers_lock:
        return _sqlite_writers.setdefault(engine, threading.RLock())


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction: one consistent snapshot of the ledger. A thread that holds a
    write transaction on the engine reads through it instead (what it reads is then what it
    writes on, under the write lock): a second connection would wait for the pool, which under
    load is held by other threads waiting for the write lock this thread holds, a deadlock."""
    held = _held_by_this_thread().get(id(engine))
    if held is not None:
        yield held
        return
    with engine.connect() as connection, connection.begin():
        yield connection


@contextmanager
def single_read(engine: Engine) -> Iterator[Connection]:
    """A connection for a read of one statement: what a server reads on every request (the
    caller's token, what the roster has not folded yet). One statement is one snapshot on its
    own, so on PostgreSQL it runs in autocommit, without the BEGIN and COMMIT a transaction
    sends each on a round trip of its own: three round trips become one. Elsewhere, and in a
    thread holding a write transaction, it is `read_transaction`."""
    if not is_postgres(engine) or id(engine) in _held_by_this_thread():
        with read_transaction(engine) as connection:
            yield connection
        return
    with engine.connect() as connection:
        yield connection.execution_options(isolation_level="AUTOCOMMIT")


def _held_by_this_thread() -> dict[int, Connection]:
    if not hasattr(_held, "connections"):
        _held.connections = {}
    return _held.connections


def migrations_dir() -> Path:
    """Where the migration scripts are: `ledger/migrations` in an installed package, or the
    repository's `alembic/` folder when running from a source checkout (editable install).

    The folder is deliberately not a Python package (no `__init__.py`): a package named
    `alembic` at the top of the repository would hide the Alembic library itself whenever
    Python runs with the repository on its path (`python -m pytest`).
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "migrations", here.parent.parent / "alembic"):
        if (candidate / "env.py").is_file():
            return candidate
    raise DatabaseError("the ledger's migration scripts are missing: reinstall arbitru")


def migrations_config(connection: Connection | None = None) -> Any:
    """The Alembic configuration of the ledger, built in code: the scripts ship inside the
    package (`ledger.migrations`), so no alembic.ini or working directory is needed."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.set_main_option("path_separator", "os")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def current_revision(connection: Connection) -> str | None:
    """The migration the database is at (`None` for an empty database), read from Alembic's
    version table as Alembic reads it."""
    if not sa.inspect(connection).has_table("alembic_version"):
        return None
    return connection.exec_driver_sql(
        "SELECT version_num FROM alembic_version"
    ).scalar_one_or_none()


def upgrade(engine: Engine) -> tuple[str | None, str | None]:
    """Bring the database to the newest schema, under the write lock so that processes opening
    a fresh ledger at the same moment migrate it once. Returns (before, after) revisions."""
    with (
        _driver_errors(engine, "is not usable as an Arbitru ledger"),
        write_transaction(engine, MIGRATE_LOCK_KEY) as connection,
    ):
        before = current_revision(connection)
        _check_known(before)
        if before != HEAD_REVISION:
            from alembic import command

            command.upgrade(migrations_config(connection), "head")
        return before, HEAD_REVISION


@contextmanager
def _driver_errors(engine: Engine, problem: str) -> Iterator[None]:
    """Turn the driver's errors into the ledger's own, naming the database: unreachable, or
    `problem` (what the database is not) with the driver's first line."""
    try:
        yield
    except sa.exc.DBAPIError as exc:
        raise driver_error(engine, exc, problem) from None


def driver_error(engine: Engine, exc: sa.exc.DBAPIError, problem: str) -> DatabaseError:
    """The ledger's own error for a driver error: a damaged SQLite file, a database that
    cannot be reached, or `problem` (what the database is not) with the driver's first line."""
    first = _first_line(exc)
    if engine.dialect.name == "sqlite" and ("malformed" in first or "not a database" in first):
        return damaged(engine, first)
    if isinstance(exc, sa.exc.OperationalError):
        return unreachable(engine, exc)
    return DatabaseError(f"{engine.url.render_as_string(hide_password=True)} {problem}: {first}")


def damaged(engine: Engine, detail: str) -> DatabaseError:
    """The error for a SQLite file that is not whole (truncated, overwritten in part, copied
    while written), saying how to get the ledger back."""
    return DatabaseError(
        f"the SQLite ledger {engine.url.render_as_string(hide_password=True)} is damaged "
        f"({detail}): the file was truncated or overwritten, or copied while it was being "
        "written. Keep it aside and restore the ledger from your latest export into a new "
        "file: `arbitru ledger import EXPORT.jsonl --db sqlite:///NEW.db "
        "--require-same-hashes`, then check it with `arbitru ledger verify --db "
        "sqlite:///NEW.db --expect-head SEQ:HASH` against the head you published"
    )


@contextmanager
def _inspecting(engine: Engine) -> Iterator[Connection]:
    """A read transaction whose driver errors become the ledger's own, naming the database."""
    with (
        _driver_errors(engine, "is not an Arbitru ledger database"),
        read_transaction(engine) as connection,
    ):
        yield connection


def ensure_schema(engine: Engine) -> None:
    """Migrate before first use; a cheap check when the database is already current."""
    with _inspecting(engine) as connection:
        current = current_revision(connection)
    if current == HEAD_REVISION:
        return
    _check_known(current)
    upgrade(engine)


def require_ledger(engine: Engine) -> None:
    """Check, without creating or migrating anything, that the database holds an Arbitru
    ledger at a schema revision this code knows; raise `NoLedger` when there is none. A
    SQLite file that does not exist is not even opened, so that no empty file is left behind
    by a mistyped path. An older revision is fine for reading: every revision reads alike."""
    path = _sqlite_file(engine.url)
    if is_in_memory(engine.url) or (path is not None and not path.is_file()):
        raise NoLedger(_no_ledger_message(engine))
    with _inspecting(engine) as connection:
        if not sa.inspect(connection).has_table("events"):
            raise NoLedger(_no_ledger_message(engine))
        current = current_revision(connection)
    _check_known(current)


def _no_ledger_message(engine: Engine) -> str:
    return (
        f"no Arbitru ledger at {engine.url.render_as_string(hide_password=True)}: create one "
        "with `arbitru db upgrade` or `arbitru ledger import`"
    )


def _check_known(current: str | None) -> None:
    """Refuse a database migrated by a newer Arbitru than this one."""
    if current is not None and current not in REVISIONS:
        raise DatabaseError(
            f"the database is at schema revision {current}, which this version of Arbitru "
            "does not know; upgrade Arbitru"
        )


def unreachable(engine: Engine, exc: Exception) -> DatabaseError:
    """The error for a database that cannot be reached or opened, saying what to check."""
    if "locked" in _first_line(exc):
        return DatabaseError(
            f"the database {engine.url.render_as_string(hide_password=True)} stayed locked by "
            f"another writer for {SQLITE_BUSY_TIMEOUT_S:.0f} s; retry, or look for a process "
            "stuck in the middle of a write"
        )
    what = (
        "that the file and its folder exist and may be read"
        if engine.dialect.name == "sqlite"
        else "that the server is running"
    )
    return DatabaseError(
        f"cannot open the database {engine.url.render_as_string(hide_password=True)}: "
        f"{_first_line(exc)}; check the URL (--db or ARBITRU_DB) and {what}"
    )


def _first_line(exc: Exception) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
