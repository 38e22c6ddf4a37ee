"""The sample game of fixtures/games played again, act by act, through `arbitru game` commands
(draws with rejected draws and deadlines, 300+ submissions with their times and slips, late,
superseded and unreadable ones, corrections, annulments and a revocation, a penalty, chosen
tops, a last round of several parts, the end): every command is accepted, and the results of
every round and the standings equal those of the recorded game imported as it is. It runs on
SQLite only: its 400 commands each read the game again, and the commands' behaviour on
PostgreSQL is covered command by command in test_game_cli.py and test_game_concurrency.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from game_cli_helpers import Arbiter, runner

from pipelines.cli.arbitru import app

FIXTURE = Path(__file__).parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"

pytestmark = pytest.mark.usefixtures("default_home")


def _game_events() -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    return [e for e in lines if e["stream"].startswith("game/")]


def _command(event: dict[str, Any], ids: dict[str, str]) -> list[str]:
    """The `arbitru game` command that records this event."""
    game = event["stream"].split("/", 1)[1]
    p, meta = event["payload"], event.get("meta", {})
    kind = event["type"]
    if kind == "GameCreated":
        args = [
            "create",
            game,
            "--dict",
            p["dictionary"]["sha256"],
            "--ruleset",
            p.get("ruleset", "ro-frs"),
        ]
        args += ["--title", p["title"]] if "title" in p else []
        args += ["--tournament", p["tournament_id"]] if "tournament_id" in p else []
        for key, value in p.get("settings", {}).items():
            args += ["--set", f"{key}={json.dumps(value)}"]
        return args
    if kind == "PlayerJoined":
        return ["join", game, "--player", p["player_id"] + (f":{p['name']}" if "name" in p else "")]
    round_args = ["--round", str(p["round"])] if "round" in p else []
    part = ["--part", str(p["part"])] if "part" in p else []
    if kind == "RackDrawn":
        args = ["draw", game, *round_args, "--tiles", p["drawn"]]
        for rejected in p.get("rejected", []):
            args += ["--rejected", rejected]
        return args + (["--deadline", p["deadline"]] if "deadline" in p else [])
    if kind == "SubmissionReceived":
        args = ["submit", game, *round_args, "--player", p["player_id"], "--text", p["text"], *part]
        args += ["--received-at", meta["received_at"]] if "received_at" in meta else []
        return args + (["--source", meta["source"]] if "source" in meta else [])
    if kind == "SubmissionAnnulled":
        return [
            "annul",
            game,
            *round_args,
            "--player",
            p["player_id"],
            *part,
            "--reason",
            p["reason"],
        ]
    if kind == "PenaltyGiven":
        return [
            "penalise", game, *round_args, "--player", p["player_id"], "--points",
            str(p["points"]), "--reason", p["reason"],
        ]  # fmt: skip
    if kind == "SubmissionCorrected":
        return [
            "correct", game, *round_args, "--player", p["player_id"], *part, "--text", p["text"],
            "--reason", p["reason"],
        ]  # fmt: skip
    if kind == "DecisionRevoked":
        return ["revoke", game, "--event", ids[p["event_id"]], "--reason", p["reason"]]
    if kind == "TopChosen":
        return ["choose-top", game, *round_args, "--move", p["move"]]
    if kind == "RoundClosed":
        return ["close-round", game, *round_args]
    if kind == "GameEnded":
        return ["end", game, "--reason", p["reason"]]
    raise AssertionError(f"no command records {kind}")


def _rounds(arbiter: Arbiter, game: str, rounds: int) -> list[dict[str, Any]]:
    """What every round's results say, without the ids and seqs that differ between ledgers."""
    summary = []
    for number in range(1, rounds + 1):
        results = arbiter.view("results", game, "--round", str(number))
        summary.append(
            {
                "top": (results["top"]["move"], results["top"]["score"], results["top"]["solo"]),
                "players": [
                    (p["player_id"], p["total"], p["code"], [s["status"] for s in p["submissions"]])
                    for p in results["players"]
                ],
                "decisions": [
                    (d["type"], d["player_id"], bool(d["revoked_by"])) for d in results["decisions"]
                ],
            }
        )
    return summary


def test_the_sample_game_played_through_the_cli_gives_the_recorded_results(
    sqlite_url: str, tmp_path: Path
) -> None:
    events = _game_events()
    game = events[0]["payload"]["game_id"]
    arbiter = Arbiter(sqlite_url, game=game)
    ids: dict[str, str] = {}
    for event in events:
        arbiter.actor = event.get("meta", {}).get("actor", "arbiter")
        reply = arbiter.ok(*_command(event, ids))
        ids[event["event_id"]] = reply["events"][-1]["event_id"]

    recorded = Arbiter(f"sqlite:///{tmp_path / 'recorded.db'}", game=game)
    imported = runner.invoke(app, ["ledger", "import", str(FIXTURE), "--db", recorded.db])
    assert imported.exit_code == 0, imported.output

    played, expected = arbiter.view("standings", game), recorded.view("standings", game)
    for key in ("standings", "top_total", "rounds", "closed_rounds", "ended"):
        assert played[key] == expected[key], key
    rounds = expected["rounds"]
    assert _rounds(arbiter, game, rounds) == _rounds(recorded, game, rounds)
    assert arbiter.events() == [e["type"] for e in events]
