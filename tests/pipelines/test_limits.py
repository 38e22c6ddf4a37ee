"""What may come in (`pipelines.games.limits`), through the real CLI and the real ledger: every
value that could poison the record (a penalty no export column holds, a time no zone can show, a
season named like the no-season folder, an empty slip, a look-alike id, a slip injected by a
line break) is refused before anything is written, exit 2 (an import: the lines refused, exit
1), quoting at most 60 characters of it; recorded text is shown escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from game_cli_helpers import Arbiter, cli, create, runner

from ledger import EventStore, NewEvent
from pipelines.cli.arbitru import app

pytestmark = pytest.mark.usefixtures("default_home")

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def arbiter(sqlite_url: str) -> Arbiter:
    return Arbiter(sqlite_url)


def _round_one(arbiter: Arbiter) -> None:
    """A game of four with round 1 drawn and ana's VARA (22 points) recorded."""
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA = 22 p")


def _ana(arbiter: Arbiter) -> dict[str, Any]:
    results = arbiter.view("results", "hd1", "--round", "1")
    return next(p for p in results["players"] if p["player_id"] == "ana")


def _exports(db: str, tmp_path: Path) -> None:
    """The whole ledger still exports and recomputes."""
    cli("export", "--out", str(tmp_path / "export"), "--db", db)
    cli("recompute", "--db", db)


