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
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from pipelines.parquet_files import ROW_GROUP_ROWS, ExportedFile

FOLDER = "csv"
"""Where the CSV tree starts, inside the export's folder."""

DIALECT = {
    "encoding": "utf-8",
    "delimiter": ",",
    "quote": '"',
    "line_end": "\n",
    "header": True,
    "null": "unquoted empty field",
    "text": "always quoted",
    "timestamp": "%Y-%m-%dT%H:%M:%S.%fZ (UTC)",
}
"""How the files are written, as MANIFEST.json says it."""


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return repr(value)


def _write_one(folder: Path, parquet: ExportedFile) -> ExportedFile:
    relative = f"{FOLDER}/{parquet.path.removesuffix('.parquet')}.csv"
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    source = pq.ParquetFile(folder / parquet.path)
    digest = hashlib.sha256()
    rows = 0
    with path.open("wb") as handle:

        def put(line: str) -> None:
            data = line.encode("utf-8")
            digest.update(data)
            handle.write(data)

        put(",".join(source.schema_arrow.names) + "\n")
        for batch in source.iter_batches(batch_size=ROW_GROUP_ROWS):
            columns = [column.to_pylist() for column in batch.columns]
            put("".join(",".join(map(_cell, row)) + "\n" for row in zip(*columns, strict=True)))
            rows += batch.num_rows
    size = path.stat().st_size
    return ExportedFile(relative, parquet.table, parquet.season, rows, size, digest.hexdigest())


def write_csv(folder: Path, parquet_files: Sequence[ExportedFile]) -> list[ExportedFile]:
    """One CSV file for each of `parquet_files` (already written under `folder`), in their
    order."""
    return [_write_one(folder, parquet) for parquet in parquet_files]
