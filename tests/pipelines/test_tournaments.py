"""Tournament standings add game totals (ties share the place); season standings add the
ranking points of each place, by the shipped federation table or one given with --points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.games.projections import Standing
from pipelines.cli.arbitru import app
from pipelines.season.tournaments import (
    PointsTable,
    Registration,
    Tournament,
    TournamentResult,
    season_standings,
    tournament_standings,
)

runner = CliRunner()

GAME_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"


def _standing(player: str, total: int, solos: int = 0) -> Standing:
    return Standing(0, player, player.upper(), total, solos, None, ())


def _tournament(tid: str, players: tuple[str, ...], games: tuple[str, ...]) -> Tournament:
    regs = tuple(Registration(p, p.upper()) for p in players)
    return Tournament(tid, tid.title(), "2026", None, None, None, regs, games)


def test_tournament_total_is_the_sum_of_its_game_totals_and_ties_share_the_place():
    t = _tournament("t1", ("a", "b", "c", "d"), ("g1", "g2"))
    games = {
        "g1": (
            _standing("a", 500, 1),
            _standing("b", 450),
            _standing("c", 400),
            _standing("d", 10),
        ),
        "g2": (
            _standing("b", 520, 2),
            _standing("c", 570),
            _standing("a", 470),
            _standing("d", 20),
        ),
    }
    ranked = tournament_standings(t, games)
    assert [(s.rank, s.player_id, s.total, s.games, s.solos) for s in ranked] == [
        (1, "a", 970, 2, 1),
        (1, "b", 970, 2, 2),
        (1, "c", 970, 2, 0),
        (4, "d", 30, 2, 0),
    ]


def test_games_not_added_to_the_tournament_do_not_count():
    t = _tournament("t1", ("a", "b"), ("g1",))
    games = {"g1": (_standing("a", 300), _standing("b", 200)), "other": (_standing("b", 999),)}
    assert [(s.player_id, s.total) for s in tournament_standings(t, games)] == [
        ("a", 300),
        ("b", 200),
    ]


def test_tied_players_share_the_average_of_their_places_and_absentees_get_none():
    t1 = _tournament("t1", ("a", "b", "c", "idle"), ("g1",))
    t2 = _tournament("t2", ("a", "c"), ("g2",))
    r1 = tournament_standings(
        t1, {"g1": (_standing("a", 300), _standing("b", 300), _standing("c", 100))}
    )
    r2 = tournament_standings(t2, {"g2": (_standing("c", 400), _standing("a", 100))})
    table = PointsTable("t", {10: (100, 60, 40, 20)}, "t.toml")
    ranked = season_standings([TournamentResult(t1, r1), TournamentResult(t2, r2)], table)
    assert [(s.rank, s.player_id, s.points) for s in ranked] == [
        (1, "a", 80 + 60),  # tied first in t1: (100 + 60) / 2 each
        (1, "c", 40 + 100),
        (3, "b", 80),
    ]
    assert ranked[1].tournaments == (("t1", 3, 40), ("t2", 1, 100))
    assert "idle" not in {s.player_id for s in ranked}


def _json(args: list[str]) -> dict:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def game_ledger(db_url: str) -> str:
    result = runner.invoke(app, ["ledger", "import", str(GAME_FIXTURE), "--db", db_url])
    assert result.exit_code == 0, result.output
    return db_url


def test_tournament_and_season_standings_of_the_sample_game_on_each_backend(game_ledger, tmp_path):
    game = _json(["game", "standings", "cb26-p1", "--db", game_ledger, "--json"])["standings"]
    tournament = _json(
        ["tournament", "standings", "cupa-bucuresti-2026", "--db", game_ledger, "--json"]
    )
    assert tournament["tournament"]["games"] == ["cb26-p1"]
    assert [(s["rank"], s["player_id"], s["total"]) for s in tournament["standings"]] == [
        (s["rank"], s["player_id"], s["total"]) for s in game
    ]
    season = _json(["season", "standings", "--db", game_ledger, "--json"])
    assert season["season"] == "2026"
    award = PointsTable.load().award([(s["player_id"], s["rank"]) for s in game])
    assert [s["points"] for s in season["standings"]] == [
        float(award.points[s["player_id"]]) for s in game
    ]

    custom = tmp_path / "club.toml"
    custom.write_text('name = "club"\n[scales]\n14 = [30, 20, 10]\n', encoding="utf-8")
    season = _json(["season", "standings", "--db", game_ledger, "--points", str(custom), "--json"])
    assert season["points_table"] == {"name": "club", "values": [14]}
    assert [s["points"] for s in season["standings"]][:3] == [30, 20, 10]


def test_unknown_tournament_season_or_table_is_a_clear_error(game_ledger, tmp_path):
    result = runner.invoke(app, ["tournament", "standings", "nope", "--db", game_ledger])
    assert result.exit_code == 2
    assert "no tournament nope" in result.stderr and "cupa-bucuresti-2026" in result.stderr
    result = runner.invoke(app, ["season", "standings", "--season", "1999", "--db", game_ledger])
    assert result.exit_code == 2
    assert "no tournament of season 1999 (seasons: 2026)" in result.stderr
    missing = tmp_path / "missing.toml"
    result = runner.invoke(
        app, ["season", "standings", "--points", str(missing), "--db", game_ledger]
    )
    assert result.exit_code == 2
    assert "missing.toml: no such file; give the path of a points table" in result.stderr
    assert "Traceback" not in result.output


def test_season_standings_table_shows_each_tournament_and_the_points(game_ledger):
    result = runner.invoke(app, ["season", "standings", "--db", game_ledger])
    assert result.exit_code == 0, result.output
    assert "Season 2026" in result.stdout
    assert "București" in result.stdout  # each tournament's column, headed by its town
    assert "606 (1)" in result.stdout  # a value-14 event: the value-14 scale
