"""What `arbitru export --csv` adds to the export's time: the same ledger exported with and
without CSV files, R times each, median and 95th percentile printed.

    python benchmarks/csv_bench.py [--db URL] [--copies N] [--runs R]

Without --db, builds once (then reuses, from the temporary folder) the ledger of N copies of
the shipped sample season that `export_bench.py` builds, read models recomputed, so that the
export reads its rows from them, as it does after `arbitru recompute`.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from export_bench import build
from tail import p95

from ledger import EventStore
from pipelines.season.export import export_parquet


def timings(url: str, runs: int) -> dict[str, list[float]]:
    """Seconds of each export, without and with CSV, taken in turn; the CSV rows and bytes."""
    found: dict[str, list[float]] = {"parquet": [], "parquet + csv": []}
    with EventStore(url, read_only=True) as store:
        for _ in range(runs):
            for label, with_csv in (("parquet", False), ("parquet + csv", True)):
                scratch = Path(tempfile.mkdtemp(prefix="arbitru-csv-bench-"))
                try:
                    started = time.perf_counter()
                    written = export_parquet(store, scratch / "export", with_csv=with_csv)
                    found[label].append(time.perf_counter() - started)
                finally:
                    shutil.rmtree(scratch)
        rows = sum(f.rows for f in written.csv_files)
        size = sum(f.bytes for f in written.csv_files)
        print(f"{store.head().seq:,} events; CSV: {rows:,} rows, {size / 1e6:.1f} MB")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="an existing ledger to export (default: build one)")
    parser.add_argument("--copies", type=int, default=20, help="copies of the sample season")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    url = args.db
    if url is None:
        folder = Path(tempfile.gettempdir()) / "arbitru-csv-bench"
        folder.mkdir(exist_ok=True)
        path = folder / f"c{args.copies}.db"
        if not path.exists():
            build(path, args.copies)
        url = f"sqlite:///{path}"
    found = timings(url, args.runs)
    for label, values in found.items():
        print(f"  {label:14s} median {statistics.median(values):.2f} s, p95 {p95(values):.2f} s")
    added = statistics.median(found["parquet + csv"]) - statistics.median(found["parquet"])
    print(f"  --csv adds     {added:.2f} s (medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