def _import(tmp_path: Path, db: str, lines: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = runner.invoke(app, ["ledger", "import", str(path), "--db", db, "--json"])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


_GAME = {"stream": "game/g1", "type": "GameCreated",
         "payload": {"game_id": "g1", "variant": "duplicate"}}  # fmt: skip


def _joined(player_id: str) -> dict[str, Any]:
    return {"stream": "game/g1", "type": "PlayerJoined", "payload": {"player_id": player_id}}


def _refused_import(tmp_path: Path, db: str, *lines: dict[str, Any]) -> str:
    """An import of the game's opening and `lines`, which must be refused whole; its problems."""
    code, report = _import(tmp_path, db, [_GAME, *lines])
    assert code == 1 and report["imported"] == 0, report
    with EventStore(db) as store:
        assert store.head().seq == 0
    return " ".join(p for error in report["errors"] for p in error["problems"])


# --- numbers -----------------------------------------------------------------------------


@pytest.mark.parametrize("points", ["2147483648", "9007199254740991", "1001"])
def test_a_penalty_no_export_column_holds_is_refused_and_the_ledger_still_exports(
    arbiter: Arbiter, tmp_path: Path, points: str
) -> None:
    _round_one(arbiter)
    message = arbiter.refused(2, "penalise", "hd1", "--player", "ana", "--points", points,
                              "--reason", "late")  # fmt: skip
    assert "--points" in message and "1 to 1,000" in message
    arbiter.ok("penalise", "hd1", "--player", "ana", "--points", "1000", "--reason", "late")
    arbiter.ok("close-round", "hd1")
    _exports(arbiter.db, tmp_path)


def test_a_setting_beyond_its_limit_is_refused(arbiter: Arbiter) -> None:
    message = arbiter.refused(2, "create", "hd1", "--player", "ana",
                              "--set", "solo_bonus=9007199254740991")  # fmt: skip
    assert "settings.solo_bonus" in message and "0 to 1,000" in message


def test_an_imported_penalty_beyond_the_limit_is_refused(sqlite_url: str, tmp_path: Path) -> None:
    draw = {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": 1, "drawn": "VARAEIT"}}
    payload = {"round": 1, "player_id": "p1", "points": 2**31, "reason": "x"}
    penalty = {"stream": "game/g1", "type": "PenaltyGiven", "payload": payload}
    assert "payload.points" in _refused_import(tmp_path, sqlite_url, _joined("p1"), draw, penalty)


# --- times -------------------------------------------------------------------------------


def test_an_imported_arrival_time_no_zone_can_show_is_refused(db_url: str, tmp_path: Path) -> None:
    draw = {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": 1, "drawn": "VARAEIT"}}
    slip = {"stream": "game/g1", "type": "SubmissionReceived",
            "payload": {"round": 1, "player_id": "p1", "text": "H8: VARA"},
            "meta": {"received_at": "9999-12-31T23:59:59-01:00"}}  # fmt: skip
    problems = _refused_import(tmp_path, db_url, _joined("p1"), draw, slip)
    assert "meta.received_at" in problems and "1900-01-01 to 9998-12-31" in problems


def test_an_imported_deadline_before_the_year_1900_is_refused_not_a_crash(
    sqlite_url: str, tmp_path: Path
) -> None:
    payload = {"round": 1, "drawn": "VARAEIT", "deadline": "0001-01-01T00:00:00+01:00"}
    draw = {"stream": "game/g1", "type": "RackDrawn", "payload": payload}
    assert "payload.deadline" in _refused_import(tmp_path, sqlite_url, draw)


@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"])
def test_a_recorded_time_outside_the_calendar_in_utc_is_an_ignored_event_not_a_crash(
    db_url: str, tmp_path: Path, moment: str
) -> None:
    """A ledger written before the limits (or by another tool) may hold such a time: the
    engine's decoder keeps that event as ignored, so every view, recompute and export runs."""
    arbiter = Arbiter(db_url)
    _round_one(arbiter)
    slip = {"round": 1, "player_id": "bob", "text": "H8: VARA = 22 p"}
    with EventStore(db_url) as store:
        store.append("game/hd1", [NewEvent("SubmissionReceived", slip, {"received_at": moment})])
    assert _ana(arbiter)["score"] == 22
    for view in (["game", "standings", "hd1"], ["game", "table", "hd1"], ["game", "replay", "hd1"]):
        shown = runner.invoke(app, [*view, "--db", db_url])
        assert shown.exit_code == 0, shown.output
    _exports(db_url, tmp_path)


@pytest.mark.parametrize("option", ["--deadline"])
@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_a_time_out_of_range_on_the_command_line_is_refused(
    arbiter: Arbiter, option: str, moment: str
) -> None:
    create(arbiter)
    message = arbiter.refused(2, "draw", "hd1", "--tiles", "VARAEIT", option, moment)
    assert option in message and "out of range" in message


# --- seasons -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "season", ["__HIVE_DEFAULT_PARTITION__", "2" * 300, "../2026", "sezonul 2026"]
)
def test_a_season_no_export_folder_can_be_named_after_is_refused(
    sqlite_url: str, tmp_path: Path, season: str
) -> None:
    tournament = {"stream": "tournament/t1", "type": "TournamentCreated",
                  "payload": {"tournament_id": "t1", "name": "Cupa", "season": season}}  # fmt: skip
    code, report = _import(tmp_path, sqlite_url, [tournament])
    assert code == 1 and report["imported"] == 0
    (error,) = report["errors"]
    assert "payload.season" in error["problems"][0]
    assert len(error["problems"][0]) < 400


# --- texts -------------------------------------------------------------------------------


def test_an_empty_slip_is_refused_and_the_valid_one_still_counts(arbiter: Arbiter) -> None:
    _round_one(arbiter)
    for empty in ("", "   "):
        message = arbiter.refused(2, "submit", "hd1", "--player", "ana", "--text", empty)
        assert "--text" in message and "empty or blank" in message
    assert _ana(arbiter)["score"] == 22


@pytest.mark.parametrize(
    "args",
    [
        ("annul", "hd1", "--player", "ana", "--reason", " "),
        ("penalise", "hd1", "--player", "ana", "--points", "5", "--reason", ""),
        ("correct", "hd1", "--player", "ana", "--text", "H8: VARA", "--reason", "\t"),
        ("end", "hd1", "--reason", "  "),
        ("close-round", "hd1", "--actor", " "),
    ],
)
def test_blank_reasons_and_actors_are_refused(arbiter: Arbiter, args: tuple[str, ...]) -> None:
    _round_one(arbiter)
    message = arbiter.refused(2, *args, actor="--actor" not in args)
    assert "empty or blank" in message


def test_an_empty_replacement_is_refused(arbiter: Arbiter) -> None:
    arbiter.ok("create", "hd1", "--variant", "anticipation", "--player", "ana")
    arbiter.ok("draw", "hd1", "--tiles", "ABEIRST")
    message = arbiter.refused(2, "replace", "hd1", "--player", "ana", "--text", " ")
    assert "--text" in message and "empty or blank" in message


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("submit", "hd1", "--player", "bob", "--text", "A" * 1_000_000), "--text"),
        (("submit", "hd1", "--player", "bob", "--text", "H8: VARA", "--source", "s" * 120_000),
         "--source"),
        (("annul", "hd1", "--player", "ana", "--reason", "r" * 120_000), "--reason"),
        (("join", "hd1", "--player", "eve:" + "E" * 120_000), "the name"),
        (("close-round", "hd1", "--actor", "a" * 120_000), "--actor"),
    ],
)  # fmt: skip
def test_a_text_beyond_its_limit_is_refused_quoting_sixty_characters(
    arbiter: Arbiter, args: tuple[str, ...], option: str
) -> None:
    _round_one(arbiter)
    message = arbiter.refused(2, *args, actor="--actor" not in args)
    assert option in message and "too long" in message
    assert len(message) < 400, message
    assert re.search(r"'(\w)\1{59}'…", message), message


