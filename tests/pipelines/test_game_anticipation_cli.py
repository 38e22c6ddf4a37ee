"""An anticipation game through the real CLI and the real ledger, on SQLite and PostgreSQL:
the seed's round 1 (ABEIRST, `-B+Bo` then `SERBoATI`; `-B+Bo` then `SARIT`), a replacement
written in error, `game replace` refusing a second replacement, a dry run, and each player's
own board, stock and eliminated letters in `game replay --player`."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter

pytestmark = pytest.mark.usefixtures("default_home")


@pytest.fixture
def arbiter(db_url: str) -> Arbiter:
    arbiter = Arbiter(db_url, game="an1")
    arbiter.ok(
        "create", "an1", "--variant", "anticipation", "--player", "ana:Ana Pop",
        "--player", "bob:Bob Ionescu", "--player", "cid",
    )  # fmt: skip
    arbiter.ok("draw", "an1", "--tiles", "ABEIRST")
    return arbiter


def test_rule_5_and_rule_7_the_seeds_round_one_through_the_cli(arbiter: Arbiter) -> None:
    replaced = arbiter.ok("replace", "an1", "--player", "ana", "--text", "-B+Bo")
    assert [e["type"] for e in replaced["events"]] == ["ReplacementDeclared"]
    arbiter.ok("submit", "an1", "--player", "ana", "--text", "H8: SERBoATI")
    arbiter.ok("replace", "an1", "--player", "bob", "--text", "-B+Bo")
    arbiter.ok("submit", "an1", "--player", "bob", "--text", "H8: SARIT")
    arbiter.ok("close-round", "an1")
    ana = arbiter.view("replay", "an1", "--player", "ana")
    assert ana["board"][7] == ".......SERbATI."
    assert (ana["sheet"]["stock"], ana["sheet"]["eliminated"]) == ("?B", "")
    bob = arbiter.view("replay", "an1", "--player", "bob")["sheet"]
    assert (sorted(bob["stock"]), sorted(bob["eliminated"])) == (["?", "B"], ["?", "E"])
    assert bob["rounds"][0]["explanations"][-1] == "eliminated: joker, E"
    standings = arbiter.view("standings", "an1")["standings"]
    assert [(s["player_id"], s["total"]) for s in standings] == [
        ("ana", 64), ("bob", 12), ("cid", 0),
    ]  # fmt: skip


def test_rule_10_a_replacement_written_in_error_is_recorded_and_counts_as_none(
    arbiter: Arbiter,
) -> None:
    arbiter.ok("replace", "an1", "--player", "cid", "--text", "-A+B")
    arbiter.ok("submit", "an1", "--player", "cid", "--text", "H8: SARIT")
    results = arbiter.view("results", "an1", "--round", "1")
    cid = next(p for p in results["players"] if p["player_id"] == "cid")
    assert cid["replacement"]["applied"] is False
    assert cid["replacement"]["code"] == "taken_letter_not_in_stock"
    assert cid["total"] == 12 and results["top"] is None
    shown = arbiter.run("results", "an1", "--round", "1", actor=False)
    assert "counts as none" in shown.stdout


def test_rule_9_game_replace_refuses_a_second_replacement_and_writes_nothing(
    arbiter: Arbiter,
) -> None:
    arbiter.ok("replace", "an1", "--player", "ana", "--text", "-B+Bo")
    message = arbiter.refused(1, "replace", "an1", "--player", "ana", "--text", "-A+(E)")
    assert "can never be changed" in message
    message = arbiter.refused(1, "choose-top", "an1", "--move", "H8: SARIT")
    assert "no top" in message


def test_replace_dry_run_shows_how_it_reads_and_writes_nothing(arbiter: Arbiter) -> None:
    before = arbiter.count()
    result = arbiter.run("replace", "an1", "--player", "ana", "--text", "-B+Bo", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "applied" in result.stdout and "dry run" in result.stdout
    assert arbiter.count() == before
    dry = arbiter.ok("replace", "an1", "--player", "ana", "--text", "-Z+Bo", "--dry-run")
    ana = next(p for p in dry["changes"]["results_after"]["players"] if p["player_id"] == "ana")
    assert ana["replacement"]["code"] == "replaced_letter_not_in_group"
    assert arbiter.count() == before


def test_replay_player_shows_the_players_own_sheet_in_words(arbiter: Arbiter) -> None:
    arbiter.ok("replace", "an1", "--player", "ana", "--text", "-B+Bo")
    arbiter.ok("submit", "an1", "--player", "ana", "--text", "H8: SER(B)ATI")
    shown = arbiter.run("replay", "an1", "--player", "ana", actor=False)
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.stdout.split())
    assert "stock ?B" in text and "round 1 (open)" in text and "SER(B)ATI scores 64" in text


def test_docs_anticipation_round_runs_as_written(sqlite_url: str) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "anticipation.md").read_text("utf-8")
    block = re.search(r"```sh\n(.*?)```", page, re.S)
    assert block is not None
    arbiter = Arbiter(sqlite_url, game="an1")
    for line in block.group(1).splitlines():
        words = shlex.split(line, comments=True)
        assert words[:2] == ["arbitru", "game"], line
        result = arbiter.run(*words[2:], actor=False)
        assert result.exit_code == 0, (line, result.output)
    bob = arbiter.view("replay", "an1", "--player", "bob")["sheet"]
    assert (bob["stock"], bob["eliminated"], bob["total"]) == ("??", "BE", 12)
    assert bob["rounds"][0]["replacement_code"] == "replaced_letter_not_in_group"


def test_replay_without_a_player_says_each_has_their_own_board(arbiter: Arbiter) -> None:
    shown = arbiter.run("replay", "an1", actor=False)
    assert shown.exit_code == 0, shown.output
    assert "give --player P" in " ".join(shown.stdout.split())


def test_game_replace_in_a_duplicate_game_is_refused(sqlite_url: str) -> None:
    arbiter = Arbiter(sqlite_url, game="hd9")
    arbiter.ok("create", "hd9", "--player", "ana")
    arbiter.ok("draw", "hd9", "--tiles", "ABEIRST")
    message = arbiter.refused(1, "replace", "hd9", "--player", "ana", "--text", "-B+Bo")
    assert "not a duplicate command" in message


def test_replay_at_an_event_shows_the_players_sheet_as_it_was_then(arbiter: Arbiter) -> None:
    replaced = arbiter.ok("replace", "an1", "--player", "bob", "--text", "-B+Bo")
    arbiter.ok("submit", "an1", "--player", "bob", "--text", "H8: SARIT")
    arbiter.ok("close-round", "an1")
    seq = str(replaced["events"][0]["seq"])
    then = arbiter.view("replay", "an1", "--player", "bob", "--at", seq)
    assert then["board"][7] == "." * 15 and then["rack"] == "A?EIRST"
    sheet = then["sheet"]
    assert (sheet["group"], sheet["stock"], sheet["eliminated"]) == ("A?EIRST", "?B", "")
    assert sheet["rounds"][0]["explanations"][2] == "no submission"
    now = arbiter.view("replay", "an1", "--player", "bob")["sheet"]
    assert (now["group"], sorted(now["eliminated"])) == ("", ["?", "E"])


def test_results_in_words_point_to_each_players_own_board(arbiter: Arbiter) -> None:
    arbiter.ok("submit", "an1", "--player", "ana", "--text", "H8: SARIT")
    shown = arbiter.run("results", "an1", "--round", "1", actor=False)
    text = " ".join(shown.stdout.split())
    assert "every player plays their own board (no top)" in text
    assert "top: none yet" not in text and "TW" not in text
