"""`arbitru demo`, the README's first command: run once as a user would (a subprocess, in a new
folder) it leaves a verified ledger, read models, a Parquet export and a board picture, and
prints the season standings; it never writes into a folder that holds something."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.games.projections import round_results
from ledger import EventStore
from pipelines.cli.arbitru import app
from pipelines.cli.demo import demo_folder
from pipelines.games.service import load_game
from pipelines.season.tournaments import read_tournaments

runner = CliRunner()
ARBITRU = str(Path(sys.executable).with_name("arbitru"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("demo") / "season"
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("ARBITRU_DB", None)
    done = subprocess.run(
        [ARBITRU, "demo", "--dir", str(folder)],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip
    return folder, done


def test_demo_runs_to_the_end_and_leaves_every_product_in_its_folder(demo):
    folder, done = demo
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert (folder / "ledger.db").is_file()
    assert (folder / "final-board.svg").read_text(encoding="utf-8").startswith("<?xml")
    manifest = json.loads((folder / "export" / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["ledger"]["seq"] > 0
    assert "verifying the hash chain" in done.stderr
    for path in ("ledger.db", "export", "final-board.svg"):
        assert str(folder / path) in done.stdout
    assert "arbitru game results" in done.stdout and "duckdb" in done.stdout


def test_the_demo_ledger_verifies_and_its_standings_are_those_printed(demo):
    folder, done = demo
    db = f"sqlite:///{folder / 'ledger.db'}"
    verified = runner.invoke(app, ["ledger", "verify", "--db", db, "--json"])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.stdout)["ok"] is True
    points = str(folder / "demo-ranking-points.toml")
    season = runner.invoke(app, ["season", "standings", "--db", db, "--points", points, "--json"])
    assert season.exit_code == 0, season.output
    standings = json.loads(season.stdout)["standings"]
    assert "Season 2026" in done.stdout and "the demo's made-up value-12 scale" in done.stdout
    for row in standings[:3]:
        assert row["name"] in done.stdout
        assert str(row["points"]) in done.stdout


def test_demo_refuses_a_folder_that_holds_something(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "is not empty" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_demo_refuses_a_file_as_its_folder(tmp_path):
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    result = runner.invoke(app, ["demo", "--dir", str(target)])
    assert result.exit_code == 2
    assert target.read_text(encoding="utf-8") == "x"


def test_without_dir_the_demo_takes_the_next_free_arbitru_demo_folder(tmp_path):
    assert demo_folder(None, tmp_path) == tmp_path / "arbitru-demo-1"
    (tmp_path / "arbitru-demo-1").mkdir()
    (tmp_path / "arbitru-demo-2").write_text("", encoding="utf-8")
    assert demo_folder(None, tmp_path) == tmp_path / "arbitru-demo-3"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert demo_folder(empty, tmp_path) == empty


def test_every_command_the_demo_suggests_runs_on_its_ledger(demo):
    folder, done = demo
    db = f"sqlite:///{folder / 'ledger.db'}"
    suggested = [
        line.split("#")[0].split()[1:]
        for line in done.stdout.splitlines()
        if line.startswith("  arbitru ") and "FILE" not in line
    ]
    assert any("--player" in words for words in suggested)  # an anticipation player's board
    assert len(suggested) >= 6
    for words in suggested:
        result = runner.invoke(app, [*words, "--db", db])
        assert result.exit_code == 0, (words, result.output)


def test_the_duckdb_query_the_demo_prints_gives_the_season_standings(demo):
    """The one-liner it suggests runs as printed, and its players and points are the season
    standings' (players counted by id: two players of the same name stay two)."""
    folder, done = demo
    (line,) = [line.strip() for line in done.stdout.splitlines() if "import duckdb" in line]
    assert line.startswith("python -c ")
    shown = subprocess.run(
        ["bash", "-c", f'"{sys.executable}"{line.removeprefix("python")}'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    season = runner.invoke(
        app,
        ["season", "standings", "--db", f"sqlite:///{folder / 'ledger.db'}",
         "--points", str(folder / "demo-ranking-points.toml"), "--json"],
    )  # fmt: skip
    for player in json.loads(season.stdout)["standings"][:5]:
        assert any(
            player["player_id"] in row and str(player["points"]) in row
            for row in shown.splitlines()
        ), (player, shown)


def _readme_queries() -> list[str]:
    """The DuckDB queries of the README's "Season tables for statisticians", as printed."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("Three queries in DuckDB", 1)[1].split("```sql\n", 1)[1]
    block = block.split("```", 1)[0]
    return [q.strip() for q in block.split(";\n") if q.strip()]


def test_the_readme_duckdb_queries_give_what_the_cli_shows_for_every_variant(
    demo, tmp_path, monkeypatch
):
    """Each query runs as printed (on `season-export/`, here the demo's export) and gives the
    CLI's figures: the season's points, who reached each round's top (anticipation rounds have
    no common top, so they count neither as found nor as missed) and why rounds score nothing."""
    duckdb = pytest.importorskip("duckdb")
    folder, _ = demo
    db = f"sqlite:///{folder / 'ledger.db'}"
    (tmp_path / "season-export").symlink_to(folder / "export")
    monkeypatch.chdir(tmp_path)
    ranking, tops, reasons = (duckdb.sql(q).fetchall() for q in _readme_queries())

    scale = str(folder / "demo-ranking-points.toml")  # the one the demo's export used
    shown = runner.invoke(app, ["season", "standings", "--db", db, "--points", scale, "--json"])
    season = json.loads(shown.stdout)
    assert {(p, points, n) for _, p, _, points, n in ranking} == {
        (s["player_id"], s["points"], len(s["tournaments"])) for s in season["standings"]
    }

    rounds: Counter[str] = Counter()
    found: Counter[str] = Counter()
    why: Counter[tuple[str, str]] = Counter()
    with EventStore(db) as store:
        for tournament in read_tournaments(store):
            for game_id in tournament.games:
                state = load_game(store, game_id).state
                for rnd in state.rounds:
                    results = round_results(state, rnd.number, submissions=False)
                    for player in results.players:
                        why[tournament.season, player.code or "valid"] += 1
                        if results.closed and results.top is not None:
                            rounds[player.player_id] += 1
                            found[player.player_id] += player.player_id in results.top.reached_by
    assert {(p, n, pct) for p, n, pct, _ in tops} == {
        (p, n, round(100 * found[p] / n, 1)) for p, n in rounds.items()
    }
    assert sorted(reasons) == sorted((s, r, n) for (s, r), n in why.items())
    for game_id in ("tt26-p3", "mc26-p1"):  # the CLI says the same of a round of each
        shown = runner.invoke(
            app, ["game", "results", game_id, "--round", "2", "--db", db, "--json"]
        )
        reached = json.loads(shown.stdout)["top"]["reached_by"]
        rows = duckdb.sql(
            "SELECT player_id FROM read_parquet('season-export/player_rounds/**/*.parquet',"
            " hive_partitioning = true, hive_types = {'season': 'VARCHAR'})"
            f" WHERE game_id = '{game_id}' AND round = 2 AND points >= top_score"
        ).fetchall()
        assert sorted(reached) == sorted(p for (p,) in rows)
    anticipation = runner.invoke(
        app, ["game", "results", "oi26-p1", "--round", "2", "--db", db, "--json"]
    )
    assert json.loads(anticipation.stdout)["top"] is None
