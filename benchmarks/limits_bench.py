"""Checking every event of the sample season against the limits of what may be recorded, as
`ledger import` does for each line (`pipelines.games.records.check_payload`: the limits, then
the engine's decoder) and the service layer for each event it appends.

    python benchmarks/limits_bench.py [--runs R]

It prints the median and 95th percentile wall time of one pass over the 3,777 events, for the
limits alone and for the whole payload check, and events per second of the whole check. It has
no target of its own: the limits must stay a small part of an import (issue 20 item 1).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tail import p95  # benchmarks/tail.py

from ledger.jsonl import numbered_lines, parse_line
from pipelines.games.limits import event_problem
from pipelines.games.records import check_payload

SEASON = Path(__file__).resolve().parents[1] / "fixtures" / "season" / "sample-season.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    with SEASON.open("rb") as source:
        events = [parse_line(raw, number) for number, raw in numbered_lines(source)]
    passes = {
        "limits alone": lambda e: event_problem(e["payload"], e.get("meta") or {}),
        "payload check": lambda e: check_payload(
            e["type"], e.get("schema", 1), e["payload"], e.get("meta") or {}
        ),
    }
    for name, check in passes.items():
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            problems = [p for p in map(check, events) if p]
            times.append(time.perf_counter() - started)
        assert not problems, problems[:3]
        median = statistics.median(times)
        print(
            f"{name}: {len(events):,} events, median {median * 1e3:.1f} ms, "
            f"p95 {p95(times) * 1e3:.1f} ms, {len(events) / median:,.0f} events/s"
        )


if __name__ == "__main__":
    main()
