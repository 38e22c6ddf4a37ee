"""The declared Arrow schemas of the Parquet export, one per table, and its partitioning.

Every table is partitioned by `season` in the hive style (`player_rounds/season=2026/...`):
the season is a directory, not a column of the files, so readers must be told its type; it is
a string (seasons are named, `2026` or `2026-2027`), declared by `PARTITIONING`. A row whose
game belongs to no season lands in `season=__HIVE_DEFAULT_PARTITION__`, which pyarrow, DuckDB,
Spark and Trino all read back as null.

The types are chosen once, here, rather than inferred from the rows: counts and round numbers
are int32, running totals and ledger positions int64, percentages float64, times UTC
timestamps in microseconds. `SCHEMA_VERSION` goes up whenever a column is added, removed or
retyped, so that a reader can tell which layout a MANIFEST.json describes.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import pyarrow as pa

SCHEMA_VERSION = 2
"""The layout of the export's tables and MANIFEST.json (2: `standings.ranking_points` to the
hundredth, `standings.warnings` added)."""

PARTITION_COLUMN = "season"
PARTITIONING = pa.schema([pa.field(PARTITION_COLUMN, pa.string())])
"""The hive partition key of every table and its type."""

NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
"""The directory value of a null season (the hive convention)."""

_TEXT = pa.string()
_COUNT = pa.int32()
_POSITION = pa.int64()
_UTC = pa.timestamp("us", tz="UTC")


def _schema(*columns: tuple[str, pa.DataType, bool]) -> pa.Schema:
    return pa.schema([pa.field(name, kind, nullable=nullable) for name, kind, nullable in columns])


PLAYER_ROUNDS = _schema(
    ("tournament_id", _TEXT, True),
    ("game_id", _TEXT, False),
    ("variant", _TEXT, False),
    ("round", _COUNT, False),
    ("player_id", _TEXT, False),
    ("submission", _TEXT, True),
    ("move", _TEXT, True),
    ("valid", pa.bool_(), False),
    ("reason", _TEXT, True),
    ("points", _COUNT, False),
    ("top_score", _COUNT, True),
    ("solo", pa.bool_(), False),
    ("bonus", _COUNT, False),
    ("penalty", _COUNT, False),
    ("score", _COUNT, False),
    ("pct_of_top", pa.float64(), True),
    ("cumulative", _POSITION, False),
    ("closed", pa.bool_(), False),
    ("seq", _POSITION, True),
)
"""One row per player per round: what they wrote, how it was judged, what it scored."""

ROUNDS = _schema(
    ("tournament_id", _TEXT, True),
    ("game_id", _TEXT, False),
    ("variant", _TEXT, False),
    ("round", _COUNT, False),
    ("rack", _TEXT, False),
    ("top_move", _TEXT, True),
    ("top_score", _COUNT, True),
    ("top_source", _TEXT, True),
    ("computer_top_score", _COUNT, True),
    ("found_top", _COUNT, False),
    ("solo_player_id", _TEXT, True),
    ("closed", pa.bool_(), False),
)
"""One row per round: the rack, the top and how many players found it."""

STANDINGS = _schema(
    ("level", _TEXT, False),
    ("tournament_id", _TEXT, True),
    ("game_id", _TEXT, True),
    ("variant", _TEXT, True),
    ("rank", _COUNT, False),
    ("player_id", _TEXT, False),
    ("name", _TEXT, True),
    ("total", _POSITION, False),
    ("pct_of_top", pa.float64(), True),
    ("solos", _COUNT, False),
    ("rounds", _COUNT, False),
    ("games", _COUNT, False),
    ("ranking_points", pa.float64(), True),
    ("warnings", _COUNT, False),
)
"""One row per player per game (`level` = `game`) and per tournament (`tournament`, where
`game_id` and `variant` are null and `ranking_points` is the federation's ranking system applied:
to the hundredth, tied players sharing the average; null when the event's value has no scale);
`warnings` counts the arbiter's warnings that stand (summed over a tournament's games)."""

EVENTS = _schema(
    ("seq", _POSITION, False),
    ("event_id", _TEXT, False),
    ("stream", _TEXT, False),
    ("version", _COUNT, False),
    ("type", _TEXT, False),
    ("schema", _COUNT, False),
    ("payload", _TEXT, False),
    ("meta", _TEXT, False),
    ("recorded_at", _UTC, False),
    ("recorded_at_text", _TEXT, False),
    ("prev_hash", _TEXT, False),
    ("hash", _TEXT, False),
)
"""The ledger itself, one row per event: `payload` and `meta` are the canonical JSON that was
hashed and `recorded_at_text` the exact text, so that an auditor can recompute every hash."""

TABLES: Mapping[str, pa.Schema] = MappingProxyType(
    {
        "player_rounds": PLAYER_ROUNDS,
        "rounds": ROUNDS,
        "standings": STANDINGS,
        "events": EVENTS,
    }
)
"""Every table of the export, in the order they are written and listed."""


def describe(schema: pa.Schema) -> list[dict[str, object]]:
    """A schema as MANIFEST.json lists it: each column's name, Arrow type and nullability."""
    return [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in schema]


__all__ = [
    "EVENTS",
    "NULL_PARTITION",
    "PARTITIONING",
    "PARTITION_COLUMN",
    "PLAYER_ROUNDS",
    "ROUNDS",
    "SCHEMA_VERSION",
    "STANDINGS",
    "TABLES",
    "describe",
]