@pytest.mark.parametrize(
    "args",
    [
        ("game", "submit", "hd1", "--player", "p" * 100_000, "--text", "H8: VARA"),
        ("game", "annul", "hd1", "--player", "p" * 100_000, "--reason", "late"),
        ("game", "results", "g" * 100_000, "--round", "1"),
        ("game", "create", "hd2", "--variant", "v" * 100_000, "--player", "ana"),
        ("ledger", "export", "--stream", "s" * 100_000),
    ],
)
def test_an_error_quotes_at_most_sixty_characters_of_an_id(
    arbiter: Arbiter, args: tuple[str, ...]
) -> None:
    _round_one(arbiter)
    result = runner.invoke(app, [*args, "--db", arbiter.db])
    assert result.exit_code == 2, result.output[-300:]
    assert "(100,000 characters)" in result.stderr and len(result.stderr) < 400, result.stderr


def test_a_title_beyond_its_limit_is_refused(arbiter: Arbiter) -> None:
    message = arbiter.refused(2, "create", "hd1", "--player", "ana", "--title", "T" * 120_000)
    assert "--title" in message and "(120,000 characters)" in message


def test_escape_sequences_in_a_slip_are_shown_escaped_by_results(arbiter: Arbiter) -> None:
    _round_one(arbiter)
    arbiter.ok("submit", "hd1", "--player", "bob", "--text", "\x1b[2J\x1b[HH8: VARA\u202e")
    shown = arbiter.run("results", "hd1", "--round", "1", actor=False)
    assert shown.exit_code == 0
    assert "\x1b" not in shown.stdout and "\u202e" not in shown.stdout
    assert "\\x1b[2J" in shown.stdout and "\\u202e" in shown.stdout
    assert _ana(arbiter)["score"] == 22  # recorded as written all the same
    bob = next(
        p
        for p in arbiter.view("results", "hd1", "--round", "1")["players"]
        if p["player_id"] == "bob"
    )
    assert bob["submissions"][0]["text"] == "\x1b[2J\x1b[HH8: VARA\u202e"


