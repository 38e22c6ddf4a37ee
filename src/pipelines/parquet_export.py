"""`arbitru export`: a ledger's seasons as Parquet tables, reproducible to the byte.

    export_parquet(store, out, overwrite=False) -> Export
        Writes `player_rounds`, `rounds`, `standings` and `events` under `out`, each
        partitioned by season in the hive style (`rounds/season=2026/part-0.parquet`), and
        MANIFEST.json; returns what was written.

The export is taken at one ledger head (`seq`, `hash`), read first: every event after it is
left out, so that the tables, the manifest and each file's metadata describe the same ledger.
The rows come from the games folded from their events (`pipelines.season_rows`, the source the
read models share) and the tournaments from their streams (`pipelines.tournaments`).

The same ledger gives the same bytes: rows in a fixed order (seasons by name, games by
tournament then id, rounds and players as the game lists them, events by `seq`), fixed writer
options, fixed row groups, and nothing of the run itself (no time, no host, no path) in any
file. A different pyarrow may encode differently, so MANIFEST.json names the writer.

Files are published whole or not at all (`pipelines.export_dir`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

import pyarrow as pa
import pyarrow.parquet as pq
import sqlalchemy as sa

from ledger import EventStore, Head
from ledger.checkpoints import list_checkpoints
from ledger.database import read_transaction
from ledger.schema import events as events_table
from ledger.signing import Checkpoint
from pipelines import parquet_schemas as schemas
from pipelines.export_dir import MARKER, export_target, staged
from pipelines.game_service import fold
from pipelines.season_rows import GameRows, game_rows
from pipelines.tournaments import PointsTable, Tournament, fold_tournament, tournament_standings

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


class ExportError(Exception):
    """The export cannot be taken; nothing was written. The message says what to do."""


@dataclass(frozen=True)
class ExportedFile:
    """One Parquet file of the export, as MANIFEST.json lists it."""

    path: str
    table: str
    season: str | None
    rows: int
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Export:
    """What an export wrote: where, at which ledger head, its files and its manifest."""

    out: Path
    head: Head
    files: tuple[ExportedFile, ...]
    manifest: dict[str, Any]

    def rows(self, table: str) -> int:
        return sum(f.rows for f in self.files if f.table == table)


@dataclass(frozen=True)
class _Game:
    """A game stream and where it belongs: its tournament and that tournament's season."""

    game_id: str
    tournament_id: str | None
    season: str | None


def export_parquet(
    store: EventStore, out: Path, *, overwrite: bool = False, points: PointsTable | None = None
) -> Export:
    """The ledger's seasons written as Parquet under `out` (see the module docstring).
    `OutputRefused` when `out` may not be written (not empty, not an earlier export),
    `ExportError` for an empty ledger, `Interrupted` for a signal; nothing is left behind.
    `points` converts tournament places into ranking points (the shipped table by default)."""
    target = export_target(out, overwrite=overwrite)
    head = store.head()
    if head.seq == 0:
        raise ExportError(
            "the ledger is empty: there is nothing to export; import events first "
            "(`arbitru ledger import FILE`)"
        )
    with staged(out, target) as folder:
        files, manifest = _write(store, head, folder, points or PointsTable.load())
    return Export(target, head, files, manifest)


