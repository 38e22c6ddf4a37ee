"""`arbitru export`: a ledger's seasons as Parquet tables, reproducible to the byte.

    export_parquet(store, out, overwrite=False, points=None, with_csv=False) -> Export
        Writes `player_rounds`, `rounds`, `standings` and `events` under `out`, each
        partitioned by season in the hive style (`rounds/season=2026/part-0.parquet`), and
        MANIFEST.json (with `with_csv`, each file as CSV too); returns what was written.

The export is taken at one ledger head (`seq`, `hash`), read first: every event after it is
left out, so that the tables, the manifest and each file's metadata describe the same ledger.
Game rows come from the read models when they are fresh, else from the games replayed
(`pipelines.season.export_rows`: the same rows either way); tournament standings are summed from the
game standings (`pipelines.season.tournaments`), with the share of the tournament's tops and the
federation's ranking points for the place (`pipelines.season.ranking`: the event's value, its scale,
tied players sharing the average; null when not known).

The same ledger gives the same bytes: rows in a fixed order (seasons by name, then rows by
tournament, game, round and player), fixed writer options and row groups
(`pipelines.season.parquet_files`), and nothing of the run itself (no time, no host, no path, not
even whether the read models were used) in any file. Another pyarrow version may encode
differently, so MANIFEST.json names the writer.

Files are published whole or not at all (`pipelines.files.folder`). With `with_csv`, every
Parquet file is written as CSV too, under `csv/` (`pipelines.season.csv_files`), and MANIFEST.json
lists those under `csv`, with their dialect.

A stream whose opening event names another id (`pipelines.games.stream_names`, an older ledger) has
no rows and is not a tournament of the standings; its events stay in `events` (in the null
season when it is a tournament's), and MANIFEST.json lists it under `left_out`.

What it reads is verified first (`verified_checkpoint`): the whole chain up to the head, the
ledger's quick check against its latest checkpoint, and the root of the checkpoint the
manifest names recomputed from the event hashes; an altered ledger is refused
(`LedgerAltered`). `verify=False` (forensic work) skips it: the manifest then says
`"verified": false` and names no checkpoint, as nothing vouches for one, and the game rows
are always replayed from the events the export holds (read models computed before an edit
would disagree with its `events` table).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import sqlalchemy as sa

from engine.games.projections import pct_of
from ledger import EventStore, Head, merkle
from ledger.checkpoints import LedgerAltered, list_checkpoints
from ledger.database import read_transaction
from ledger.integrity import check_recent
from ledger.schema import events as events_table
from ledger.tree_head import Checkpoint
from ledger.verify import verify_rows
from pipelines.files.folder import MARKER, export_target, staged
from pipelines.games.stream_names import Misnamed, misnamed_streams
from pipelines.season import parquet_schemas as schemas
from pipelines.season.csv_files import DIALECT, write_csv
from pipelines.season.export_rows import GameFacts, Snapshot, season_rows, snapshot
from pipelines.season.parquet_files import (
    FORMAT,
    ROW_GROUP_ROWS,
    WRITER_OPTIONS,
    ExportedFile,
    file_metadata,
    write_events,
    write_table,
)
from pipelines.season.ranking import as_number
from pipelines.season.rows import COLUMNS, StandingRow
from pipelines.season.tournaments import (
    PointsTable,
    Tournament,
    TournamentResult,
    fold_tournament,
    tournament_standings,
)

_NO_FACTS = GameFacts(None, None, None, None, None)


class ExportError(Exception):
    """The export cannot be taken; nothing was written. The message says what to do."""


@dataclass(frozen=True)
class Export:
    """What an export wrote: where, at which ledger head, its files and its manifest,
    whether the game rows were read from fresh read models (else replayed), and whether the
    ledger was verified first."""

    out: Path
    head: Head
    files: tuple[ExportedFile, ...]
    manifest: dict[str, Any]
    from_read_models: bool
    left_out: tuple[Misnamed, ...] = ()
    verified: bool = True
    csv_files: tuple[ExportedFile, ...] = ()

    def rows(self, table: str) -> int:
        return sum(f.rows for f in self.files if f.table == table)


def export_parquet(
    store: EventStore,
    out: Path,
    *,
    overwrite: bool = False,
    points: PointsTable | None = None,
    verify: bool = True,
    with_csv: bool = False,
) -> Export:
    """The ledger's seasons written as Parquet under `out` (see the module docstring).
    `OutputRefused` when `out` may not be written (not empty, not an earlier export),
    `ExportError` for an empty ledger, `LedgerAltered` for an altered one (unless not
    `verify`), `OutputNotWritten` when the system refuses a write (a full disk),
    `Interrupted` for a signal; nothing is left behind.
    `points` converts tournament places into ranking points (the shipped table by default);
    `with_csv` writes every file as CSV too (`pipelines.season.csv_files`)."""
    target = export_target(out, overwrite=overwrite)
    shot = snapshot(store)
    if not verify:  # read models may predate an edit the unverified events hold: replay
        shot = replace(shot, models=None)
    if shot.head.seq == 0:
        raise ExportError(
            "the ledger is empty: there is nothing to export; import events first "
            "(`arbitru ledger import FILE`)"
        )
    misnamed = misnamed_streams(store, shot.head.seq)
    checkpoint = verified_checkpoint(store, shot.head) if verify else None
    with staged(out, target) as folder:
        files, csv_files, manifest = _write(
            store, shot, folder, points or PointsTable.load(), misnamed, checkpoint, verify,
            with_csv,
        )  # fmt: skip
    left_out = tuple(misnamed.values())
    return Export(target, shot.head, files, manifest, shot.fresh, left_out, verify, csv_files)


def verified_checkpoint(store: EventStore, head: Head) -> Checkpoint | None:
    """Verify what an export of the ledger at `head` reads; the checkpoint its manifest
    names (the latest of at most `head.seq` events), its root recomputed from the event
    hashes, or None when there is none. `LedgerAltered` when the chain is broken, does not
    hold `head`, or no longer gives a checkpoint's signed root."""
    check_recent(store)
    chosen = _checkpoint(store, head)
    size = chosen.tree_size if chosen is not None else 0
    tree = _Tree()

    def rows() -> Any:
        for row in store.iter_rows():
            yield row
            if row[0] <= size:  # the verifier asked for the next row: this one holds
                tree.add(row[10])

    result = verify_rows(rows(), expected_head=head)
    if not result.ok:
        assert result.problem is not None
        raise LedgerAltered(
            f"the hash chain is broken at {result.problem.describe()}; run `arbitru ledger verify`"
        )
    if chosen is not None and tree.root().hex() != chosen.root:
        raise LedgerAltered(
            f"the events no longer give the root signed by checkpoint {size}: the ledger was "
            "rewritten after it was signed; run `arbitru ledger verify`"
        )
    return chosen


