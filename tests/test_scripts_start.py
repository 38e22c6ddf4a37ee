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


@pytest.mark.parametrize("script", ["server_bench.py", "server_ledger_size_bench.py"])
def test_the_server_benchmarks_run_to_their_end_on_a_small_rush(script: str, tmp_path) -> None:
    """The two server benchmarks share the rush's clients (`server_bench.rush`): one changed
    without the other failed only when someone ran it. `--quick` is a real run, small."""
    cache = ["--cache", str(tmp_path / "cache")] if script == "server_ledger_size_bench.py" else []
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--quick", *cache],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "slips" in done.stdout, done.stdout
