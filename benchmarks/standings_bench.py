"""What a view costs on the demo ledger, with the chain checked first, as a user runs it.

    python benchmarks/standings_bench.py [--db URL] [--game G] [--runs R]

Without --db, makes the demo's ledger once (`arbitru demo`, the sample season: 3,777 events)
in a temporary folder. Times a fresh process `arbitru game standings GAME --db URL`, R times
(10 by default), and prints the median, 95th percentile and maximum wall time and the median
CPU time of the process (wall time grows when other processes share the machine; CPU time
much less). Every run checks the ledger before it shows anything (`ledger.integrity`: the
quick check of the chain, and the game's own events against their hashes).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tail import p95  # benchmarks/tail.py

ARBITRU = [sys.executable, "-c", "from pipelines.cli.arbitru import main; main()"]


def _timed(args: list[str]) -> tuple[float, float]:
    """One fresh process: its wall time and CPU time (user + system), in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="The ledger (default: the demo's, made once).")
    parser.add_argument("--game", default="tt26-p3", help="The game whose standings are shown.")
    parser.add_argument("--runs", type=int, default=10)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        db = options.db
        if db is None:
            folder = Path(scratch) / "demo"
            subprocess.run([*ARBITRU, "demo", "--dir", str(folder)], check=True,
                           stdout=subprocess.DEVNULL)  # fmt: skip
            db = f"sqlite:///{folder / 'ledger.db'}"
        command = [*ARBITRU, "game", "standings", options.game, "--db", db]
        _timed(command)  # once, so that bytecode and the word list's cache exist
        runs = [_timed(command) for _ in range(options.runs)]
    walls = [wall for wall, _ in runs]
    cpu = statistics.median(c for _, c in runs)
    print(
        f"arbitru game standings {options.game} (fresh process, {options.runs} runs): "
        f"median {statistics.median(walls):.3f} s, p95 {p95(walls):.3f} s, "
        f"max {max(walls):.3f} s; CPU median {cpu:.3f} s"
    )


if __name__ == "__main__":
    main()
