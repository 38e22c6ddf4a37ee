"""Accounts and roles through the real command line (`arbitru accounts`), on SQLite and
PostgreSQL: who holds which role is recorded as events with the actor who granted it; the
secrets that prove an account (tokens, passwords) are kept beside the chain, never in an event
or an export; account events export and import as every other event does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from game_cli_helpers import cli, runner
from tampering import _drop_event_triggers, _payload_sql, _raw

from ledger import EventStore, NewEvent
from ledger.canonical import canonical_json
from pipelines.accounts.credentials import accounts_for_tokens, check_password
from pipelines.accounts.roster import EMPTY_ROSTER, Grant, load_roster
from pipelines.cli.arbitru import app


def account_for_token(store: EventStore, token: str) -> str | None:
    """The account a token is valid for, as the server reads it (None: unknown or revoked)."""
    return accounts_for_tokens(store, [token]).get(token)


def _run(*args: str, stdin: str | None = None) -> Any:
    result = runner.invoke(app, ["accounts", *args], input=stdin)
    assert "Traceback" not in result.output, result.output
    return result


def _ok(*args: str) -> dict[str, Any]:
    result = _run(*args, "--json")
    assert result.exit_code == 0, result.stderr or result.output
    return json.loads(result.stdout)


def _refused(code: int, db: str, *args: str) -> str:
    before = _count(db)
    result = _run(*args, "--db", db)
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stderr.startswith("error:"), result.stderr
    assert _count(db) == before, "a refused command wrote to the ledger"
    return " ".join(result.stderr.split())


def _count(db: str) -> int:
    try:
        with EventStore(db, upgrade=False) as store:
            return store.head().seq
    except Exception:
        return 0


def _federation(db: str) -> None:
    """The federation's admin `root`, arbiters `ana` and `bob`."""
    _ok("add", "root", "--name", "Federația", "--role", "admin", "--db", db, "--actor", "setup")
    _ok("add", "ana", "--name", "Ana Pop", "--db", db, "--actor", "root")
    _ok("add", "bob", "--name", "Bob Ionescu", "--db", db, "--actor", "root")


def _export(db: str) -> str:
    result = runner.invoke(app, ["ledger", "export", "--db", db])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_accounts_and_grants_are_recorded_as_events_with_the_actor(db_url: str) -> None:
    _federation(db_url)
    granted = _ok("grant", "ana", "--role", "chief", "--game", "g1", "--db", db_url,
                  "--actor", "root")  # fmt: skip
    assert [e["type"] for e in granted["events"]] == ["RoleGranted"]
    with EventStore(db_url) as store:
        events = store.read_stream("account/ana")
        root = store.read_stream("account/root")
    assert [(e.type, e.meta["actor"]) for e in events] == [
        ("AccountCreated", "root"),
        ("RoleGranted", "root"),
    ]
    assert events[1].payload == {"account_id": "ana", "role": "chief", "game_id": "g1"}
    assert [(e.type, e.payload.get("role"), e.meta["actor"]) for e in root] == [
        ("AccountCreated", None, "setup"),
        ("RoleGranted", "admin", "setup"),
    ]


def test_a_role_granted_again_records_nothing(db_url: str) -> None:
    _federation(db_url)
    _ok("grant", "ana", "--role", "auditor", "--db", db_url)
    again = _ok("grant", "ana", "--role", "auditor", "--db", db_url)
    assert again["events"] == []
    with EventStore(db_url) as store:
        assert store.stream_version("account/ana") == 2


def test_a_token_works_once_issued_and_not_after_revoke_token(db_url: str) -> None:
    _federation(db_url)
    issued = _ok("token", "ana", "--db", db_url)
    assert issued["account"] == "ana" and len(issued["token"]) >= 40
    second = _ok("token", "ana", "--db", db_url)["token"]
    with EventStore(db_url) as store:
        assert account_for_token(store, issued["token"]) == "ana"
        assert account_for_token(store, second) == "ana"
        assert account_for_token(store, issued["token"] + "x") is None
    assert _ok("revoke-token", "ana", "--db", db_url) == {"account": "ana", "revoked": 2}
    with EventStore(db_url) as store:
        assert account_for_token(store, issued["token"]) is None
        assert account_for_token(store, second) is None


