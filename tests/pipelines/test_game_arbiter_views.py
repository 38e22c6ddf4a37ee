"""The arbiter's view of a dispute, through the real CLI and ledger (SQLite and PostgreSQL):
the claimed score beside the computed one, an open round's tie left for the arbiter to choose,
`results` by player and with each submission's global seq (what `replay --at` takes), who
recorded each decision and when, `revoke` by an id's prefix, `game list`, and every bad line
of a submissions file named with its file and line. Messages say what happened in the arbiter's
words, never an event type's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter, create

from pipelines.cli import views

pytestmark = pytest.mark.usefixtures("default_home")

EVENT_TYPES = ("TopChosen", "SubmissionReceived", "RackDrawn", "PenaltyGiven", "GameCreated")


@pytest.fixture
def arbiter(db_url: str, monkeypatch) -> Arbiter:
    """An arbiter on a wide terminal: a table's cells are not wrapped."""
    monkeypatch.setattr(views.out, "width", 300)
    return Arbiter(db_url)


def _tied_round(arbiter: Arbiter) -> None:
    """Round 1 on CARTEAM, open: ana and bob find CARTEA at two different places, both 14."""
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "CARTEAM")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: CARTEA = 99 p")
    arbiter.ok("submit", "hd1", "--player", "bob", "--text", "H4: CARTEA = 14 p")
    arbiter.ok("submit", "hd1", "--player", "cri", "--text", "zzz")


def _results(arbiter: Arbiter, *args: str) -> str:
    result = arbiter.run("results", "hd1", *args, actor=False)
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


def test_a_wrong_claimed_score_shows_beside_the_computed_one_in_the_human_views(arbiter):
    _tied_round(arbiter)
    shown = _results(arbiter)
    assert "claimed 99, computed 14" in shown
    assert "(claimed 14)" in shown
    submitted = arbiter.run("submit", "hd1", "--player", "dan", "--text", "H8: CARTEA = 3 p")
    assert "claimed 3, computed 14" in " ".join(submitted.stdout.split())


def test_an_open_round_tied_between_different_moves_draws_no_top_and_says_choose_top(arbiter):
    _tied_round(arbiter)
    shown = _results(arbiter)
    assert "tie between 2 moves: choose-top needed" in shown
    assert "H8: CARTEA" in shown and "H4: CARTEA" in shown
    assert "top: H8" not in shown and "top: H4" not in shown
    board = arbiter.run("results", "hd1", actor=False).stdout
    assert "C  A  R  T  E  A" not in board  # neither move drawn on the board as the top
    view = arbiter.view("results", "hd1")
    assert view["top"] is None and view["tied"] == ["H8: CARTEA", "H4: CARTEA"]
    refused = arbiter.refused(1, "close-round", "hd1")
    assert "choose-top" in refused and not any(t in refused for t in EVENT_TYPES)
    arbiter.ok("choose-top", "hd1", "--move", "H4: CARTEA")
    view = arbiter.view("results", "hd1")
    assert view["tied"] == [] and view["top"]["move"] == "H4: CARTEA"


def test_an_unreadable_slip_says_what_could_not_be_read_once(arbiter):
    _tied_round(arbiter)
    shown = _results(arbiter)
    assert "unreadable unreadable" not in shown and "unreadable: unreadable" not in shown
    assert "unreadable: at character 2" in shown


def test_results_default_to_the_current_round_filter_by_player_and_show_the_global_seq(arbiter):
    _tied_round(arbiter)
    view = arbiter.view("results", "hd1")
    assert view["round"] == 1
    only = arbiter.view("results", "hd1", "--player", "bob")
    assert [p["player_id"] for p in only["players"]] == ["bob"]
    [slip] = only["players"][0]["submissions"]
    shown = _results(arbiter, "--player", "bob")
    assert f"seq {slip['seq']}" in shown and "ana" not in shown
    replay = arbiter.view("replay", "hd1", "--at", str(slip["seq"]))
    assert replay["seq"] == slip["seq"]
    refused = arbiter.refused(2, "results", "hd1", "--player", "zed", actor=False)
    assert "zed is not a player" in refused


def test_results_of_a_game_without_a_round_say_to_draw_one(arbiter):
    create(arbiter)
    assert "draw round 1 first" in arbiter.refused(2, "results", "hd1", actor=False)


def test_decisions_show_who_recorded_them_and_when(arbiter):
    _tied_round(arbiter)
    arbiter.actor = "marta"
    penalty = arbiter.ok("penalise", "hd1", "--player", "cri", "--points", "3", "--reason", "x")
    [event] = penalty["events"]
    shown = _results(arbiter)
    assert "recorded by marta at 20" in shown and f"seq {event['seq']}" in shown
    [decision] = arbiter.view("results", "hd1")["decisions"]
    assert decision["actor"] == "marta" and decision["recorded_at"].startswith("20")


