"""Replaying and scoring a whole 100-player game from the ledger, as a user does.

    python benchmarks/replay_bench.py [--variant V] [--players N] [--seed S] [--runs R]
                                      [--rebuild] [--submit]

For each variant (all by default), builds once (then reuses, from the temporary folder) a
SQLite ledger holding one seeded game played to the end by N simulated players: a duplicate
game to the end of the bag (`pipelines.simulate.duplicate`), a duplicat-completiv game to the end
of the bag (`pipelines.simulate.completiv`: 6 drawn, each player's letter from the stock,
every submission judged with it), an anticipation game of 14 groups
with every player on their own board (`pipelines.simulate.anticipation`: 100 boards x 14
rounds, every submission judged once on its player's board),
then times the command a user runs: a fresh process `arbitru game standings GAME --db URL`
(Arbitru's modules compiled to bytecode first, as an installed package has them), R times,
printing the median, 95th percentile and maximum wall time and the process's CPU time
(wall time grows when other processes share the machine; CPU time much less). Every number of
the standings is recomputed on each run: the events are read, decoded, folded (every
submission judged) and ranked. Beside it, labelled, the start-up floor (a fresh
`arbitru --help`) and the same replay in-process with the dictionary already loaded.
Target (issues 8 and 9): under 1 s for the fresh process, for each variant.

With --submit it times a round command instead: a fresh `arbitru game submit GAME --player P
--text T --db URL` without --round (the service finds the round open), on a copy of the game
made before its last round closed (made again on each run of the benchmark; each submission
is a player's own slip of that round again, recorded as a change of mind).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tail import p95  # benchmarks/tail.py

import engine
import ledger
import pipelines
from engine.games.projections import standings
from ledger import EventStore, NewEvent
from pipelines.games.service import load_game
from pipelines.simulate import anticipation as simulate_anticipation
from pipelines.simulate import completiv as simulate_completiv
from pipelines.simulate import duplicate as simulate_game
from pipelines.simulate.duplicate import Scenario

TARGET_S = 1.0
GAME = "bench"
LAYOUT = 1
"""Bump when the cached ledger must be rebuilt (the simulation or the record changed)."""
PLAY = {
    "duplicate": simulate_game.play,
    "completiv": simulate_completiv.play,
    "anticipation": simulate_anticipation.play,
}
"""How each variant's benchmark game is played."""


def _scenario(players: int, seed: int) -> Scenario:
    return Scenario(
        game_id=GAME,
        players=players,
        seed=seed,
        title=f"Replay benchmark, {players} players",
        draw="seeded",
        incidents={3: ("annul_revoked",), 5: ("penalty", "correct"), 7: ("late", "annul")},
    )


