"""`arbitru demo`, the README's first command: run once as a user would (a subprocess, in a new
folder) it leaves a verified ledger, read models, a Parquet export and a board picture, and
prints the season standings; it never writes into a folder that holds something."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from pipelines.demo import demo_folder

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