def test_revoke_takes_an_unambiguous_prefix_of_a_decisions_event_id(arbiter):
    _tied_round(arbiter)
    first = arbiter.ok("penalise", "hd1", "--player", "cri", "--points", "3", "--reason", "x")
    second = arbiter.ok("penalise", "hd1", "--player", "ana", "--points", "1", "--reason", "y")
    ids = [first["events"][0]["event_id"], second["events"][0]["event_id"]]
    common = 0
    while ids[0][common] == ids[1][common]:
        common += 1
    unknown = "f" * 8 if not any(i.startswith("ffff") for i in ids) else "0" * 8
    refused = arbiter.refused(1, "revoke", "hd1", "--event", unknown, "--reason", "r")
    assert ids[0] in refused and ids[1] in refused and "penalty about cri" in refused
    if common:  # both ids start alike: that start names neither
        ambiguous = arbiter.refused(2, "revoke", "hd1", "--event", ids[0][:common], "--reason", "r")
        assert ids[0] in ambiguous and ids[1] in ambiguous
    revoked = arbiter.ok("revoke", "hd1", "--event", ids[0][: common + 1], "--reason", "appeal")
    assert revoked["events"][0]["payload"]["event_id"] == ids[0]
    [cri] = [p for p in arbiter.view("results", "hd1")["players"] if p["player_id"] == "cri"]
    assert cri["penalty"] == 0


def test_game_list_lists_the_ledgers_games_with_variant_round_and_status(arbiter):
    _tied_round(arbiter)
    arbiter.game = "cp1"
    arbiter.ok("create", "cp1", "--variant", "completiv", "--player", "ana", "--title", "C")
    listed = json.loads(arbiter.run("list", "--json", actor=False).stdout)["games"]
    assert [(g["game_id"], g["variant"], g["round"], g["status"]) for g in listed] == [
        ("cp1", "completiv", 0, "created"),
        ("hd1", "duplicate", 1, "open"),
    ]
    arbiter.game = "hd1"
    arbiter.ok("submit", "hd1", "--player", "dan", "--text", "H8: CARTEA")
    arbiter.ok("choose-top", "hd1", "--move", "H8: CARTEA")
    arbiter.ok("close-round", "hd1")
    shown = " ".join(arbiter.run("list", actor=False).stdout.split())
    assert "hd1 │ duplicate │ 1 │ closed" in shown and "cp1 │ completiv │ - │ created" in shown


def test_every_line_of_a_submissions_file_naming_a_stranger_is_listed_with_file_and_line(
    arbiter, tmp_path: Path
):
    _tied_round(arbiter)
    slips = tmp_path / "forum.txt"
    slips.write_text("xx | H8: VARA\nana | H8: CARTEA\nyy | H4: CARTEA\n", "utf-8")
    refused = arbiter.refused(1, "submit", "hd1", "--file", str(slips))
    assert str(slips) in refused and "line 1: xx" in refused and "line 3: yy" in refused


def test_a_control_character_in_a_submissions_file_names_its_file_and_line(arbiter, tmp_path):
    _tied_round(arbiter)
    slips = tmp_path / "forum.txt"
    slips.write_text("ana | H8: CARTEA\nbob | H8: CAR\x00TEA\n", "utf-8")
    refused = arbiter.refused(2, "submit", "hd1", "--file", str(slips))
    assert str(slips) in refused and "line 2" in refused and "U+0000" in refused


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("draw", "hd1", "--tiles", "CART3AM"), "--tiles"),
        (("create", "x2", "--ruleset", "nope"), "unknown ruleset"),
        (("create", "x3", "--set", "solo_bonus=abc"), "--set solo_bonus"),
    ],
)
def test_an_unusable_option_exits_2_naming_the_option_not_the_event(arbiter, args, said):
    create(arbiter)
    refused = arbiter.refused(2, *args)
    assert said in refused and not any(t in refused for t in ("RackDrawn", "GameCreated."))


def test_refusals_and_notes_say_what_happened_without_an_event_types_name(arbiter):
    _tied_round(arbiter)
    slip = arbiter.view("results", "hd1", "--player", "ana")["players"][0]["submissions"][0]
    refused = arbiter.refused(1, "revoke", "hd1", "--event", slip["event_id"], "--reason", "r")
    assert "not a decision" in refused
    assert not any(t in refused for t in (*EVENT_TYPES, "SubmissionAnnulled", "DecisionRevoked"))


def test_a_submissions_file_lists_its_strangers_and_its_malformed_lines_together(arbiter, tmp_path):
    _tied_round(arbiter)
    slips = tmp_path / "forum.txt"
    slips.write_text("xx | H8: VARA\nana H8: CARTEA\nbob | H4: CARTEA\nyy | H4: CARTEA\n", "utf-8")
    refused = arbiter.refused(2, "submit", "hd1", "--file", str(slips))
    assert str(slips) in refused
    assert "line 1: xx has not joined" in refused and "line 4: yy has not joined" in refused
    assert "line 2: expected 'PLAYER | TEXT'" in refused
