"""A full disk under a command that creates a SQLite ledger (`game create`, `ledger import`),
on a real file system that is full (a small tmpfs): exit 3, and no empty or half-made
database is left where the ledger was to be; a ledger that already held events is never
removed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
GAME = ROOT / "fixtures" / "games" / "duplicate-game.jsonl"


def _arbitru(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("arbitru")
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs mounted for the test (root only: skipped where mounting is refused)."""
    folder = tmp_path / f"disk-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)],
        capture_output=True, check=False,
    )  # fmt: skip
    if mounted.returncode != 0 or shutil.which("mount") is None:
        pytest.skip("a small tmpfs cannot be mounted here (needs root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def _fill(disk: Path, left_kib: int) -> None:
    """Fill `disk` up to `left_kib` KiB of free space."""
    free = shutil.disk_usage(disk).free
    (disk / "pad").write_bytes(b"\0" * max(free - left_kib * 1024, 0))


@pytest.mark.parametrize("left_kib", [4, 8, 48])
@pytest.mark.parametrize(
    "command",
    [["game", "create", "g1", "--player", "ana"], ["ledger", "import", str(GAME)]],
    ids=["game create", "ledger import"],
)
def test_a_new_ledger_on_a_full_disk_is_not_left_behind(
    small_disk: Path, left_kib: int, command: list[str]
) -> None:
    _fill(small_disk, left_kib)
    done = _arbitru(*command, "--db", f"sqlite:///{small_disk / 'arbitru.db'}")
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in small_disk.iterdir()) == ["pad"]


def test_a_ledger_that_holds_events_is_kept_when_a_later_write_meets_a_full_disk(
    small_disk: Path,
) -> None:
    db = f"sqlite:///{small_disk / 'arbitru.db'}"
    assert _arbitru("game", "create", "g1", "--player", "ana", "--db", db).returncode == 0
    _fill(small_disk, 4)
    done = _arbitru("ledger", "import", str(GAME), "--db", db)
    assert done.returncode == 3, done.stderr
    (small_disk / "pad").unlink()
    listed = _arbitru("game", "list", "--db", db, "--json")
    assert listed.returncode == 0 and "g1" in listed.stdout
