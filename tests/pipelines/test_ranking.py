"""The federation's ranking system: an event's value is its players clamped to 10-100, each
value its own scale, tied players share the average of the places they cover; a value with no
scale gets no points and a line naming it. Tournament and season tables through the CLI, read
back from --json, --csv (Python's csv and DuckDB) and the Parquet export."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest
from game_cli_helpers import DUPLICATE_FIXTURE, import_with_last_round_open
from typer.testing import CliRunner

from engine.games.projections import Standing
from pipelines.cli.arbitru import app
from pipelines.season.ranking import PointsTable, RankingError, event_value
from pipelines.season.tournaments import Registration, Tournament, tournament_standings

runner = CliRunner()

VALUE_14 = (606, 438, 370, 317, 273, 235, 201, 169, 141, 114, 88, 64, 42, 20)
VALUE_100_TOP_TEN = (1000, 859, 801, 757, 720, 688, 659, 632, 608, 585)


def _places(ranks: list[int]) -> list[tuple[str, int]]:
    return [(f"p{i:03}", rank) for i, rank in enumerate(ranks)]


def test_four_tied_first_of_fourteen_share_the_average_of_places_one_to_four():
    award = PointsTable.load().award(_places([1, 1, 1, 1, *range(5, 15)]))
    assert award.value == 14
    assert [award.points[f"p{i:03}"] for i in range(4)] == [Decimal("432.75")] * 4
    assert award.points["p004"] == 273  # the fifth place keeps its own points
    assert award.points["p013"] == 20


def test_three_tied_share_an_average_rounded_to_the_hundredth_half_up():
    award = PointsTable.load().award(_places([1, 1, 1, *range(4, 15)]))
    assert award.points["p000"] == Decimal("471.33")  # (606 + 438 + 370) / 3 = 471.333...


def test_an_event_of_150_players_takes_the_value_100_scale_and_past_place_10_no_points():
    table = PointsTable.load()
    award = table.award(_places(list(range(1, 151))))
    assert award.value == 100 and event_value(150) == 100
    assert tuple(award.points[f"p{i:03}"] for i in range(10)) == VALUE_100_TOP_TEN
    assert award.points["p010"] is None  # the published scale stops at place 10
    line = table.missing_line("big-open", award)
    assert "places past 10 get no ranking points" in line and "value-100" in line


def test_a_tie_across_the_end_of_a_partial_scale_gets_no_points_never_a_guess():
    award = PointsTable.load().award(_places([*range(1, 10), 10, 10, *range(12, 101)]))
    assert award.points["p008"] == 608
    assert award.points["p009"] is None and award.points["p010"] is None


def test_a_nine_player_event_is_value_10_and_without_that_scale_no_points_and_a_line():
    table = PointsTable.load()
    award = table.award(_places(list(range(1, 10))))
    assert award.value == 10 and not award.scaled
    assert set(award.points.values()) == {None}
    line = table.missing_line("small-cup", award)
    assert line.startswith("small-cup: no ranking points")
    assert "no scale for value 10" in line and "ranking_points.toml" in line
    assert "--points FILE" in line


def test_a_complete_scale_gives_nothing_past_its_value(tmp_path):
    path = tmp_path / "full.toml"
    path.write_text(f"[scales]\n100 = [{', '.join(str(100 - i) for i in range(100))}]\n", "utf-8")
    award = PointsTable.load(path).award(_places(list(range(1, 151))))
    assert award.points["p099"] == 1 and award.points["p100"] == 0
    assert not award.partial


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[scales", "not valid TOML"),
        ("name = 'x'", "needs a \\[scales\\] table"),
        ("[scales]\n9 = [10]", "'9' under \\[scales\\] is not an event value"),
        ("[scales]\nten = [10]", "is not an event value"),
        ("[scales]\n12 = []", "value-12 scale must be a list"),
        ("[scales]\n12 = [100, -1]", "value-12 scale must be a list"),
        ("[scales]\n12 = 5", "value-12 scale must be a list"),
        ("[scales]\n12 = [100, 200]", "more points than the place above"),
        ("[scales]\n10 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]", "lists 11 places"),
    ],
)
def test_a_points_table_that_cannot_be_used_is_refused_naming_the_problem(tmp_path, text, problem):
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RankingError, match=problem):
        PointsTable.load(path)


def test_the_shipped_table_has_the_published_scales_and_says_which_values_are_missing():
    table = PointsTable.load()
    assert table.scales == {14: VALUE_14, 100: VALUE_100_TOP_TEN}
    assert len(table.missing_values()) == 89


def _standing(player: str, total: int, solos: int, rounds: tuple[int, ...]) -> Standing:
    return Standing(0, player, player, total, solos, None, rounds)


def test_tie_break_by_solos_then_best_round_splits_equal_totals_and_equal_players_still_share():
    t = Tournament("t", "T", "2026", None, None, None, (Registration("a", "A", "Club"),), ("g",))
    games = {
        "g": (
            _standing("a", 300, 0, (100, 200)),
            _standing("b", 300, 1, (150, 150)),
            _standing("c", 300, 0, (290, 10)),
            _standing("d", 300, 0, (100, 200)),
        )
    }
    assert {s.rank for s in tournament_standings(t, games)} == {1}
    ranked = tournament_standings(t, games, tie_break=("solos", "best-round"))
    assert [(s.rank, s.player_id) for s in ranked] == [(1, "b"), (2, "c"), (3, "a"), (3, "d")]
    assert ranked[2].club == "Club" and ranked[1].best_round == 290


def _invoke(args: list[str], code: int = 0):
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def game_ledger(db_url: str) -> str:
    _invoke(["ledger", "import", str(DUPLICATE_FIXTURE), "--db", db_url])
    return db_url


def test_a_fourteen_player_tournament_takes_the_value_14_scale_in_json_csv_duckdb_and_export(
    game_ledger, tmp_path
):
    args = ["tournament", "table", "cupa-bucuresti-2026", "--db", game_ledger]
    shown = json.loads(_invoke([*args, "--json"]).stdout)
    assert shown["value"] == 14
    rows = shown["standings"]
    expected = PointsTable.load().award([(r["player_id"], r["rank"]) for r in rows])
    assert [r["points"] for r in rows] == [float(expected.points[r["player_id"]]) for r in rows]
    assert rows[0]["points"] == 606 or rows[0]["rank"] == rows[1]["rank"]
    assert all(r["club"] for r in rows)

    out = tmp_path / "table.csv"
    written = _invoke([*args, "--csv", str(out)])
    assert written.stdout == "" and "wrote 14 rows" in written.stderr
    assert out.read_bytes().startswith("\ufeffrank,".encode())  # a spreadsheet's UTF-8 mark
    assert "Equal totals share the place" in written.stderr
    with out.open(encoding="utf-8-sig", newline="") as f:
        read = list(csv.DictReader(f))
    assert [(int(r["rank"]), r["player_id"], r["name"], float(r["points"])) for r in read] == [
        (r["rank"], r["player_id"], r["name"], r["points"]) for r in rows
    ]
    duckdb = pytest.importorskip("duckdb")
    got = duckdb.sql(f"SELECT player_id, points FROM read_csv('{out}', header=true)").fetchall()
    assert got == [(r["player_id"], r["points"]) for r in rows]

    export = tmp_path / "export"
    _invoke(["export", "--db", game_ledger, "--out", str(export)])
    exported = duckdb.sql(
        f"SELECT player_id, ranking_points FROM read_parquet('{export}/standings/**/*.parquet', "
        "hive_partitioning=true) WHERE level = 'tournament' ORDER BY rank, player_id"
    ).fetchall()
    assert dict(exported) == {r["player_id"]: r["points"] for r in rows}

    season = json.loads(_invoke(["season", "table", "--db", game_ledger, "--json"]).stdout)
    assert {s["player_id"]: s["points"] for s in season["standings"]} == dict(exported)
    assert {s["player_id"]: s["by_type"]["duplicate"] for s in season["standings"]} == dict(
        exported
    )
    season_csv = tmp_path / "season.csv"
    _invoke(["season", "table", "--db", game_ledger, "--csv", str(season_csv)])
    with season_csv.open(encoding="utf-8-sig", newline="") as f:
        header, *lines = list(csv.reader(f))
    assert header[:4] == ["rank", "player_id", "name", "club"]
    assert "cupa-bucuresti-2026 place" in header and header[-1] == "points"
    assert len(lines) == len(rows)


def test_the_table_prints_the_tie_break_rule_and_a_bad_order_is_refused(game_ledger):
    args = ["tournament", "table", "cupa-bucuresti-2026", "--db", game_ledger]
    plain = _invoke(args).stdout
    assert "Equal totals share the place and the average of its ranking points." in plain
    broken = _invoke([*args, "--tie-break", "solos,tops"]).stdout
    assert "Equal totals broken by more solos, then more tops" in broken
    refused = _invoke([*args, "--tie-break", "luck"], code=2)
    assert "'luck' is not a criterion" in refused.stderr and "best-round" in refused.stderr


def test_a_season_whose_event_value_has_no_scale_shows_places_and_the_missing_line(
    game_ledger, tmp_path
):
    only_12 = tmp_path / "twelve.toml"
    only_12.write_text("name = 'club'\n[scales]\n12 = [30, 20, 10]\n", encoding="utf-8")
    result = _invoke(["season", "table", "--db", game_ledger, "--points", str(only_12)])
    assert "(14 players, value 14): no ranking points" in result.stdout
    assert "no scale for value 14" in result.stdout and str(only_12) in result.stdout
    shown = json.loads(
        _invoke(["season", "table", "--db", game_ledger, "--points", str(only_12), "--json"]).stdout
    )
    places = [s["tournaments"][0] for s in shown["standings"]]
    assert all(p["points"] is None and p["place"] >= 1 for p in places)


@pytest.fixture
def four_tied_first(db_url: str, tmp_path: Path) -> str:
    """The fourteen-player game with its last round still open (the fixture up to its last
    RoundClosed), where the arbiter's penalties bring the first three down to the fourth's
    total: four players tied first of fourteen."""
    import_with_last_round_open(db_url, tmp_path)
    game = json.loads(_invoke(["game", "standings", "cb26-p1", "--db", db_url, "--json"]).stdout)
    top = game["standings"][:4]
    assert len(game["standings"]) == 14 and len({s["total"] for s in top}) == 4
    for s in top[:3]:
        points = str(s["total"] - top[3]["total"])
        _invoke(["game", "penalise", "cb26-p1", "--player", s["player_id"], "--db", db_url,
                 "--points", points, "--reason", "a tie at the top"])  # fmt: skip
    return db_url


def test_four_tied_first_of_a_fourteen_player_tournament_get_432_75_in_every_output(
    four_tied_first, tmp_path
):
    args = ["tournament", "table", "cupa-bucuresti-2026", "--db", four_tied_first]
    rows = json.loads(_invoke([*args, "--json"]).stdout)["standings"]
    assert [(r["rank"], r["points"]) for r in rows[:5]] == [(1, 432.75)] * 4 + [(5, 273)]
    assert "432.75" in _invoke(args).stdout

    out = tmp_path / "tied.csv"
    _invoke([*args, "--csv", str(out)])
    with out.open(encoding="utf-8-sig", newline="") as f:
        assert [r["points"] for r in csv.DictReader(f)][:5] == ["432.75"] * 4 + ["273"]

    export = tmp_path / "export"
    _invoke(["export", "--db", four_tied_first, "--out", str(export)])
    duckdb = pytest.importorskip("duckdb")
    top = duckdb.sql(
        f"SELECT rank, ranking_points FROM read_parquet('{export}/standings/**/*.parquet', "
        "hive_partitioning=true) WHERE level = 'tournament' ORDER BY rank, player_id LIMIT 5"
    ).fetchall()
    assert top == [(1, 432.75)] * 4 + [(5, 273.0)]

    season = json.loads(_invoke(["season", "table", "--db", four_tied_first, "--json"]).stdout)
    assert [s["points"] for s in season["standings"][:4]] == [432.75] * 4
    assert {s["rank"] for s in season["standings"][:4]} == {1}


def test_a_tie_break_order_separates_the_tied_players_for_places_and_points(four_tied_first):
    args = ["tournament", "table", "cupa-bucuresti-2026", "--db", four_tied_first, "--json"]
    rows = json.loads(_invoke([*args, "--tie-break", "tops,solos,best-round"]).stdout)["standings"]
    top = rows[:4]
    keys = [(r["tops"], r["solos"], r["best_round"]) for r in top]
    assert keys == sorted(keys, reverse=True)
    points = dict(zip(range(1, 5), (606, 438, 370, 317), strict=True))
    for r in top:  # each place's own points, or the average of the places still shared
        shared = [p for p in top if p["rank"] == r["rank"]]
        covered = range(r["rank"], r["rank"] + len(shared))
        assert r["points"] == round(sum(points[p] for p in covered) / len(shared), 2)
    assert len({r["rank"] for r in top}) > 1


def test_a_csv_target_that_is_a_directory_and_a_repeated_criterion_are_refused(
    game_ledger, tmp_path
):
    args = ["season", "table", "--db", game_ledger]
    refused = _invoke([*args, "--csv", str(tmp_path)], code=2)
    assert "is a directory" in refused.stderr and "--csv" in refused.stderr
    twice = _invoke([*args, "--tie-break", "solos,solos"], code=2)
    assert "names a criterion twice" in twice.stderr
