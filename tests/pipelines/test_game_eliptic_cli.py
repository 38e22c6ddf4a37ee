"""A duplicat eliptic game through the real CLI and the real ledger, on SQLite and PostgreSQL:
8 drawn, an 8-tile play refused, the bonus for 7 of the 8 and none for 6, the vowel rule over
the 8, the computer's top, settings overridden or refused at creation, and the views of a
short game: standings, replay with its SVG board, the game's table and the Parquet export."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
import pytest
from game_cli_helpers import Arbiter, cli

pytestmark = pytest.mark.usefixtures("default_home")


@pytest.fixture
def arbiter(db_url: str) -> Arbiter:
    arbiter = Arbiter(db_url, game="he1")
    arbiter.ok(
        "create", "he1", "--variant", "eliptic", "--player", "ana:Ana Pop",
        "--player", "bob:Bob Ionescu", "--player", "cid",
    )  # fmt: skip
    return arbiter


def _two_rounds(arbiter: Arbiter) -> None:
    """Round 1: ana's bingo of 7, bob's 6 tiles, cid's 8 refused; round 2: bob alone."""
    arbiter.ok("draw", "he1", "--tiles", "JUCATORI")
    arbiter.ok("submit", "he1", "--player", "ana", "--text", "H4: JUCATOR = 102 p")
    arbiter.ok("submit", "he1", "--player", "bob", "--text", "H8: CURATI")
    arbiter.ok("submit", "he1", "--player", "cid", "--text", "H4: JUCATORI")
    arbiter.ok("close-round", "he1")
    arbiter.ok("draw", "he1", "--tiles", "AEIRSTN")
    arbiter.ok("submit", "he1", "--player", "bob", "--text", "4D: TIRAJ")
    arbiter.ok("close-round", "he1")


def test_eliptic_round_draws_8_and_refuses_7_or_8_vowels(arbiter: Arbiter) -> None:
    assert "the round draws 8" in arbiter.refused(1, "draw", "he1", "--tiles", "JUCATOR")
    message = arbiter.refused(1, "draw", "he1", "--tiles", "AEIOUAEI")
    assert "the rack AEIOUAEI needs 1 vowel(s) and 1 consonant(s)" in message
    arbiter.ok("draw", "he1", "--tiles", "AEIOUAER", "--rejected", "AEIOUAEI")
    assert arbiter.view("replay", "he1")["rack"] == "AEIOUAER"


def test_seven_of_eight_earn_the_bonus_six_earn_none_and_eight_are_refused(
    arbiter: Arbiter,
) -> None:
    _two_rounds(arbiter)
    results = arbiter.view("results", "he1", "--round", "1")
    by_player = {p["player_id"]: p for p in results["players"]}
    assert by_player["ana"]["total"] == 112  # 102 with the bonus for 7 tiles, and the solo
    assert by_player["bob"]["score"] == 14  # 6 tiles: no bonus
    assert (by_player["cid"]["code"], by_player["cid"]["message"]) == (
        "more_than_a_move_lays",
        "the move lays 8 tiles, a move lays at most 7 of the rack's 8",
    )
    assert results["top"]["move"] == "H4: JUCATOR"
    # The next rack is the top's leftover I and 7 drawn.
    assert arbiter.view("results", "he1", "--round", "2")["rack"] == "IAEIRSTN"
    standings = arbiter.view("standings", "he1")["standings"]
    assert [(s["player_id"], s["total"]) for s in standings] == [
        ("ana", 112), ("bob", 14 + 28 + 10), ("cid", 0),
    ]  # fmt: skip


def test_an_eliptic_game_replays_draws_its_board_and_its_table(
    arbiter: Arbiter, tmp_path: Path
) -> None:
    _two_rounds(arbiter)
    picture = tmp_path / "round1.svg"
    result = arbiter.run("replay", "he1", "--round", "1", "--svg", str(picture), actor=False)
    assert result.exit_code == 0, result.output
    root = ET.fromstring(picture.read_bytes())
    last = [e.get("data-square") for e in root.iter() if "last-move" in e.get("class", "")]
    assert last == [f"H{c}" for c in range(4, 11)]  # JUCATOR: 7 of the 8
    table = cli("game", "table", "he1", "--db", arbiter.db, "--json")
    assert table["variant"] == "eliptic"
    assert [r["score"] for r in table["master"]["rounds"]] == [102, 28]


def test_the_parquet_export_holds_the_eliptic_games_rows(arbiter: Arbiter, tmp_path: Path):
    _two_rounds(arbiter)
    out = tmp_path / "season"
    cli("export", "--out", str(out), "--db", arbiter.db, "--json")
    for table in ("player_rounds", "rounds", "standings"):
        source = f"read_parquet('{out / table}/**/*.parquet', hive_partitioning = true)"
        rows = duckdb.execute(
            f"SELECT DISTINCT variant, game_id FROM {source} WHERE game_id IS NOT NULL"
        ).fetchall()
        assert rows == [("eliptic", "he1")], table
    racks = f"read_parquet('{out / 'rounds'}/**/*.parquet', hive_partitioning = true)"
    assert duckdb.execute(f"SELECT rack FROM {racks} ORDER BY round").fetchall() == [
        ("JUCATORI",),
        ("IAEIRSTN",),
    ]


def test_the_computer_top_lays_at_most_7_of_the_8(db_url: str) -> None:
    arbiter = Arbiter(db_url, game="he2")
    arbiter.ok("create", "he2", "--variant", "eliptic", "--player", "ana",
               "--set", "top_source=computer")  # fmt: skip
    arbiter.ok("draw", "he2", "--tiles", "JUCATORI")
    arbiter.ok("close-round", "he2")
    top = arbiter.view("results", "he2", "--round", "1")["top"]
    assert (top["source"], top["score"]) == ("computer", 102)
    assert len(top["tiles"]) == 7
    assert len(arbiter.view("replay", "he2")["rack"]) == 1  # the eighth tile, left


def test_settings_override_the_variants_numbers_and_contradictions_are_refused(
    db_url: str,
) -> None:
    arbiter = Arbiter(db_url, game="he3")
    message = arbiter.refused(2, "create", "he3", "--variant", "eliptic", "--set", "max_laid=9")
    assert message == (
        "error: --set max_laid: a move lays at most 9 tiles but a rack holds 8: set max_laid to"
        " 8 or less"
    )
    arbiter.ok("create", "he3", "--variant", "eliptic", "--player", "ana",
               "--set", "bingo_bonus=40")  # fmt: skip
    arbiter.ok("draw", "he3", "--tiles", "JUCATORI")
    arbiter.ok("submit", "he3", "--player", "ana", "--text", "H4: JUCATOR")
    results = arbiter.view("results", "he3", "--round", "1")
    assert results["players"][0]["score"] == 52 + 40
