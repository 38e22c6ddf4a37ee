"""The Parquet export's time against pyarrow writing the same rows without Arbitru.

    python benchmarks/export_bench.py [--db URL] [--copies N] [--runs R] [--rebuild]

Without --db, builds once (then reuses, from the temporary folder) a SQLite ledger holding N
copies of the shipped sample season, each copy its own tournaments and games (ids suffixed,
spread over five seasons), and recomputes its read models (`pipelines.season.recompute`). With --db,
the ledger there is used as it is (`season_bench.py` passes its own); its read models are
brought up to date first, since an export from stale ones replays every game.

Then, R times each, median shown:
- **arbitru**: `export_parquet` in-process, as `arbitru export` runs it: rows read from the
  read models and the events table, sorted, partitioned by season, written with the fixed
  options, hashed, MANIFEST.json;
- **raw pyarrow**: the same rows fetched with plain SQL through the same database driver,
  turned into Arrow tables with inferred types and written by `pyarrow.parquet.write_table`
  with its defaults, one file per table: no partitions, no ordering, no hashes, no manifest.

The ratio is arbitru / raw; the target (issue 10) is at most 1.5 on this 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from importlib import resources
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ledger import EventStore, NewEvent
from pipelines.season import readmodels as rm
from pipelines.season.export import export_parquet
from pipelines.season.recompute import Selection, plan, recompute

TARGET_RATIO = 1.5
LAYOUT = 2
"""Bump when the cached ledger must be rebuilt (the sample season or the copying changed)."""
SEASONS = 5


def _copied(event: dict[str, Any], copy: int) -> tuple[str, NewEvent]:
    """One sample event as it appears in copy `copy`: ids suffixed, season shifted, a new
    event id derived from the old one (the same on every build)."""

    def rename(value: str) -> str:
        return f"{value}-c{copy}"

    kind, name = event["stream"].split("/", 1)
    payload = dict(event["payload"])
    for key in ("game_id", "tournament_id"):
        if isinstance(payload.get(key), str):
            payload[key] = rename(payload[key])
    if event["type"] == "TournamentCreated":
        payload["season"] = str(int(payload["season"]) - copy % SEASONS)
    event_id = str(uuid.uuid5(uuid.UUID(event["event_id"]), str(copy)))
    new = NewEvent(
        event["type"], payload, event["meta"], event_id, event["schema"], event["recorded_at"]
    )
    return f"{kind}/{rename(name)}", new


def build(path: Path, copies: int) -> None:
    """A ledger of `copies` copies of the sample season at `path`, read models recomputed."""
    text = resources.files("pipelines.data").joinpath("sample-season.jsonl").read_text("utf-8")
    sample = [json.loads(line) for line in text.splitlines() if line.strip()]
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    url = f"sqlite:///{partial}"
    with EventStore(url) as store:
        for copy in range(copies):
            with store.writer() as writer:
                for event in sample:
                    stream, new = _copied(event, copy)
                    writer.append(stream, [new])
        recompute(store, plan(store, Selection()))
    partial.replace(path)


def _median(action: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _raw(store: EventStore, folder: Path) -> int:
    """The same rows, fetched with plain SQL and written by pyarrow alone; rows written."""
    tables = [t.name for t in rm.ROW_TABLES.values()] + ["events"]
    written = 0
    with store.engine.connect() as connection:
        for name in tables:
            cursor = connection.exec_driver_sql(f"SELECT * FROM {name}")
            names = list(cursor.keys())
            rows = cursor.fetchall()
            columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
            table = pa.table({n: pa.array(list(c)) for n, c in zip(names, columns, strict=True)})
            pq.write_table(table, folder / f"{name}.parquet")
            written += table.num_rows
    return written


def export_figures(url: str, runs: int = 3) -> dict[str, float]:
    """Times of the export and of raw pyarrow on the ledger at `url` (read models brought up
    to date first), their ratio, and the rows written."""
    with EventStore(url) as store:
        recompute(store, plan(store, Selection(), follow=True))
        work = Path(tempfile.mkdtemp(prefix="arbitru-export-bench-"))
        try:
            count = 0

            def ours() -> None:
                nonlocal count
                shutil.rmtree(work / "arbitru", ignore_errors=True)
                done = export_parquet(store, work / "arbitru")
                assert done.from_read_models, "the read models are not fresh"
                count = sum(f.rows for f in done.files)

            def theirs() -> None:
                shutil.rmtree(work / "raw", ignore_errors=True)
                (work / "raw").mkdir()
                _raw(store, work / "raw")

            arbitru = _median(ours, runs)
            raw = _median(theirs, runs)
            events = store.head().seq
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return {
        "events": events,
        "rows": count,
        "arbitru_s": arbitru,
        "raw_pyarrow_s": raw,
        "ratio": arbitru / raw,
    }


def report(figures: dict[str, float]) -> None:
    ratio = figures["ratio"]
    verdict = "within" if ratio <= TARGET_RATIO else "OVER"
    print(
        f"export: {figures['events']:,} events, {figures['rows']:,} rows written\n"
        f"  arbitru export     {figures['arbitru_s']:.2f} s "
        f"({figures['rows'] / figures['arbitru_s']:,.0f} rows/s)\n"
        f"  raw pyarrow        {figures['raw_pyarrow_s']:.2f} s "
        f"({figures['rows'] / figures['raw_pyarrow_s']:,.0f} rows/s)\n"
        f"  ratio              {ratio:.2f}x ({verdict} the {TARGET_RATIO}x target)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="an existing ledger to export (default: build one)")
    parser.add_argument("--copies", type=int, default=25, help="copies of the sample season")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true", help="build the cached ledger again")
    args = parser.parse_args()
    url = args.db
    if url is None:
        folder = Path(tempfile.gettempdir()) / "arbitru-export-bench"
        folder.mkdir(exist_ok=True)
        path = folder / f"v{LAYOUT}-c{args.copies}.db"
        if args.rebuild or not path.exists():
            started = time.perf_counter()
            build(path, args.copies)
            print(f"built {path} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        url = f"sqlite:///{path}"
    report(export_figures(url, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
