"""The sample anticipation game of fixtures/games: imported into a fresh ledger it verifies and
replays to the expected standings; it holds every case it is for (all 14 groups, replacements
applied and written in error, the last round's two submissions, an annulment that leaves the
replacement standing), and each player's sheet adds up: the board holds what their counted
moves laid, and every letter they held is laid, eliminated or left in the stock."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from game_cli_helpers import cli

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "anticipation-game.jsonl"
GAME = "ant26-p1"
ROUNDS = 14
EXPECTED = [
    # rank, player, name, total
    (1, "p02", "Mircea Cristea", 957),
    (1, "p03", "Radu Tănase", 957),
    (3, "p06", "Paula Oprea", 908),
    (4, "p01", "Carmen Lungu", 851),
    (5, "p09", "Monica Vasilescu", 821),
    (6, "p04", "Carmen Manole", 797),
    (7, "p05", "Elena Manole", 745),
    (8, "p07", "Monica Toma", 726),
    (9, "p11", "Tudor Barbu", 696),
    (10, "p14", "Elena Popescu", 661),
    (11, "p08", "Teodora Moldovan", 634),
    (12, "p12", "Tudor Preda", 566),
    (13, "p10", "Simona Preda", 509),
    (14, "p13", "Octavian Neagu", 459),
]


def test_anticipation_fixture_verifies_and_replays_to_the_expected_standings(
    default_home: Path, db_url: str
) -> None:
    report = cli(
        "ledger", "import", str(FIXTURE), "--db", db_url, "--require-same-hashes", "--json"
    )
    assert report["hash_mismatches"] == []
    assert cli("ledger", "verify", "--db", db_url, "--json")["ok"] is True
    shown = cli("game", "standings", GAME, "--db", db_url, "--json")
    assert [(s["rank"], s["player_id"], s["name"], s["total"]) for s in shown["standings"]] == (
        EXPECTED
    )
    assert shown["rounds"] == shown["closed_rounds"] == ROUNDS and shown["top_total"] == 0


def test_anticipation_fixture_holds_every_case_it_is_for(rounds: list[dict[str, Any]]) -> None:
    players = [p for r in rounds for p in r["players"]]
    readings = Counter(
        p["replacement"]["code"] or "applied" for p in players if p["replacement"] is not None
    )
    assert {"applied", "replaced_letter_not_in_group", "taken_letter_not_in_stock"} <= set(readings)
    statuses = Counter(s["status"] for p in players for s in p["submissions"])
    assert {"counted", "late", "annulled"} <= set(statuses)
    last = rounds[-1]
    assert last["last"] and any(
        {s["part"] for s in p["submissions"]} == {1, 2} for p in last["players"]
    )
    annulled = [p for p in players if p["code"] == "annulled"]
    assert annulled and all(p["replacement"]["applied"] for p in annulled)
    jokers = [s["text"] for p in players for s in p["submissions"] if "o" in s["text"]]
    assert any("o" in t.split(":")[-1] for t in jokers), "a move written with the seed's Bo mark"
    assert all(r["top"] is None for r in rounds)


def test_anticipation_fixture_sheets_add_up(imported: str, rounds: list[dict[str, Any]]) -> None:
    for _, player_id, _, total in EXPECTED:
        sheet = cli("game", "replay", GAME, "--player", player_id, "--db", imported, "--json")
        own = sheet["sheet"]
        laid = Counter()
        for results in rounds:
            mine = next(p for p in results["players"] if p["player_id"] == player_id)
            for s in mine["submissions"]:
                if s["status"] == "counted":
                    laid.update("?" if t["joker"] else t["letter"] for t in s["tiles"])
        on_board = Counter(
            "?" if ch.islower() else ch for row in own["board"] for ch in row if ch != "."
        )
        assert on_board == laid, player_id
        held = Counter(laid) + Counter(own["eliminated"]) + Counter(own["stock"])
        drawn = Counter("".join(r["drawn"] for r in rounds)) + Counter("??")
        assert held == drawn, player_id
        assert own["total"] == total, player_id
