"""The export's tables as CSV, for those who open them in a spreadsheet (`export --csv`).

    write_csv(folder, parquet_files) -> list[ExportedFile]
        Each Parquet file of the export read back and written as `csv/TABLE/season=S/part-0.csv`:
        the same rows in the same order, the same columns under a header.

The CSV tree sits beside the Parquet one, not inside it, so that a reader given a table's
folder (`pyarrow.dataset`, Spark) finds Parquet files only. The bytes depend on the rows
alone: UTF-8 without a byte-order mark, `,` between fields, `\\n` after each line, the header
of column names, text always in double quotes (a quote doubled), a null as an empty field
without quotes (so that `""`, the empty text, stays another value), true and false, integers
in decimal, floats as Python writes them shortest, times in UTC as the ledger writes them
(`2026-11-28T09:30:00.000000Z`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from itertools import chain
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines.season.parquet_files import ROW_GROUP_ROWS, ExportedFile

FOLDER = "csv"
"""Where the CSV tree starts, inside the export's folder."""

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
"""How a time (always UTC, in microseconds) is written: as the ledger writes `recorded_at`,
`2026-11-28T09:30:00.000000Z` (Arrow writes the seconds with their fraction)."""

DIALECT = {
    "encoding": "utf-8",
    "delimiter": ",",
    "quote": '"',
    "line_end": "\n",
    "header": True,
    "null": "unquoted empty field",
    "text": "always quoted",
    "timestamp": "UTC, ISO 8601 to the microsecond: 2026-11-28T09:30:00.000000Z",
}
"""How the files are written, as MANIFEST.json says it."""


def _text(column: pa.Array) -> pa.Array:
    """A column as its CSV fields, a string each (nulls still null)."""
    kind = column.type
    if pa.types.is_string(kind):
        doubled = pc.replace_substring(column, '"', '""')
        return pc.binary_join_element_wise('"', doubled, '"', "")
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind):
        return pc.cast(column, pa.string())
    if pa.types.is_timestamp(kind):  # UTC: its wall clock, with no time zone to look up
        wall = pc.cast(column, pa.timestamp(kind.unit))
        return pc.strftime(wall, format=TIME_FORMAT)
    if pa.types.is_floating(kind):
        return pa.array([None if v is None else repr(v) for v in column.to_pylist()], pa.string())
    raise TypeError(f"no CSV form for a column of type {kind}")


def _lines(batch: pa.RecordBatch) -> bytes:
    """A batch's rows as CSV lines: each field as `_text` writes it, a null as nothing."""
    fields = [pc.fill_null(_text(column), "") for column in batch.columns]
    lines = pc.binary_join_element_wise(pc.binary_join_element_wise(*fields, ","), "", "\n")
    every = pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()), lines.cast(pa.binary()))
    return pc.binary_join(every, b"")[0].as_py()


def _write_one(folder: Path, parquet: ExportedFile) -> ExportedFile:
    relative = f"{FOLDER}/{parquet.path.removesuffix('.parquet')}.csv"
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    source = pq.ParquetFile(folder / parquet.path)
    header = (",".join(source.schema_arrow.names) + "\n").encode("utf-8")
    batches = source.iter_batches(batch_size=ROW_GROUP_ROWS)
    digest = hashlib.sha256()
    with path.open("wb") as handle:
        for data in chain([header], map(_lines, batches)):
            digest.update(data)
            handle.write(data)
    rows, size = source.metadata.num_rows, path.stat().st_size
    return ExportedFile(relative, parquet.table, parquet.season, rows, size, digest.hexdigest())


def write_csv(folder: Path, parquet_files: Sequence[ExportedFile]) -> list[ExportedFile]:
    """One CSV file for each of `parquet_files` (already written under `folder`), in their
    order."""
    return [_write_one(folder, parquet) for parquet in parquet_files]
