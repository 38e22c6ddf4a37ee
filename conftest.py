"""Shared test set-up: word lists and caches go to a temporary data directory, never $HOME;
Ctrl-C delivered as a terminal delivers it; and a wait for a child process to reach the point
where a test interrupts it."""

import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """A shell without job control starts a command sent to the background with Ctrl-C
    ignored, and every process it starts inherits that: the tests of what Ctrl-C does to a
    write (`pipelines.files.whole` leaves an ignored signal ignored) then saw nothing come.
    The suite runs with Ctrl-C as a terminal delivers it, however it was started."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True, scope="session")
def _arbitru_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("arbitru-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARBITRU_HOME", str(home))
        yield home


@pytest.fixture
def paused():
    """`with paused(ready, what, args, **popen) as process:` a child process started, and
    waited for (a minute at most) until it creates the file `ready`, at the moment where the
    test sends it a signal; the test fails saying `what` when it ends or never gets there, and
    the process is killed on the way out whatever happened."""

    @contextmanager
    def start(ready: Path, what: str, args: list[str], **popen: Any) -> Iterator[subprocess.Popen]:
        process = subprocess.Popen(args, **popen)
        try:
            deadline = time.monotonic() + 60
            while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert ready.exists(), what
            yield process
        finally:
            process.kill()

    return start


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that opens a page in Chromium is marked `browser`, so that CI runs it once
    (the pages' server side is tested again at the dependency floors without a browser)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium (Debian's, driven by Playwright) for the module."""
    from tests.browser_helpers import CHROMIUM, missing

    if not CHROMIUM.is_file():
        missing(str(CHROMIUM))
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Playwright")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()
