"""Rounds and games that end sign a checkpoint when a federation key is configured
(`ARBITRU_CHECKPOINT_KEY`), and only then; a key that cannot be used never undoes a close."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter, create, runner

from ledger import EventStore
from pipelines.cli.arbitru import app

pytestmark = pytest.mark.usefixtures("default_home")


def _checkpoints(db: str) -> list[dict]:
    result = runner.invoke(app, ["ledger", "checkpoints", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return data["checkpoints"] if isinstance(data, dict) else data


def _round_one(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H4: VARIATE")


def test_closing_a_round_and_ending_the_game_sign_checkpoints_when_a_key_is_configured(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = tmp_path / "federation.key"
    assert runner.invoke(app, ["keys", "new", str(key)]).exit_code == 0
    monkeypatch.setenv("ARBITRU_CHECKPOINT_KEY", str(key))
    arbiter = Arbiter(sqlite_url)
    _round_one(arbiter)
    assert _checkpoints(sqlite_url) == []  # drawing and submitting sign nothing
    arbiter.ok("close-round", "hd1")
    with EventStore(sqlite_url, upgrade=False) as store:
        after_close = store.head().seq
    assert [c["tree_size"] for c in _checkpoints(sqlite_url)] == [after_close]
    arbiter.ok("end", "hd1", "--reason", "one round only, for the test")
    assert [c["tree_size"] for c in _checkpoints(sqlite_url)] == [after_close, after_close + 1]


def test_no_checkpoint_without_a_key(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARBITRU_CHECKPOINT_KEY", raising=False)
    arbiter = Arbiter(sqlite_url)
    _round_one(arbiter)
    arbiter.ok("close-round", "hd1")
    assert _checkpoints(sqlite_url) == []


def test_an_unusable_key_warns_and_the_round_stays_closed(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBITRU_CHECKPOINT_KEY", str(tmp_path / "missing.key"))
    arbiter = Arbiter(sqlite_url)
    _round_one(arbiter)
    result = arbiter.run("close-round", "hd1")
    assert result.exit_code == 0, result.output
    assert "no checkpoint was signed" in result.stderr
    assert arbiter.events()[-1] == "RoundClosed"
    assert _checkpoints(sqlite_url) == []


def test_a_round_close_signs_nothing_over_a_checkpoint_another_key_made(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, other = tmp_path / "federation.key", tmp_path / "other.key"
    for path in (key, other):
        assert runner.invoke(app, ["keys", "new", str(path)]).exit_code == 0
    monkeypatch.setenv("ARBITRU_CHECKPOINT_KEY", str(key))
    arbiter = Arbiter(db_url)
    _round_one(arbiter)
    made = runner.invoke(app, ["ledger", "checkpoint", "--key", str(other), "--db", db_url])
    assert made.exit_code == 0, made.output
    result = arbiter.run("close-round", "hd1")
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert "no checkpoint was signed" in said and "was not made by this key" in said, said
    assert arbiter.events()[-1] == "RoundClosed"
    assert len(_checkpoints(db_url)) == 1
