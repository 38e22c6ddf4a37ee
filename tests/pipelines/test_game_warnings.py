"""`arbitru game warn` through the real CLI and ledger, on SQLite and PostgreSQL: a warning is
recorded (or only shown with --dry-run), revoked by `game revoke`, counted in `game results`,
`game standings`, `game table`, the tournament and season tables and the Parquet export
(replayed or from the read models), and costs points only when the game's settings turn every
Nth warning into a penalty."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pytest
import sqlalchemy as sa
from game_cli_helpers import Arbiter, cli, create, import_with_last_round_open, runner

from ledger import EventStore
from ledger.database import create_db_engine
from pipelines.cli.arbitru import app
from pipelines.season import parquet_schemas as schemas
from pipelines.season.tournaments import read_tournaments, results
from tests.ledger.ledger_helpers import ledger_at

pytestmark = pytest.mark.usefixtures("default_home")

EVERY_TWO_COST_TEN = ("--set", "warnings_penalty_after=2", "--set", "warnings_penalty_points=10")


@pytest.fixture
def arbiter(db_url: str) -> Arbiter:
    return Arbiter(db_url)


def _round_one(arbiter: Arbiter, *settings: str) -> None:
    """Round 1 on VARAEIT: ana plays VARA (22, the solo top: 32 with the bonus)."""
    create(arbiter, *settings)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")


def _warn(arbiter: Arbiter, player: str = "ana", *extra: str) -> dict[str, Any]:
    return arbiter.ok("warn", "hd1", "--player", player, "--reason", "talking", *extra)


def _by_player(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["player_id"]: r for r in rows}


def test_warn_records_a_warning_given_with_its_reason(arbiter: Arbiter) -> None:
    _round_one(arbiter)
    reply = _warn(arbiter)
    [event] = reply["events"]
    assert event["type"] == "WarningGiven"
    assert event["payload"] == {"round": 1, "player_id": "ana", "reason": "talking"}
    assert arbiter.events()[-1] == "WarningGiven"
    [decision] = arbiter.view("results", "hd1", "--round", "1")["decisions"]
    assert decision["event_id"] == event["event_id"] and decision["revoked_by"] is None
    shown = arbiter.run("results", "hd1", "--round", "1", actor=False)
    assert shown.exit_code == 0 and "warning to ana (talking)" in " ".join(shown.stdout.split())


def test_warn_dry_run_writes_nothing(arbiter: Arbiter) -> None:
    _round_one(arbiter)
    before = arbiter.count()
    reply = _warn(arbiter, "ana", "--dry-run")
    assert reply["dry_run"] is True and arbiter.count() == before


def test_warning_to_an_unknown_player_is_refused(arbiter: Arbiter) -> None:
    _round_one(arbiter)
    message = arbiter.refused(1, "warn", "hd1", "--player", "zoe", "--reason", "x")
    assert "zoe" in message


def test_warnings_are_counted_in_results_standings_and_table_and_cost_nothing_by_default(
    arbiter: Arbiter, tmp_path: Path
) -> None:
    _round_one(arbiter)
    for _ in range(3):
        _warn(arbiter)
    _warn(arbiter, "bob")
    ana = _by_player(arbiter.view("results", "hd1", "--round", "1")["players"])["ana"]
    assert (ana["warnings"], ana["penalty"], ana["total"]) == (3, 0, 32)
    standings = _by_player(arbiter.view("standings", "hd1")["standings"])
    assert {p: s["warnings"] for p, s in standings.items()} == {
        "ana": 3, "bob": 1, "cri": 0, "dan": 0,
    }  # fmt: skip
    assert standings["ana"]["total"] == 32
    table = arbiter.view(
        "table", "hd1", "--csv", str(tmp_path / "t.csv"), "--html", str(tmp_path / "t.html")
    )
    page = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert "<th>warnings</th>" in page and "; 3 warning(s)" in page
    rows = _by_player(table["players"])
    assert (rows["ana"]["warnings"], rows["ana"]["penalties"], rows["ana"]["total"]) == (3, 0, 32)
    assert rows["ana"]["rounds"][0]["warnings"] == 3 and table["master"]["warnings"] == 0
    with (tmp_path / "t.csv").open(encoding="utf-8-sig", newline="") as handle:
        read = {r["player_id"]: r for r in csv.DictReader(handle) if r["row"] == "player"}
    assert (read["ana"]["warnings"], read["bob"]["warnings"]) == ("3", "1")
    shown = arbiter.run("standings", "hd1", actor=False)
    assert shown.exit_code == 0 and "warnings" in shown.stdout


def test_every_nth_warning_becomes_a_penalty_when_the_game_sets_it(arbiter: Arbiter) -> None:
    _round_one(arbiter, *EVERY_TWO_COST_TEN)
    _warn(arbiter)
    assert _by_player(arbiter.view("standings", "hd1")["standings"])["ana"]["total"] == 32
    _warn(arbiter)
    ana = _by_player(arbiter.view("table", "hd1")["players"])["ana"]
    assert (ana["warnings"], ana["penalties"], ana["total"]) == (2, 10, 22)
    standing = _by_player(arbiter.view("standings", "hd1")["standings"])["ana"]
    assert (standing["warnings"], standing["total"]) == (2, 22)


def test_revoking_a_warning_takes_back_its_count_and_its_cost(arbiter: Arbiter) -> None:
    _round_one(arbiter, *EVERY_TWO_COST_TEN)
    first = _warn(arbiter)["events"][0]["event_id"]
    _warn(arbiter)
    arbiter.ok("revoke", "hd1", "--event", first, "--reason", "appeal upheld")
    ana = _by_player(arbiter.view("results", "hd1", "--round", "1")["players"])["ana"]
    assert (ana["warnings"], ana["penalty"], ana["total"]) == (1, 0, 32)
    [revoked] = [
        d
        for d in arbiter.view("results", "hd1", "--round", "1")["decisions"]
        if d["event_id"] == first
    ]
    assert revoked["revoked_by"]


def test_half_a_warnings_penalty_setting_is_refused_at_create(arbiter: Arbiter) -> None:
    message = arbiter.refused(
        2, "create", "hd1", "--player", "ana", "--set", "warnings_penalty_after=3"
    )
    assert "warnings_penalty_points" in message


def _standings_rows(out: Path) -> dict[str, dict[str, Any]]:
    partitioning = ds.partitioning(schemas.PARTITIONING, flavor="hive")
    table = ds.dataset(out / "standings", format="parquet", partitioning=partitioning).to_table()
    assert table.schema.field("warnings").type == schemas.STANDINGS.field("warnings").type
    return {r["player_id"]: r for r in table.to_pylist() if r["level"] == "game"}


def test_export_standings_count_warnings_replayed_and_from_the_read_models(
    arbiter: Arbiter, db_url: str, tmp_path: Path
) -> None:
    _round_one(arbiter, *EVERY_TWO_COST_TEN)
    _warn(arbiter)
    _warn(arbiter)
    _warn(arbiter, "bob")
    arbiter.ok("close-round", "hd1")
    replayed = cli("export", "--out", str(tmp_path / "replayed"), "--db", db_url, "--json")
    assert replayed["rows_from"] == "replay"
    cli("recompute", "--db", db_url, "--json")
    models = cli("export", "--out", str(tmp_path / "models"), "--db", db_url, "--json")
    assert models["rows_from"] == "read models"
    assert models["schema_version"] == schemas.SCHEMA_VERSION == 2
    for out in ("replayed", "models"):
        rows = _standings_rows(tmp_path / out)
        assert {p: r["warnings"] for p, r in rows.items()} == {
            "ana": 2, "bob": 1, "cri": 0, "dan": 0,
        }  # fmt: skip
        assert rows["ana"]["total"] == 22


def test_warnings_cost_an_anticipation_player_as_they_cost_in_duplicate(arbiter: Arbiter) -> None:
    arbiter.ok("create", "an1", "--variant", "anticipation", "--player", "ana", "--player", "bob",
               *EVERY_TWO_COST_TEN)  # fmt: skip
    arbiter.ok("draw", "an1", "--tiles", "ABEIRST")
    for _ in range(2):
        arbiter.ok("warn", "an1", "--player", "ana", "--reason", "talking")
    standings = _by_player(arbiter.view("standings", "an1")["standings"])
    assert (standings["ana"]["warnings"], standings["ana"]["total"]) == (2, -10)
    assert (standings["bob"]["warnings"], standings["bob"]["total"]) == (0, 0)
    ana = _by_player(arbiter.view("results", "an1", "--round", "1")["players"])["ana"]
    assert (ana["warnings"], ana["penalty"]) == (2, 10)


def test_upgrading_read_models_from_0005_keeps_their_standings_with_no_warnings(
    db_url: str,
) -> None:
    """Migration 0006: the rows a recompute wrote before warnings existed stay, counting 0."""
    engine = create_db_engine(db_url)
    try:
        ledger_at(db_url, engine, "0005")
        row = {"game_id": "hd1", "variant": "duplicate", "rank": 1, "player_id": "ana",
               "total": 32, "solos": 1, "rounds": 1}  # fmt: skip
        with engine.begin() as connection:
            connection.execute(sa.table("read_game_standings", *map(sa.column, row)).insert(), row)
        with EventStore(db_url):
            pass  # opening it for writing migrates it to the head
        with engine.connect() as connection:
            found = connection.execute(sa.text("SELECT total, warnings FROM read_game_standings"))
            assert found.all() == [(32, 0)]
    finally:
        engine.dispose()


def _csv_warnings(path: Path) -> dict[str, int]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return {r["player_id"]: int(r["warnings"]) for r in csv.DictReader(handle)}


def _html_warnings(path: Path, names: dict[str, str]) -> dict[str, int]:
    """Each player's `warnings` cell of a ranking table's page, by the name its row shows."""
    page = path.read_text(encoding="utf-8")
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", page)
    rows = [
        re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", page)
    ]
    at = heads.index("warnings")
    by_name = {cells[1]: int(cells[at]) for cells in rows if cells}
    return {player: by_name[name] for player, name in names.items()}


def test_tournament_and_season_tables_sum_the_warnings_that_stand(
    db_url: str, tmp_path: Path
) -> None:
    import_with_last_round_open(db_url, tmp_path)
    arbiter = Arbiter(db_url, game="cb26-p1")
    leader, second = (s["player_id"] for s in arbiter.view("standings", "cb26-p1")["standings"][:2])
    for player in (leader, leader, second):
        arbiter.ok("warn", "cb26-p1", "--player", player, "--reason", "talking")
    revoked = arbiter.ok("warn", "cb26-p1", "--player", second, "--reason", "mistaken")
    arbiter.ok(
        "revoke", "cb26-p1", "--event", revoked["events"][0]["event_id"], "--reason", "appeal"
    )
    game = {
        s["player_id"]: s["warnings"] for s in arbiter.view("standings", "cb26-p1")["standings"]
    }
    assert (game[leader], game[second], sum(game.values())) == (2, 1, 3)

    for command in (["tournament", "table", "cupa-bucuresti-2026"], ["season", "table"]):
        args = [*command, "--db", db_url]
        shown = cli(*args, "--json")["standings"]
        assert {s["player_id"]: s["warnings"] for s in shown} == game, command
        names = {s["player_id"]: s["name"] for s in shown}
        sheet, page = tmp_path / "table.csv", tmp_path / "table.html"
        cli(*args, "--csv", str(sheet), "--html", str(page))
        assert _csv_warnings(sheet) == game, command
        assert _html_warnings(page, names) == game, command
        terminal = runner.invoke(app, args)
        assert terminal.exit_code == 0 and "warn." in terminal.stdout

    cli("export", "--out", str(tmp_path / "export"), "--db", db_url)
    partitioning = ds.partitioning(schemas.PARTITIONING, flavor="hive")
    exported = ds.dataset(tmp_path / "export" / "standings", partitioning=partitioning).to_table()
    rows = [r for r in exported.to_pylist() if r["level"] == "tournament"]
    assert {r["player_id"]: r["warnings"] for r in rows} == game

    cli("recompute", "--db", db_url)
    with EventStore(db_url) as opened:
        (replayed,) = results(opened, read_tournaments(opened))
        (recomputed,) = results(opened, read_tournaments(opened), recomputed=True)
    for standings in (replayed.standings, recomputed.standings):
        assert {s.player_id: s.warnings for s in standings} == game