class _Tree:
    """The Merkle root (`ledger.merkle`) of event hashes given one at a time, in memory of
    the log of their number: a stack of the perfect subtrees they fill so far."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, bytes]] = []

    def add(self, event_hash: str) -> None:
        size, node = 1, merkle.leaf_hash(event_hash)
        while self._stack and self._stack[-1][0] == size:
            node = merkle.node_hash(self._stack.pop()[1], node)
            size *= 2
        self._stack.append((size, node))

    def root(self) -> bytes:
        node = self._stack[-1][1]
        for _, left in reversed(self._stack[:-1]):
            node = merkle.node_hash(left, node)
        return node


def _write(
    store: EventStore,
    shot: Snapshot,
    folder: Path,
    points: PointsTable,
    misnamed: dict[str, Misnamed],
    checkpoint: Checkpoint | None,
    verified: bool,
    with_csv: bool,
) -> tuple[tuple[ExportedFile, ...], tuple[ExportedFile, ...], dict[str, Any]]:
    every = _streams(store, shot.head)
    streams = [s for s in every if s.startswith("tournament/") and s not in misnamed]
    read = store.read_streams(streams, shot.head.seq)
    tournaments = [
        fold_tournament((e.type, e.schema, e.payload) for e in read.get(s, [])) for s in streams
    ]
    seasons_of = {g.stream: g.season for g in shot.games}
    seasons_of.update({f"tournament/{t.tournament_id}": t.season for t in tournaments})
    named = sorted({season for season in seasons_of.values() if season is not None})
    unseasoned = any(seasons_of.get(stream) is None for stream in every)
    seasons: list[str | None] = [*named, *([None] if unseasoned else [])]
    meta = file_metadata(shot.head)
    files: list[ExportedFile] = []
    standings: dict[str | None, list[tuple]] = {}
    counts: dict[str, dict[str, int]] = {
        g.game_id: {"player_rounds": 0, "rounds": 0} for g in shot.games
    }
    tops: dict[str, int] = {}
    good = {g.game_id for g in shot.games if g.stream not in misnamed}
    for season in seasons:
        rows = _credited(season_rows(store, shot, season, verify=verified), good)
        for name in ("player_rounds", "rounds"):
            files.append(write_table(folder, name, season, [_table(name, rows[name])], meta))
            for game_id in _column(name, rows[name], "game_id"):
                counts[game_id][name] += 1
        for game_id, top in zip(
            _column("rounds", rows["rounds"], "game_id"),
            _column("rounds", rows["rounds"], "top_score"),
            strict=True,
        ):
            tops[game_id] = tops.get(game_id, 0) + (top or 0)
        standings[season] = rows["standings"]
    by_game: dict[str, list[StandingRow]] = {}
    for found in standings.values():
        for row in found:
            standing = StandingRow(*row)
            by_game.setdefault(standing.game_id, []).append(standing)
    for season in seasons:
        places = _game_places(standings[season]) + [
            place
            for t in sorted(tournaments, key=lambda t: t.tournament_id)
            if t.season == season
            for place in _tournament_places(t, by_game, tops, points)
        ]
        table = pa.Table.from_pylist(places, schema=schemas.STANDINGS)
        files.append(write_table(folder, "standings", season, [table], meta))
    files += write_events(store, shot.head, folder, seasons_of, seasons, meta)
    files.sort(key=lambda f: (list(schemas.TABLES).index(f.table), f.path))
    manifest = _manifest(shot, files, tournaments, counts, points, misnamed, checkpoint, verified)
    csv_files = tuple(write_csv(folder, files)) if with_csv else ()
    if with_csv:
        manifest["csv"] = {"dialect": DIALECT, "files": [asdict(f) for f in csv_files]}
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    (folder / MARKER).write_text(text, encoding="utf-8")
    return tuple(files), csv_files, manifest


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


def _credited(rows: dict[str, list[tuple]], games: set[str]) -> dict[str, list[tuple]]:
    """Only the rows of these games: read models an older version computed for a stream whose
    GameCreated names another game hold its rows under that game's id."""
    return {
        name: [row for row, game_id in zip(found, _column(name, found, "game_id"), strict=True)
               if game_id in games]
        for name, found in rows.items()
    }  # fmt: skip