def test_a_token_without_json_is_printed_alone_on_stdout(sqlite_url: str) -> None:
    _federation(sqlite_url)
    result = _run("token", "bob", "--db", sqlite_url)
    assert result.exit_code == 0
    (token,) = result.stdout.split()
    assert "never shown again" in result.stderr
    with EventStore(sqlite_url) as store:
        assert account_for_token(store, token) == "bob"


def test_no_token_nor_password_hash_is_in_the_export_or_any_event(db_url: str) -> None:
    _federation(db_url)
    token = _ok("token", "ana", "--db", db_url)["token"]
    assert _run("password", "ana", "--db", db_url, stdin="correct horse\n").exit_code == 0
    with EventStore(db_url) as store:
        stored_hash = (
            store.engine.connect()
            .exec_driver_sql("SELECT password_hash FROM account_passwords")
            .scalar_one()
        )
        token_digest = (
            store.engine.connect()
            .exec_driver_sql("SELECT token_sha256 FROM api_tokens")
            .scalar_one()
        )
        everything = json.dumps([e.__dict__ for e in store.read_all()])
    exported = _export(db_url)
    listed = _run("list", "--db", db_url, "--json").stdout
    assert stored_hash.startswith("$argon2id$")
    for secret in (token, token_digest, stored_hash, "correct horse"):
        assert secret not in exported
        assert secret not in everything
        assert secret not in listed


def test_a_password_is_checked_and_a_wrong_one_is_false(db_url: str) -> None:
    _federation(db_url)
    result = _run("password", "ana", "--db", db_url, stdin="correct horse battery\n")
    assert result.exit_code == 0, result.stderr
    with EventStore(db_url) as store:
        assert check_password(store, "ana", "correct horse battery")
        assert not check_password(store, "ana", "correct horse")
        assert not check_password(store, "bob", "correct horse battery")
        assert not check_password(store, "nobody", "correct horse battery")


@pytest.mark.parametrize("given", ["", "\n", "   \n", "short\n"])
def test_a_password_empty_or_under_8_characters_is_refused(sqlite_url: str, given: str) -> None:
    _federation(sqlite_url)
    result = _run("password", "ana", "--db", sqlite_url, stdin=given)
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and "password" in result.stderr


def test_secrets_of_an_account_that_does_not_exist_are_refused(sqlite_url: str) -> None:
    _federation(sqlite_url)
    for args in (("token", "eve"), ("revoke-token", "eve"), ("password", "eve")):
        result = _run(*args, "--db", sqlite_url, stdin="long enough\n")
        assert result.exit_code == 1, result.output
        assert "no account eve" in result.stderr and "arbitru accounts add" in result.stderr


def test_an_exported_ledger_with_account_events_imports_into_a_fresh_database_and_folds_the_same(
    db_url: str, tmp_path: Path
) -> None:
    _federation(db_url)
    _ok("grant", "ana", "--role", "deputy", "--tournament", "t1", "--db", db_url)
    _ok("grant", "bob", "--role", "data-entry", "--game", "g7", "--db", db_url)
    _ok("revoke", "bob", "--role", "data-entry", "--game", "g7", "--db", db_url)
    _ok("token", "ana", "--db", db_url)
    exported = tmp_path / "export.jsonl"
    exported.write_text(_export(db_url), encoding="utf-8")
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    report = cli("ledger", "import", str(exported), "--db", fresh, "--require-same-hashes",
                 "--json")  # fmt: skip
    assert report["ok"] and report["imported"] == 7
    assert cli("ledger", "verify", "--db", fresh, "--json")["ok"]
    with EventStore(db_url) as original, EventStore(fresh) as copy:
        assert load_roster(copy) == load_roster(original)
        assert copy.head() == original.head()
        assert not copy.engine.connect().exec_driver_sql("SELECT * FROM api_tokens").all()


