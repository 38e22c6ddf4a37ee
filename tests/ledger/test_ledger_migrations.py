"""Migrations: applied automatically before first use, idempotent, shipped inside the package,
and the database refuses what the code would never do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory
from ledger_helpers import game_created, ledger_at

from ledger import EventStore
from ledger.database import (
    HEAD_REVISION,
    REVISIONS,
    create_db_engine,
    migrations_config,
    migrations_dir,
    upgrade,
)
from ledger.errors import DatabaseError


def test_the_migration_scripts_are_found_without_a_working_directory() -> None:
    scripts = migrations_dir()
    assert (scripts / "env.py").is_file()
    assert (scripts / "script.py.mako").is_file()
    assert HEAD_REVISION == "0007"


def test_the_revisions_the_ledger_knows_are_alembics_scripts_in_order() -> None:
    """A new migration script must be added to `REVISIONS`: the ledger checks a database's
    revision against that list without loading Alembic."""
    scripts = ScriptDirectory.from_config(migrations_config())
    assert tuple(reversed([s.revision for s in scripts.walk_revisions()])) == REVISIONS
    assert scripts.get_current_head() == HEAD_REVISION


@pytest.mark.parametrize("revision", REVISIONS[:-1])
def test_opening_an_older_ledger_for_writing_migrates_it_to_the_head(
    db_url: str, revision: str
) -> None:
    engine = create_db_engine(db_url)
    try:
        assert ledger_at(db_url, engine, revision).seq == 0  # readable as it is, and left as it is
        with EventStore(db_url) as store:
            store.append("game/g1", [game_created()])
        with engine.connect() as connection:
            rows = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert rows.scalars().all() == [HEAD_REVISION]
    finally:
        engine.dispose()


@pytest.mark.parametrize("upgrading", [True, False])
def test_a_ledger_from_a_newer_arbitru_is_refused_for_reading_and_writing(
    db_url: str, upgrading: bool
) -> None:
    with EventStore(db_url):
        pass
    engine = create_db_engine(db_url)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = '0099'")
        with pytest.raises(DatabaseError) as refused:
            EventStore(db_url, upgrade=upgrading).close()
        assert str(refused.value) == (
            "the database is at schema revision 0099, which this version of Arbitru does "
            "not know; upgrade Arbitru"
        )
    finally:
        engine.dispose()


def test_first_use_creates_the_schema_with_its_triggers(db_url: str) -> None:
    with EventStore(db_url) as store:
        inspector = sa.inspect(store.engine)
        assert "events" in inspector.get_table_names()
        columns = [c["name"] for c in inspector.get_columns("events")]
        assert columns == [
            "seq", "event_id", "stream", "version", "type", "schema",
            "payload", "meta", "recorded_at", "prev_hash", "hash",
        ]  # fmt: skip
        with store.engine.connect() as connection:
            if store.engine.dialect.name == "postgresql":
                names = connection.exec_driver_sql(
                    "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
                ).scalars()
            else:
                names = connection.exec_driver_sql(
                    "SELECT name FROM sqlite_master WHERE type = 'trigger'"
                ).scalars()
            assert len(set(names)) >= 2


def test_upgrading_twice_changes_nothing(db_url: str) -> None:
    engine = create_db_engine(db_url)
    try:
        assert upgrade(engine) == (None, HEAD_REVISION)
        assert upgrade(engine) == (HEAD_REVISION, HEAD_REVISION)
    finally:
        engine.dispose()


def test_sqlite_runs_in_wal_mode(sqlite_url: str) -> None:
    with EventStore(sqlite_url) as store, store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_the_database_refuses_a_duplicate_seq_or_stream_version(db_url: str) -> None:
    with EventStore(db_url) as store:
        store.append("game/g1", [game_created()])
        row = store.read_all()[0].to_dict()
        for change in ({"seq": 2}, {"event_id": "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d"}):
            clash = {**row, **change, "payload": "{}", "meta": "{}"}
            try:
                with store.engine.begin() as connection:
                    connection.execute(sa.text(_INSERT), clash)
            except sa.exc.IntegrityError:
                continue
            raise AssertionError(f"the database accepted a clash after {change}")


_INSERT = (
    "INSERT INTO events (seq, event_id, stream, version, type, schema, payload, meta,"
    " recorded_at, prev_hash, hash) VALUES (:seq, :event_id, :stream, :version, :type,"
    " :schema, :payload, :meta, :recorded_at, :prev_hash, :hash)"
)


def test_the_repository_alembic_folder_does_not_hide_the_library(sqlite_url: str) -> None:
    repository = Path(__file__).parents[2]
    assert (repository / "alembic" / "env.py").is_file()
    assert not (repository / "alembic" / "__init__.py").exists()
    script = (
        "import sys; from ledger import EventStore; "
        f"print(EventStore({sqlite_url!r}).head().seq); "
        "import alembic; print(alembic.__version__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=repository, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "0"
