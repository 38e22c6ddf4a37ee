"""`arbitru simulate`: a seeded season as a ledger export. The same seed records the same
events (up to event ids, times of recording and hashes); the file verifies on its own and
imports; every variant of the engine is played; the shipped sample season holds the cases it
is documented to hold."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.games.projections import round_results
from ledger import EventStore, import_events
from pipelines.cli import app
from pipelines.game_records import check_payload
from pipelines.game_service import load_game
from pipelines.simulate_season import SEASON_VARIANTS
from pipelines.tournaments import read_tournaments

runner = CliRunner()

SMALL = ["--tournaments", "2", "--games", "1", "--players", "3"]
ENVELOPE_OF_THE_RUN = ("event_id", "recorded_at", "prev_hash", "hash")
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "season" / "sample-season.jsonl"


def _simulate(out: Path, seed: int) -> list[dict]:
    result = runner.invoke(app, ["simulate", "--out", str(out), "--seed", str(seed), *SMALL])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    seq_of = {line["event_id"]: line["seq"] for line in lines}
    for line in lines:  # a decision revoked is named by its event id: refer to it by seq
        if "event_id" in line["payload"]:
            line["payload"]["event_id"] = seq_of[line["payload"]["event_id"]]
    return [{k: v for k, v in line.items() if k not in ENVELOPE_OF_THE_RUN} for line in lines]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("simulate") / "season.jsonl"
    return out, _simulate(out, 3)


def test_the_same_seed_records_the_same_season_and_another_seed_another(simulated, tmp_path):
    _, first = simulated
    assert _simulate(tmp_path / "again.jsonl", 3) == first
    assert _simulate(tmp_path / "other.jsonl", 4) != first


def test_a_simulated_season_verifies_imports_and_plays_every_variant(simulated, tmp_path):
    out, events = simulated
    verified = runner.invoke(app, ["ledger", "verify", "--file", str(out)])
    assert verified.exit_code == 0, verified.output
    db = f"sqlite:///{tmp_path / 'season.db'}"
    imported = runner.invoke(app, ["ledger", "import", str(out), "--db", db])
    assert imported.exit_code == 0, imported.output
    created = [e["payload"] for e in events if e["type"] == "GameCreated"]
    assert {c["variant"] for c in created} == set(SEASON_VARIANTS) or len(created) < len(
        SEASON_VARIANTS
    )
    assert created[0]["variant"] == SEASON_VARIANTS[0]
    tournaments = [e["payload"] for e in events if e["type"] == "TournamentCreated"]
    assert len(tournaments) == 2 and len(created) == 2
    season = runner.invoke(app, ["season", "standings", "--db", db, "--json"])
    assert season.exit_code == 0, season.output
    assert json.loads(season.stdout)["tournaments"] == [t["tournament_id"] for t in tournaments]


def test_players_keep_their_id_across_the_tournaments_of_a_season(simulated):
    _, events = simulated
    registered: dict[str, str] = {}
    for e in events:
        if e["type"] == "PlayerRegistered":
            p = e["payload"]
            assert registered.setdefault(p["player_id"], p["name"]) == p["name"]
    joined = {e["payload"]["player_id"] for e in events if e["type"] == "PlayerJoined"}
    assert joined <= set(registered)


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


def test_the_shipped_sample_season_is_the_fixture_and_holds_what_its_readme_says(tmp_path):
    shipped = resources.files("pipelines.data").joinpath("sample-season.jsonl")
    assert FIXTURE.read_bytes() == shipped.read_bytes()
    with EventStore(f"sqlite:///{tmp_path / 'sample.db'}") as store:
        with FIXTURE.open("rb") as lines:
            report = import_events(
                store, lines, require_same_hashes=True, payload_check=check_payload
            )
        assert report.ok and not report.hash_mismatches
        tournaments = read_tournaments(store)
        assert [len(t.games) for t in tournaments] == [3, 3, 3, 3]
        assert {t.season for t in tournaments} == {"2026"}
        statuses: Counter[str] = Counter()
        types: Counter[str] = Counter()
        variants = set()
        for t in tournaments:
            for game_id in t.games:
                game = load_game(store, game_id)
                assert game.state.ended is not None
                variants.add(game.state.created.variant)
                types.update(e.type for e in game.stored)
                for rnd in game.state.rounds:
                    for player in round_results(game.state, rnd.number).players:
                        statuses.update(s.status for s in player.submissions)
    assert variants == set(SEASON_VARIANTS)
    for status in ("counted", "superseded", "late", "corrected", "unreadable", "annulled",
                   "not_in_dictionary"):  # fmt: skip
        assert statuses[status], status
    for kind in ("PenaltyGiven", "DecisionRevoked", "TopChosen", "SeedRevealed"):
        assert types[kind], kind
