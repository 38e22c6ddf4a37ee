"""Tournament standings add game totals (ties share the place); season standings add the
ranking points of each place, by the shipped federation table or one given with --points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.games.projections import Standing
from pipelines.cli import app
from pipelines.tournaments import (
    PointsTable,
    Registration,
    Tournament,
    TournamentError,
    TournamentResult,
    season_standings,
    tournament_standings,
)

runner = CliRunner()

GAME_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
FRS_TOP_TEN = (1000, 859, 801, 757, 720, 688, 659, 632, 608, 585)


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


def test_the_shipped_points_table_is_the_federations_value_100_table():
    table = PointsTable.load()
    assert tuple(table.points_for(place) for place in range(1, 11)) == FRS_TOP_TEN
    assert table.points_for(11) == 0


def test_tied_players_each_get_the_points_of_their_shared_place_and_absentees_none():
    t1 = _tournament("t1", ("a", "b", "c", "idle"), ("g1",))
    t2 = _tournament("t2", ("a", "c"), ("g2",))
    r1 = tournament_standings(
        t1, {"g1": (_standing("a", 300), _standing("b", 300), _standing("c", 100))}
    )
    r2 = tournament_standings(t2, {"g2": (_standing("c", 400), _standing("a", 100))})
    ranked = season_standings(
        [TournamentResult(t1, r1), TournamentResult(t2, r2)], PointsTable.load()
    )
    assert [(s.rank, s.player_id, s.points) for s in ranked] == [
        (1, "a", 1000 + 859),
        (2, "c", 801 + 1000),
        (3, "b", 1000),
    ]
    assert ranked[1].tournaments == (("t1", 3, 801), ("t2", 1, 1000))
    assert "idle" not in {s.player_id for s in ranked}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("points = [", "not valid TOML"),
        ("name = 'x'", "needs `points`"),
        ("points = []", "needs `points`"),
        ("points = [100, -1]", "needs `points`"),
        ("points = [100, 200]", "more points than the place above"),
        ("points = [100, 50]\nbeyond = 60", "exceeds the last place"),
        ("points = [100, 50]\nbeyond = -1", "`beyond` must be"),
    ],
)
def test_a_points_table_that_cannot_be_used_is_refused_naming_the_problem(tmp_path, text, problem):
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TournamentError, match=problem):
        PointsTable.load(path)


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
    expected = [PointsTable.load().points_for(s["rank"]) for s in game]
    assert [s["points"] for s in season["standings"]] == expected

    custom = tmp_path / "club.toml"
    custom.write_text('name = "club"\npoints = [30, 20, 10]\nbeyond = 1\n', encoding="utf-8")
    season = _json(["season", "standings", "--db", game_ledger, "--points", str(custom), "--json"])
    assert season["points_table"] == {"name": "club", "points": [30, 20, 10], "beyond": 1}
    assert [s["points"] for s in season["standings"]] == [
        {1: 30, 2: 20, 3: 10}.get(s["rank"], 1) for s in game
    ]


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
    assert "1000 (1)" in result.stdout