MALFORMED = {
    "a name missing": ("AccountCreated", {"account_id": "ana"}, "payload.name"),
    "an id in capitals": ("AccountCreated", {"account_id": "Ana", "name": "A"}, "account_id"),
    "another account's id": ("AccountCreated", {"account_id": "bob", "name": "A"}, "names"),
    "an unknown role": ("RoleGranted", {"account_id": "ana", "role": "king"}, "payload.role"),
    "an arbiter role on nothing": ("RoleGranted", {"account_id": "ana", "role": "chief"},
                                   "payload.role"),
    "an admin on a game": ("RoleGranted", {"account_id": "ana", "role": "admin", "game_id": "g1"},
                           "payload.role"),
    "a game and a tournament": ("RoleGranted", {"account_id": "ana", "role": "deputy",
                                "game_id": "g1", "tournament_id": "t1"}, "payload.role"),
    "a revoke without role": ("RoleRevoked", {"account_id": "ana"}, "payload.role"),
}  # fmt: skip


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_a_malformed_account_event_is_refused_on_import_with_its_line_number(
    db_url: str, tmp_path: Path, case: str
) -> None:
    type_name, payload, named = MALFORMED[case]
    opening = {"stream": "account/ana", "type": "AccountCreated",
               "payload": {"account_id": "ana", "name": "Ana Pop"}}  # fmt: skip
    if type_name == "AccountCreated":
        opening = {"stream": "account/zed", "type": "AccountCreated",
                   "payload": {"account_id": "zed", "name": "Zed"}}  # fmt: skip
    lines = [opening]
    stream = "account/ana"
    lines.append({"stream": stream, "type": type_name, "payload": payload})
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = runner.invoke(app, ["ledger", "import", str(path), "--db", db_url, "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["imported"] == 0
    (error,) = report["errors"]
    assert error["line"] == 2
    assert named in " ".join(error["problems"]), error
    assert _count(db_url) == 0


def test_a_deputy_on_a_tournament_holds_it_on_each_of_its_games_not_another_tournaments(
    db_url: str,
) -> None:
    _federation(db_url)
    _ok("grant", "ana", "--role", "deputy", "--tournament", "cupa-2026", "--db", db_url)
    _ok("grant", "ana", "--role", "chief", "--game", "final", "--db", db_url)
    with EventStore(db_url) as store:
        roster = load_roster(store)
    assert roster.game_roles("ana", "cb-p1", "cupa-2026") == {"deputy"}
    assert roster.game_roles("ana", "cb-p2", "cupa-2026") == {"deputy"}
    assert roster.game_roles("ana", "mc-p1", "memorial-2026") == frozenset()
    assert roster.game_roles("ana", "mc-p1", None) == frozenset()
    assert roster.game_roles("ana", "final", "cupa-2026") == {"deputy", "chief"}
    assert roster.game_roles("bob", "cb-p1", "cupa-2026") == frozenset()
    assert not roster.is_admin("ana") and roster.is_admin("root")


def test_revoke_ends_a_grant_and_a_grant_not_held_cannot_be_revoked(db_url: str) -> None:
    _federation(db_url)
    _ok("grant", "bob", "--role", "read-only", "--game", "g1", "--db", db_url)
    _ok("grant", "bob", "--role", "auditor", "--db", db_url)
    revoked = _ok("revoke", "bob", "--role", "read-only", "--game", "g1", "--db", db_url)
    assert revoked["events"][0]["type"] == "RoleRevoked"
    assert revoked["events"][0]["payload"] == {"account_id": "bob", "role": "read-only",
                                               "game_id": "g1"}  # fmt: skip
    with EventStore(db_url) as store:
        roster = load_roster(store)
    assert roster.game_roles("bob", "g1") == frozenset()
    assert roster.is_auditor("bob")
    assert Grant("bob", "auditor") in roster.grants
    message = _refused(1, db_url, "revoke", "bob", "--role", "read-only", "--game", "g1")
    assert "does not hold read-only on game g1" in message


def test_the_roster_read_from_the_account_streams_alone_is_the_fold_of_every_event(
    db_url: str,
) -> None:
    _federation(db_url)
    with EventStore(db_url) as store:
        store.append("game/g1", [NewEvent("GameCreated", {"game_id": "g1"})])
    _ok("grant", "ana", "--role", "chief", "--game", "g1", "--db", db_url)
    _ok("grant", "bob", "--role", "read-only", "--game", "g1", "--db", db_url)
    _ok("revoke", "bob", "--role", "read-only", "--game", "g1", "--db", db_url)
    with EventStore(db_url) as store:
        store.append("game/g2", [NewEvent("GameCreated", {"game_id": "g2"})])
        roster = load_roster(store)
        assert roster == EMPTY_ROSTER.caught_up(store)
        assert roster.seq == store.head().seq  # up to the last event, an account's or not
        assert roster.game_roles("ana", "g1") == {"chief"} and roster.is_admin("root")
        _ok("grant", "bob", "--role", "auditor", "--db", db_url)
        later = roster.caught_up(store)
    assert later.is_auditor("bob") and later.seq == roster.seq + 1


def test_accounts_list_shows_each_account_with_its_roles(db_url: str) -> None:
    _federation(db_url)
    _ok("grant", "ana", "--role", "chief", "--game", "g1", "--db", db_url)
    listed = _ok("list", "--db", db_url)
    assert listed == {
        "accounts": [
            {"account_id": "ana", "name": "Ana Pop",
             "roles": [{"role": "chief", "game_id": "g1", "tournament_id": None}]},
            {"account_id": "bob", "name": "Bob Ionescu", "roles": []},
            {"account_id": "root", "name": "Federația",
             "roles": [{"role": "admin", "game_id": None, "tournament_id": None}]},
        ]
    }  # fmt: skip
    shown = _run("list", "--db", db_url).stdout
    assert "chief (game g1)" in shown and "Federația" in shown


def test_bad_input_is_refused_naming_it_and_writes_nothing(sqlite_url: str) -> None:
    _federation(sqlite_url)
    assert "already exists" in _refused(1, sqlite_url, "add", "ana", "--name", "Ana")
    assert "not an account id" in _refused(2, sqlite_url, "add", "Ana_P", "--name", "Ana")
    assert "--name" in _refused(2, sqlite_url, "add", "eve", "--name", " ")
    assert "arbitru accounts grant" in _refused(2, sqlite_url, "add", "eve", "--name", "Eve",
                                                 "--role", "chief")  # fmt: skip
    assert "not a role" in _refused(2, sqlite_url, "grant", "ana", "--role", "king")
    assert "exactly one" in _refused(2, sqlite_url, "grant", "ana", "--role", "chief")
    assert "whole ledger" in _refused(2, sqlite_url, "grant", "ana", "--role", "admin",
                                      "--game", "g1")  # fmt: skip
    assert "a game id" in _refused(2, sqlite_url, "grant", "ana", "--role", "chief",
                                   "--game", "G 1")  # fmt: skip
    assert "no account eve" in _refused(1, sqlite_url, "grant", "eve", "--role", "auditor")


def test_no_ledger_at_db_is_said_and_none_is_created(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    result = _run("grant", "ana", "--role", "auditor", "--db", f"sqlite:///{missing}")
    assert result.exit_code == 2 and "no Arbitru ledger" in result.stderr
    assert not missing.exists()


def test_a_grant_onto_an_altered_ledger_is_refused(db_url: str) -> None:
    _federation(db_url)
    with EventStore(db_url) as store:
        _drop_event_triggers(store)
        payload = canonical_json({"account_id": "bob", "name": "Bob Altered"})
        _raw(store, f"UPDATE events SET payload = {_payload_sql(store)} WHERE seq = 4",
             payload=payload)  # fmt: skip
    message = _refused(1, db_url, "grant", "ana", "--role", "auditor")
    assert "fails its integrity check" in message


ADD = "from pipelines.cli.arbitru import main; main()"


def _adding(n: int, db_url: str) -> list[str]:
    return ["accounts", "add", "same", "--name", f"Same {n}", "--db", db_url,
            "--actor", f"terminal-{n}"]  # fmt: skip


def test_two_processes_creating_one_account_one_succeeds_the_other_is_told_it_exists(
    db_url: str,
) -> None:
    _ok("add", "root", "--name", "Federația", "--db", db_url)  # the ledger exists
    started = [
        subprocess.Popen(
            [sys.executable, "-c", ADD, *_adding(n, db_url)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in (1, 2)
    ]
    done = [(p.communicate(timeout=120)[1], p.returncode) for p in started]
    done = [(code, err) for err, code in done]
    assert sorted(code for code, _ in done) == [0, 1], done
    (loser,) = [err for code, err in done if code == 1]
    assert "account same already exists" in loser
    with EventStore(db_url) as store:
        assert [e.type for e in store.read_stream("account/same")] == ["AccountCreated"]
