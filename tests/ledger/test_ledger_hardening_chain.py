"""Issue 7, the ledger's chain and imports: PostgreSQL's insert-time guard (defect 6), imports
in bounded memory with a payload hook (defect 9), recorded_at that may not go back and the
published head (defect 11), progress on a terminal (defect 12). Each test is named after the
defect it checks, on the real databases and through the real `arbitru` command."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from ledger_helpers import game_created, ledger_at, rack
from typer.testing import CliRunner

from ledger import EventStore, import_events, verify_store
from ledger.canonical import GENESIS_HASH, format_recorded_at
from ledger.database import (
    APPEND_LOCK_KEY,
    HEAD_REVISION,
    create_db_engine,
    upgrade,
)
from pipelines.cli.arbitru import app

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(app, list(args))


def _lines(path: Path, objects: list[dict]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


# 6. PostgreSQL refuses, like SQLite, an insert that does not continue the chain.

_COLUMNS = (
    "seq, event_id, stream, version, type, schema, payload, meta, recorded_at, prev_hash, hash"
)


def _raw_insert(store: EventStore, row: dict) -> None:
    values = ", ".join(f":{name.strip()}" for name in _COLUMNS.split(","))
    with store.engine.begin() as connection:
        connection.execute(sa.text(f"INSERT INTO events ({_COLUMNS}) VALUES ({values})"), row)


def test_every_backend_refuses_a_raw_insert_that_breaks_the_chain(db_url: str) -> None:
    with EventStore(db_url) as store:
        store.append("game/g1", [game_created()])
        head = store.head()
        fresh = {
            "event_id": "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d", "stream": "game/g1",
            "version": 2, "type": "RackDrawn", "schema": 1, "payload": "{}", "meta": "{}",
            "recorded_at": "2026-11-30T08:07:35.123456Z", "hash": "a" * 64,
        }  # fmt: skip
        for bad in (
            {"seq": 2, "prev_hash": GENESIS_HASH},  # a zero prev_hash
            {"seq": 2, "prev_hash": head.hash, "hash": "0"},  # not a hash at all
            {"seq": 2, "prev_hash": head.hash, "hash": "A" * 64},  # not lowercase
            {"seq": 727, "prev_hash": head.hash},  # far ahead
            {"seq": 1, "prev_hash": GENESIS_HASH, "version": 3},  # a second seq 1
        ):
            with pytest.raises(sa.exc.DBAPIError, match=r"continue the chain|events_pkey"):
                _raw_insert(store, {**fresh, **bad})
        assert verify_store(store).ok
        _raw_insert(store, {**fresh, "seq": 2, "prev_hash": head.hash})  # the next link is fine
        assert store.head().seq == 2


def test_upgrading_a_0002_ledger_to_0003_keeps_its_events_and_guards_the_chain(
    db_url: str,
) -> None:
    engine = create_db_engine(db_url)
    try:
        before = ledger_at(db_url, engine, "0002", game_created(), rack(1))
        assert upgrade(engine) == ("0002", HEAD_REVISION)
        with EventStore(db_url) as store:
            assert store.head() == before and verify_store(store).ok
            store.append("game/g1", [rack(2), rack(3)])
            assert verify_store(store).ok
            row = {**store.read_all()[-1].to_dict(), "payload": "{}", "meta": "{}"}
            with pytest.raises(sa.exc.DBAPIError, match="continue the chain"):
                _raw_insert(store, {**row, "seq": 9, "version": 9, "event_id": _UUID})
            if engine.dialect.name == "postgresql":  # the lock every appender takes
                with engine.connect() as connection:
                    body = connection.exec_driver_sql(
                        "SELECT prosrc FROM pg_proc WHERE proname = 'arbitru_events_continue_chain'"
                    ).scalar_one()
                assert f"pg_advisory_xact_lock({APPEND_LOCK_KEY})" in body
    finally:
        engine.dispose()


_UUID = "0b6f9a1e-7c2d-4e5f-8a9b-1c2d3e4f5a6b"


# 9. Imports run in bounded memory, in one transaction, and take a payload hook.


def _game_lines(games: int, per_game: int) -> list[dict]:
    """Games of `per_game` events each, every line with its own event_id (so that importing
    the file again skips it)."""
    lines = []
    for g in range(games):
        stream = f"game/g{g}"
        lines.append(
            {
                "stream": stream,
                "type": "GameCreated",
                "payload": {"game_id": f"g{g}", "variant": "duplicate"},
            }
        )
        lines += [
            {"stream": stream, "type": "RackDrawn", "payload": {"round": r, "drawn": "AEIR?" * 8}}
            for r in range(1, per_game)
        ]
    return [{**line, "event_id": str(uuid.UUID(int=n + 1))} for n, line in enumerate(lines)]


_PEAK_RSS = """
import os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def _import_peak_kb(path: Path, db: str) -> int:
    script = Path(sys.executable).with_name("arbitru")
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS, str(script), "ledger", "import", str(path), "--db", db],
        capture_output=True,
        text=True,
        timeout=300,
    )
    code, peak = done.stdout.split()
    assert code == "0", done.stderr
    return int(peak)


