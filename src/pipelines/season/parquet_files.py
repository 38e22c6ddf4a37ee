"""Writing the export's Parquet files: fixed writer options, the declared schema with the
export's metadata, one file per table and season, its rows and SHA-256 noted.

    write_table(folder, table, season, rows, meta) -> ExportedFile
        A table's rows (pyarrow tables of its schema) as `table/season=S/part-0.parquet`.
    write_events(store, head, folder, seasons_of, seasons, meta) -> list[ExportedFile]
        The ledger up to the head, flattened, each event in its stream's season.

Every file carries in its key-value metadata the export format, schema version, ledger head
(`arbitru.ledger_seq`, `arbitru.ledger_hash`), partitioning, table and season.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

import pyarrow as pa
import pyarrow.parquet as pq

from ledger import EventStore, Head
from pipelines.season import parquet_schemas as schemas

WRITER_OPTIONS = MappingProxyType(
    {
        "version": "2.6",
        "compression": "zstd",
        "compression_level": 3,
        "use_dictionary": True,
        "write_statistics": True,
        "data_page_size": 1 << 20,
        "store_schema": True,
    }
)
"""How every file is written: fixed, so that the same rows give the same bytes."""

ROW_GROUP_ROWS = 1 << 17
"""Rows per row group (the events table is written in chunks of this size)."""

FORMAT = "arbitru-parquet-export"


@dataclass(frozen=True)
class ExportedFile:
    """One Parquet file of the export, as MANIFEST.json lists it."""

    path: str
    table: str
    season: str | None
    rows: int
    bytes: int
    sha256: str


def _partition(season: str | None) -> str:
    value = schemas.NULL_PARTITION if season is None else quote(season, safe="")
    return f"{schemas.PARTITION_COLUMN}={value}"


def file_metadata(head: Head) -> dict[bytes, bytes]:
    """What every file says of the export it belongs to (its own table and season added)."""
    partitioning = {f.name: str(f.type) for f in schemas.PARTITIONING}
    return {
        b"arbitru.format": FORMAT.encode(),
        b"arbitru.schema_version": str(schemas.SCHEMA_VERSION).encode(),
        b"arbitru.ledger_seq": str(head.seq).encode(),
        b"arbitru.ledger_hash": head.hash.encode(),
        b"arbitru.partitioning": json.dumps(partitioning, sort_keys=True).encode(),
    }


@dataclass
class _Part:
    """One file being written, a chunk at a time."""

    relative: str
    path: Path
    writer: pq.ParquetWriter
    rows: int = 0


def _open(folder: Path, table: str, season: str | None, meta: dict[bytes, bytes]) -> _Part:
    relative = f"{table}/{_partition(season)}/part-0.parquet"
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    own = {**meta, b"arbitru.table": table.encode(), b"arbitru.season": (season or "").encode()}
    schema = schemas.TABLES[table].with_metadata(own)
    return _Part(relative, path, pq.ParquetWriter(path, schema, **WRITER_OPTIONS))


def _close(part: _Part, table: str, season: str | None) -> ExportedFile:
    part.writer.close()
    digest = hashlib.sha256()
    with part.path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    size = part.path.stat().st_size
    return ExportedFile(part.relative, table, season, part.rows, size, digest.hexdigest())


def write_table(
    folder: Path, table: str, season: str | None, chunks: Iterable[pa.Table], meta: dict
) -> ExportedFile:
    part = _open(folder, table, season, meta)
    for chunk in chunks:
        part.writer.write_table(chunk, row_group_size=ROW_GROUP_ROWS)
        part.rows += chunk.num_rows
    return _close(part, table, season)


_EVENT_COLUMNS = [f.name for f in schemas.EVENTS]


def _event_chunk(rows: list[tuple[Any, ...]]) -> pa.Table:
    """Stored rows (`EventStore.iter_rows`) as a chunk of the events table."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * 11
    seq, event_id, stream, version, type_, schema, payload, meta, recorded, prev, hash_ = columns
    recorded_text = pa.array(recorded, type=pa.string())
    arrays = {
        "seq": pa.array(seq, type=pa.int64()),
        "event_id": pa.array([str(e) for e in event_id], type=pa.string()),
        "stream": pa.array(stream, type=pa.string()),
        "version": pa.array(version, type=pa.int32()),
        "type": pa.array(type_, type=pa.string()),
        "schema": pa.array(schema, type=pa.int32()),
        "payload": pa.array(payload, type=pa.binary()).cast(pa.string()),
        "meta": pa.array(meta, type=pa.binary()).cast(pa.string()),
        "recorded_at": recorded_text.cast(schemas.EVENTS.field("recorded_at").type),
        "recorded_at_text": recorded_text,
        "prev_hash": pa.array(prev, type=pa.string()),
        "hash": pa.array(hash_, type=pa.string()),
    }
    return pa.Table.from_arrays([arrays[c] for c in _EVENT_COLUMNS], schema=schemas.EVENTS)


def write_events(
    store: EventStore,
    head: Head,
    folder: Path,
    streams: dict[str, str | None],
    seasons: Sequence[str | None],
    meta: dict[bytes, bytes],
) -> list[ExportedFile]:
    """The ledger up to the head, in `seq` order, each event in its stream's season (a
    stream of no season, in the null one), read and written a chunk at a time."""
    parts = {season: _open(folder, "events", season, meta) for season in seasons}
    buffers: dict[str | None, list[tuple[Any, ...]]] = {season: [] for season in seasons}

    def flush(season: str | None) -> None:
        part, buffer = parts[season], buffers[season]
        part.writer.write_table(_event_chunk(buffer), row_group_size=ROW_GROUP_ROWS)
        part.rows += len(buffer)
        buffer.clear()

    for row in _up_to(store.iter_rows(), head):
        season = streams.get(row[2])
        buffers[season].append(row)
        if len(buffers[season]) == ROW_GROUP_ROWS:
            flush(season)
    files = []
    for season in seasons:
        if buffers[season]:
            flush(season)
        files.append(_close(parts[season], "events", season))
    return files


def _up_to(rows: Iterator[tuple[Any, ...]], head: Head) -> Iterator[tuple[Any, ...]]:
    for row in rows:
        if row[0] > head.seq:
            return
        yield row
