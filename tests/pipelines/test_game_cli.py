"""`arbitru game` through the real CLI and the real ledger, on SQLite and PostgreSQL: a whole
small game, the refusals (each writes nothing), dry runs, and the views (results, standings,
replay)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter, create

from ledger import EventStore
from pipelines.games import service as game_service

pytestmark = pytest.mark.usefixtures("default_home")


@pytest.fixture
def arbiter(db_url: str) -> Arbiter:
    return Arbiter(db_url)


def _play_round_one(arbiter: Arbiter) -> None:
    """Round 1 on VARAEIT: bob and cri find the top VARIATE (no solo), ana plays VARA, dan
    writes something unreadable."""
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA = 22 p")
    arbiter.ok("submit", "hd1", "--player", "bob", "--text", "P1-T1 - H4: VARIATE = 94 p")
    arbiter.ok("submit", "hd1", "--player", "cri", "--text", "H4: VARIATE")
    arbiter.ok("submit", "hd1", "--player", "dan", "--text", "am uitat")
    arbiter.ok("close-round", "hd1")


def test_a_whole_small_game_through_the_cli(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    results = arbiter.view("results", "hd1", "--round", "1")
    by_player = {p["player_id"]: p for p in results["players"]}
    assert results["closed"] and results["rack"] == "VARAEIT"
    assert results["top"]["move"] == "H4: VARIATE" and results["top"]["score"] == 94
    assert results["top"]["solo"] is None and set(results["top"]["reached_by"]) == {"bob", "cri"}
    assert [by_player[p]["total"] for p in ("ana", "bob", "cri", "dan")] == [22, 94, 94, 0]
    [vara] = by_player["ana"]["submissions"]
    assert (vara["text"], vara["status"], vara["move"]) == (
        "H8: VARA = 22 p",
        "counted",
        "H8: VARA",
    )
    assert vara["words"][0]["premiums"] == [{"square": "H8", "premium": "DW"}]
    [bingo] = by_player["bob"]["submissions"]
    assert bingo["bingo"] and bingo["bonus"] == 50 and bingo["text"].startswith("P1-T1")
    assert by_player["dan"]["code"] == "unreadable" and by_player["dan"]["message"]
    assert by_player["dan"]["submissions"][0]["text"] == "am uitat"

    # Round 2: the leftover is empty (VARIATE used all seven), so seven tiles are drawn.
    arbiter.ok("draw", "hd1", "--tiles", "CASTANE")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "8G: CASTANE")
    arbiter.ok("close-round", "hd1")
    arbiter.ok("end", "hd1", "--reason", "two rounds only, for the test")
    standings = arbiter.view("standings", "hd1")
    assert standings["game_id"] == "hd1" and standings["ended"]
    rows = standings["standings"]
    assert [(r["rank"], r["player_id"], r["total"]) for r in rows] == [
        (1, "bob", 94),
        (1, "cri", 94),
        (3, "ana", 22 + 8 + 10),  # VARA; CASTANE down column 8 (N on L8 doubled), solo
        (4, "dan", 0),
    ]
    ana = rows[2]
    assert set(ana) >= {"rank", "player_id", "name", "total", "solos", "pct_of_top"}
    assert (ana["name"], ana["solos"], ana["rounds"]) == ("Ana", 1, [22, 18])
    assert standings["top_total"] == 94 + 8
    assert arbiter.events()[-1] == "GameEnded"


def test_game_is_named_by_id_or_by_stream(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    assert arbiter.view("standings", "game/hd1") == arbiter.view("standings", "hd1")


def test_standings_json_shape(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    standings = arbiter.view("standings", "hd1")
    assert set(standings) >= {"game_id", "standings"}
    for row in standings["standings"]:
        assert isinstance(row["rank"], int) and isinstance(row["total"], int)
        assert isinstance(row["player_id"], str) and isinstance(row["solos"], int)
        assert isinstance(row["pct_of_top"], float)
    assert [r["rank"] for r in standings["standings"]] == [1, 1, 3, 4]


def test_unreadable_submissions_are_kept_and_score_zero(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    results = arbiter.view("results", "hd1", "--round", "1")
    [dan] = [p for p in results["players"] if p["player_id"] == "dan"]
    assert dan["submissions"][0]["status"] == "unreadable" and dan["total"] == 0


def test_a_file_of_submissions_keeps_each_line_with_its_source(
    arbiter: Arbiter, tmp_path: Path
) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT", "--deadline", "2026-11-30T18:00:00Z")
    slips = tmp_path / "forum.txt"
    slips.write_text(
        "# copied from the forum\n"
        "ana | 2026-11-30T17:10:00Z | P1-T1 - H8: VARA = 22 p\n"
        "bob | 2026-11-30T17:20:00Z | H4: VARIATE\n"
        "cri | 2026-11-30T18:05:00Z | H4: VARIATE\n"
        "dan\t???\n",
        encoding="utf-8",
    )
    reply = arbiter.ok("submit", "hd1", "--file", str(slips), "--received-at", "2026-11-30T17:00Z")
    assert [e["meta"]["source"] for e in reply["events"]] == [
        "forum.txt:2",
        "forum.txt:3",
        "forum.txt:4",
        "forum.txt:5",
    ]
    assert reply["events"][3]["meta"]["received_at"] == "2026-11-30T17:00:00Z"
    results = arbiter.view("results", "hd1", "--round", "1")
    status = {p["player_id"]: p["submissions"][0]["status"] for p in results["players"]}
    assert status == {"ana": "counted", "bob": "counted", "cri": "late", "dan": "unreadable"}
    assert results["top"]["solo"] == "bob"


def test_a_file_with_a_line_without_a_player_writes_nothing(
    arbiter: Arbiter, tmp_path: Path
) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    slips = tmp_path / "slips.txt"
    slips.write_text("ana | H8: VARA\nH4: VARIATE\n", encoding="utf-8")
    message = arbiter.refused(2, "submit", "hd1", "--file", str(slips))
    assert "line 2" in message and "nothing was submitted" in message


def test_a_file_naming_an_unknown_player_writes_nothing(arbiter: Arbiter, tmp_path: Path) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    slips = tmp_path / "slips.txt"
    slips.write_text("ana | H8: VARA\nzoe | H4: VARIATE\n", encoding="utf-8")
    message = arbiter.refused(1, "submit", "hd1", "--file", str(slips))
    assert "zoe" in message and "arbitru game join" in message


# --- refusals: a message saying why, exit 1 (a rule) or 2 (unusable input), nothing written


def test_a_draw_of_tiles_not_in_the_bag_is_refused(arbiter: Arbiter) -> None:
    create(arbiter)
    message = arbiter.refused(1, "draw", "hd1", "--tiles", "XXEA")
    assert "X" in message


def test_a_submission_for_a_closed_round_is_refused(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    message = arbiter.refused(
        1, "submit", "hd1", "--round", "1", "--player", "dan", "--text", "H4: VARIATE"
    )
    assert "closed" in message


def test_a_submission_of_an_unknown_player_is_refused(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    message = arbiter.refused(1, "submit", "hd1", "--player", "zoe", "--text", "H8: VARA")
    assert "zoe" in message and "arbitru game join" in message


def test_equal_tops_wait_for_the_arbiter_and_a_top_chosen_must_be_a_top(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAMOB")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    arbiter.ok("submit", "hd1", "--player", "bob", "--text", "H5: VARA")
    message = arbiter.refused(1, "close-round", "hd1")
    assert "share the top score 22" in message and "arbitru game choose-top" in message
    message = arbiter.refused(1, "choose-top", "hd1", "--move", "H6: VARA")
    assert "not a top" in message
    arbiter.ok("choose-top", "hd1", "--move", "H5: VARA")
    arbiter.ok("close-round", "hd1")
    results = arbiter.view("results", "hd1", "--round", "1")
    assert results["top"]["move"] == "H5: VARA" and results["top"]["source"] == "arbiter"


@pytest.mark.parametrize(
    "command",
    [
        ("submit", "hd1", "--player", "ana", "--text", "H8: VARA"),
        ("close-round", "hd1"),
        ("annul", "hd1", "--player", "ana", "--reason", "x"),
        ("close-round", "hd1", "--dry-run"),
    ],
    ids=["submit", "close-round", "annul", "close-round-dry-run"],
)
def test_a_round_command_before_any_draw_says_to_draw_round_one(
    arbiter: Arbiter, command: tuple[str, ...]
) -> None:
    create(arbiter)
    message = arbiter.refused(1, *command)
    assert message == "error: game/hd1 has no round yet: draw round 1 first (`arbitru game draw`)"


def test_a_revocation_of_an_event_that_is_not_a_decision_is_refused(arbiter: Arbiter) -> None:
    create(arbiter)
    drawn = arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")["events"][0]["event_id"]
    message = arbiter.refused(1, "revoke", "hd1", "--event", drawn, "--reason", "appeal")
    assert drawn in message or "decision" in message


def test_annulment_and_its_revocation(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    annulled = arbiter.ok("annul", "hd1", "--player", "ana", "--reason", "spoke during the round")
    event_id = annulled["events"][0]["event_id"]
    results = arbiter.view("results", "hd1", "--round", "1")
    assert results["players"][0]["total"] == 0 and results["players"][0]["code"] == "annulled"
    arbiter.ok("revoke", "hd1", "--event", event_id, "--reason", "appeal upheld")
    results = arbiter.view("results", "hd1", "--round", "1")
    assert results["players"][0]["total"] == 22 + 10  # VARA, the top, solo
    [decision] = [d for d in results["decisions"] if d["event_id"] == event_id]
    assert decision["revoked_by"]
    message = arbiter.refused(1, "revoke", "hd1", "--event", event_id, "--reason", "again")
    assert "revoked" in message


def test_penalty_and_correction(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VAPA")
    arbiter.ok("correct", "hd1", "--player", "ana", "--text", "H8: VARA", "--reason", "illegible R")
    arbiter.ok("penalise", "hd1", "--player", "ana", "--points", "5", "--reason", "late slip")
    results = arbiter.view("results", "hd1", "--round", "1")
    ana = results["players"][0]
    assert [s["text"] for s in ana["submissions"]] == ["H8: VAPA", "H8: VARA"]
    assert ana["penalty"] == 5 and ana["total"] == 22 + 10 - 5


def test_other_variants_are_not_supported_yet(arbiter: Arbiter) -> None:
    message = arbiter.refused(2, "create", "hd1", "--variant", "blitz", "--player", "ana")
    assert "not supported yet" in message


def test_commands_on_a_missing_game_say_how_to_create_it(arbiter: Arbiter) -> None:
    create(arbiter)
    message = arbiter.refused(2, "draw", "nope", "--tiles", "VARAEIT")
    assert "no game nope" in message and "arbitru game create" in message


def test_a_game_id_that_is_no_stream_id_is_unusable(arbiter: Arbiter) -> None:
    message = arbiter.refused(2, "create", "Hall 1", "--player", "ana")
    assert "not a game id" in message


def test_a_time_without_a_zone_is_unusable(arbiter: Arbiter) -> None:
    create(arbiter)
    message = arbiter.refused(
        2, "draw", "hd1", "--tiles", "VARAEIT", "--deadline", "2026-11-30T18:00"
    )
    assert "no time zone" in message


def test_creating_a_game_twice_is_refused(arbiter: Arbiter) -> None:
    create(arbiter)
    message = arbiter.refused(1, "create", "hd1", "--player", "ana")
    assert "already exists" in message


# --- dry runs write nothing


def test_dry_run_shows_the_events_and_the_changes_and_writes_nothing(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    before = arbiter.count()
    reply = arbiter.ok("submit", "hd1", "--player", "bob", "--text", "H4: VARIATE", "--dry-run")
    assert arbiter.count() == before
    assert reply["dry_run"] and [e["type"] for e in reply["events"]] == ["SubmissionReceived"]
    changes = reply["changes"]
    totals = {
        when: {r["player_id"]: r["total"] for r in changes[f"standings_{when}"]}
        for when in ("before", "after")
    }
    assert totals["before"]["ana"] == 32 and totals["after"]["ana"] == 22
    assert totals["before"]["bob"] == 0 and totals["after"]["bob"] == 104
    assert changes["results_after"]["top"]["move"] == "H4: VARIATE"
    human = arbiter.run("submit", "hd1", "--player", "bob", "--text", "H4: VARIATE", "--dry-run")
    assert human.exit_code == 0 and "nothing was written" in human.stdout
    assert "0 -> 104" in human.stdout and arbiter.count() == before


@pytest.mark.parametrize(
    "command",
    [
        ("close-round", "hd1"),
        ("annul", "hd1", "--player", "ana", "--reason", "x"),
        ("penalise", "hd1", "--player", "ana", "--points", "3", "--reason", "x"),
        ("correct", "hd1", "--player", "ana", "--text", "H8: VARA", "--reason", "x"),
        ("join", "hd1", "--player", "eve:Eve"),
        ("end", "hd1"),
    ],
    ids=lambda c: c[0],
)
def test_every_command_dry_run_writes_nothing(arbiter: Arbiter, command: tuple[str, ...]) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    if command[0] == "end":  # a game ends between rounds
        arbiter.ok("close-round", "hd1")
    before = arbiter.count()
    result = arbiter.run(*command, "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["dry_run"] is True
    assert arbiter.count() == before


def test_a_round_command_without_round_reads_and_folds_the_game_once(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round a command is about is found on the same read that decides it: a 100-player
    game is not read and folded twice for every slip entered."""
    arbiter = Arbiter(sqlite_url)
    create(arbiter)
    arbiter.ok("create", "an1", "--variant", "anticipation", "--player", "ana", "--player", "bob")
    arbiter.ok("draw", "an1", "--tiles", "ABEIRST")
    slips = tmp_path / "slips.txt"
    slips.write_text("cri | H4: VARA\ndan | H3: VARA\n", encoding="utf-8")
    reads: list[str] = []
    folds: list[int] = []
    read_stream, fold = EventStore.read_stream, game_service.fold
    monkeypatch.setattr(
        EventStore,
        "read_stream",
        lambda store, stream, *a, **k: reads.append(stream) or read_stream(store, stream, *a, **k),
    )
    monkeypatch.setattr(game_service, "fold", lambda stored: folds.append(1) or fold(stored))
    for command in [
        ("draw", "hd1", "--tiles", "VARAMOB"),
        ("submit", "hd1", "--player", "ana", "--text", "H8: VARA"),
        ("submit", "hd1", "--player", "bob", "--text", "H5: VARA", "--dry-run"),
        ("submit", "hd1", "--player", "bob", "--text", "H5: VARA"),
        ("submit", "hd1", "--file", str(slips)),
        ("choose-top", "hd1", "--move", "H5: VARA"),
        ("annul", "hd1", "--player", "cri", "--reason", "x"),
        ("penalise", "hd1", "--player", "ana", "--points", "3", "--reason", "x"),
        ("correct", "hd1", "--player", "dan", "--text", "H4: VARA", "--reason", "x"),
        ("close-round", "hd1"),
        ("replace", "an1", "--player", "ana", "--text", "-B+Bo"),
    ]:
        reads.clear()
        folds.clear()
        arbiter.ok(*command)
        assert (len(reads), len(folds)) == (1, 1), command


