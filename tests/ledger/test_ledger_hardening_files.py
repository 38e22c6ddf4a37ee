"""Issue 7, the ledger's files: where an export goes (defect 3), a ledger nobody may write
(defect 4), in-memory URLs (defect 5) and the messages that misled (defect 10). Each test is
named after the defect it checks, through the real `arbitru` command."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ledger_helpers import game_created, rack
from typer.testing import CliRunner

from ledger import DatabaseError, EventStore
from pipelines.cli.arbitru import app

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(app, list(args))


def _ledger(db: str, events: int = 3) -> None:
    with EventStore(db) as store:
        store.append("game/g1", [game_created(), *(rack(i) for i in range(1, events))])


# 3. `export --out` writes a regular file only, through symlinks, and cleans up on any exit
# (a link's target replaced whole, with the other writers: tests/pipelines/test_output_files.py).


def test_export_out_through_a_dangling_symlink_creates_its_target(
    sqlite_url: str, tmp_path: Path
) -> None:
    _ledger(sqlite_url)
    link = tmp_path / "latest.jsonl"
    link.symlink_to(tmp_path / "new.jsonl")
    assert _invoke("ledger", "export", "--db", sqlite_url, "--out", str(link)).exit_code == 0
    assert link.is_symlink() and (tmp_path / "new.jsonl").read_bytes().count(b"\n") == 3


def _special_files(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    yield "a FIFO", fifo
    folder = tmp_path / "folder"
    folder.mkdir()
    yield "a directory", folder
    if os.geteuid() == 0:  # a device node of our own, never the system's /dev/full
        device = tmp_path / "full"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        yield "a character device", device


def test_export_out_refuses_anything_but_a_regular_file_or_a_new_path(
    sqlite_url: str, tmp_path: Path
) -> None:
    _ledger(sqlite_url)
    for kind, path in _special_files(tmp_path):
        before = path.lstat()
        result = _invoke("ledger", "export", "--db", sqlite_url, "--out", str(path))
        assert result.exit_code == 2, (kind, result.output)
        assert f"{path} is {kind}" in result.stderr and "regular file" in result.stderr
        after = path.lstat()
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino), kind
        link = tmp_path / f"link-to-{path.name}"
        link.symlink_to(path)
        through = _invoke("ledger", "export", "--db", sqlite_url, "--out", str(link))
        assert through.exit_code == 2 and kind in through.stderr, kind
        assert link.is_symlink()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


_SLOW_EXPORT = """
import pathlib, sys, time
from ledger import EventStore
from pipelines.cli.arbitru import app
real, ready = EventStore.iter_rows, pathlib.Path(sys.argv[3])
def slow(self, *args, **kwargs):
    if "stream" not in kwargs:  # the quick check before the export reads at full speed
        yield from real(self, *args, **kwargs)
        return
    for row in real(self, *args, **kwargs):
        yield row
        ready.touch()
        time.sleep(120)
EventStore.iter_rows = slow
sys.argv = ["arbitru", "ledger", "export", "--db", sys.argv[1], "--out", sys.argv[2]]
app()
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_export_out_interrupted_by_a_signal_leaves_no_partial_file(
    sqlite_url: str, tmp_path: Path, signum: int, code: int, paused
) -> None:
    _ledger(sqlite_url)
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "export.jsonl"
    out.write_bytes(b"an earlier export\n")
    ready = tmp_path / "ready"
    with paused(
        ready,
        "the export never started",
        [sys.executable, "-c", _SLOW_EXPORT, sqlite_url, str(out), str(ready)],
        stderr=subprocess.PIPE,
    ) as process:
        assert len(list(folder.iterdir())) == 2  # the export and its temporary file
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert b"Traceback" not in err
    assert [p.name for p in folder.iterdir()] == ["export.jsonl"]
    assert out.read_bytes() == b"an earlier export\n"


# 4. A ledger nobody may write is read through a read-only connection, leaving nothing behind.