def _write(
    store: EventStore, head: Head, folder: Path, points: PointsTable
) -> tuple[tuple[ExportedFile, ...], dict[str, Any]]:
    every = _streams(store, head)
    tournaments = _tournaments(store, head, [s for s in every if s.startswith("tournament/")])
    games = _games(store, head, [s for s in every if s.startswith("game/")], tournaments)
    seasons_of = {f"game/{g.game_id}": g.season for g in games}
    seasons_of.update({f"tournament/{t.tournament_id}": t.season for t in tournaments})
    named = sorted({season for season in seasons_of.values() if season is not None})
    unseasoned = any(seasons_of.get(stream) is None for stream in every)
    seasons: list[str | None] = [*named, *([None] if unseasoned else [])]
    meta = _file_metadata(head)
    files: list[ExportedFile] = []
    contexts: dict[str, dict[str, Any]] = {}
    for season in seasons:
        rows = [_rows(store, head, game, contexts) for game in games if game.season == season]
        in_season = [t for t in tournaments if t.season == season]
        tables = {
            "player_rounds": _table(
                schemas.PLAYER_ROUNDS, [r for g in rows for r in g.player_rounds]
            ),
            "rounds": _table(schemas.ROUNDS, [r for g in rows for r in g.rounds]),
            "standings": pa.Table.from_pylist(
                _standings(rows, in_season, points), schema=schemas.STANDINGS
            ),
        }
        for name, table in tables.items():
            files.append(_write_table(folder, name, season, [table], meta))
    files += _write_events(store, head, folder, seasons_of, seasons, meta)
    files.sort(key=lambda f: (list(schemas.TABLES).index(f.table), f.path))
    manifest = _manifest(store, head, files, games, tournaments, contexts, points)
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    (folder / MARKER).write_text(text, encoding="utf-8")
    return tuple(files), manifest


def _streams(store: EventStore, head: Head) -> list[str]:
    """Every stream with an event up to the head, by name."""
    query = (
        sa.select(events_table.c.stream)
        .where(events_table.c.seq <= head.seq)
        .group_by(events_table.c.stream)
        .order_by(events_table.c.stream)
    )
    with read_transaction(store.engine) as connection:
        return [row.stream for row in connection.execute(query)]


def _tournaments(store: EventStore, head: Head, streams: Sequence[str]) -> list[Tournament]:
    """Every tournament as recorded up to the head, by id."""
    return [
        fold_tournament(
            (e.type, e.schema, e.payload) for e in store.read_stream(s, up_to_seq=head.seq)
        )
        for s in streams
    ]


def _games(
    store: EventStore, head: Head, streams: Sequence[str], tournaments: Sequence[Tournament]
) -> list[_Game]:
    """Every game stream, with the tournament its GameCreated names (or that added it) and
    that tournament's season; ordered by tournament, then id."""
    query = sa.select(events_table.c.stream, events_table.c.payload).where(
        events_table.c.seq <= head.seq, events_table.c.type == "GameCreated"
    )
    with read_transaction(store.engine) as connection:
        named = {row.stream: row.payload.get("tournament_id") for row in connection.execute(query)}
    added = {g: t.tournament_id for t in tournaments for g in t.games}
    season = {t.tournament_id: t.season for t in tournaments}
    games = []
    for stream in streams:
        game_id = stream.split("/", 1)[1]
        tournament = named.get(stream) or added.get(game_id)
        tournament = tournament if isinstance(tournament, str) else None
        games.append(_Game(game_id, tournament, season.get(tournament) if tournament else None))
    games.sort(key=lambda g: (g.tournament_id or "", g.game_id))
    return games


def _rows(
    store: EventStore, head: Head, game: _Game, contexts: dict[str, dict[str, Any]]
) -> GameRows:
    """A game's rows, folded from its events up to the head; what it was judged with is
    noted in `contexts` for the manifest."""
    _history, state = fold(store.read_stream(f"game/{game.game_id}", up_to_seq=head.seq))
    if state.context is not None and state.created is not None:
        context = state.context
        contexts[game.game_id] = {
            "variant": state.created.variant,
            "ruleset": context.ruleset.name,
            "ruleset_sha256": context.ruleset.sha256,
            "dictionary": context.dictionary.name,
            "dictionary_sha256": context.dictionary.sha256,
        }
    return game_rows(state, game.season, game.tournament_id)


