"""`arbitru export`: the fixture game's ledger as Parquet, read back with pyarrow and DuckDB
and checked against `arbitru game standings`, the manifest against the files, the events
table against the hash chain, and two exports of one ledger against each other."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa
from game_cli_helpers import cli, runner

from ledger import EventStore, NewEvent, verify_rows
from pipelines.cli.arbitru import app
from pipelines.season import export as parquet_export
from pipelines.season import export_rows
from pipelines.season import parquet_schemas as schemas
from pipelines.season import readmodels as rm
from pipelines.season.rows import COLUMNS

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
GAME = "cb26-p1"
TOURNAMENT = "cupa-bucuresti-2026"
SEASON = "2026"
EVENTS = len(FIXTURE.read_text(encoding="utf-8").splitlines())


def _import(url: str) -> str:
    cli("ledger", "import", str(FIXTURE), "--db", url, "--json")
    return url


@pytest.fixture(scope="module")
def ledger(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fixture imported into a fresh SQLite ledger, once for the module."""
    return _import(f"sqlite:///{tmp_path_factory.mktemp('export') / 'ledger.db'}")


@pytest.fixture(scope="module")
def exported(ledger: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The ledger exported once through the CLI: the folder and the --json report."""
    out = tmp_path_factory.mktemp("exports") / "season"
    return out, cli("export", "--out", str(out), "--db", ledger, "--json")


@pytest.fixture(scope="module")
def standings(ledger: str) -> list[dict[str, Any]]:
    return cli("game", "standings", GAME, "--db", ledger, "--json")["standings"]


def _dataset(out: Path, table: str) -> pa.Table:
    partitioning = ds.partitioning(schemas.PARTITIONING, flavor="hive")
    return ds.dataset(out / table, format="parquet", partitioning=partitioning).to_table()


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_player_round_scores_add_up_to_game_standings_in_pyarrow(
    exported: tuple[Path, dict], standings: list[dict[str, Any]]
) -> None:
    rows = _dataset(exported[0], "player_rounds").to_pylist()
    totals: dict[str, int] = {}
    for row in rows:
        totals[row["player_id"]] = totals.get(row["player_id"], 0) + row["score"]
    assert totals == {s["player_id"]: s["total"] for s in standings}
    assert {(r["season"], r["tournament_id"], r["game_id"]) for r in rows} == {
        (SEASON, TOURNAMENT, GAME)
    }
    assert len(rows) == 22 * len(standings)


def test_cumulative_score_ends_at_the_game_total(
    exported: tuple[Path, dict], standings: list[dict[str, Any]]
) -> None:
    rows = _dataset(exported[0], "player_rounds").to_pylist()
    last = {r["player_id"]: r["cumulative"] for r in rows if r["round"] == 22}
    assert last == {s["player_id"]: s["total"] for s in standings}


def test_game_standings_table_is_game_standings_json(
    exported: tuple[Path, dict], standings: list[dict[str, Any]]
) -> None:
    table = _dataset(exported[0], "standings").to_pylist()
    game = [r for r in table if r["level"] == "game"]
    assert [(r["rank"], r["player_id"], r["total"], r["solos"], r["pct_of_top"]) for r in game] == [
        (s["rank"], s["player_id"], s["total"], s["solos"], s["pct_of_top"]) for s in standings
    ]


def test_tournament_standings_of_a_one_game_tournament_follow_the_game(
    exported: tuple[Path, dict], standings: list[dict[str, Any]]
) -> None:
    table = _dataset(exported[0], "standings").to_pylist()
    tournament = [r for r in table if r["level"] == "tournament"]
    assert [(r["rank"], r["player_id"], r["total"]) for r in tournament] == [
        (s["rank"], s["player_id"], s["total"]) for s in standings
    ]
    assert all(r["tournament_id"] == TOURNAMENT and r["game_id"] is None for r in tournament)
    assert tournament[0]["ranking_points"] == 606  # 14 players: the value-14 scale
    assert tournament[0]["pct_of_top"] == standings[0]["pct_of_top"]


def test_duckdb_reads_the_hive_partitions_and_totals_match(
    exported: tuple[Path, dict], standings: list[dict[str, Any]]
) -> None:
    out = exported[0]
    query = (
        "SELECT season, player_id, sum(score) AS total, count(*) AS rounds "
        f"FROM read_parquet('{out}/player_rounds/**/*.parquet', hive_partitioning=true, "
        "hive_types={'season': 'VARCHAR'}) GROUP BY season, player_id ORDER BY player_id"
    )
    rows = duckdb.sql(query).fetchall()
    assert rows == sorted((SEASON, s["player_id"], s["total"], 22) for s in standings)
    plain = duckdb.sql(
        f"SELECT count(*) FROM read_parquet('{out}/events/**/*.parquet', hive_partitioning=true)"
        " WHERE season = 2026"
    ).fetchall()
    assert plain == [(EVENTS,)]


def test_duckdb_sees_the_declared_column_types(exported: tuple[Path, dict]) -> None:
    out = exported[0]
    described = duckdb.sql(
        f"DESCRIBE SELECT * FROM read_parquet('{out}/player_rounds/**/*.parquet', "
        "hive_partitioning=true, hive_types={'season': 'VARCHAR'})"
    ).fetchall()
    types = {name: kind for name, kind, *_ in described}
    assert (types["round"], types["score"], types["cumulative"], types["seq"]) == (
        "INTEGER",
        "INTEGER",
        "BIGINT",
        "BIGINT",
    )
    assert (types["valid"], types["pct_of_top"], types["season"]) == (
        "BOOLEAN",
        "DOUBLE",
        "VARCHAR",
    )
    events = duckdb.sql(
        f"DESCRIBE SELECT recorded_at FROM read_parquet('{out}/events/**/*.parquet')"
    ).fetchall()
    assert events[0][1] == "TIMESTAMP WITH TIME ZONE"


def test_files_carry_the_declared_schemas_and_the_ledger_head(
    exported: tuple[Path, dict],
) -> None:
    out, report = exported
    for entry in report["files"]:
        schema = pq.read_schema(out / entry["path"])
        declared = schemas.TABLES[entry["table"]]
        assert schema.remove_metadata().equals(declared), entry["path"]
        meta = schema.metadata
        assert meta[b"arbitru.ledger_seq"] == str(report["ledger"]["seq"]).encode()
        assert meta[b"arbitru.ledger_hash"] == report["ledger"]["hash"].encode()
        assert meta[b"arbitru.schema_version"] == str(schemas.SCHEMA_VERSION).encode()


def test_schemas_declare_every_season_rows_column() -> None:
    """The export declares the columns of `pipelines.season.rows`, the read models' source,
    in their order (season is the partition), so that a column added there is not dropped."""
    for table in ("player_rounds", "rounds"):
        assert ["season", *schemas.TABLES[table].names] == [c[0] for c in COLUMNS[table]]
    game_level = {"level", "games", "ranking_points"}
    standings = [n for n in schemas.STANDINGS.names if n not in game_level]
    assert ["season", *standings] == [c[0] for c in COLUMNS["standings"]]


def test_manifest_lists_every_file_with_rows_and_sha256(exported: tuple[Path, dict]) -> None:
    out, _ = exported
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    on_disk = {p for p in _files(out) if p != "MANIFEST.json"}
    assert {f["path"] for f in manifest["files"]} == on_disk
    for entry in manifest["files"]:
        data = (out / entry["path"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert entry["rows"] == pq.read_metadata(out / entry["path"]).num_rows
    assert manifest["tables"]["events"]["rows"] == EVENTS
    assert manifest["ledger"]["seq"] == EVENTS
    assert manifest["schema_version"] == schemas.SCHEMA_VERSION
    assert [d["sha256"] for d in manifest["dictionaries"]] == [
        "1c4d2d521b59a5f0d6cd20e3993e8f8e6264e794992598e2f8f7da86f042dacf"
    ]
    assert manifest["rulesets"][0]["name"] == "ro-frs" and manifest["rulesets"][0]["sha256"]
    assert manifest["partitioning"]["columns"] == {"season": "string"}
    assert manifest["checkpoint"] is None


def test_events_table_rebuilds_the_hash_chain(exported: tuple[Path, dict]) -> None:
    """An auditor can check the chain from the export alone: payload, meta and the exact
    `recorded_at` text hash to the stored hashes, event after event."""
    events = _dataset(exported[0], "events").sort_by("seq").to_pylist()
    rows = [
        (
            e["seq"], e["event_id"], e["stream"], e["version"], e["type"], e["schema"],
            e["payload"].encode(), e["meta"].encode(), e["recorded_at_text"], e["prev_hash"],
            e["hash"],
        )
        for e in events
    ]  # fmt: skip
    result = verify_rows(rows)
    assert result.ok, result
    assert result.checked == EVENTS
    assert events[-1]["hash"] == exported[1]["ledger"]["hash"]


def test_two_exports_of_one_ledger_are_byte_identical(
    ledger: str, exported: tuple[Path, dict], tmp_path: Path
) -> None:
    cli("export", "--out", str(tmp_path / "again"), "--db", ledger)
    assert _files(tmp_path / "again") == _files(exported[0])


def test_sqlite_and_postgresql_ledgers_export_the_same_bytes(
    _arbitru_home: Path, pg_url: str, exported: tuple[Path, dict], tmp_path: Path
) -> None:
    cli("export", "--out", str(tmp_path / "pg"), "--db", _import(pg_url))
    assert _files(tmp_path / "pg") == _files(exported[0])


def test_export_includes_the_latest_signed_checkpoint(
    _arbitru_home: Path, sqlite_url: str, tmp_path: Path
) -> None:
    _import(sqlite_url)
    key = tmp_path / "federation.key"
    cli("keys", "new", str(key), "--json")
    signed = cli("ledger", "checkpoint", "--key", str(key), "--db", sqlite_url, "--json")
    cli("export", "--out", str(tmp_path / "out"), "--db", sqlite_url)
    manifest = json.loads((tmp_path / "out" / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["checkpoint"] == {k: v for k, v in signed.items() if k != "created"}
    assert manifest["checkpoint"]["tree_size"] == manifest["ledger"]["seq"] == EVENTS


def test_empty_ledger_is_refused(sqlite_url: str, tmp_path: Path) -> None:
    cli("db", "upgrade", "--db", sqlite_url)
    result = runner.invoke(app, ["export", "--out", str(tmp_path / "out"), "--db", sqlite_url])
    assert result.exit_code == 2
    assert "the ledger is empty" in result.stderr
    assert not (tmp_path / "out").exists()


def test_export_from_fresh_read_models_is_the_replayed_export(
    _arbitru_home: Path, sqlite_url: str, exported: tuple[Path, dict], tmp_path: Path
) -> None:
    """The rows read from the read models after `arbitru recompute` are the rows a replay
    gives, to the byte; a ledger that grew since the recompute is replayed again."""
    _import(sqlite_url)
    cli("recompute", "--db", sqlite_url, "--json")
    report = cli("export", "--out", str(tmp_path / "models"), "--db", sqlite_url, "--json")
    assert report["rows_from"] == "read models"
    assert exported[1]["rows_from"] == "replay"
    assert _files(tmp_path / "models") == _files(exported[0])
    with EventStore(sqlite_url) as store:
        store.append(
            f"tournament/{TOURNAMENT}",
            [NewEvent("PlayerRegistered", {"player_id": "p15", "name": "Ion Stan"})],
        )
    registered = cli("export", "--out", str(tmp_path / "registered"), "--db", sqlite_url, "--json")
    assert registered["rows_from"] == "read models"
    places = _dataset(tmp_path / "registered", "standings").to_pylist()
    assert [(p["player_id"], p["total"], p["games"], p["ranking_points"]) for p in places][-1] == (
        "p15", 0, 0, None,
    )  # fmt: skip
    with EventStore(sqlite_url) as store:
        penalty = {"player_id": "p01", "points": 5, "reason": "late slip", "round": 3}
        store.append(f"game/{GAME}", [NewEvent("PenaltyGiven", penalty)])
    grown = cli("export", "--out", str(tmp_path / "grown"), "--db", sqlite_url, "--json")
    assert grown["rows_from"] == "replay"
    assert grown["ledger"]["seq"] == EVENTS + 2


def test_recompute_committing_during_an_export_does_not_mix_heads(
    _arbitru_home: Path,
    sqlite_url: str,
    exported: tuple[Path, dict],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read models rewritten after the export's snapshot (here: a score changed and the
    recompute state moved on) are not read: the season is replayed, the export unchanged."""
    _import(sqlite_url)
    cli("recompute", "--db", sqlite_url, "--json")
    taken = export_rows.snapshot

    def then_recomputed(store: EventStore) -> export_rows.Snapshot:
        shot = taken(store)
        with EventStore(sqlite_url) as writable, writable.engine.begin() as connection:
            connection.execute(sa.update(rm.player_rounds).values(score=999))
            connection.execute(sa.update(rm.state).values(recomputed_at="later"))
        return shot

    monkeypatch.setattr(parquet_export, "snapshot", then_recomputed)
    cli("export", "--out", str(tmp_path / "out"), "--db", sqlite_url)
    assert _files(tmp_path / "out") == _files(exported[0])