def test_import_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    small = _lines(tmp_path / "small.jsonl", _game_lines(10, 500))
    large = _lines(tmp_path / "large.jsonl", _game_lines(60, 500))
    small_kb = _import_peak_kb(small, f"sqlite:///{tmp_path / 'small.db'}")
    large_kb = _import_peak_kb(large, f"sqlite:///{tmp_path / 'large.db'}")
    # 25,000 more events: a few MB of event ids, not the events themselves
    assert large_kb - small_kb < 25_000, (small_kb, large_kb)
    again_kb = _import_peak_kb(large, f"sqlite:///{tmp_path / 'large.db'}")  # all skipped
    assert again_kb - small_kb < 25_000, (small_kb, again_kb)


def test_an_import_larger_than_a_chunk_is_still_all_or_nothing(db_url: str, tmp_path: Path) -> None:
    lines = _game_lines(3, 1500)
    late_conflict = [*lines, {**lines[1], "event_id": _UUID, "version": 7}]
    late_typo = [*lines, {"stream": "game/g0", "type": "RackDrawn"}]
    for bad, line_no in ((late_conflict, 4501), (late_typo, 4501)):
        source = _lines(tmp_path / "bad.jsonl", bad)
        result = _invoke("ledger", "import", str(source), "--db", db_url, "--json")
        assert result.exit_code == 1, result.output
        assert [e["line"] for e in json.loads(result.stdout)["errors"]] == [line_no]
        with EventStore(db_url) as store:
            assert store.head().seq == 0
    good = _invoke("ledger", "import", str(_lines(tmp_path / "ok.jsonl", lines)), "--db", db_url)
    assert good.exit_code == 0, good.output
    with EventStore(db_url) as store:
        assert store.head().seq == 4500 and verify_store(store).ok


