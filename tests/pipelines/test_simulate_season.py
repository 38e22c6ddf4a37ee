"""`arbitru simulate`: a seeded season as a ledger export. The same seed and sizes write the
same file, byte for byte; the file verifies on its own and imports; its tournaments play every
variant of the engine (the shipped sample season: tests/pipelines/test_sample_season.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.arbitru import app
from pipelines.simulate.season import PLACES, SEASON_VARIANTS, plan_season, short_ids

runner = CliRunner()

SMALL = ["--tournaments", "4", "--games", "1", "--players", "3"]


def _simulate(out: Path, seed: int) -> bytes:
    result = runner.invoke(app, ["simulate", "--out", str(out), "--seed", str(seed), *SMALL])
    assert result.exit_code == 0, result.output
    return out.read_bytes()


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("simulate") / "season.jsonl"
    _simulate(out, 3)
    return out, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_the_same_seed_writes_the_same_bytes_and_another_seed_another_season(simulated, tmp_path):
    out, _ = simulated
    assert _simulate(tmp_path / "again.jsonl", 3) == out.read_bytes()
    assert _simulate(tmp_path / "other.jsonl", 4) != out.read_bytes()


def test_a_simulated_season_verifies_imports_and_plays_every_variant(simulated, tmp_path):
    out, events = simulated
    verified = runner.invoke(app, ["ledger", "verify", "--file", str(out)])
    assert verified.exit_code == 0, verified.output
    db = f"sqlite:///{tmp_path / 'season.db'}"
    imported = runner.invoke(app, ["ledger", "import", str(out), "--db", db])
    assert imported.exit_code == 0, imported.output
    created = [e["payload"] for e in events if e["type"] == "GameCreated"]
    assert [c["variant"] for c in created] == list(SEASON_VARIANTS)
    tournaments = [e["payload"] for e in events if e["type"] == "TournamentCreated"]
    assert len(tournaments) == 4 and len(created) == 4
    assert [c["tournament_id"] for c in created] == [t["tournament_id"] for t in tournaments]
    season = runner.invoke(app, ["season", "standings", "--db", db, "--json"])
    assert season.exit_code == 0, season.output
    assert json.loads(season.stdout)["tournaments"] == [t["tournament_id"] for t in tournaments]


def test_the_record_is_timed_by_the_simulated_clock(simulated):
    _, events = simulated
    times = [e["recorded_at"] for e in events]
    assert times == sorted(times) and len(set(times)) == len(times)
    for e in events:
        if "received_at" in e["meta"]:
            assert e["recorded_at"] >= e["meta"]["received_at"].replace("Z", ".000000Z")


def test_players_keep_their_id_across_the_tournaments_of_a_season(simulated):
    _, events = simulated
    registered: dict[str, str] = {}
    roster: dict[str, list[str]] = {}
    for e in events:
        if e["type"] == "PlayerRegistered":
            p = e["payload"]
            assert registered.setdefault(p["player_id"], p["name"]) == p["name"]
            roster.setdefault(e["stream"].removeprefix("tournament/"), []).append(p["player_id"])
    tournament_of = {
        e["payload"]["game_id"]: e["payload"]["tournament_id"]
        for e in events
        if e["type"] == "GameCreated"
    }
    for game_id, tournament_id in tournament_of.items():  # every variant plays the roster
        joined = [
            e["payload"]["player_id"]
            for e in events
            if e["type"] == "PlayerJoined" and e["stream"] == f"game/{game_id}"
        ]
        assert joined == roster[tournament_id], game_id


def test_every_tournament_of_a_season_has_its_own_short_id_for_its_games():
    """Cupa Bucureștiului and Cupa Brașovului have the same initials: the second gets cbr."""
    shorts = short_ids(prefix for prefix, _, _ in PLACES)
    assert len(set(shorts.values())) == len(PLACES)
    assert (shorts["cupa-bucuresti"], shorts["cupa-brasov"]) == ("cb", "cbr")
    assert len(set(short_ids(["a-bc", "a-b", "ab-c", "a-bcd"]).values())) == 4
    plan = plan_season(1, tournaments=len(PLACES), games=2, players=2)
    ids = [g.scenario.game_id for t in plan.tournaments for g in t.games]
    assert len(ids) == len(set(ids)) == 2 * len(PLACES)


@pytest.mark.heavy
def test_simulate_plays_five_tournaments(tmp_path):
    out = tmp_path / "five.jsonl"
    args = ["--tournaments", "5", "--games", "1", "--players", "2"]
    result = runner.invoke(app, ["simulate", "--out", str(out), "--seed", "2", *args])
    assert result.exit_code == 0, result.output
    games = {json.loads(line)["stream"] for line in out.read_text(encoding="utf-8").splitlines()}
    assert {"game/cb26-p1", "game/cbr26-p1"} <= games


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--tournaments", "0"], "--tournaments"),
        (["--tournaments", "99"], "--tournaments"),
        (["--players", "1"], "--players"),
    ],
)
def test_simulate_refuses_impossible_sizes(tmp_path, args, problem):
    result = runner.invoke(
        app, ["simulate", "--out", str(tmp_path / "x.jsonl"), "--seed", "1", *args]
    )
    assert result.exit_code == 2
    assert problem in result.output
    assert not (tmp_path / "x.jsonl").exists()


def test_simulate_refuses_to_write_over_a_directory(tmp_path):
    result = runner.invoke(app, ["simulate", "--out", str(tmp_path), "--seed", "1", *SMALL])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
