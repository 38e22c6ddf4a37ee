"""`arbitru export --csv`: every Parquet file of the export also as a UTF-8 CSV under csv/,
read back with Python's csv and with DuckDB and checked against the Parquet rows and
`tournament standings`; the manifest's SHA-256s against the files; two exports of one ledger
byte for byte."""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import os
from pathlib import Path

import duckdb
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from game_cli_helpers import cli

from ledger import EventStore, NewEvent
from pipelines.season import csv_files
from pipelines.season import parquet_schemas as schemas

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
TOURNAMENT = "cupa-bucuresti-2026"
TABLES = ("player_rounds", "rounds", "standings", "events")


@pytest.fixture(scope="module")
def ledger(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('csv') / 'ledger.db'}"
    cli("ledger", "import", str(FIXTURE), "--db", url, "--json")
    return url


@pytest.fixture(scope="module")
def exported(ledger: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("exports") / "season"
    return out, cli("export", "--out", str(out), "--db", ledger, "--csv", "--json")


def _manifest(out: Path) -> dict:
    return json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))


def _csv_rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


def test_every_parquet_file_has_a_csv_twin_with_its_header_and_rows(exported):
    out, summary = exported
    manifest = _manifest(out)
    parquet = manifest["files"]
    written = manifest["csv"]["files"]
    assert summary["csv_files"] == written
    assert [f["path"] for f in written] == [
        "csv/" + f["path"].removesuffix(".parquet") + ".csv" for f in parquet
    ]
    for twin, original in zip(written, parquet, strict=True):
        assert (twin["table"], twin["season"], twin["rows"]) == (
            original["table"], original["season"], original["rows"],
        )  # fmt: skip
        header, *rows = _csv_rows(out / twin["path"])
        assert header == [f.name for f in schemas.TABLES[original["table"]]]
        assert len(rows) == original["rows"]


def test_csv_standings_read_by_python_csv_give_the_tournament_standings_totals(exported, ledger):
    out, _summary = exported
    standings = cli("tournament", "standings", TOURNAMENT, "--db", ledger, "--json")["standings"]
    header, *rows = _csv_rows(out / "csv" / "standings" / "season=2026" / "part-0.csv")
    places = [dict(zip(header, row, strict=True)) for row in rows]
    tournament = [p for p in places if p["level"] == "tournament"]
    assert [(int(p["rank"]), p["player_id"], p["name"], int(p["total"])) for p in tournament] == [
        (s["rank"], s["player_id"], s["name"], s["total"]) for s in standings
    ]
    assert {p["game_id"] for p in tournament} == {""}  # null: an unquoted empty field
    raw = (out / "csv" / "standings" / "season=2026" / "part-0.csv").read_bytes()
    assert b"\r" not in raw and not raw.startswith(b"\xef\xbb\xbf")
    assert "Radu Tănase".encode() in raw


def test_duckdb_reads_the_csv_tables_as_the_same_rows_as_the_parquet_ones(exported):
    out, _summary = exported
    for table in TABLES:
        columns = ", ".join(f.name for f in schemas.TABLES[table])
        order = "seq" if table == "events" else columns
        text = ", types={'recorded_at_text': 'VARCHAR'}" if table == "events" else ""
        parquet = duckdb.sql(
            f"SELECT season, {columns} FROM read_parquet('{out}/{table}/**/*.parquet', "
            "hive_partitioning=true, hive_types={'season': 'VARCHAR'}) "
            f"ORDER BY {order}"
        ).fetchall()
        from_csv = duckdb.sql(
            f"SELECT season, {columns} FROM read_csv('{out}/csv/{table}/**/*.csv', "
            "header=true, hive_partitioning=true, hive_types={'season': 'VARCHAR'}, "
            f"allow_quoted_nulls=false{text}) ORDER BY {order}"
        ).fetchall()
        assert from_csv == parquet, table
        assert len(parquet) == _manifest(out)["tables"][table]["rows"]
    totals = duckdb.sql(
        f"SELECT player_id, sum(score) FROM read_csv('{out}/csv/player_rounds/**/*.csv', "
        "header=true) GROUP BY player_id ORDER BY player_id"
    ).fetchall()
    places = duckdb.sql(
        f"SELECT player_id, total FROM read_parquet('{out}/standings/**/*.parquet') "
        "WHERE level = 'game' ORDER BY player_id"
    ).fetchall()
    assert totals == places


