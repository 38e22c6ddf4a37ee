"""A SQLite ledger file that a command created and the system then refused to write (a full
disk, a read-only file system) is removed again, with its `-wal` and `-shm`: a failed
`game create` or `ledger import` leaves no empty or half-made database that looks like a
ledger. Only a file this command found absent and that holds no `events` table is removed,
so no recorded event is ever lost."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
import typer

from pipelines.cli.exits import ExitCode

_COMPANIONS = ("-wal", "-shm", "-journal")


def _new_sqlite_file(db: str) -> Path | None:
    """The file of a plain `sqlite:///PATH` URL when it does not exist yet, else None."""
    try:
        url = sa.make_url(db)
    except (sa.exc.ArgumentError, ValueError):
        return None
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or not database or database.startswith("file:"):
        return None
    if database == ":memory:" or url.query.get("mode") == "memory":
        return None
    path = Path(database).expanduser()
    try:
        return None if path.exists() or path.is_symlink() else path
    except OSError:
        return None


def _holds_no_ledger(path: Path) -> bool:
    """Whether `path` is empty or a SQLite file without an `events` table; False when it
    cannot be told (then it is left as it is)."""
    wal = Path(f"{path}-wal")
    try:
        if path.stat().st_size == 0:
            return True
        # With nothing in the WAL, the file alone says it all: read it as immutable, which
        # needs no lock and no -shm (on a full disk neither may be had).
        unlogged = not wal.exists() or wal.stat().st_size == 0
        mode = "immutable=1" if unlogged else "mode=ro"
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True)
        ) as con:
            found = con.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'"
            ).fetchone()
    except (OSError, sqlite3.Error):
        return False
    return found is None


@contextmanager
def removed_if_unwritten(db: str) -> Iterator[None]:
    """Run a command that may create the SQLite ledger `db`: when it ends with output not
    written (exit 3) and the file it created holds no ledger, the file is removed."""
    path = _new_sqlite_file(db)
    try:
        yield
    except typer.Exit as exc:
        if path is not None and exc.exit_code == ExitCode.UNWRITTEN and _holds_no_ledger(path):
            for leftover in (path, *(Path(f"{path}{end}") for end in _COMPANIONS)):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()
        raise
