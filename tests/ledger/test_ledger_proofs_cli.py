"""`arbitru keys new`, `ledger checkpoint`, `ledger prove`, `ledger consistency` and
`verify-proof` as users run them (Typer's CliRunner, and once the real console script), on
SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from ledger_helpers import game_created, rack
from typer.testing import CliRunner

from ledger import EventStore
from ledger.checkpoints import list_checkpoints
from ledger.database import create_db_engine, migrations_config
from pipelines.cli.arbitru import app
from pipelines.games.checkpoints import CHECKPOINT_KEY_ENV, checkpoint_if_configured

runner = CliRunner()


def arbitru(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


def fill(url: str, count: int) -> None:
    with EventStore(url) as store:
        version = store.stream_version("game/g1")
        events = [] if version else [game_created()]
        events += [rack(version + i) for i in range(1, count - len(events) + 1)]
        store.append("game/g1", events)


@pytest.fixture
def key(tmp_path: Path) -> Path:
    path = tmp_path / "federation.key"
    result = arbitru("keys", "new", str(path))
    assert result.exit_code == 0, result.output
    return path


def test_keys_new_writes_a_private_key_only_its_owner_reads_and_prints_the_public_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "federation.key"
    result = arbitru("keys", "new", str(path))
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    public = (tmp_path / "federation.key.pub").read_text()
    assert public.startswith("-----BEGIN PUBLIC KEY-----")
    assert public in result.stdout
    assert "key id: " in result.stdout
    assert "PRIVATE" not in result.stdout


def test_keys_new_never_overwrites_a_key(key: Path) -> None:
    private, public = key.read_bytes(), key.with_name(key.name + ".pub").read_bytes()
    result = arbitru("keys", "new", str(key))
    assert result.exit_code == 2
    assert "already exists; a key is never overwritten" in result.stderr
    assert key.read_bytes() == private
    assert key.with_name(key.name + ".pub").read_bytes() == public


def test_keys_new_refuses_when_only_the_public_file_exists(tmp_path: Path) -> None:
    (tmp_path / "k.pub").write_text("someone else's key")
    result = arbitru("keys", "new", str(tmp_path / "k"))
    assert result.exit_code == 2
    assert "k.pub already exists" in result.stderr
    assert not (tmp_path / "k").exists()


def test_keys_new_in_a_missing_folder_exits_2(tmp_path: Path) -> None:
    result = arbitru("keys", "new", str(tmp_path / "nowhere" / "k"))
    assert result.exit_code == 2
    assert "cannot create" in result.stderr


def test_checkpoint_prove_and_verify_proof_end_to_end(
    db_url: str, key: Path, tmp_path: Path
) -> None:
    fill(db_url, 300)
    made = arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url, "--json")
    assert made.exit_code == 0, made.output
    checkpoint = json.loads(made.stdout)
    assert (checkpoint["tree_size"], checkpoint["created"]) == (300, True)

    proof = tmp_path / "proof.json"
    proved = arbitru("ledger", "prove", "42", "--db", db_url, "--out", str(proof))
    assert proved.exit_code == 0, proved.output
    document = json.loads(proof.read_text())
    assert json.loads(document["event"])["seq"] == 42
    assert document["checkpoint"]["root"] == checkpoint["root"]

    pub = str(key) + ".pub"
    checked = arbitru("verify-proof", str(proof), "--pubkey", pub, "--json")
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["ok"] is True

    document["audit_path"] = document["audit_path"][:-1]
    proof.write_text(json.dumps(document))
    refused = arbitru("verify-proof", str(proof), "--pubkey", pub)
    assert refused.exit_code == 1
    assert "proof rejected" in refused.stdout
    assert "truncated or extended" in refused.stdout


def test_consistency_between_two_checkpoints_verifies(db_url: str, key: Path) -> None:
    fill(db_url, 10)
    assert arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url).exit_code == 0
    fill(db_url, 290)
    assert arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url).exit_code == 0
    listed = json.loads(arbitru("ledger", "checkpoints", "--db", db_url, "--json").stdout)
    assert [c["tree_size"] for c in listed["checkpoints"]] == [10, 300]
    made = arbitru("ledger", "consistency", "10", "300", "--db", db_url)
    assert made.exit_code == 0, made.output
    path = Path(str(key) + ".consistency.json")
    path.write_text(made.stdout)
    checked = arbitru("verify-proof", str(path), "--pubkey", str(key) + ".pub")
    assert checked.exit_code == 0, checked.output
    assert "begin with the 10 events" in checked.stdout


def test_a_checkpoint_of_an_unchanged_ledger_signs_nothing(db_url: str, key: Path) -> None:
    fill(db_url, 3)
    arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url)
    again = arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url)
    assert again.exit_code == 0
    assert "nothing to sign" in again.stdout


def test_a_proof_checked_with_another_federations_key_is_rejected(
    sqlite_url: str, key: Path, tmp_path: Path
) -> None:
    fill(sqlite_url, 5)
    arbitru("ledger", "checkpoint", "--key", str(key), "--db", sqlite_url)
    proof = tmp_path / "p.json"
    arbitru("ledger", "prove", "3", "--db", sqlite_url, "--out", str(proof))
    other = tmp_path / "other.key"
    arbitru("keys", "new", str(other))
    result = arbitru("verify-proof", str(proof), "--pubkey", str(other) + ".pub")
    assert result.exit_code == 1
    assert "signed by another key" in result.stdout


def test_a_private_key_others_can_read_is_refused(sqlite_url: str, key: Path) -> None:
    fill(sqlite_url, 2)
    key.chmod(0o644)
    result = arbitru("ledger", "checkpoint", "--key", str(key), "--db", sqlite_url)
    assert result.exit_code == 2
    assert "chmod 600" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ledger", "checkpoint", "--key", "{missing}"], "no such file"),
        (["ledger", "checkpoint", "--key", "{pub}"], "not an unencrypted Ed25519 private key"),
        (["ledger", "prove", "1"], "no checkpoint yet"),
        (["ledger", "consistency", "1", "2"], "no checkpoint yet"),
        (["verify-proof", "{missing}", "--pubkey", "{pub}"], "no such file"),
        (["verify-proof", "{db}", "--pubkey", "{pub}"], "is not a JSON proof file"),
        (["verify-proof", "{pub}", "--pubkey", "{key}"], "is not an Ed25519 public key"),
    ],
)
def test_commands_that_cannot_run_exit_2_saying_why(
    sqlite_url: str, key: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    fill(sqlite_url, 2)
    names = {
        "missing": str(tmp_path / "missing"),
        "pub": str(key) + ".pub",
        "key": str(key),
        "db": sqlite_url.removeprefix("sqlite:///"),
    }
    args = [a.format(**names) for a in args]
    if args[0] == "ledger":
        args += ["--db", sqlite_url]
    result = arbitru(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_proving_a_seq_past_the_checkpoint_says_to_make_a_newer_one(
    sqlite_url: str, key: Path
) -> None:
    fill(sqlite_url, 2)
    arbitru("ledger", "checkpoint", "--key", str(key), "--db", sqlite_url)
    fill(sqlite_url, 1)
    result = arbitru("ledger", "prove", "3", "--db", sqlite_url)
    assert result.exit_code == 2
    assert "make a newer checkpoint" in result.stderr


def test_a_row_altered_after_a_checkpoint_fails_verify_prove_and_the_next_checkpoint(
    db_url: str, key: Path
) -> None:
    fill(db_url, 40)
    assert arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url).exit_code == 0
    with EventStore(db_url) as store, store.engine.begin() as connection:
        if store.engine.dialect.name == "postgresql":
            connection.exec_driver_sql("DROP TRIGGER events_refuse_update_delete ON events")
        else:
            connection.exec_driver_sql("DROP TRIGGER events_refuse_update")
        connection.exec_driver_sql(f"UPDATE events SET hash = '{'cd' * 32}' WHERE seq = 12")

    verified = arbitru("ledger", "verify", "--db", db_url)
    assert verified.exit_code == 1
    for seq in ("12", "11", "1", "40"):
        proved = arbitru("ledger", "prove", seq, "--db", db_url)
        assert proved.exit_code == 1, seq
        assert "no longer matches checkpoint 40" in proved.stderr or "altered" in proved.stderr
    fill(db_url, 1)
    again = arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url)
    assert again.exit_code == 1
    assert "nothing was signed" in again.stderr and "seq 12: stored hash" in again.stderr
    quick = arbitru("ledger", "checkpoint", "--quick", "--key", str(key), "--db", db_url)
    assert quick.exit_code == 1
    assert "seq 12: its content no longer gives its stored hash" in quick.stderr


def test_checkpoint_if_configured_signs_only_with_a_key(
    sqlite_url: str, key: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(sqlite_url, 3)
    monkeypatch.delenv(CHECKPOINT_KEY_ENV, raising=False)
    with EventStore(sqlite_url) as store:
        assert checkpoint_if_configured(store) is None
        assert list_checkpoints(store) == []
        monkeypatch.setenv(CHECKPOINT_KEY_ENV, str(key))
        made = checkpoint_if_configured(store)
        assert made is not None and made.tree_size == 3
        fill(sqlite_url, 1)
        monkeypatch.setenv(CHECKPOINT_KEY_ENV, str(key.with_name("absent")))
        by_option = checkpoint_if_configured(store, key)
        assert by_option is not None and by_option.tree_size == 4


def test_the_console_script_checks_a_proof_without_any_database(
    sqlite_url: str, key: Path, tmp_path: Path
) -> None:
    fill(sqlite_url, 9)
    arbitru("ledger", "checkpoint", "--key", str(key), "--db", sqlite_url)
    proof = tmp_path / "p.json"
    arbitru("ledger", "prove", "9", "--db", sqlite_url, "--out", str(proof))
    Path(sqlite_url.removeprefix("sqlite:///")).unlink()
    script = Path(sys.executable).with_name("arbitru")
    command = [str(script)] if script.is_file() else [sys.executable, "-c",
               "from pipelines.cli.arbitru import main; main()"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "ARBITRU_DB"}
    done = subprocess.run(
        [*command, "verify-proof", str(proof), "--pubkey", str(key) + ".pub"],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"proof holds" in done.stdout
    assert not (tmp_path / "arbitru.db").exists()


def _ledger_at(url: str, revision: str) -> None:
    """A ledger migrated only up to `revision`, holding three events."""
    engine = create_db_engine(url)
    try:
        with engine.begin() as connection:
            command.upgrade(migrations_config(connection), revision)
    finally:
        engine.dispose()
    with EventStore(url, upgrade=False) as store:
        store.append("game/g1", [game_created(), rack(1), rack(2)])


def test_a_ledger_from_before_checkpoints_is_read_as_having_none_and_upgraded_to_sign(
    db_url: str, key: Path
) -> None:
    _ledger_at(db_url, "0003")
    proved = arbitru("ledger", "prove", "1", "--db", db_url)
    assert proved.exit_code == 2
    assert "no checkpoint yet" in proved.stderr
    listed = arbitru("ledger", "checkpoints", "--db", db_url, "--json")
    assert json.loads(listed.stdout) == {"checkpoints": []}
    made = arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url, "--json")
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout)["tree_size"] == 3


def test_migration_0004_is_not_undone_once_a_checkpoint_is_recorded(
    sqlite_url: str, key: Path
) -> None:
    fill(sqlite_url, 2)
    arbitru("ledger", "checkpoint", "--key", str(key), "--db", sqlite_url)
    with EventStore(sqlite_url) as store:
        with (
            pytest.raises(RuntimeError, match="checkpoints cannot be removed"),
            store.engine.begin() as connection,
        ):
            command.downgrade(migrations_config(connection), "0003")
        assert len(list_checkpoints(store)) == 1


def test_checkpoint_of_a_mistyped_path_creates_no_ledger(tmp_path: Path, key: Path) -> None:
    missing = tmp_path / "typo.db"
    result = arbitru("ledger", "checkpoint", "--key", str(key), "--db", f"sqlite:///{missing}")
    assert result.exit_code == 2
    assert "no Arbitru ledger" in result.stderr
    assert not missing.exists()
