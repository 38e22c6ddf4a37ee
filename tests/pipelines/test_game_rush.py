"""A deadline rush: fifty terminals submitting slips to one game at the same moment, each a
real `arbitru game submit` process, on SQLite and PostgreSQL. Every slip is recorded once:
a terminal beaten by another is decided again under the append lock, and never gives up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter

from ledger import EventStore

pytestmark = [pytest.mark.usefixtures("default_home"), pytest.mark.heavy]

TERMINALS = 50


def test_fifty_terminals_submitting_at_once_all_record_each_once(db_url: str) -> None:
    arbiter = Arbiter(db_url)
    players = [f"p{n:02d}" for n in range(TERMINALS)]
    arbiter.ok("create", "hd1", *(a for p in players for a in ("--player", p)))
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    script = str(Path(sys.executable).with_name("arbitru"))
    terminals = [
        subprocess.Popen(
            [script, "game", "submit", "hd1", "--player", player, "--text", "H8: VARA",
             "--db", db_url, "--actor", f"terminal-{player}", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for player in players
    ]  # fmt: skip
    finished = [(t.wait(timeout=600), t.communicate()[1]) for t in terminals]
    gave_up = [err for code, err in finished if code != 0]
    assert not gave_up, f"{len(gave_up)} of {TERMINALS} gave up, e.g. {gave_up[0]}"
    with EventStore(db_url, upgrade=False) as store:
        events = store.read_stream("game/hd1")
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    submitted = [e.payload["player_id"] for e in events if e.type == "SubmissionReceived"]
    assert sorted(submitted) == players
