"""The scripts beside the package (fixture generators, benchmarks) import the package's modules
by name, and no test imports them: a module moved or renamed would break them silently. Each
is started here as a user starts it, a fresh process asking for its help."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
SCRIPTS = sorted(
    [*(ROOT / "fixtures").rglob("make_*.py"), *(ROOT / "benchmarks").glob("*_bench.py")]
)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_every_script_beside_the_package_starts_and_shows_its_help(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
