"""The sample game of fixtures/games: imported into a fresh ledger it verifies, replays to the
expected standings, and those standings are recomputed here without the standings code, from
the file's own events and the engine's move scorer."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from game_cli_helpers import cli, runner

from pipelines.cli.arbitru import app
from pipelines.lexicons.cache import load_dictionary

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
GAME = "cb26-p1"
SOLO_BONUS = 10
LATE, SUPERSEDED = "late", "superseded"
JOKER_MARKS = str.maketrans("", "", "()")

EXPECTED = [
    # rank, player, name, total, solos
    (1, "p04", "Carmen Manole", 1112, 0),
    (2, "p06", "Paula Oprea", 1076, 1),
    (3, "p03", "Radu Tănase", 1072, 2),
    (4, "p05", "Elena Manole", 1060, 0),
    (5, "p07", "Monica Toma", 1055, 0),
    (6, "p02", "Mircea Cristea", 1037, 0),
    (7, "p01", "Carmen Lungu", 1031, 1),
    (8, "p08", "Teodora Moldovan", 1017, 0),
    (9, "p09", "Monica Vasilescu", 847, 0),
    (10, "p11", "Tudor Barbu", 845, 0),
    (11, "p10", "Simona Preda", 776, 0),
    (12, "p12", "Tudor Preda", 712, 0),
    (13, "p13", "Octavian Neagu", 658, 0),
    (14, "p14", "Elena Popescu", 490, 0),
]
ROUNDS = 22


def _events() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def _game_events(type_name: str) -> list[dict[str, Any]]:
    return [e for e in _events() if e["stream"] == f"game/{GAME}" and e["type"] == type_name]


def test_fixture_imports_with_its_own_hashes_and_verifies(default_home: Path, db_url: str) -> None:
    report = cli(
        "ledger", "import", str(FIXTURE), "--db", db_url, "--require-same-hashes", "--json"
    )
    assert (report["imported"], report["hash_mismatches"]) == (len(_events()), [])
    assert cli("ledger", "verify", "--db", db_url, "--json")["ok"] is True
    assert cli("ledger", "verify", "--file", str(FIXTURE), "--json")["ok"] is True


def test_fixture_standings_are_the_expected_table(default_home: Path, db_url: str) -> None:
    cli("ledger", "import", str(FIXTURE), "--db", db_url, "--json")
    shown = cli("game", "standings", GAME, "--db", db_url, "--json")
    assert shown["game_id"] == GAME
    assert [
        (s["rank"], s["player_id"], s["name"], s["total"], s["solos"]) for s in shown["standings"]
    ] == EXPECTED


def _board_with(board: list[str], tiles: list[dict[str, Any]]) -> list[str]:
    grid = [list(row) for row in board]
    for tile in tiles:
        row, col = ord(tile["square"][0]) - ord("A"), int(tile["square"][1:]) - 1
        grid[row][col] = tile["letter"].lower() if tile["joker"] else tile["letter"]
    return ["".join(row) for row in grid]


def _standing_entries() -> dict[tuple[int, str, int], list[str]]:
    """Per round, player and part, the ids of the player's own submissions that arrived by the
    deadline, in order of arrival (read off the file: RackDrawn deadlines, meta.received_at);
    the last one stands."""
    deadlines = {
        e["payload"]["round"]: datetime.fromisoformat(e["payload"]["deadline"])
        for e in _game_events("RackDrawn")
    }
    on_time: dict[tuple[int, str, int], list[tuple[datetime, str]]] = defaultdict(list)
    for e in _game_events("SubmissionReceived"):
        p = e["payload"]
        arrived = datetime.fromisoformat(e["meta"]["received_at"])
        if arrived <= deadlines[p["round"]]:
            on_time[(p["round"], p["player_id"], p.get("part", 1))].append((arrived, e["event_id"]))
    return {key: [i for _, i in sorted(found)] for key, found in on_time.items()}


def test_fixture_totals_are_recomputed_from_the_file_and_the_move_scorer(
    rounds: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Which submission stands comes from the file (the last one by the deadline; later ones
    late); its points from `arbitru engine score`; solos and penalties are counted here."""
    on_time = _standing_entries()
    revoked = {e["payload"]["event_id"] for e in _game_events("DecisionRevoked")}
    penalties = Counter()
    for e in _game_events("PenaltyGiven"):
        if e["event_id"] not in revoked:
            penalties[(e["payload"]["round"], e["payload"]["player_id"])] += e["payload"]["points"]
    counted: list[tuple[int, str, dict[str, Any]]] = []
    batch: list[dict[str, Any]] = []
    for number, results in enumerate(rounds, start=1):
        for player in results["players"]:
            board = results["board"]
            for sub in player["submissions"]:
                if not sub["correction"]:
                    standing = on_time.get((number, player["player_id"], sub["part"]), [])
                    if sub["event_id"] not in standing:
                        assert sub["status"] == LATE, (number, sub)
                    elif sub["event_id"] != standing[-1]:
                        assert sub["status"] == SUPERSEDED, (number, sub)
                    else:
                        assert sub["status"] not in (LATE, SUPERSEDED), (number, sub)
                if sub["status"] == "counted":
                    counted.append((number, player["player_id"], sub))
                    batch.append({"board": board, "move": sub["text"]})
                    board = _board_with(board, sub["tiles"])
    source = tmp_path / "moves.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in batch), encoding="utf-8")
    scored = runner.invoke(app, ["engine", "score", "--batch", str(source), "--json"])
    assert scored.exit_code == 0, scored.output
    verdicts = [json.loads(line) for line in scored.stdout.splitlines()]
    assert all(v["valid"] for v in verdicts)
    points: Counter[tuple[int, str]] = Counter()
    for (number, player_id, sub), verdict in zip(counted, verdicts, strict=True):
        assert verdict["score"] == sub["score"], (number, sub["text"])
        points[(number, player_id)] += verdict["score"]
    players = [e["payload"]["player_id"] for e in _game_events("PlayerJoined")]
    totals, solos = Counter(), Counter()
    for number in range(1, ROUNDS + 1):
        top = max(points[(number, p)] for p in players)
        reached = [p for p in players if top > 0 and points[(number, p)] == top]
        if len(reached) == 1:
            solos[reached[0]] += 1
            totals[reached[0]] += SOLO_BONUS
        for p in players:
            totals[p] += points[(number, p)] - penalties[(number, p)]
    assert {p: (totals[p], solos[p]) for p in players} == {
        player: (total, solo) for _, player, _, total, solo in EXPECTED
    }


