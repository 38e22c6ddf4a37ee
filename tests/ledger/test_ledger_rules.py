"""Rules found missing in review, one test per rule: on real SQLite and PostgreSQL where the
backend matters, and through the real `arbitru` command (Typer's CliRunner, or the console
script where a real pipe is needed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from ledger_helpers import game_created, ledger_at, rack
from typer.testing import CliRunner

import ledger
from ledger import EnvelopeError, EventStore, NewEvent, verify_store
from ledger.canonical import GENESIS_HASH, canonical_json, envelope_hash
from ledger.database import (
    HEAD_REVISION,
    create_db_engine,
    migrations_config,
    upgrade,
    write_transaction,
)
from pipelines.cli.arbitru import app

runner = CliRunner()

OPENING = {"game_id": "g1", "variant": "duplicate"}
"""A GameCreated payload `arbitru ledger import` accepts (it refuses payloads that do not
decode); these tests are about envelopes."""


def _invoke(*args: str):
    return runner.invoke(app, list(args))


def _export(db: str, path: Path, *extra: str, altered: bool = False) -> Path:
    """`ledger export` to `path`; of an `altered` ledger it still writes the file, after one
    line saying the export is not vouched for, and exits 1."""
    result = _invoke("ledger", "export", "--db", db, "--out", str(path), *extra)
    assert result.exit_code == (1 if altered else 0), result.output
    assert ("is not vouched for" in result.stderr) == altered, result.stderr
    return path


def _verify_file(path: Path, *extra: str) -> tuple[int, dict]:
    result = _invoke("ledger", "verify", "--file", str(path), "--json", *extra)
    return result.exit_code, json.loads(result.stdout)


# 1. --partial relaxes seq gaps only: every stream's versions still run 1, 2, 3…


def test_partial_verify_still_requires_every_stream_version_in_turn(
    sqlite_url: str, tmp_path: Path
) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created()])
        store.append("game/g2", [game_created("g2")])
        store.append("game/g1", [rack(1), rack(2)])
    out = _export(sqlite_url, tmp_path / "g1.jsonl", "--stream", "game/g1")
    assert _verify_file(out, "--partial")[0] == 0
    lines = out.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3
    out.write_bytes(lines[0] + lines[2])  # version 2 (seq 3) deleted
    code, report = _verify_file(out, "--partial")
    assert code == 1
    assert (report["first_broken_seq"], report["line"]) == (4, 2)
    assert "version 3 should be 2" in report["error"]


# 2. Read-only commands open a ledger without creating or migrating one.


@pytest.mark.parametrize(
    "command", [["ledger", "verify"], ["ledger", "head"], ["ledger", "export"]]
)
def test_read_only_commands_on_a_missing_ledger_exit_2_and_create_nothing(
    tmp_path: Path, command: list[str]
) -> None:
    path = tmp_path / "mistyped.db"
    result = _invoke(*command, "--db", f"sqlite:///{path}")
    assert result.exit_code == 2
    assert f"no Arbitru ledger at sqlite:///{path}" in result.stderr
    assert "arbitru db upgrade" in result.stderr and "arbitru ledger import" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command", [["ledger", "verify"], ["ledger", "head"], ["ledger", "export"]]
)
def test_read_only_commands_on_a_database_without_a_ledger_exit_2_and_create_nothing(
    db_url: str, command: list[str]
) -> None:
    engine = create_db_engine(db_url)
    try:
        with engine.begin() as connection:  # an existing database, but not a ledger
            connection.exec_driver_sql("CREATE TABLE other (x INTEGER)")
        result = _invoke(*command, "--db", db_url)
        assert result.exit_code == 2
        assert "no Arbitru ledger at" in result.stderr
        assert "events" not in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_read_only_commands_do_not_migrate_an_older_ledger(sqlite_url: str) -> None:
    engine = create_db_engine(sqlite_url)
    try:
        with write_transaction(engine) as connection:
            command.upgrade(migrations_config(connection), "0001")
        assert _invoke("ledger", "head", "--db", sqlite_url).exit_code == 0
        assert _invoke("ledger", "verify", "--db", sqlite_url).exit_code == 0
        with engine.connect() as connection:
            revision = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert revision.scalar() == "0001"
    finally:
        engine.dispose()


# 3. SQLite refuses INSERT OR REPLACE and any insert that does not continue the chain.

_COLUMNS = (
    "seq, event_id, stream, version, type, schema, payload, meta, recorded_at, prev_hash, hash"
)


def _insert(store: EventStore, row: dict, verb: str = "INSERT") -> None:
    names = [c.strip() for c in _COLUMNS.split(",")]
    values = ", ".join(f":{n}" for n in names)
    with store.engine.begin() as connection:
        connection.execute(sa.text(f"{verb} INTO events ({_COLUMNS}) VALUES ({values})"), row)


def test_sqlite_refuses_insert_or_replace_of_a_stored_event(sqlite_url: str) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created(), rack(1)])
        first = store.read_all()[0].to_dict()
        for change in (
            {"payload": '{"game_id":"g1","variant":"completiv"}'},  # same seq
            {"seq": 3, "payload": "{}"},  # same event_id
            {"seq": 3, "event_id": "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d"},  # same version
        ):
            row = {**first, "meta": "{}", "payload": "{}", **change}
            with pytest.raises(sa.exc.IntegrityError, match="append-only"):
                _insert(store, row, "INSERT OR REPLACE")
        assert verify_store(store).ok
        assert [e.seq for e in store.read_all()] == [1, 2]


def test_sqlite_refuses_an_insert_that_does_not_continue_the_chain(sqlite_url: str) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created()])
        head = store.head()
        fresh = {
            "event_id": "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d", "stream": "game/g1",
            "version": 2, "type": "RackDrawn", "schema": 1, "payload": "{}", "meta": "{}",
            "recorded_at": "2026-11-30T08:07:35.123456Z", "hash": "a" * 64,
        }  # fmt: skip
        for bad in ({"seq": 3, "prev_hash": head.hash}, {"seq": 2, "prev_hash": "b" * 64}):
            with pytest.raises(sa.exc.IntegrityError, match="continue the chain"):
                _insert(store, {**fresh, **bad})
        _insert(store, {**fresh, "seq": 2, "prev_hash": head.hash})  # the next link is fine
        assert store.head().seq == 2


def test_postgres_refuses_insert_on_conflict_update(pg_url: str) -> None:
    with EventStore(pg_url) as store:
        store.append("game/g1", [game_created()])
        row = {**store.read_all()[0].to_dict(), "payload": "{}", "meta": "{}"}
        with pytest.raises(sa.exc.IntegrityError, match=r"events_pkey|continue the chain"):
            _insert(store, row, "INSERT")  # a plain clash: the primary key, or 0003's guard
        names = [c.strip() for c in _COLUMNS.split(",")]
        values = ", ".join(f":{n}" for n in names)
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), store.engine.begin() as c:
            c.execute(
                sa.text(
                    f"INSERT INTO events ({_COLUMNS}) VALUES ({values}) "
                    "ON CONFLICT (seq) DO UPDATE SET payload = EXCLUDED.payload"
                ),
                row,
            )
        assert verify_store(store).ok


def test_upgrading_a_0001_ledger_to_0002_keeps_its_events_and_adds_the_guard(
    db_url: str,
) -> None:
    engine = create_db_engine(db_url)
    try:
        before = ledger_at(db_url, engine, "0001", game_created(), rack(1))
        assert upgrade(engine) == ("0001", HEAD_REVISION)
        with EventStore(db_url) as store:
            assert store.head() == before
            assert verify_store(store).ok
            store.append("game/g1", [rack(2)])
            assert verify_store(store).ok
            if engine.dialect.name == "sqlite":
                row = {**store.read_all()[0].to_dict(), "payload": "{}", "meta": "{}"}
                with pytest.raises(sa.exc.IntegrityError, match="append-only"):
                    _insert(store, row, "INSERT OR REPLACE")
    finally:
        engine.dispose()


# 4. version and schema are 32-bit: refused on the line that carries a larger one.


def test_version_and_schema_above_2_to_the_31_minus_1_are_refused_naming_the_line(
    db_url: str, tmp_path: Path
) -> None:
    drawn = {"round": 1, "drawn": "AEIR"}
    lines = [
        {"stream": "game/g1", "type": "GameCreated", "payload": OPENING},
        {"stream": "game/g1", "type": "RackDrawn", "payload": drawn, "version": 2**40},
        {"stream": "game/g1", "type": "RackDrawn", "payload": drawn, "schema": 2**63},
        {"stream": "game/g1", "type": "RackDrawn", "payload": drawn, "schema": 2**31 - 1},
    ]
    source = tmp_path / "big.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = _invoke("ledger", "import", str(source), "--db", db_url, "--json")
    assert result.exit_code == 1, result.output
    errors = {e["line"]: " ".join(e["problems"]) for e in json.loads(result.stdout)["errors"]}
    assert sorted(errors) == [2, 3, 4]
    assert "version must be at most 2147483647" in errors[2]
    assert "schema must be at most 2147483647" in errors[3]
    # the envelope takes 2**31 - 1; the payload check refuses a schema it cannot read
    assert errors[4].startswith("schema: schema 2147483647 is newer"), errors[4]
    with EventStore(db_url) as store:
        store.append("game/g1", [game_created()])
        with pytest.raises(EnvelopeError, match="at most"):
            store.append("game/g1", [NewEvent("RackDrawn", {}, schema=2**31)])
        store.append("game/g1", [NewEvent("RackDrawn", {}, schema=2**31 - 1)])
        assert verify_store(store).ok


# 5. A malformed URL is a message, not a traceback.


def test_a_malformed_url_is_an_error_naming_the_url() -> None:
    url = "postgresql://postgres@127.0.0.1:notaport/x"
    for command_ in (["ledger", "head"], ["ledger", "import", "-"], ["db", "upgrade"]):
        result = _invoke(*command_, "--db", url)
        assert result.exit_code == 2, result.output
        assert "is not a database URL" in result.stderr and "notaport" in result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit)


# 6. db upgrade refuses a revision it does not know, as every other command does.


def test_db_upgrade_refuses_a_database_from_a_newer_arbitru(db_url: str) -> None:
    assert _invoke("db", "upgrade", "--db", db_url).exit_code == 0
    engine = create_db_engine(db_url)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = '0099'")
    finally:
        engine.dispose()
    for command_ in (["db", "upgrade"], ["ledger", "head"], ["ledger", "import", "-"]):
        result = runner.invoke(app, [*command_, "--db", db_url], input="")
        assert result.exit_code == 2, result.output
        assert "0099" in result.stderr and "upgrade Arbitru" in result.stderr
        assert "Traceback" not in result.output


# 7. A blank line in an export is a break, named by its line number.


def _four_event_export(db: str, tmp_path: Path) -> Path:
    with EventStore(db) as store:
        store.append("game/g1", [game_created(), rack(1), rack(2), rack(3)])
    return _export(db, tmp_path / "export.jsonl")


@pytest.mark.parametrize("blank", [b"\n", b"   \n", b"\r\n"])
def test_verify_file_names_a_blank_line_as_the_break(
    sqlite_url: str, tmp_path: Path, blank: bytes
) -> None:
    out = _four_event_export(sqlite_url, tmp_path)
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2]) + blank + b"".join(lines[2:]))
    code, report = _verify_file(out)
    assert code == 1
    assert report["line"] == 3 and "blank" in report["error"]
    assert report["checked"] == 2
    out.write_bytes(b"".join(lines) + b"  \n")  # white space after the last line
    assert _verify_file(out)[1]["line"] == 5


def test_verify_file_tolerates_only_one_empty_line_at_the_very_end(
    sqlite_url: str, tmp_path: Path
) -> None:
    out = _four_event_export(sqlite_url, tmp_path)
    data = out.read_bytes()
    out.write_bytes(data + b"\n")
    assert _verify_file(out)[0] == 0
    out.write_bytes(data + b"\n\n")
    code, report = _verify_file(out)
    assert code == 1 and report["line"] == 5


# 8. Export writes the stored bytes: verify --db and verify of the export agree.


def test_export_writes_the_stored_bytes_so_an_altered_row_stays_detectable(
    sqlite_url: str, tmp_path: Path
) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created(), rack(1)])
        with store.engine.begin() as connection:
            connection.exec_driver_sql("DROP TRIGGER events_refuse_update")
            # the same JSON value, but no longer the bytes that were hashed
            connection.exec_driver_sql(
                'UPDATE events SET payload = \'{"drawn": "AEIR?", "round": 1}\' WHERE seq = 2'
            )
    database = _invoke("ledger", "verify", "--db", sqlite_url, "--json")
    assert database.exit_code == 1
    assert json.loads(database.stdout)["first_broken_seq"] == 2
    out = _export(sqlite_url, tmp_path / "export.jsonl", altered=True)
    assert b'"payload":{"drawn": "AEIR?", "round": 1}' in out.read_bytes()
    code, report = _verify_file(out)
    assert code == 1 and report["first_broken_seq"] == 2


def test_verify_of_the_database_and_of_its_export_agree(db_url: str, tmp_path: Path) -> None:
    with EventStore(db_url) as store:
        store.append("game/g1", [game_created(title="Cupa Brașov"), rack(1, meta={"n": "\u2028"})])
        with store.engine.begin() as connection:
            trigger = (
                "DROP TRIGGER events_refuse_update_delete ON events"
                if store.engine.dialect.name == "postgresql"
                else "DROP TRIGGER events_refuse_update"
            )
            connection.exec_driver_sql(trigger)
        intact = _export(db_url, tmp_path / "intact.jsonl")
        assert _verify_file(intact)[1]["last_hash"] == verify_store(store).last_hash
        with store.engine.begin() as connection:
            connection.exec_driver_sql("UPDATE events SET schema = 2 WHERE seq = 2")
        assert verify_store(store).problem.seq == 2
    tampered = _export(db_url, tmp_path / "tampered.jsonl", altered=True)
    assert _verify_file(tampered)[1]["first_broken_seq"] == 2


# 9. Verifying an export checks encoding and chain, not the event catalogue.


def test_verify_file_accepts_event_types_added_after_this_version(tmp_path: Path) -> None:
    envelopes, prev_hash = [], GENESIS_HASH
    for seq, (type_, payload) in enumerate(
        [("GameCreated", {"game_id": "g1"}), ("ClockPaused", {"round": 1})], start=1
    ):
        envelope = {
            "seq": seq, "event_id": f"6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7{seq}",
            "stream": "game/g1", "version": seq, "type": type_, "schema": 1,
            "payload": payload, "meta": {}, "recorded_at": "2026-11-30T08:07:35.123456Z",
            "prev_hash": prev_hash,
        }  # fmt: skip
        prev_hash = envelope["hash"] = envelope_hash(envelope)
        envelopes.append(envelope)
    out = tmp_path / "newer.jsonl"
    out.write_bytes(b"".join(canonical_json(e).encode() + b"\n" for e in envelopes))
    code, report = _verify_file(out)
    assert code == 0, report
    assert report["last_hash"] == prev_hash
    imported = _invoke("ledger", "import", str(out), "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert imported.exit_code == 1 and "ClockPaused" in imported.stderr


# Messages and small guarantees.


def test_import_of_a_directory_says_it_is_a_directory(sqlite_url: str, tmp_path: Path) -> None:
    result = _invoke("ledger", "import", str(tmp_path), "--db", sqlite_url)
    assert result.exit_code == 2 and "is a directory" in result.stderr


def test_import_accepts_a_byte_order_mark_on_line_1(sqlite_url: str, tmp_path: Path) -> None:
    line = {"stream": "game/g1", "type": "GameCreated", "payload": OPENING}
    source = tmp_path / "bom.jsonl"
    source.write_bytes(b"\xef\xbb\xbf" + json.dumps(line).encode() + b"\n")
    result = _invoke("ledger", "import", str(source), "--db", sqlite_url, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["imported"] == 1


def test_import_version_conflict_says_what_the_line_asked_and_where_the_stream_is(
    sqlite_url: str, tmp_path: Path
) -> None:
    lines = [
        {"stream": "game/g1", "type": "GameCreated", "payload": OPENING},
        {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": 1, "drawn": "AEIR"},
         "version": 5},
    ]  # fmt: skip
    source = tmp_path / "conflict.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = _invoke("ledger", "import", str(source), "--db", sqlite_url, "--json")
    assert result.exit_code == 1
    (error,) = json.loads(result.stdout)["errors"]
    assert error["line"] == 2
    assert "asks to be version 5 of game/g1" in error["problems"][0]
    assert "at version 1" in error["problems"][0]


def test_export_to_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    beside = Path(sys.executable).with_name("arbitru")
    script = str(beside) if beside.is_file() else shutil.which("arbitru")
    assert script, "the arbitru console script is not installed"
    db = f"sqlite:///{tmp_path / 'big.db'}"
    with EventStore(db) as store:
        store.append("game/g1", [game_created(), *(rack(i, "A" * 200) for i in range(1, 2000))])
    process = subprocess.Popen(
        [script, "ledger", "export", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert len(process.stdout.read(100)) == 100  # `| head -c 100`
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 0, err
    assert b"Traceback" not in err and b"BrokenPipe" not in err and b"Exception" not in err


def test_export_of_an_invalid_stream_id_exits_2_naming_the_pattern(sqlite_url: str) -> None:
    assert _invoke("db", "upgrade", "--db", sqlite_url).exit_code == 0
    result = _invoke("ledger", "export", "--db", sqlite_url, "--stream", "GAME/G1")
    assert result.exit_code == 2
    assert "'GAME/G1' is not a stream id" in result.stderr
    assert "(tournament|game|account)/[a-z0-9][a-z0-9-]{0,63}" in result.stderr


def test_export_out_leaves_no_half_file_when_it_fails(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created(), rack(1)])
    out = tmp_path / "out" / "export.jsonl"
    out.parent.mkdir()
    out.write_bytes(b"an earlier export\n")
    real = EventStore.iter_rows

    def failing(self: EventStore, *args: object, **kwargs: object):
        rows = real(self, *args, **kwargs)
        yield next(rows)
        raise sa.exc.OperationalError("SELECT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(EventStore, "iter_rows", failing)
    result = _invoke("ledger", "export", "--db", sqlite_url, "--out", str(out))
    assert result.exit_code == 2, result.output
    assert "disk I/O error" in result.stderr
    assert list(out.parent.iterdir()) == [out]
    assert out.read_bytes() == b"an earlier export\n"


def test_only_the_store_hands_out_writers_holding_the_write_lock() -> None:
    assert not hasattr(ledger, "Writer")
    assert "Writer" not in ledger.__all__