def _ledger(variant: str, players: int, seed: int, rebuild: bool) -> tuple[Path, float | None]:
    """The cached ledger's path, and the seconds it took to build (None: reused)."""
    folder = Path(tempfile.gettempdir()) / "arbitru-replay-bench"
    kind = "" if variant == "duplicate" else f"{variant}-"
    path = folder / f"v{LAYOUT}-{kind}p{players}-s{seed}.db"
    if path.exists() and not rebuild:
        return path, None
    folder.mkdir(exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    print(f"building {path} ({players} simulated players; a minute or two) ...", flush=True)
    start = time.perf_counter()
    with EventStore(f"sqlite:///{partial}") as store:
        PLAY[variant](store, _scenario(players, seed))
    partial.replace(path)
    return path, time.perf_counter() - start


def _open_round(path: Path) -> tuple[Path, list[str]]:
    """A copy of the game as it was before its last round closed, and the arguments of a
    submission in that round (a player's own slip again)."""
    with EventStore(f"sqlite:///{path}", upgrade=False) as store:
        stored = store.read_stream(f"game/{GAME}")
    closing = max(i for i, e in enumerate(stored) if e.type == "RoundClosed")
    number = stored[closing].payload["round"]
    slip = next(
        e.payload
        for e in stored[:closing]
        if e.type == "SubmissionReceived" and e.payload["round"] == number
    )
    copy = path.with_name(f"open-round-{path.name}")
    for stale in (copy, copy.with_name(f"{copy.name}-wal"), copy.with_name(f"{copy.name}-shm")):
        stale.unlink(missing_ok=True)  # the last run's copy, a write-ahead log left by a crash
    with EventStore(f"sqlite:///{copy}") as store:
        store.append(
            f"game/{GAME}",
            [NewEvent(e.type, e.payload, e.meta, e.event_id, e.schema) for e in stored[:closing]],
            expected_version=0,
        )
    return copy, ["--player", slip["player_id"], "--text", slip["text"]]


def _arbitru() -> list[str]:
    """The console script beside this interpreter (as installed), else the module's main."""
    script = Path(sys.executable).with_name("arbitru")
    if script.exists():
        return [str(script)]
    found = shutil.which("arbitru")
    if found:
        return [found]
    return [sys.executable, "-c", "from pipelines.cli.arbitru import main; main()"]


def _compile_sources() -> None:
    """Arbitru's modules compiled to bytecode, as an installed package ships them: a source
    checkout run with PYTHONDONTWRITEBYTECODE set would otherwise compile them again in every
    fresh process (70 ms), which no user's second run does."""
    for package in (engine, ledger, pipelines):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def _fresh(args: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of `runs` fresh processes running `args` (output discarded)."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    return walls, cpus


def _in_process(url: str, runs: int) -> list[float]:
    """Seconds to read, fold and rank the game in this process (dictionary loaded once)."""
    times = []
    with EventStore(url, upgrade=False) as store:
        load_game(store, GAME)
        for _ in range(runs):
            start = time.perf_counter()
            standings(load_game(store, GAME).state)
            times.append(time.perf_counter() - start)
    return times


def _line(label: str, values: list[float], unit: Callable[[float], str]) -> str:
    return (
        f"  {label:<5} median {unit(statistics.median(values))}  "
        f"p95 {unit(p95(values))}  max {unit(max(values))}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--variant",
        choices=sorted(PLAY),
        action="append",
        help="A variant to time (repeatable; default: every one).",
    )
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--rebuild", action="store_true", help="Build the ledger again.")
    parser.add_argument(
        "--submit",
        action="store_true",
        help="Time `game submit` without --round, in the game's last round, instead.",
    )
    args = parser.parse_args(argv)
    missed = [v for v in args.variant or PLAY if not _bench(v, args)]
    return 1 if missed else 0


def _bench(variant: str, args: argparse.Namespace) -> bool:
    """Time one variant's game; whether its median fresh-process wall time meets the target."""
    print(f"== {variant}")
    path, built = _ledger(variant, args.players, args.seed, args.rebuild)
    shown = ["standings", GAME]
    if args.submit:
        path, slip = _open_round(path)
        shown = ["submit", GAME, *slip]
    url = f"sqlite:///{path}"
    with EventStore(url, upgrade=False) as store:
        game = load_game(store, GAME)
        events = store.head().seq
    state = game.state
    submissions = sum(len(p.received) for r in state.rounds for p in r.players.values())
    how = f"built in {built:.0f} s" if built is not None else "cached; --rebuild to build again"
    if args.submit:
        how += "; copied up to its last round's close"
    print(
        f"ledger {path} ({how}): {events} events, {len(state.players)} players, "
        f"{len(state.rounds)} rounds, {submissions} submissions"
    )
    command = [*_arbitru(), "game", *shown, "--db", url]
    _compile_sources()
    _fresh(command, 1)  # the word list's cache, the page cache: as a user's second run
    seconds = lambda v: f"{v:.3f} s"  # noqa: E731
    walls, cpus = _fresh(command, args.runs)
    print(f"fresh process `arbitru game {shlex.join(shown)} --db ...`, {args.runs} runs:")
    print(_line("wall", walls, seconds))
    print(_line("cpu", cpus, seconds))
    help_walls, help_cpus = _fresh([*_arbitru(), "--help"], 5)
    print("for comparison, start-up alone (fresh `arbitru --help`, 5 runs):")
    print(_line("wall", help_walls, seconds))
    print(_line("cpu", help_cpus, seconds))
    inside = _in_process(url, 5)
    print("for comparison, in-process replay (read + fold + standings, word list loaded):")
    print(_line("wall", inside, seconds))
    met = statistics.median(walls) < TARGET_S
    verdict = "meets" if met else "misses"
    print(
        f"{variant}: median wall {statistics.median(walls):.3f} s {verdict} the target of"
        f" {TARGET_S} s"
    )
    return met


if __name__ == "__main__":
    sys.exit(main())
