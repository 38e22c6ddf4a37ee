"""Shared test set-up: word lists and caches go to a temporary data directory, never $HOME;
and a wait for a child process to reach the point where a test interrupts it."""

import subprocess
import time
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _arbitru_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("arbitru-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARBITRU_HOME", str(home))
        yield home


@pytest.fixture
def reaches():
    """`reaches(ready, process, what)`: wait (a minute at most) until a child process creates
    the file `ready`, at the moment where the test sends it a signal; fail saying `what`
    when it ends or never gets there."""

    def wait(ready: Path, process: subprocess.Popen, what: str) -> None:
        deadline = time.monotonic() + 60
        while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), what

    return wait
