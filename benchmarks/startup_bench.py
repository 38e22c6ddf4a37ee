"""Start-up: what a fresh `arbitru` process costs before and while it does its work.

    python benchmarks/startup_bench.py [--runs R] [--db URL] [--game G]

Times `arbitru --help`, `arbitru --version` and `arbitru game standings G --db URL` (the
demo's 12-player game tt26-p3 by default) as fresh processes of the installed `arbitru`
console script of the running Python's environment, R times each (20 by default), and prints
the median and 95th percentile of the wall time and of the CPU time (user + system) of each.
Targets (issue 21): `--help` under 0.2 s, a game's standings under 0.4 s. Wall time grows when
other processes share the machine (the load average is printed first); CPU time much less.

Without --db, makes the demo's ledger once (`arbitru demo`, the sample season: 3,658 events)
in a temporary folder. Each command runs once before it is timed, so that its bytecode and
the word list's cache exist, as they do on a user's machine: PYTHONDONTWRITEBYTECODE is left
out of the commands' environment, since without bytecode every run would compile Arbitru's
sources again.

Then it runs each command once more under `python -X importtime` and lists which of the
heavy packages it imported (Rich, SQLAlchemy, Alembic, cryptography, pyarrow, psycopg,
pydantic, and markdown-it and Pygments, which Rich's Markdown renderer imports), each with
the time its modules took to import, so that the figures say why: a command should import
only what it uses.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tail import p95  # benchmarks/tail.py

ARBITRU = Path(sys.executable).parent / "arbitru"
HEAVY = (
    "rich", "sqlalchemy", "alembic", "cryptography", "pyarrow", "psycopg", "pydantic",
    "markdown_it", "pygments",
)  # fmt: skip
"""Packages worth naming when a command imports them: Rich renders help and tables; the others
serve some commands only (markdown-it and Pygments: Rich's Markdown renderer)."""
# `python -X importtime` prints, for each module, "self µs | cumulative µs | name" (indented
# by its depth); a package's own cost is the sum of its modules' self times.
IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \| +(\S+)$")
COLUMNS = ("wall median", "wall p95", "CPU median", "CPU p95")
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(command: list[str]) -> tuple[float, float]:
    """One fresh process: its wall time and CPU time (user + system), in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=ENVIRONMENT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def heavy_imports(args: list[str]) -> dict[str, float]:
    """The heavy packages `arbitru ARGS` imports, each with the time its own modules took to
    import, in seconds (as `-X importtime` measures it, which adds a little of its own)."""
    done = subprocess.run([sys.executable, "-X", "importtime", ARBITRU, *args], env=ENVIRONMENT,
                          capture_output=True, text=True, check=True)  # fmt: skip
    found: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if (match := IMPORT_LINE.match(line)) and (package := match[2].split(".")[0]) in HEAVY:
            found[package] = found.get(package, 0.0) + int(match[1]) / 1e6
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="Fresh processes per command.")
    parser.add_argument("--db", help="The ledger (default: the demo's, made once).")
    parser.add_argument("--game", default="tt26-p3", help="The game whose standings are shown.")
    options = parser.parse_args()
    if options.runs < 1:
        parser.error(f"--runs must be at least 1, not {options.runs}")
    if not ARBITRU.is_file():
        sys.exit(f"no `arbitru` console script at {ARBITRU}: install Arbitru into this "
                 "environment first (pip install -e .)")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        db = options.db or _demo_ledger(Path(scratch) / "demo")
        commands = [["--help"], ["--version"], ["game", "standings", options.game, "--db", db]]
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"fresh `arbitru` processes, {options.runs} runs each; load average {load}")
        print(f"{'command':<24}" + "".join(f"{c:>12}" for c in COLUMNS))
        for args in commands:
            _timed([str(ARBITRU), *args])  # once, so that bytecode and the word list's cache exist
            runs = [_timed([str(ARBITRU), *args]) for _ in range(options.runs)]
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            figures = (statistics.median(walls), p95(walls), statistics.median(cpus), p95(cpus))
            print(f"{_named(args):<24}" + "".join(f"{f:>10.3f} s" for f in figures))
        print("\nheavy packages imported (their import time, one run under -X importtime):")
        for args in commands:
            found = heavy_imports(args)
            listed = ", ".join(f"{name} {took:.3f} s" for name, took in found.items()) or "none"
            print(f"{_named(args):<24}{listed}")


def _named(args: list[str]) -> str:
    """A command as the tables name it: without its --db URL."""
    return " ".join(args[: args.index("--db")] if "--db" in args else args)


def _demo_ledger(folder: Path) -> str:
    """The URL of the demo's ledger, made in `folder` (`arbitru demo`)."""
    done = subprocess.run([ARBITRU, "demo", "--dir", str(folder)], env=ENVIRONMENT,
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"`arbitru demo` failed (exit {done.returncode}):\n{done.stderr}")
    return f"sqlite:///{folder / 'ledger.db'}"


if __name__ == "__main__":
    main()