def _table(schema: pa.Schema, rows: Sequence[Any]) -> pa.Table:
    """Row objects (whose attributes are the schema's columns) as a table of that schema."""
    arrays = [pa.array([getattr(r, f.name) for r in rows], type=f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def _standings(
    rows: Sequence[GameRows], tournaments: Sequence[Tournament], table: PointsTable
) -> list[dict]:
    """Game standings as the games give them, then each tournament's, with the share of the
    tops of its games and the federation's ranking points for the place."""
    out: list[dict[str, Any]] = []
    for game in rows:
        for s in game.standings:
            out.append({**asdict(s), "level": "game", "games": 1, "ranking_points": None})
    by_game = {g.standings[0].game_id: g for g in rows if g.standings}
    for tournament in tournaments:
        played = [by_game[g] for g in tournament.games if g in by_game]
        tops = sum(r.top_score or 0 for g in played for r in g.rounds)
        rounds = {}
        for g in played:
            for s in g.standings:
                rounds[s.player_id] = rounds.get(s.player_id, 0) + s.rounds
        places = tournament_standings(
            tournament, {g.standings[0].game_id: g.standings for g in played}
        )
        for p in places:
            out.append(
                {
                    "level": "tournament", "tournament_id": tournament.tournament_id,
                    "game_id": None, "variant": None, "rank": p.rank,
                    "player_id": p.player_id, "name": p.name, "total": p.total,
                    "pct_of_top": round(100 * p.total / tops, 2) if tops else None,
                    "solos": p.solos, "rounds": rounds.get(p.player_id, 0), "games": p.games,
                    "ranking_points": table.points_for(p.rank) if p.games else None,
                }
            )  # fmt: skip
    return out


def _partition(season: str | None) -> str:
    value = schemas.NULL_PARTITION if season is None else quote(season, safe="")
    return f"{schemas.PARTITION_COLUMN}={value}"


def _file_metadata(head: Head) -> dict[bytes, bytes]:
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


def _write_table(
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


def _write_events(
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


def _checkpoint(store: EventStore, head: Head) -> Checkpoint | None:
    """The latest signed checkpoint of a tree no larger than the exported ledger."""
    covered = [c for c in list_checkpoints(store) if c.tree_size <= head.seq]
    return covered[-1] if covered else None


def _manifest(
    store: EventStore,
    head: Head,
    files: Sequence[ExportedFile],
    games: Sequence[_Game],
    tournaments: Sequence[Tournament],
    contexts: dict[str, dict[str, Any]],
    points: PointsTable,
) -> dict[str, Any]:
    """MANIFEST.json: what the export holds and the ledger it was taken from."""
    checkpoint = _checkpoint(store, head)
    rulesets = {(c["ruleset"], c["ruleset_sha256"]) for c in contexts.values()}
    dictionaries = {(c["dictionary"], c["dictionary_sha256"]) for c in contexts.values()}
    return {
        "format": FORMAT,
        "schema_version": schemas.SCHEMA_VERSION,
        "ledger": {"seq": head.seq, "hash": head.hash},
        "checkpoint": checkpoint.to_dict() if checkpoint is not None else None,
        "partitioning": {
            "flavor": "hive",
            "columns": {f.name: str(f.type) for f in schemas.PARTITIONING},
            "null_value": schemas.NULL_PARTITION,
        },
        "writer": {
            "library": f"pyarrow {pa.__version__}",
            "options": dict(WRITER_OPTIONS),
            "row_group_rows": ROW_GROUP_ROWS,
        },
        "tables": {
            name: {
                "rows": sum(f.rows for f in files if f.table == name),
                "columns": schemas.describe(schema),
            }
            for name, schema in schemas.TABLES.items()
        },
        "files": [asdict(f) for f in files],
        "rulesets": [{"name": n, "sha256": h} for n, h in sorted(rulesets)],
        "dictionaries": [{"name": n, "sha256": h} for n, h in sorted(dictionaries)],
        "tournaments": [
            {
                "tournament_id": t.tournament_id,
                "name": t.name,
                "season": t.season,
                "games": list(t.games),
            }
            for t in sorted(tournaments, key=lambda t: t.tournament_id)
        ],
        "games": [
            {
                "game_id": g.game_id,
                "tournament_id": g.tournament_id,
                "season": g.season,
                "judged": g.game_id in contexts,
                **contexts.get(g.game_id, {}),
            }
            for g in games
        ],
        "ranking_points": {
            "name": points.name,
            "points": list(points.points),
            "beyond": points.beyond,
        },
    }