def _chattr(path: Path, flag: str) -> None:
    subprocess.run(["chattr", flag, str(path)], check=True, capture_output=True)


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[list[Path]]:
    """Paths made immutable (`chattr +i`), which even root cannot write; undone after the test.
    Permission bits would not do: the tests run as root, which ignores them."""
    probe = tmp_path / "probe"
    probe.touch()
    if (
        shutil.which("chattr") is None
        or subprocess.run(["chattr", "+i", str(probe)], capture_output=True).returncode
    ):
        pytest.skip("chattr +i is not available here")
    _chattr(probe, "-i")
    probe.unlink()
    paths: list[Path] = []
    yield paths
    for path in paths:
        _chattr(path, "-i")


def _read_everything(db: str, out: Path) -> None:
    for command in (["ledger", "verify"], ["ledger", "head"], ["ledger", "export"]):
        result = _invoke(*command, "--db", db)
        assert result.exit_code == 0, (command, result.output)
    verified = _invoke("ledger", "verify", "--db", db, "--json")
    assert json.loads(verified.stdout)["checked"] == 3
    exported = _invoke("ledger", "export", "--db", db, "--out", str(out))
    assert exported.exit_code == 0, exported.output


def test_a_read_only_ledger_in_a_directory_nobody_may_write_verifies(
    tmp_path: Path, immutable: list[Path]
) -> None:
    folder = tmp_path / "copy"
    folder.mkdir()
    db = f"sqlite:///{folder / 'ledger.db'}"
    _ledger(db)
    _chattr(folder, "+i")
    immutable.append(folder)
    _read_everything(db, tmp_path / "export.jsonl")
    assert [p.name for p in folder.iterdir()] == ["ledger.db"]


def test_a_read_only_ledger_file_in_a_writable_directory_leaves_no_wal_or_shm(
    tmp_path: Path, immutable: list[Path]
) -> None:
    path = tmp_path / "ledger.db"
    db = f"sqlite:///{path}"
    _ledger(db)
    _chattr(path, "+i")
    immutable.append(path)
    _read_everything(db, tmp_path / "export.jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.jsonl", "ledger.db"]


def test_reading_a_writable_ledger_leaves_no_wal_or_shm_and_converts_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.db"
    db = f"sqlite:///{path}"
    _ledger(db)
    _read_everything(db, tmp_path / "export.jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.jsonl", "ledger.db"]


def test_a_read_only_ledger_with_a_pending_wal_is_read_whole(
    tmp_path: Path, immutable: list[Path]
) -> None:
    """Events committed to the -wal file but not yet copied into the database file must be
    seen: immutable mode would skip them."""
    import sqlite3

    path = tmp_path / "ledger.db"
    db = f"sqlite:///{path}"
    _ledger(db, events=2)
    keeper = sqlite3.connect(path)  # an open connection keeps the -wal from being merged
    try:
        keeper.execute("PRAGMA wal_autocheckpoint = 0")
        keeper.execute("SELECT 1 FROM events").fetchall()
        with EventStore(db) as store:
            store.append("game/g1", [rack(2)])
        assert (tmp_path / "ledger.db-wal").stat().st_size > 0
        _chattr(path, "+i")
        immutable.append(path)
        verified = _invoke("ledger", "verify", "--db", db, "--json")
        assert verified.exit_code == 0, verified.output
        assert json.loads(verified.stdout)["checked"] == 3
    finally:
        keeper.close()


def test_a_pending_wal_that_cannot_be_read_in_a_read_only_folder_says_what_to_do(
    tmp_path: Path, immutable: list[Path]
) -> None:
    import sqlite3

    folder = tmp_path / "copy"
    folder.mkdir()
    path = folder / "ledger.db"
    db = f"sqlite:///{path}"
    _ledger(db, events=2)
    keeper = sqlite3.connect(path)
    try:
        keeper.execute("PRAGMA wal_autocheckpoint = 0")
        keeper.execute("SELECT 1 FROM events").fetchall()
        with EventStore(db) as store:
            store.append("game/g1", [rack(2)])
        (folder / "ledger.db-shm").unlink()  # as a copy of the file and its -wal would be
        _chattr(folder, "+i")
        immutable.append(folder)
        result = _invoke("ledger", "verify", "--db", db)
        assert result.exit_code == 2, result.output
        assert (
            "ledger.db-wal" in result.stderr and "copy ledger.db and ledger.db-wal" in result.stderr
        )
    finally:
        keeper.close()