def _column(table: str, rows: Sequence[tuple], column: str) -> list[Any]:
    at = [c[0] for c in COLUMNS[table]].index(column)
    return [row[at] for row in rows]


def _table(table: str, rows: Sequence[tuple]) -> pa.Table:
    """Rows as tuples in `rows.COLUMNS` order as a table of the declared schema (the
    season, the partition, left out)."""
    schema = schemas.TABLES[table]
    arrays = [pa.array(_column(table, rows, f.name), type=f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def _game_places(rows: Sequence[tuple]) -> list[dict[str, Any]]:
    names = [c[0] for c in COLUMNS["standings"]]
    return [
        {**dict(zip(names, row, strict=True)), "level": "game", "games": 1, "ranking_points": None}
        for row in rows
    ]


def _tournament_places(
    tournament: Tournament,
    by_game: dict[str, list[StandingRow]],
    tops: dict[str, int],
    points: PointsTable,
) -> list[dict[str, Any]]:
    """A tournament's standings: game totals summed (`pipelines.season.tournaments`), the share of
    the sum of its games' tops, the rounds played, the ranking points of the place."""
    played = [g for g in tournament.games if g in by_game]
    top_total = sum(tops.get(g, 0) for g in played)
    rounds: dict[str, int] = {}
    for game_id in played:
        for s in by_game[game_id]:
            rounds[s.player_id] = rounds.get(s.player_id, 0) + s.rounds
    places = tournament_standings(tournament, {g: by_game[g] for g in played})
    award = TournamentResult(tournament, places).award(points)
    ordered = sorted(places, key=lambda p: (p.rank, p.player_id))
    return [
        {
            "level": "tournament", "tournament_id": tournament.tournament_id, "game_id": None,
            "variant": None, "rank": p.rank, "player_id": p.player_id, "name": p.name,
            "total": p.total,
            "pct_of_top": pct_of(p.total, top_total),
            "solos": p.solos, "rounds": rounds.get(p.player_id, 0), "games": p.games,
            "ranking_points": as_number(award.points[p.player_id]) if p.games else None,
            "warnings": p.warnings,
        }
        for p in ordered
    ]  # fmt: skip


def _checkpoint(store: EventStore, head: Head) -> Checkpoint | None:
    """The latest signed checkpoint of a tree no larger than the exported ledger."""
    covered = [c for c in list_checkpoints(store) if c.tree_size <= head.seq]
    return covered[-1] if covered else None


def _manifest(
    shot: Snapshot,
    files: Sequence[ExportedFile],
    tournaments: Sequence[Tournament],
    counts: dict[str, dict[str, int]],
    points: PointsTable,
    misnamed: dict[str, Misnamed],
    checkpoint: Checkpoint | None,
    verified: bool,
) -> dict[str, Any]:
    """MANIFEST.json: what the export holds, the ledger it was taken from, whether that was
    verified (the checkpoint named only then), and the streams left out (their opening event
    names another id: `pipelines.games.stream_names`)."""
    head = shot.head
    games = [g for g in shot.games if g.stream not in misnamed]
    facts = [shot.facts[g.game_id] for g in games if g.game_id in shot.facts]
    rulesets = {(f.ruleset, f.ruleset_sha256) for f in facts if f.ruleset_sha256}
    dictionaries = {(f.dictionary, f.dictionary_sha256) for f in facts if f.dictionary_sha256}
    return {
        "format": FORMAT,
        "schema_version": schemas.SCHEMA_VERSION,
        "ledger": {"seq": head.seq, "hash": head.hash},
        "verified": verified,
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
        "rulesets": [{"name": n, "sha256": h} for n, h in sorted(rulesets, key=str)],
        "dictionaries": [{"name": n, "sha256": h} for n, h in sorted(dictionaries, key=str)],
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
                "last_seq": g.last_seq,
                "events": g.events,
                **asdict(shot.facts.get(g.game_id, _NO_FACTS)),
                **counts[g.game_id],
            }
            for g in sorted(games, key=lambda g: (g.tournament_id or "", g.game_id))
        ],
        "left_out": [m.to_dict() for m in misnamed.values()],
        "ranking_points": {
            "name": points.name,
            "scales": {str(value): list(scale) for value, scale in points.scales.items()},
        },
    }