def test_create_dry_run_creates_no_ledger(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    reply = create(Arbiter(f"sqlite:///{db}"), "--dry-run")
    assert reply["dry_run"] and reply["events"][0]["type"] == "GameCreated"
    assert not db.exists()


# --- seeded draws


def test_seeded_game_commits_to_a_seed_and_reveals_it(arbiter: Arbiter, tmp_path: Path) -> None:
    seed_file = tmp_path / "hd1.seed"
    reply = create(arbiter, "--draw", "seeded", "--seed-file", str(seed_file))
    seed = seed_file.read_text().strip()
    created = reply["events"][0]["payload"]
    assert created["draw"] == "seeded" and seed not in json.dumps(reply)
    assert len(created["seed_commitment"]) == 64
    drawn = arbiter.ok("draw", "hd1", "--seed-file", str(seed_file))["events"][0]["payload"]
    assert len(drawn["drawn"]) == 7
    message = arbiter.refused(2, "draw", "hd1", "--tiles", "VARAEIT")
    assert "seeded" in message
    arbiter.ok("close-round", "hd1")
    arbiter.ok("end", "hd1")
    revealed = arbiter.ok("reveal-seed", "hd1", "--seed-file", str(seed_file))
    assert revealed["events"][0]["payload"] == {"seed": seed}


def test_a_seed_that_does_not_match_the_commitment_is_refused(
    arbiter: Arbiter, tmp_path: Path
) -> None:
    seed_file = tmp_path / "hd1.seed"
    create(arbiter, "--draw", "seeded", "--seed-file", str(seed_file))
    other = tmp_path / "other.seed"
    other.write_text("not the seed\n")
    arbiter.refused(1, "draw", "hd1", "--seed-file", str(other))


# --- views


def test_replay_at_a_seq_and_at_a_round(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "CASTANE")
    first_seq = arbiter.view("replay", "hd1", "--at", "1")
    assert first_seq["events"] == 1 and first_seq["round"] is None
    assert first_seq["board"] == ["." * 15] * 15 and first_seq["bag"]["count"] == 100
    drawn = arbiter.view("replay", "hd1", "--at", "6")  # GameCreated, 4 joined, RackDrawn
    assert drawn["rack"] == "VARAEIT" and drawn["bag"]["count"] == 93
    assert drawn["board"] == ["." * 15] * 15
    closed = arbiter.view("replay", "hd1", "--round", "1")
    assert closed["board"][7] == "...VARIATE....."
    assert [t["square"] for t in closed["last_move"]] == [f"H{c}" for c in range(4, 11)]
    assert {r["player_id"]: r["total"] for r in closed["standings"]}["bob"] == 94
    now = arbiter.view("replay", "hd1")
    assert now["round"] == 2 and now["rack"] == "CASTANE" and now["bag"]["count"] == 86


def test_replay_draws_the_board_in_the_terminal(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    result = arbiter.run("replay", "hd1", "--round", "1", actor=False)
    assert result.exit_code == 0
    assert "rack:" in result.stdout and "bag: 93" in result.stdout and "bob" in result.stdout


def test_replay_writes_an_svg_of_the_board(arbiter: Arbiter, tmp_path: Path) -> None:
    _play_round_one(arbiter)
    picture = tmp_path / "round1.svg"
    result = arbiter.run("replay", "hd1", "--round", "1", "--svg", str(picture), actor=False)
    assert result.exit_code == 0
    root = ET.fromstring(picture.read_bytes())
    last = [e.get("data-square") for e in root.iter() if "last-move" in e.get("class", "")]
    assert last == [f"H{c}" for c in range(4, 11)]


def test_replay_refuses_both_at_and_round_and_unknown_rounds(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    both = arbiter.refused(2, "replay", "hd1", "--at", "3", "--round", "1", actor=False)
    assert "exclude each other" in both
    for view in ("replay", "results"):
        message = arbiter.refused(2, view, "hd1", "--round", "9", actor=False)
        assert "has not been drawn" in message


def test_results_show_submissions_top_and_decisions_in_the_terminal(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    result = arbiter.run("results", "hd1", "--round", "1", actor=False)
    assert result.exit_code == 0
    for fragment in ("VARIATE", "am uitat", "unreadable", "top:", "94"):
        assert fragment in result.stdout


def test_the_computer_top_is_recorded_when_the_round_closes(arbiter: Arbiter) -> None:
    create(arbiter, "--set", "top_source=computer")
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    closed = arbiter.ok("close-round", "hd1")
    assert [e["type"] for e in closed["events"]] == ["TopChosen", "RoundClosed"]
    results = arbiter.view("results", "hd1", "--round", "1")
    assert results["top"]["source"] == "computer" and results["top"]["score"] >= 94
    assert results["players"][0]["total"] == 22


def test_replay_for_one_player_and_an_unknown_player(arbiter: Arbiter) -> None:
    _play_round_one(arbiter)
    mine = arbiter.view("replay", "hd1", "--player", "ana")
    assert mine["player"] == "ana" and mine["board"][7] == "...VARIATE....."
    message = arbiter.refused(2, "replay", "hd1", "--player", "zoe", actor=False)
    assert "zoe is not a player" in message


def test_a_draw_breaking_the_vowel_consonant_rule_is_refused_and_recorded_when_put_back(
    arbiter: Arbiter,
) -> None:
    create(arbiter)
    message = arbiter.refused(1, "draw", "hd1", "--tiles", "BCDFGLM")
    assert "vowel" in message and "--rejected" in message
    drawn = arbiter.ok("draw", "hd1", "--tiles", "VARAEIT", "--rejected", "BCDFGLM")
    assert drawn["events"][0]["payload"]["rejected"] == ["BCDFGLM"]
    replay = arbiter.view("replay", "hd1")
    assert replay["rack"] == "VARAEIT" and replay["bag"]["count"] == 93


def test_a_later_submission_before_the_deadline_replaces_the_earlier_one(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT", "--deadline", "2026-11-30T18:00:00Z")
    first, second = "2026-11-30T17:00:00Z", "2026-11-30T17:30:00Z"
    for text, when in (("H4: VARIATE", first), ("H8: VARA", second)):
        arbiter.ok("submit", "hd1", "--player", "ana", "--text", text, "--received-at", when)
    arbiter.ok(
        "submit", "hd1", "--player", "ana", "--text", "H5: VARA", "--received-at",
        "2026-11-30T18:00:01Z", "--source", "slip 7",
    )  # fmt: skip
    ana = arbiter.view("results", "hd1", "--round", "1")["players"][0]
    assert [(s["text"], s["status"]) for s in ana["submissions"]] == [
        ("H4: VARIATE", "superseded"),
        ("H8: VARA", "counted"),
        ("H5: VARA", "late"),
    ]
    assert ana["submissions"][2]["source"] == "slip 7" and ana["total"] == 22 + 10


def test_a_recorded_text_is_shown_as_written_never_turned_into_an_emoji(arbiter) -> None:
    """Rich reads `:smile:` as an emoji code; a reason or a name an arbiter typed is shown as
    typed (the terminal's consoles have emoji codes off)."""
    arbiter.ok("create", "hd1", "--player", "ana::wink: Ana", "--player", "bob")
    arbiter.ok("end", "hd1", "--reason", "rain :smile:")
    shown = arbiter.run("standings", "hd1", actor=False)
    assert shown.exit_code == 0, shown.output
    assert "rain :smile:" in shown.stdout and ":wink: Ana" in shown.stdout
    assert "😄" not in shown.stdout and "😉" not in shown.stdout
