"""Every file Arbitru may replace goes through one guarded writer (`pipelines.files.whole`):
an export (`ledger export --out`), a proof (`ledger prove --out`, `ledger consistency --out`)
and a board picture (`game replay --svg`, the demo's `final-board.svg`). A symbolic link is
followed and the file it leads to replaced whole; a FIFO is refused, exit 2, naming it; a full
disk exits 3; no temporary file stays behind, even when a signal ends the command, and once
the new file is in place nothing says it was not written. Through the real command
(`lexicon build --out DIR`: tests/pipelines/test_lexicon_cli.py)."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.arbitru import app
from pipelines.files import whole as output_file

runner = CliRunner()

GAME = Path(__file__).parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
_REAL_FSYNC = os.fsync

WRITERS = {
    "export": ["ledger", "export", "--out"],
    "prove": ["ledger", "prove", "42", "--out"],
    "consistency": ["ledger", "consistency", "200", "412", "--out"],
    "svg": ["game", "replay", "cb26-p1", "--svg"],
}
"""Each writer's command line, up to the path it writes."""


def _invoke(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A game of 412 events with checkpoints of its first 200 events and of all of them."""
    folder = tmp_path_factory.mktemp("ledger")
    db = f"sqlite:///{folder / 'ledger.db'}"
    first = folder / "first.jsonl"
    first.write_text("".join(GAME.read_text(encoding="utf-8").splitlines(True)[:200]))
    key = folder / "federation.key"
    assert _invoke("keys", "new", str(key)).exit_code == 0
    for events in (first, GAME):
        assert _invoke("ledger", "import", str(events), "--db", db).exit_code == 0
        assert _invoke("ledger", "checkpoint", "--key", str(key), "--db", db).exit_code == 0
    return db


def _write(writer: str, path: Path, db: str):
    return _invoke(*WRITERS[writer], str(path), "--db", db)


def _earlier(folder: Path) -> Path:
    """An earlier file, `earlier` in `folder` (made if missing), for a writer to replace."""
    folder.mkdir(exist_ok=True)
    earlier = folder / "earlier"
    earlier.write_bytes(b"an earlier file\n")
    return earlier


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".partial")]


@contextmanager
def _fifo(path: Path) -> Iterator[int]:
    """A FIFO at `path` with a reader that never blocks: a writer that does not refuse it
    writes into it (and returns) instead of waiting for a reader forever."""
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        yield reader
    finally:
        os.close(reader)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_symlinks_target_is_replaced_whole_and_the_link_stays(
    writer: str, ledger: str, tmp_path: Path, default_home: Path
) -> None:
    plain = tmp_path / "plain"
    assert _write(writer, plain, ledger).exit_code == 0
    archive = tmp_path / "archive"
    target = _earlier(archive)
    target.chmod(0o640)
    link = tmp_path / "latest"
    link.symlink_to(target)
    with target.open("rb") as earlier:  # a reader of the earlier file, as it was
        result = _write(writer, link, ledger)
        assert result.exit_code == 0, result.output
        assert earlier.read() == b"an earlier file\n"  # renamed over, never rewritten in place
    assert link.is_symlink() and link.resolve() == target
    assert target.read_bytes() == plain.read_bytes()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in archive.iterdir()] == ["earlier"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive", "latest", "plain"]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_fifo_is_refused_with_exit_2_naming_it_and_nothing_is_left_behind(
    writer: str, ledger: str, tmp_path: Path, default_home: Path
) -> None:
    fifo = tmp_path / "pipe"
    link = tmp_path / "link-to-pipe"
    with _fifo(fifo) as reader:
        link.symlink_to(fifo)
        for path in (fifo, link):
            result = _write(writer, path, ledger)
            assert result.exit_code == 2, (path, result.output)
            said = result.stderr.replace("\n", "")
            assert said.startswith(f"error: {path} ") and "is a FIFO, not a regular file" in said
            assert "Traceback" not in result.output
        assert stat.S_ISFIFO(fifo.lstat().st_mode) and link.is_symlink()
        assert os.read(reader, 1) == b""  # nothing was written into it
    assert _leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link-to-pipe", "pipe"]


# Runs `arbitru` with the rename over the target held back until the signal comes, so that
# the writer is caught with its temporary file written and the target not yet replaced.
_HELD_BACK = """
import pathlib, sys, time
from pipelines.files import whole as output_file
ready = pathlib.Path(sys.argv[1])
def held_back(*args):
    ready.touch()
    time.sleep(120)
output_file.held_signals = held_back
sys.argv = ["arbitru", *sys.argv[2:]]
from pipelines.cli.arbitru import main
main()
"""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
@pytest.mark.parametrize("writer", ["prove", "svg"])
def test_a_signal_while_writing_leaves_the_earlier_file_and_no_temporary_file(
    writer: str,
    signum: int,
    code: int,
    ledger: str,
    tmp_path: Path,
    default_home: Path,
    paused,
) -> None:
    folder = tmp_path / "out"
    out = _earlier(folder)
    ready = tmp_path / "ready"
    command = [*WRITERS[writer], str(out), "--db", ledger]
    with paused(
        ready,
        "the writer never reached the rename",
        [sys.executable, "-c", _HELD_BACK, str(ready), *command],
        stderr=subprocess.PIPE,
    ) as process:
        assert len(list(folder.iterdir())) == 2  # the earlier file and the temporary file
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert b"Traceback" not in err and b"internal error" not in err
    assert f"interrupted: nothing was written to {out}".encode() in err
    assert [p.name for p in folder.iterdir()] == ["earlier"]
    assert out.read_bytes() == b"an earlier file\n"


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_full_disk_exits_3_and_leaves_the_earlier_file_and_no_temporary_file(
    writer: str, ledger: str, tmp_path: Path, default_home: Path, disk_full: None
) -> None:
    out = _earlier(tmp_path)
    result = _write(writer, out, ledger)
    assert result.exit_code == 3, result.output  # output not written, not bad input (2)
    said = result.stderr.replace("\n", "")
    assert said == (
        f"error: could not write {out}: No space left on device; nothing was written to it"
    )
    assert out.read_bytes() == b"an earlier file\n"
    assert [p.name for p in tmp_path.iterdir()] == ["earlier"]


def test_a_full_disk_exits_3_for_a_simulated_season_and_the_demos_picture(
    tmp_path: Path, default_home: Path, disk_full: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    season = tmp_path / "season.jsonl"
    simulate = ["simulate", "--out", str(season), "--seed", "1", "--tournaments", "1",
                "--games", "1", "--players", "2"]  # fmt: skip
    result = _invoke(*simulate)
    assert result.exit_code == 3, result.output
    assert f"could not write {season}: No space left on device" in result.stderr
    assert not season.exists()
    demo = tmp_path / "demo"
    result = _invoke("demo", "--dir", str(demo))  # its first file: the demo's points table
    assert result.exit_code == 3, result.output
    points = demo / "demo-ranking-points.toml"
    assert f"could not write {points}: No space left on device" in result.stderr
    assert not demo.exists() and _leftovers(tmp_path) == []
    full = os.fsync

    def only_the_picture_full(descriptor: int) -> None:  # the disk fills after the export
        name = os.readlink(f"/proc/self/fd/{descriptor}")
        (full if "final-board.svg" in name else _REAL_FSYNC)(descriptor)

    monkeypatch.setattr(os, "fsync", only_the_picture_full)
    result = _invoke("demo", "--dir", str(demo))
    assert result.exit_code == 3, result.output
    picture = demo / "final-board.svg"
    assert f"could not write {picture}: No space left on device" in result.stderr
    assert f"the demo's ledger and Parquet export are in {demo}" in result.stderr
    assert "Traceback" not in result.output
    assert (demo / "export" / "MANIFEST.json").is_file() and not picture.exists()
    assert _leftovers(tmp_path) == [] and _leftovers(demo) == []


@pytest.mark.parametrize(
    ("raised", "code", "said"),
    [
        (KeyboardInterrupt(), 130, "error: interrupted after {out} was written"),
        (output_file._Terminated(signal.SIGTERM), 143,
         "error: interrupted after {out} was written"),
        (OSError(errno.EIO, os.strerror(errno.EIO)), 3,
         "error: {out} was written, but its folder could not be synced to disk: "
         "Input/output error"),
    ],
    ids=["SIGINT", "SIGTERM", "EIO"],
)  # fmt: skip
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_once_renamed_the_file_is_said_written_whatever_ends_the_folders_sync(
    writer: str,
    raised: BaseException,
    code: int,
    said: str,
    ledger: str,
    tmp_path: Path,
    default_home: Path,
    fsync_raising,
) -> None:
    plain = tmp_path / "plain"
    assert _write(writer, plain, ledger).exit_code == 0
    folder = tmp_path / "out"
    out = _earlier(folder)
    fsync_raising("folder", raised)
    result = _write(writer, out, ledger)
    assert result.exit_code == code, result.output
    assert result.stderr.replace("\n", "") == said.format(out=out)
    assert out.read_bytes() == plain.read_bytes()
    assert [p.name for p in folder.iterdir()] == ["earlier"]


# Runs `arbitru` with SIGHUP ignored, as `nohup` does, held once the temporary file is written
# until the test has sent SIGHUP.
_IGNORING_SIGHUP = """
import os, pathlib, signal, sys, time
ready, sent = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
real = os.fsync
def held_back(descriptor):
    real(descriptor)
    if os.readlink(f"/proc/self/fd/{descriptor}").endswith(".partial"):
        ready.touch()
        deadline = time.monotonic() + 60
        while not sent.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
os.fsync = held_back
signal.signal(signal.SIGHUP, signal.SIG_IGN)
sys.argv = ["arbitru", *sys.argv[3:]]
from pipelines.cli.arbitru import main
main()
"""


@pytest.mark.parametrize("writer", ["export", "svg"])
def test_an_ignored_sighup_stays_ignored_while_writing(
    writer: str, ledger: str, tmp_path: Path, default_home: Path, paused
) -> None:
    """Under `nohup`, closing the terminal must not end the command midway."""
    plain = tmp_path / "plain"
    assert _write(writer, plain, ledger).exit_code == 0
    folder = tmp_path / "out"
    out = _earlier(folder)
    ready, sent = tmp_path / "ready", tmp_path / "sent"
    command = [*WRITERS[writer], str(out), "--db", ledger]
    with paused(
        ready,
        "the writer never finished its temporary file",
        [sys.executable, "-c", _IGNORING_SIGHUP, str(ready), str(sent), *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    ) as process:
        process.send_signal(signal.SIGHUP)
        sent.touch()
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out.read_bytes() == plain.read_bytes()
    assert [p.name for p in folder.iterdir()] == ["earlier"]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_the_temporary_file_is_the_owners_alone_and_the_final_modes_unchanged(
    writer: str, ledger: str, tmp_path: Path, default_home: Path, monkeypatch
) -> None:
    """A private file being replaced is never readable by others while written; the file
    then gets the mode of the one it replaces, and a new file the mode the umask leaves."""
    modes: list[int] = []
    real = os.fsync

    def fsync(descriptor: int) -> None:
        if os.readlink(f"/proc/self/fd/{descriptor}").endswith(".partial"):
            modes.append(stat.S_IMODE(os.fstat(descriptor).st_mode))
        real(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    umask = os.umask(0o022)
    try:
        private = _earlier(tmp_path / "private")
        private.chmod(0o600)
        assert _write(writer, private, ledger).exit_code == 0
        new = tmp_path / "new"
        assert _write(writer, new, ledger).exit_code == 0
    finally:
        os.umask(umask)
    assert modes == [0o600, 0o600]
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(new.stat().st_mode) == 0o644


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_failed_write_is_not_said_written_when_its_temporary_file_is_gone(
    writer: str, ledger: str, tmp_path: Path, default_home: Path, disk_full: None, monkeypatch
) -> None:
    """Whether the file was replaced is known before its temporary file is deleted:
    afterwards, another file made at the target could be given the freed inode. Simulated by
    a deletion that moves the temporary file to the target, its inode then there."""
    out = tmp_path / "out"
    real = Path.unlink

    def unlink(path: Path, missing_ok: bool = False) -> None:
        if path.name.endswith(".partial") and path.exists():
            os.replace(path, out)
        else:
            real(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    result = _write(writer, out, ledger)
    assert result.exit_code == 3, result.output
    said = result.stderr.replace("\n", "")
    assert said == (
        f"error: could not write {out}: No space left on device; nothing was written to it"
    )


def test_a_signal_held_while_renames_fail_is_still_delivered() -> None:
    """A SIGTERM that waits for the renames ends the command even when a rename then fails:
    it is delivered once the renames are over, however they ended, never lost."""
    with (
        pytest.raises(output_file._Terminated),
        output_file.terminations_raise(),
        output_file.held_signals(),
    ):
        signal.raise_signal(signal.SIGTERM)
        raise OSError(errno.EIO, os.strerror(errno.EIO))