def test_names_recorded_before_the_limits_are_shown_escaped_by_standings(
    arbiter: Arbiter,
) -> None:
    """A ledger written before these limits may hold a name with control characters."""
    create(arbiter)
    with EventStore(arbiter.db) as store:
        version = len(list(store.read_stream("game/hd1")))
        event = NewEvent("PlayerJoined", {"player_id": "eve", "name": "Eve\x1b]0;owned\x07"})
        store.append("game/hd1", [event], expected_version=version)
    shown = arbiter.run("standings", "hd1", actor=False)
    assert shown.exit_code == 0
    assert "\x1b" not in shown.stdout and "\\x1b]0;owned\\x07" in shown.stdout


@pytest.mark.parametrize(
    "name", ["Ana\x1b[31m", "Ana\u200b", "Ana\u202e", "\u0410na", "Ana\u00a0Pop"]
)
def test_control_invisible_bidi_and_mixed_script_names_are_refused(
    arbiter: Arbiter, name: str
) -> None:
    message = arbiter.refused(2, "create", "hd1", "--player", f"ana:{name}")
    assert "the name" in message


def test_names_are_recorded_in_nfc(arbiter: Arbiter) -> None:
    """A name typed with combining marks is recorded composed, so that it is one name."""
    created = arbiter.ok("create", "hd1", "--player", "ana:Ana S\u0326tefa\u0306nescu")
    (joined,) = [e for e in created["events"] if e["type"] == "PlayerJoined"]
    assert joined["payload"]["name"] == "Ana \u0218tef\u0103nescu"


# --- ids ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "player_id", ["\u0430na", "an\u0103", "a\u0306na", "an\u200ba", "\u202eana", "ana b"]
)
def test_look_alike_player_ids_are_refused_on_import(
    sqlite_url: str, tmp_path: Path, player_id: str
) -> None:
    assert "payload.player_id" in _refused_import(tmp_path, sqlite_url, _joined("ana"),
                                                  _joined(player_id))  # fmt: skip


@pytest.mark.parametrize("player_id", ["\u0430na", "a\u0306na", "an\u200ba", "\u202eana"])
def test_look_alike_player_ids_are_refused_on_the_command_line(
    arbiter: Arbiter, player_id: str
) -> None:
    assert "is not a player id" in arbiter.refused(2, "create", "hd1", "--player", player_id)


def test_player_ids_differing_only_in_case_are_one_player(arbiter: Arbiter) -> None:
    message = arbiter.refused(1, "create", "hd1", "--player", "ana", "--player", "ANA")
    assert "player ANA has already joined as ana" in message
    arbiter.ok("create", "hd1", "--player", "ana")
    for other in ("Ana", "ANA"):
        message = arbiter.refused(1, "join", "hd1", "--player", other)
        assert f"player {other} has already joined as ana" in message
    assert "player ana has already joined" in arbiter.refused(1, "join", "hd1", "--player", "ana")


def test_an_imported_player_differing_only_in_case_is_ignored(
    sqlite_url: str, tmp_path: Path
) -> None:
    """A ledger may hold `ANA` joined after `ana` (imported): the replay keeps one player and
    shows the other join as ignored, with its reason."""
    code, _ = _import(tmp_path, sqlite_url, [_GAME, _joined("ana"), _joined("ANA")])
    assert code == 0
    standings = cli("game", "standings", "g1", "--db", sqlite_url, "--json")
    assert [s["player_id"] for s in standings["standings"]] == ["ana"]
    (ignored,) = standings["ignored"]
    assert "already joined as ana" in json.dumps(ignored)