def test_the_manifest_gives_every_csv_file_its_true_size_and_sha256(exported):
    out, _summary = exported
    for listed in _manifest(out)["csv"]["files"]:
        data = (out / listed["path"]).read_bytes()
        assert len(data) == listed["bytes"]
        assert hashlib.sha256(data).hexdigest() == listed["sha256"], listed["path"]


def test_two_exports_with_csv_of_one_ledger_are_byte_identical(exported, ledger, tmp_path):
    out, _summary = exported
    again = tmp_path / "again"
    cli("export", "--out", str(again), "--db", ledger, "--csv", "--json")

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    first, second = files(out), files(again)
    assert any(name.endswith(".csv") for name in first)
    assert first == second


def test_the_csv_tree_leaves_each_parquet_table_folder_parquet_only(exported):
    out, _summary = exported
    for table in TABLES:
        assert not list((out / table).rglob("*.csv"))
        partitioning = ds.partitioning(schemas.PARTITIONING, flavor="hive")
        read = ds.dataset(out / table, format="parquet", partitioning=partitioning).to_table()
        assert read.num_rows == _manifest(out)["tables"][table]["rows"]
    assert pq.read_table(out / "standings").num_rows > 0


def test_without_csv_the_export_holds_no_csv_and_its_manifest_says_none(ledger, tmp_path):
    out = tmp_path / "plain"
    summary = cli("export", "--out", str(out), "--db", ledger, "--json")
    assert not (out / "csv").exists()
    assert "csv" not in _manifest(out)
    assert summary["csv_files"] == []


def test_a_full_disk_while_the_csv_files_are_written_keeps_the_earlier_export_whole(
    ledger, tmp_path, monkeypatch
):
    out = tmp_path / "out"
    cli("export", "--out", str(out), "--db", ledger, "--json")
    before = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    written = []
    original = csv_files._write_one

    def failing(folder, parquet):
        if written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / "csv"))
        written.append(parquet.path)
        return original(folder, parquet)

    monkeypatch.setattr(csv_files, "_write_one", failing)
    result = cli("export", "--out", str(out), "--db", ledger, "--csv", "--overwrite", code=3)
    assert "No space left on device" in result.stderr
    assert written
    after = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_csv_text_is_quoted_a_quote_doubled_and_a_null_left_empty(_arbitru_home, tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    cli("ledger", "import", str(FIXTURE), "--db", url, "--json")
    with EventStore(url) as store:
        store.append(
            f"tournament/{TOURNAMENT}",
            [NewEvent("PlayerRegistered", {"player_id": "p50", "name": 'Ion "Nelu", Pop'})],
        )
    out = tmp_path / "out"
    cli("export", "--out", str(out), "--db", url, "--csv", "--json")
    path = out / "csv" / "standings" / "season=2026" / "part-0.csv"
    last = path.read_bytes().splitlines()[-1]
    assert last == (
        b'"tournament","cupa-bucuresti-2026",,,15,"p50","Ion ""Nelu"", Pop",0,0.0,0,0,0,,0'
    )
    header, *rows = _csv_rows(path)
    assert dict(zip(header, rows[-1], strict=True))["name"] == 'Ion "Nelu", Pop'
    ((name, game_id, points),) = duckdb.sql(
        f"SELECT name, game_id, ranking_points FROM read_csv('{path}', header=true, "
        "allow_quoted_nulls=false) WHERE player_id = 'p50'"
    ).fetchall()
    assert (name, game_id, points) == ('Ion "Nelu", Pop', None, None)


def test_a_postgresql_ledger_gives_the_same_csv_bytes_as_sqlite(
    _arbitru_home, pg_url, exported, tmp_path
):
    out, _summary = exported
    cli("ledger", "import", str(FIXTURE), "--db", pg_url, "--json")
    cli("export", "--out", str(tmp_path / "pg"), "--db", pg_url, "--csv", "--json")

    def csv_tree(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in (root / "csv").rglob("*.csv")}

    assert csv_tree(tmp_path / "pg") == csv_tree(out)
    assert _manifest(tmp_path / "pg")["csv"] == _manifest(out)["csv"]
