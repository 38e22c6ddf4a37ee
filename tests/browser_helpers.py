"""Debian's chromium for the pages' browser tests: where it is, and what a machine without it
(or without Playwright) is told. The `browser` fixture (the conftest.py at the top) launches it
once per module."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
INSTALL = (
    "install Debian's chromium (`sudo apt-get install -y --no-install-recommends chromium`) "
    "and the test extras (`pip install -e '.[test]'`, which bring Playwright); these tests "
    "never download a browser"
)


def missing(what: str) -> None:
    """Without a browser the pages go unchecked: under CI (`CI` set, and `.ci/run` installs
    chromium) that fails; on a developer's machine it skips saying how to install it, as the
    PostgreSQL tests do without a server."""
    message = f"{what} is missing: {INSTALL}"
    if os.environ.get("CI"):
        pytest.fail(f"{message} (required in CI)", pytrace=False)
    pytest.skip(message)