# 5. In-memory SQLite URLs would drop every event with the process: refused for writing.

_IN_MEMORY = [
    "sqlite://",
    "sqlite:///:memory:",
    "sqlite:///file::memory:",
    "sqlite:///file::memory:?uri=true",
    "sqlite:///file:scratch?mode=memory&uri=true&cache=shared",
]


@pytest.mark.parametrize("url", _IN_MEMORY)
def test_in_memory_urls_are_refused_by_every_command_that_writes(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    line = {"stream": "game/g1", "type": "GameCreated", "payload": {"game_id": "g1"}}
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(line) + "\n")
    for command in (["ledger", "import", str(source)], ["db", "upgrade"]):
        result = _invoke(*command, "--db", url)
        assert result.exit_code == 2, (command, result.output)
        assert "in-memory" in result.stderr and "sqlite:///" in result.stderr
    with pytest.raises(DatabaseError, match="in-memory"):
        EventStore(url)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


# 10. Messages that misled.


def _export(db: str, path: Path, *extra: str) -> Path:
    result = _invoke("ledger", "export", "--db", db, "--out", str(path), *extra)
    assert result.exit_code == 0, result.output
    return path


def test_verify_file_of_a_crlf_export_names_seq_1_and_no_intact_event(
    sqlite_url: str, tmp_path: Path
) -> None:
    _ledger(sqlite_url)
    out = _export(sqlite_url, tmp_path / "export.jsonl")
    out.write_bytes(out.read_bytes().replace(b"\n", b"\r\n"))
    result = _invoke("ledger", "verify", "--file", str(out), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["first_broken_seq"], report["line"], report["checked"]) == (1, 1, 0)
    assert "CR LF" in report["error"]
    human = _invoke("ledger", "verify", "--file", str(out))
    assert "no event before it" in human.stdout and "before it are intact" not in human.stdout


def test_verify_file_with_a_byte_order_mark_says_so_in_its_own_words(
    sqlite_url: str, tmp_path: Path
) -> None:
    _ledger(sqlite_url)
    out = _export(sqlite_url, tmp_path / "export.jsonl")
    out.write_bytes(b"\xef\xbb\xbf" + out.read_bytes())
    report = json.loads(_invoke("ledger", "verify", "--file", str(out), "--json").stdout)
    assert report["line"] == 1 and "byte order mark" in report["error"]
    assert "utf-8-sig" not in report["error"] and "Unexpected" not in report["error"]


def test_verify_file_of_a_stream_export_without_partial_suggests_partial(
    sqlite_url: str, tmp_path: Path
) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g2", [game_created("g2")])
        store.append("game/g1", [game_created(), rack(1)])
    out = _export(sqlite_url, tmp_path / "g1.jsonl", "--stream", "game/g1")
    result = _invoke("ledger", "verify", "--file", str(out), "--json")
    assert result.exit_code == 1
    assert "--partial" in json.loads(result.stdout)["error"]


def test_a_truncated_sqlite_ledger_is_called_damaged_and_says_how_to_restore(
    sqlite_url: str, tmp_path: Path
) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created(), *(rack(i, "A" * 300) for i in range(1, 400))])
    path = tmp_path / "ledger.db"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    for command in (["ledger", "verify"], ["ledger", "head"], ["ledger", "import", "-"]):
        result = runner.invoke(app, [*command, "--db", sqlite_url], input="")
        assert result.exit_code == 2, (command, result.output)
        assert "damaged" in result.stderr, command
        assert "not an Arbitru ledger" not in result.stderr
        assert "--require-same-hashes" in result.stderr and "export" in result.stderr
