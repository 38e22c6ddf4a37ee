"""A duplicat-completiv game through the real CLI and the real ledger, on SQLite and
PostgreSQL: 6 drawn, the chosen-letter bingo, rule a, the unmarked letter, a dry run, the
computer's top, results explaining the chosen letter, each player's rack with their chosen
letter in `game replay --player`, and the standings."""

from __future__ import annotations

import pytest
from game_cli_helpers import Arbiter

pytestmark = pytest.mark.usefixtures("default_home")


@pytest.fixture
def arbiter(db_url: str) -> Arbiter:
    arbiter = Arbiter(db_url, game="hc1")
    arbiter.ok(
        "create", "hc1", "--variant", "completiv", "--player", "ana:Ana Pop",
        "--player", "bob:Bob Ionescu", "--player", "cid",
    )  # fmt: skip
    return arbiter


def test_completiv_round_draws_6_and_refuses_7(arbiter: Arbiter) -> None:
    message = arbiter.refused(1, "draw", "hc1", "--tiles", "UCATORS")
    assert "the round draws 6" in message
    arbiter.ok("draw", "hc1", "--tiles", "UCATOR")


def test_chosen_letter_bingo_rule_a_and_unmarked_letter_through_the_cli(arbiter: Arbiter) -> None:
    arbiter.ok("draw", "hc1", "--tiles", "UCATOR")
    arbiter.ok("submit", "hc1", "--player", "ana", "--text", "H4: [J]UCATOR = 102 p")
    arbiter.ok("submit", "hc1", "--player", "bob", "--text", "H4: JUCATOR")
    arbiter.ok("close-round", "hc1")
    results = arbiter.view("results", "hc1", "--round", "1")
    by_player = {p["player_id"]: p for p in results["players"]}
    assert by_player["ana"]["total"] == 112  # 102 with the bingo, and the solo
    assert by_player["bob"]["code"] == "completiv_letter_unmarked"
    assert results["top"]["move"] == "H4: [J]UCATOR"

    arbiter.ok("draw", "hc1", "--tiles", "AEIRST")
    arbiter.ok("submit", "hc1", "--player", "bob", "--text", "11E: JARISTE +J")
    results = arbiter.view("results", "hc1", "--round", "2")
    bob = next(p for p in results["players"] if p["player_id"] == "bob")
    assert bob["score"] == 81
    notes = bob["submissions"][0]["notes"]
    assert "completiv rule a" in notes[0]
    shown = arbiter.run("results", "hc1", "--round", "2", actor=False)
    assert "completivrulea" in "".join(
        ch for ch in shown.stdout if ch.isalnum()
    )  # table cells wrap

    view = arbiter.view("replay", "hc1", "--player", "bob")["completiv"]
    assert (view["drawn"], view["chosen"], view["rack"]) == ("AEIRST", "J", "AEIRST?")
    assert view["stock"]["count"] == 100 - 7 - 6
    assert view["score"] == 91  # with the provisional solo of the open round
    human = arbiter.run("replay", "hc1", "--player", "bob", actor=False)
    assert "chosen J" in " ".join(human.stdout.split())

    standings = arbiter.view("standings", "hc1")["standings"]
    assert [(s["player_id"], s["total"]) for s in standings] == [
        ("ana", 112), ("bob", 91), ("cid", 0),
    ]  # fmt: skip


def test_dry_run_judges_the_chosen_letter_and_writes_nothing(arbiter: Arbiter) -> None:
    arbiter.ok("draw", "hc1", "--tiles", "JUATOR")
    before = arbiter.count()
    reply = arbiter.ok(
        "submit", "hc1", "--player", "cid", "--text", "H4: JUCATOR +(C)", "--dry-run"
    )
    assert arbiter.count() == before
    after = {r["player_id"]: r["total"] for r in reply["changes"]["standings_after"]}
    assert after["cid"] == 110  # 100 with the stock's joker as the C, and the solo


def test_computer_top_takes_a_letter_from_the_stock(db_url: str) -> None:
    arbiter = Arbiter(db_url, game="hc2")
    arbiter.ok("create", "hc2", "--variant", "completiv", "--player", "ana",
               "--set", "top_source=computer")  # fmt: skip
    arbiter.ok("draw", "hc2", "--tiles", "UCATOR")
    arbiter.ok("close-round", "hc2")
    top = arbiter.view("results", "hc2", "--round", "1")["top"]
    assert top["source"] == "computer" and top["score"] >= 102
    assert "[" in top["move"]
    assert arbiter.view("replay", "hc2")["bag"]["count"] == 100 - 7


def test_marked_letter_gone_from_the_stock_is_rule_a_though_the_drawn_tiles_hold_it(
    arbiter: Arbiter,
) -> None:
    """RULES 3: the mark is the player's declaration: `[Z]` when the only Z is on the drawn
    rack counts as the stock's joker less the Z's value, the drawn Z stays unused."""
    arbiter.ok("draw", "hc1", "--tiles", "ZAREIT")
    arbiter.ok("submit", "hc1", "--player", "ana", "--text", "H8: [Z]ARE")
    arbiter.ok("submit", "hc1", "--player", "bob", "--text", "H8: ZARE")
    results = arbiter.view("results", "hc1", "--round", "1")
    by_player = {p["player_id"]: p for p in results["players"]}
    assert by_player["ana"]["score"] == 6 - 10
    assert "completiv rule a" in by_player["ana"]["submissions"][0]["notes"][0]
    assert by_player["bob"]["score"] == 26
