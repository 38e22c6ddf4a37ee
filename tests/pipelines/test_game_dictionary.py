"""A game is judged with the word list its GameCreated names, found by SHA-256 among the lists
registered on the machine; a machine that lacks it says how to register it (a fresh process,
as an arbiter on another laptop would run it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from game_cli_helpers import Arbiter, runner

from pipelines.cli.arbitru import app

WORDS = "VARA\nVARIATE\nALE\nARE\nTARE\n"


def _arbitru(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARBITRU_HOME": str(home)}
    return subprocess.run(
        [_script(), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _script() -> str:
    return str(Path(sys.executable).with_name("arbitru"))


def test_a_game_names_its_word_list_and_a_machine_without_it_says_how_to_register_it(
    sqlite_url: str, tmp_path: Path
) -> None:
    words = tmp_path / "club-list.txt"
    words.write_text(WORDS, encoding="utf-8")
    laptop, other = tmp_path / "laptop", tmp_path / "other"
    created = _arbitru(
        laptop, "game", "create", "hd1", "--player", "ana", "--dict", str(words),
        "--db", sqlite_url, "--json",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    reference = json.loads(created.stdout)["events"][0]["payload"]["dictionary"]
    assert reference["words"] == 5 and len(reference["sha256"]) == 64
    assert _arbitru(laptop, "game", "standings", "hd1", "--db", sqlite_url).returncode == 0

    missing = _arbitru(other, "game", "standings", "hd1", "--db", sqlite_url)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    message = " ".join(missing.stderr.split())
    assert reference["sha256"] in message and "arbitru lexicon add" in message

    assert _arbitru(other, "lexicon", "add", str(words)).returncode == 0
    assert _arbitru(other, "game", "standings", "hd1", "--db", sqlite_url).returncode == 0


def test_views_on_a_missing_ledger_create_none(tmp_path: Path) -> None:
    path = tmp_path / "mistyped.db"
    message = Arbiter(f"sqlite:///{path}").refused(2, "standings", "hd1", actor=False)
    assert "no Arbitru ledger" in message and not path.exists()


def test_a_game_recording_no_word_list_is_judged_with_the_default_and_says_so(
    sqlite_url: str, tmp_path: Path, default_home: Path
) -> None:
    lines = [
        ("GameCreated", {"game_id": "old", "variant": "duplicate"}),
        ("PlayerJoined", {"player_id": "ana"}),
        ("RackDrawn", {"round": 1, "drawn": "VARAEIT"}),
        ("SubmissionReceived", {"round": 1, "player_id": "ana", "text": "H8: VARA"}),
        ("SubmissionReceived", {"round": 1, "player_id": "zoe", "text": "H4: VARIATE"}),
        ("RoundClosed", {"round": 1}),
    ]
    archive = tmp_path / "old.jsonl"
    archive.write_text(
        "".join(
            json.dumps({"stream": "game/old", "type": t, "payload": p}) + "\n" for t, p in lines
        ),
        encoding="utf-8",
    )
    arbiter = Arbiter(sqlite_url, game="old")
    imported = runner.invoke(app, ["ledger", "import", str(archive), "--db", sqlite_url])
    assert imported.exit_code == 0, imported.output
    standings = arbiter.view("standings", "old")
    assert standings["dictionary"]["recorded"] is False
    assert [(r["player_id"], r["total"]) for r in standings["standings"]] == [("ana", 32)]
    [ignored] = standings["ignored"]
    assert ignored["type"] == "SubmissionReceived" and ignored["code"] == "unknown_player"
    human = arbiter.run("standings", "old", actor=False)
    assert "records no word list" in " ".join(human.stdout.split())