def test_fixture_holds_every_case_the_sample_is_for(
    imported: str, rounds: list[dict[str, Any]]
) -> None:
    statuses: Counter[str] = Counter()
    parts = 0
    for results in rounds:
        for player in results["players"]:
            statuses.update(s["status"] for s in player["submissions"])
            parts = max([parts, *(s["part"] for s in player["submissions"])])
    for status in ("counted", "superseded", "late", "unreadable", "corrected", "annulled"):
        assert statuses[status], status
    assert statuses["not_in_dictionary"], statuses
    assert parts > 1
    annulled = {e["event_id"] for e in _game_events("SubmissionAnnulled")}
    revoked = {e["payload"]["event_id"] for e in _game_events("DecisionRevoked")}
    assert revoked & annulled and annulled - revoked
    assert _game_events("TopChosen") and _game_events("PenaltyGiven")
    assert _game_events("SubmissionCorrected")
    assert any(e["payload"].get("rejected") for e in _game_events("RackDrawn"))
    replay = cli("game", "replay", GAME, "--db", imported, "--json")
    assert replay["bag"]["count"] == 0 and replay["rack"] == ""
    assert replay["ended"] is not None


def test_fixture_moves_that_count_are_words_of_the_default_list(
    rounds: list[dict[str, Any]],
) -> None:
    dictionary = load_dictionary()
    words = set()
    for results in rounds:
        for player in results["players"]:
            for sub in player["submissions"]:
                if sub["status"] == "counted":
                    words.update(w["word"].translate(JOKER_MARKS) for w in sub["words"])
    assert len(words) > 100
    assert sorted(w for w in words if not dictionary.accepts(w)) == []
