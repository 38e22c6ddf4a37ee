"""Folding a whole game from scratch, as a recompute worker does, for each sample game.

    python benchmarks/fold_bench.py [--runs R] [--profile]

For each sample game of fixtures/games (the 14-player duplicate, duplicat-completiv and
anticipation games), the game stream's lines are read as an import reads them and decoded as
`pipelines.games.service.fold` decodes them, once; then the game is folded R times from
scratch with the functions that `fold` calls (`initial_state(resolve_context)`, then
`evolve` for every event): every submission judged, every round settled, each run with a
fresh context (no judgement carried over from the run before, as for a game a worker has
not folded yet), the word list loaded once beforehand, as a worker has it.

It prints, per game, events per CPU-second over all runs, the median and 95th percentile wall
time of one fold, and its median and fastest CPU time (other processes sharing the machine
disturb CPU time much less than wall time, and the fastest fold least). `--profile` prints
the cProfile of the folds instead.

It has no target of its own: the target (issue 10) is `recompute`'s, at least 20,000 events/s
on a 1,000,000-event season with the 2 worker processes of this 2-core machine
(`season_bench.py`, the same duplicate game replicated). The fold is the largest part of a
recompute's CPU time; this script shows that part alone, so that a change to judging or
settling can be measured without building a season.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from pathlib import Path

from tail import p95  # benchmarks/tail.py

from engine.games.events import Recorded
from engine.games.replay import evolve, initial_state
from ledger.jsonl import exported_event, numbered_lines, parse_line
from pipelines.games import service as game_service
from pipelines.games.contexts import forget_contexts, resolve_context

GAMES = Path(__file__).resolve().parents[1] / "fixtures" / "games"
SAMPLES = {
    "duplicate": ("duplicate-game.jsonl", "game/cb26-p1"),
    "completiv": ("completiv-game.jsonl", "game/cb26-c1"),
    "anticipation": ("anticipation-game.jsonl", "game/ant26-p1"),
}


def decoded(name: str, stream: str) -> tuple[Recorded, ...]:
    """The game stream of a sample file, decoded as `game_service.fold` decodes it."""
    with (GAMES / name).open("rb") as lines:
        exported = [exported_event(parse_line(raw, n), n) for n, raw in numbered_lines(lines)]
    return tuple(game_service._decoded(e for e in exported if e.stream == stream))


def fold(history: tuple[Recorded, ...]) -> None:
    """One fold from scratch: the process's contexts (and what they judged) forgotten."""
    forget_contexts()
    state = initial_state(resolve_context)
    for recorded in history:
        state = evolve(state, recorded)
    assert state.context is not None and state.ended


def bench(history: tuple[Recorded, ...], runs: int) -> dict[str, float]:
    walls, cpus = [], []
    for _ in range(runs):
        cpu, wall = time.process_time(), time.perf_counter()
        fold(history)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {
        "events_per_cpu_s": len(history) * runs / sum(cpus),
        "median_ms": statistics.median(walls) * 1000,
        "p95_ms": p95(walls) * 1000,
        "cpu_median_ms": statistics.median(cpus) * 1000,
        "cpu_fastest_ms": min(cpus) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    games = {variant: decoded(*sample) for variant, sample in SAMPLES.items()}
    for history in games.values():
        fold(history)  # the word list and the rulesets loaded, as in a worker that has started
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for history in games.values():
            for _ in range(args.runs):
                fold(history)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(45)
        return
    for variant, history in games.items():
        f = bench(history, args.runs)
        print(
            f"{variant}: {len(history)} events, {args.runs} folds: "
            f"{f['events_per_cpu_s']:,.0f} events per CPU-second; one fold median "
            f"{f['median_ms']:.1f} ms, p95 {f['p95_ms']:.1f} ms (CPU median "
            f"{f['cpu_median_ms']:.1f} ms, fastest {f['cpu_fastest_ms']:.1f} ms)"
        )


if __name__ == "__main__":
    main()
