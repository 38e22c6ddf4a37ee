import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from game_cli_helpers import cli

from pipelines.lexicons.cache import load_dictionary
from pipelines.lexicons.registry import cache_path, default_sha256
from tests.ledger.conftest import db_url, pg_url, sqlite_url  # noqa: F401 (the ledger backends)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """An empty data directory of this test's own (no registered lists, no caches)."""
    monkeypatch.setenv("ARBITRU_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def default_home(_arbitru_home) -> Path:
    """The session's data directory with the default list's cache built (once, a few seconds)."""
    if not cache_path(default_sha256()).is_file():
        load_dictionary()
    return _arbitru_home


@pytest.fixture(scope="module")
def imported(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory, request) -> str:
    """The sample game of a fixture test module (its FIXTURE file) imported into a fresh SQLite
    ledger, once for the module's read-only tests."""
    url = f"sqlite:///{tmp_path_factory.mktemp('fixture') / 'ledger.db'}"
    cli("ledger", "import", str(request.module.FIXTURE), "--db", url, "--json")
    return url


@pytest.fixture(scope="module")
def rounds(imported: str, request) -> list[dict[str, Any]]:
    """`arbitru game results --round N --json` of every round of a fixture test module's game
    (its GAME, of ROUNDS rounds)."""
    game, last = request.module.GAME, request.module.ROUNDS
    return [
        cli("game", "results", game, "--round", str(n), "--db", imported, "--json")
        for n in range(1, last + 1)
    ]


@pytest.fixture
def fsync_raising(monkeypatch) -> Callable[[str, BaseException], None]:
    """`fsync_raising(on, raised)`: from then on `os.fsync` raises `raised` when it syncs an
    output's temporary file (`on="file"`: a full disk shows there) or a folder (`on="folder"`:
    after the rename, the writer's last step)."""
    real = os.fsync

    def raising(on: str, raised: BaseException) -> None:
        def fsync(descriptor: int) -> None:
            mode = os.fstat(descriptor).st_mode
            name = os.readlink(f"/proc/self/fd/{descriptor}")
            if on == "file" and stat.S_ISREG(mode) and name.endswith(".partial"):
                raise raised
            if on == "folder" and stat.S_ISDIR(mode):
                raise raised
            real(descriptor)

        monkeypatch.setattr(os, "fsync", fsync)

    return raising


@pytest.fixture
def disk_full(fsync_raising) -> None:
    """Every output file written in the test meets a full disk (`fsync_raising`)."""
    fsync_raising("file", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