def test_an_import_from_a_slow_pipe_does_not_hold_the_write_lock_while_it_waits(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Streaming an import reads its input inside the write transaction: a pipe is copied
    aside first, so that other writers are not kept waiting on a slow producer."""
    import sqlite3
    import time

    with EventStore(sqlite_url) as store:
        store.append("game/other", [game_created("other")])
    lines = [json.dumps(line) + "\n" for line in _game_lines(1, 20)]
    script = str(Path(sys.executable).with_name("arbitru"))
    importer = subprocess.Popen(
        [script, "ledger", "import", "-", "--db", sqlite_url, "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert importer.stdin is not None
    try:
        importer.stdin.writelines(lines[:10])
        importer.stdin.flush()
        other = sqlite3.connect(tmp_path / "ledger.db", timeout=0, isolation_level=None)
        try:
            deadline = time.monotonic() + 5  # the importer has started and is waiting by then
            while time.monotonic() < deadline and importer.poll() is None:
                other.execute("BEGIN IMMEDIATE")  # "database is locked" if the lock is held
                other.execute("ROLLBACK")
                time.sleep(0.1)
        finally:
            other.close()
        out, err = importer.communicate("".join(lines[10:]), timeout=60)
    finally:
        importer.kill()
    assert importer.returncode == 0, err
    assert json.loads(out)["imported"] == 20


def test_import_payload_check_problems_are_reported_by_line_and_nothing_is_written(
    sqlite_url: str,
) -> None:
    seen: list[tuple[str, int, dict]] = []

    def odd_rounds_only(event_type: str, schema: int, payload: dict, meta: dict) -> str | None:
        seen.append((event_type, schema, payload))
        if event_type == "RackDrawn" and payload["round"] % 2 == 0:
            return f"round {payload['round']} is even"
        return None

    lines = _game_lines(1, 4)  # GameCreated, rounds 1, 2, 3
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    with EventStore(sqlite_url) as store:
        report = import_events(store, io.BytesIO(data), payload_check=odd_rounds_only)
        assert not report.ok
        assert [(e.line, e.problems) for e in report.errors] == [(3, ["round 2 is even"])]
        assert store.head().seq == 0
        assert [s[:2] for s in seen] == [("GameCreated", 1)] + [("RackDrawn", 1)] * 3
        assert seen[1][2] == {"round": 1, "drawn": "AEIR?" * 8}
        good = import_events(store, io.BytesIO(data), payload_check=lambda *_: None)
        assert good.ok and store.head().seq == 4


# 11. recorded_at does not go back outside restores; the published head is checked.


def _stamp(delta: timedelta) -> str:
    return format_recorded_at(datetime.now(UTC) + delta)


def test_a_non_restore_import_refuses_recorded_at_going_back_or_into_the_future(
    sqlite_url: str, tmp_path: Path
) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created()])
    racks = [
        {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": r, "drawn": "AEIR?"}}
        for r in (1, 2, 3)
    ]
    cases = [
        ([{**racks[0], "recorded_at": "2019-05-01T10:00:00.000000Z"}], 1, "earlier than"),
        ([{**racks[0], "recorded_at": _stamp(timedelta(days=400))}], 1, "in the future"),
        (
            [
                {**racks[0], "recorded_at": _stamp(timedelta(seconds=1))},
                {**racks[1], "recorded_at": _stamp(timedelta(seconds=-1))},
            ],
            2,
            "earlier than",
        ),
    ]
    for lines, bad_line, words in cases:
        source = _lines(tmp_path / "in.jsonl", lines)
        result = _invoke("ledger", "import", str(source), "--db", sqlite_url, "--json")
        assert result.exit_code == 1, result.output
        (error,) = json.loads(result.stdout)["errors"]
        assert error["line"] == bad_line and words in error["problems"][0]
        assert "--require-same-hashes" in error["problems"][0]
    fine = _lines(tmp_path / "ok.jsonl", [{**racks[0], "recorded_at": _stamp(timedelta())}])
    assert _invoke("ledger", "import", str(fine), "--db", sqlite_url).exit_code == 0


def test_a_restore_keeps_recorded_at_from_any_time(sqlite_url: str, tmp_path: Path) -> None:
    lines = _game_lines(1, 3)
    lines[0]["recorded_at"] = "2031-01-01T00:00:00.000000Z"  # a clock that was wrong
    lines[1]["recorded_at"] = "2019-05-01T10:00:00.000000Z"
    lines[2]["recorded_at"] = "2019-05-01T09:00:00.000000Z"
    first = f"sqlite:///{tmp_path / 'first.db'}"
    with EventStore(first) as store:  # an archive recorded by an older, laxer Arbitru
        for line in lines:
            store.append(line["stream"], [_new(line)])
    archive = tmp_path / "archive.jsonl"
    assert _invoke("ledger", "export", "--db", first, "--out", str(archive)).exit_code == 0
    plain = _invoke("ledger", "import", str(archive), "--db", sqlite_url, "--json")
    assert plain.exit_code == 1
    restored = _invoke(
        "ledger", "import", str(archive), "--db", sqlite_url, "--require-same-hashes", "--json"
    )
    assert restored.exit_code == 0, restored.output
    assert json.loads(restored.stdout)["head"] == json.loads(
        _invoke("ledger", "head", "--db", first, "--json").stdout
    )


def _new(line: dict):
    from ledger import NewEvent

    return NewEvent(line["type"], line["payload"], recorded_at=line.get("recorded_at"))


def _published(db: str) -> tuple[list[str], Path]:
    with EventStore(db) as store:
        store.append("game/g1", [game_created(), rack(1), rack(2), rack(3)])
        hashes = [e.hash for e in store.read_all()]
    return hashes, Path(db.removeprefix("sqlite:///")).with_name("export.jsonl")


def test_verify_expect_head_catches_a_cut_tail_or_another_chain(
    sqlite_url: str, tmp_path: Path
) -> None:
    hashes, export = _published(sqlite_url)
    assert _invoke("ledger", "export", "--db", sqlite_url, "--out", str(export)).exit_code == 0
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(export.read_bytes().splitlines(keepends=True)[:2]))
    sources = {"database": ["--db", sqlite_url], "file": ["--file", str(export)]}
    for name, source in sources.items():
        for head in (f"4:{hashes[3]}", f"2:{hashes[1]}"):  # the head, or one published earlier
            result = _invoke("ledger", "verify", *source, "--expect-head", head)
            assert result.exit_code == 0, (name, result.output)
        other = _invoke("ledger", "verify", *source, "--expect-head", f"3:{'e' * 64}", "--json")
        assert other.exit_code == 1, name
        report = json.loads(other.stdout)
        assert report["first_broken_seq"] == 3 and "published" in report["error"]
        longer = _invoke("ledger", "verify", *source, "--expect-head", f"6:{'e' * 64}")
        assert longer.exit_code == 1
        assert "2 event(s) missing after seq 4" in " ".join(longer.stdout.split())
    truncated = _invoke("ledger", "verify", "--file", str(cut), "--expect-head", f"4:{hashes[3]}")
    assert truncated.exit_code == 1
    assert "2 event(s) missing after seq 2" in " ".join(truncated.stdout.split())


@pytest.mark.parametrize("head", ["4", "x:" + "a" * 64, "4:abc", "-1:" + "a" * 64, "x" * 300])
def test_verify_expect_head_that_is_not_seq_colon_hash_exits_2(sqlite_url: str, head: str) -> None:
    _published(sqlite_url)
    result = _invoke("ledger", "verify", "--db", sqlite_url, "--expect-head", head)
    assert result.exit_code == 2
    assert "SEQ:HASH" in result.stderr


# 12. Long work shows progress on a terminal, never in a pipe or with --json.


def _run_on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run the console script with stderr on a pseudo-terminal; (exit code, stdout, stderr)."""
    script = str(Path(sys.executable).with_name("arbitru"))
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "100"}
    process = subprocess.Popen(
        [script, *args], stdout=subprocess.PIPE, stderr=follower, env=env, stdin=subprocess.DEVNULL
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    out = process.stdout.read() if process.stdout else b""
    return process.wait(timeout=60), out.decode(), b"".join(chunks).decode(errors="replace")


def test_import_export_and_verify_show_progress_on_a_terminal_only(
    sqlite_url: str, tmp_path: Path
) -> None:
    source = _lines(tmp_path / "in.jsonl", _game_lines(2, 50))
    export = tmp_path / "export.jsonl"
    runs = [
        ("importing", ["ledger", "import", str(source), "--db", sqlite_url]),
        ("exporting", ["ledger", "export", "--db", sqlite_url, "--out", str(export)]),
        ("verifying", ["ledger", "verify", "--db", sqlite_url]),
        ("verifying", ["ledger", "verify", "--file", str(export)]),
    ]
    for word, args in runs:
        code, _, err = _run_on_a_terminal(*args)
        assert code == 0, err
        assert word in err.lower(), (args, err)
        code, _, err = _run_on_a_terminal(*args, *(["--json"] if "export" not in args else []))
        if "export" not in args:
            assert code == 0 and word not in err.lower(), (args, err)
        piped = subprocess.run(
            [str(Path(sys.executable).with_name("arbitru")), *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert piped.returncode == 0 and word not in piped.stderr.lower()
    code, out, err = _run_on_a_terminal("ledger", "export", "--db", sqlite_url)
    assert code == 0 and out.count("\n") == 100 and "exporting" not in err.lower()