# --- lines -------------------------------------------------------------------------------


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\u0085", "\r", "\x0b", "\x0c", "\x1c"])
def test_a_forum_line_break_does_not_inject_a_slip(
    arbiter: Arbiter, tmp_path: Path, brk: str
) -> None:
    """Files are split on \\n (and \\r\\n) only: what follows another line break stays in the
    same player's slip, recorded as written (it then reads as unreadable), and ana's and bob's
    own slips stand. Only U+0000, which no database column holds, refuses a line."""
    _round_one(arbiter)
    arbiter.ok("submit", "hd1", "--player", "bob", "--text", "H4: VARIATE")
    forum = tmp_path / "forum.txt"
    forum.write_text(f"cri | H8: VAR{brk}ana | H8: VA\r\n", encoding="utf-8")
    arbiter.ok("submit", "hd1", "--file", str(forum))
    assert _ana(arbiter)["score"] == 22
    results = arbiter.view("results", "hd1", "--round", "1")
    cri = next(p for p in results["players"] if p["player_id"] == "cri")
    assert [s["text"] for s in cri["submissions"]] == [f"H8: VAR{brk}ana | H8: VA"]


def test_a_players_file_is_split_on_newlines_only(arbiter: Arbiter, tmp_path: Path) -> None:
    players = tmp_path / "players.txt"
    players.write_text("ana:Ana\u2028bob:Bob\nbob:Bob\r\n", encoding="utf-8")
    message = arbiter.refused(2, "create", "hd1", "--players", str(players))
    assert "line 1" in message and "U+2028" in message


@pytest.mark.parametrize("brk", ["\u2028", "\u0085", "\r", "\x0c"])
def test_a_word_list_is_split_on_newlines_only(tmp_path: Path, brk: str) -> None:
    """A word list's hash names the dictionary: a line holding another line break is one bad
    line, named, never two words the published list does not have."""
    words = tmp_path / "words.txt"
    words.write_text(f"casa{brk}vara\r\nmasa\n", encoding="utf-8")
    result = runner.invoke(app, ["lexicon", "add", str(words)])
    assert result.exit_code == 2, result.output
    assert "line 1" in result.stderr and "not one word" in result.stderr


# --- nesting -----------------------------------------------------------------------------


def test_deep_nesting_is_refused_not_a_crash(arbiter: Arbiter, tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    message = arbiter.refused(
        2, "create", "hd1", "--player", "ana", "--set", f"draw_minimums={deep}"
    )
    assert "nested too deeply" in message
    proof, table = tmp_path / "proof.json", tmp_path / "points.toml"
    proof.write_text(deep, encoding="utf-8")
    # within the 64 KiB a points table may hold, and still far deeper than any parser's stack
    table.write_text(f"points = {'[' * 30_000}{']' * 30_000}\n", encoding="utf-8")
    key = tmp_path / "k"
    cli("keys", "new", str(key))
    verified = runner.invoke(app, ["verify-proof", str(proof), "--pubkey", f"{key}.pub"])
    assert verified.exit_code == 2 and "nested too deeply" in verified.stderr
    create(arbiter)
    exported = runner.invoke(
        app, ["export", "--out", str(tmp_path / "x"), "--points", str(table), "--db", arbiter.db]
    )
    assert exported.exit_code == 2 and "nested too deeply" in exported.stderr


# --- the README's table ------------------------------------------------------------------


def _readme_limits() -> dict[str, str]:
    text = README.read_text("utf-8")
    table = text.split("<!-- limits:begin -->", 1)[1].split("<!-- limits:end -->", 1)[0]
    rows = [line.strip("|").split("|") for line in table.splitlines() if line.startswith("| `")]
    return {cells[0].strip().strip("`"): cells[1].strip() for cells in rows}


def test_the_readme_limits_table_is_the_module_s() -> None:
    from pipelines.games import limits

    expected = {kind: f"at most {t.longest:,} characters" for kind, t in limits.TEXTS.items()}
    expected |= {kind: f"at most {longest} characters" for kind, (_, longest) in limits.IDS.items()}
    expected |= {kind: f"{n.least:,} to {n.most:,}" for kind, n in limits.NUMBERS.items()}
    expected["time"] = f"{limits.EARLIEST:%Y-%m-%d} to {limits.LATEST:%Y-%m-%d}"
    given = _readme_limits()
    assert set(given) == set(expected)
    for kind, bound in expected.items():
        assert given[kind].startswith(bound), (kind, given[kind], bound)
