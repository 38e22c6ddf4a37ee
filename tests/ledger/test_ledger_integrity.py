"""The ledger against its own checkpoints, on SQLite and PostgreSQL, through the real CLI
where a user would run it: four ways to tamper with a ledger behind its back (triggers
dropped), each caught by `ledger verify`, refused by `ledger checkpoint` and caught by the
quick check (`check_recent`, `check_events`) where it reaches; `ledger head` and published
heads for `verify --expect-head`; and the incremental checkpoint signing the roots a full
rebuild gives."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ledger_helpers import game_created, rack, rfc_mth
from typer.testing import CliRunner

from ledger import EventStore, check_events, check_recent
from ledger import checkpoints as checkpoints_module
from ledger.canonical import canonical_json, chain_hash, envelope_bytes
from ledger.checkpoints import SUBTREE_LEVEL, LedgerAltered, list_checkpoints, make_checkpoint
from ledger.jsonl import row_line
from ledger.merkle import leaf_hash, levels
from ledger.signing import Ed25519PrivateKey
from pipelines.cli.arbitru import app
from pipelines.games.checkpoints import CHECKPOINT_KEY_ENV, checkpoint_if_configured

runner = CliRunner()
SIZE = 300
"""Events before the checkpoint: more than one block of `2**SUBTREE_LEVEL`, so that the
quick check reads a stored subtree and the event hashes of a partial last block."""


def arbitru(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env={CHECKPOINT_KEY_ENV: "", **(env or {})})


def fill(store: EventStore, count: int, stream: str = "game/g1") -> None:
    version = store.stream_version(stream)
    events = [] if version else [game_created(stream.split("/")[1])]
    events += [rack(version + i) for i in range(1, count - len(events) + 1)]
    store.append(stream, events)


def raw(store: EventStore, *statements: str) -> None:
    with store.engine.begin() as connection:
        for statement in statements:
            connection.exec_driver_sql(statement)


def drop_triggers(store: EventStore) -> None:
    """What a forger with the database's password does first."""
    if store.engine.dialect.name == "postgresql":
        raw(
            store,
            "DROP TRIGGER events_refuse_update_delete ON events",
            "DROP TRIGGER checkpoints_refuse_update_delete ON checkpoints",
            "DROP TRIGGER merkle_subtrees_refuse_update_delete ON merkle_subtrees",
        )
    else:
        raw(
            store,
            "DROP TRIGGER events_refuse_update",
            "DROP TRIGGER events_refuse_delete",
            "DROP TRIGGER checkpoints_refuse_delete",
            "DROP TRIGGER merkle_subtrees_refuse_delete",
        )


def table_rows(store: EventStore, table: str) -> list[tuple]:
    with store.engine.begin() as connection:
        return [tuple(row) for row in connection.exec_driver_sql(f"SELECT * FROM {table}")]


def copy_in(store: EventStore, table: str, rows: list[tuple]) -> None:
    with store.engine.begin() as connection:
        for row in rows:
            marks = ", ".join(
                ["%s" if store.engine.dialect.name == "postgresql" else "?"] * len(row)
            )
            connection.exec_driver_sql(f"INSERT INTO {table} VALUES ({marks})", tuple(row))


@pytest.fixture
def key(tmp_path: Path) -> Path:
    path = tmp_path / "federation.key"
    assert arbitru("keys", "new", str(path)).exit_code == 0
    return path


@pytest.fixture
def signed(db_url: str, key: Path) -> str:
    """A ledger of `SIZE` events with a checkpoint of them, signed through the CLI."""
    with EventStore(db_url) as store:
        fill(store, SIZE)
    made = arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url)
    assert made.exit_code == 0, made.output
    return db_url


def refused_everywhere(db_url: str, key: Path, reason: str, seq: int | None = None) -> None:
    """`verify` fails (at `seq`) and `checkpoint` signs nothing, with no new events and after
    one."""
    verified = arbitru("ledger", "verify", "--db", db_url, "--json")
    assert verified.exit_code == 1, verified.output
    report = json.loads(verified.stdout)
    assert reason in report["error"] and report["first_broken_seq"] == seq
    before = len(table_rows(EventStore(db_url), "checkpoints"))
    for _ in range(2):
        made = arbitru("ledger", "checkpoint", "--key", str(key), "--db", db_url)
        assert made.exit_code == 1, made.output
        assert "nothing was signed" in made.stderr and reason in " ".join(made.stderr.split())
        with EventStore(db_url) as store:
            fill(store, 1, "game/later")
    with EventStore(db_url) as store:
        assert len(table_rows(store, "checkpoints")) == before


@pytest.mark.parametrize("where", ["under-the-checkpoint", "after-it"])
def test_a_payload_edited_with_the_triggers_off_is_caught_and_never_signed(
    signed: str, key: Path, where: str
) -> None:
    with EventStore(signed) as store:
        fill(store, 5)
        seq = 10 if where == "under-the-checkpoint" else SIZE + 2
        drop_triggers(store)
        payload = '{"drawn":"ZZZZZ","round":9}'
        cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
        raw(store, f"UPDATE events SET payload = '{payload}'{cast} WHERE seq = {seq}")
        with pytest.raises(LedgerAltered, match=f"seq {seq} .*no longer gives its stored hash"):
            check_events(store.read_stream("game/g1"))
        if where == "after-it":
            with pytest.raises(LedgerAltered, match=f"seq {seq}: its content no longer gives"):
                check_recent(store)
        else:
            check_recent(store)  # deep under the checkpoint: only the full verify reaches it
    refused_everywhere(signed, key, "does not match the recomputed", seq)


def test_events_deleted_under_a_checkpoint_are_caught_by_verify_alone(
    signed: str, key: Path, tmp_path: Path
) -> None:
    with EventStore(signed) as store:
        drop_triggers(store)
        raw(store, f"DELETE FROM events WHERE seq > {SIZE - 5}")
        with pytest.raises(LedgerAltered, match=f"checkpoint {SIZE} covers {SIZE} events but"):
            check_recent(store)
    published = tmp_path / "head.json"
    args = ("ledger", "head", "--db", signed, "--publish", str(published), "--key", str(key))
    refused = arbitru(*args)
    assert refused.exit_code == 1 and "nothing was published" in refused.stderr
    assert not published.exists()
    refused_everywhere(signed, key, f"checkpoint {SIZE} covers {SIZE} events, but the chain")


def test_a_full_rewrite_with_fresh_hashes_under_the_old_checkpoint_is_caught(
    signed: str, key: Path
) -> None:
    with EventStore(signed) as store:
        old_checkpoint = table_rows(store, "checkpoints")
        drop_triggers(store)
        raw(store, "DELETE FROM events", "DELETE FROM merkle_subtrees", "DELETE FROM checkpoints")
        store.append("game/g1", [game_created(), rack(1, "QQQQQ")])
        fill(store, SIZE - 2)
        assert store.head().seq == SIZE
        copy_in(store, "checkpoints", old_checkpoint)
        with pytest.raises(LedgerAltered, match=r"missing|no longer give the root"):
            check_recent(store)
    refused_everywhere(signed, key, f"not the root {old_checkpoint[0][1]} signed by checkpoint")


def test_a_forged_export_imported_fresh_with_the_old_checkpoints_copied_in_is_caught(
    db_url: str, key: Path, tmp_path: Path
) -> None:
    original = f"sqlite:///{tmp_path / 'original.db'}"
    with EventStore(original) as store:
        fill(store, SIZE)
    assert arbitru("ledger", "checkpoint", "--key", str(key), "--db", original).exit_code == 0
    forged, prev = [], "0" * 64
    with EventStore(original) as store:
        for row in store.iter_rows():
            payload = json.loads(row[6])
            if row[0] == 5:
                payload["drawn"] = "ZZZZZ"
            edited = (*row[:6], canonical_json(payload).encode(), row[7], row[8], prev)
            prev = chain_hash(prev, envelope_bytes(edited))
            forged.append(row_line((*edited, prev)))
        checkpoints, subtrees = (table_rows(store, t) for t in ("checkpoints", "merkle_subtrees"))
    path = tmp_path / "forged.jsonl"
    path.write_bytes(b"".join(forged))
    assert json.loads(forged[4])["payload"]["drawn"] == "ZZZZZ"
    assert arbitru("ledger", "verify", "--file", str(path)).exit_code == 0  # consistent alone
    imported = arbitru("ledger", "import", str(path), "--db", db_url, "--require-same-hashes")
    assert imported.exit_code == 0, imported.output
    with EventStore(db_url) as store:
        copy_in(store, "checkpoints", checkpoints)
        copy_in(store, "merkle_subtrees", subtrees)
        with pytest.raises(LedgerAltered, match="no longer give the root signed by checkpoint"):
            check_recent(store)
    refused_everywhere(db_url, key, f"signed by checkpoint {SIZE}")


def test_ledger_head_prints_the_seq_colon_hash_that_expect_head_takes(signed: str) -> None:
    head = arbitru("ledger", "head", "--db", signed)
    assert head.exit_code == 0
    with EventStore(signed) as store:
        assert head.stdout == f"{SIZE}:{store.head().hash}\n"
    as_json = json.loads(arbitru("ledger", "head", "--db", signed, "--json").stdout)
    assert f"{as_json['seq']}:{as_json['hash']}\n" == head.stdout
    verified = arbitru("ledger", "verify", "--db", signed, "--expect-head", head.stdout.strip())
    assert verified.exit_code == 0, verified.output
    assert "it holds the published head" in verified.stdout


def test_a_published_head_file_is_verified_and_a_tampered_one_refused(
    signed: str, key: Path, tmp_path: Path
) -> None:
    published = tmp_path / "head.json"
    made = arbitru("ledger", "head", "--db", signed, "--publish", str(published), "--key", str(key))
    assert made.exit_code == 0, made.output
    document = json.loads(published.read_text())
    assert set(document) == {"format", "seq", "hash", "published_at", "key_id", "signature"}
    assert document["seq"] == SIZE and made.stdout == f"{SIZE}:{document['hash']}\n"
    pub = str(key) + ".pub"
    verify = ("ledger", "verify", "--db", signed, "--expect-head")
    ok = arbitru(
        "ledger", "verify", "--db", signed, "--expect-head", str(published), "--pubkey", pub
    )
    assert ok.exit_code == 0, ok.output
    unchecked = arbitru(*verify, str(published))
    assert unchecked.exit_code == 2 and "--pubkey" in unchecked.stderr

    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps({**document, "seq": SIZE - 1}))
    refused = arbitru(
        "ledger", "verify", "--db", signed, "--expect-head", str(tampered), "--pubkey", pub
    )
    assert refused.exit_code == 1
    assert "signature does not verify" in " ".join(refused.stderr.split())
    tampered.write_text(json.dumps({**document, "seq": "many"}))
    malformed = arbitru(
        "ledger", "verify", "--db", signed, "--expect-head", str(tampered), "--pubkey", pub
    )
    assert malformed.exit_code == 2 and "seq must be an integer" in malformed.stderr


def test_events_removed_after_the_latest_checkpoint_need_the_published_head(
    signed: str, key: Path, tmp_path: Path
) -> None:
    with EventStore(signed) as store:
        fill(store, 10)
    published = tmp_path / "head.json"
    args = ("ledger", "head", "--db", signed, "--publish", str(published), "--key", str(key))
    assert arbitru(*args).exit_code == 0
    with EventStore(signed) as store:
        drop_triggers(store)
        raw(store, f"DELETE FROM events WHERE seq > {SIZE + 4}")
        check_recent(store)  # nothing in the database tells
    assert arbitru("ledger", "verify", "--db", signed).exit_code == 0
    caught = arbitru(
        "ledger", "verify", "--db", signed, "--expect-head", str(published),
        "--pubkey", str(key) + ".pub",
    )  # fmt: skip
    assert caught.exit_code == 1
    assert "6 event(s) missing after seq 304" in " ".join(caught.stdout.split())


def test_a_rewrite_with_a_fresh_keys_checkpoint_needs_the_trusted_key(
    signed: str, key: Path, tmp_path: Path
) -> None:
    with EventStore(signed) as store:
        drop_triggers(store)
        raw(store, "DELETE FROM events", "DELETE FROM merkle_subtrees", "DELETE FROM checkpoints")
        store.append("game/g1", [game_created(), rack(1, "QQQQQ")])
        fill(store, SIZE - 2)
    forger = tmp_path / "forger.key"
    assert arbitru("keys", "new", str(forger)).exit_code == 0
    assert arbitru("ledger", "checkpoint", "--key", str(forger), "--db", signed).exit_code == 0
    untrusted = arbitru("ledger", "verify", "--db", signed)
    assert untrusted.exit_code == 0 and "signatures NOT checked" in " ".join(
        untrusted.stdout.split()
    )
    for how in (["--pubkey", str(key) + ".pub"], []):
        env = {} if how else {CHECKPOINT_KEY_ENV: str(key)}
        trusted = arbitru("ledger", "verify", "--db", signed, "--json", *how, env=env)
        assert trusted.exit_code == 1, how
        assert "signed by another key" in json.loads(trusted.stdout)["error"]


def test_verify_with_the_trusted_key_checks_every_checkpoint_signature(
    signed: str, key: Path
) -> None:
    result = arbitru("ledger", "verify", "--db", signed, "--json", "--pubkey", str(key) + ".pub")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["checkpoints_matched"] == 1 and report["signatures_checked"] is True


KEY = Ed25519PrivateKey.generate()


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=700), min_size=1, max_size=4))
def test_the_incremental_checkpoint_signs_the_root_and_subtrees_of_a_full_rebuild(
    steps: list[int],
) -> None:
    with tempfile.TemporaryDirectory() as folder, EventStore(f"sqlite:///{folder}/l.db") as store:
        for step in steps:
            fill(store, step)
            checkpoint, created = make_checkpoint(store, KEY)
            hashes = [row[10] for row in store.iter_rows()]
            assert created and checkpoint.tree_size == len(hashes)
            assert checkpoint.root == rfc_mth([bytes.fromhex(h) for h in hashes]).hex()
            check_recent(store)
        full = levels([leaf_hash(h) for h in hashes])
        expected = {
            (height, position, full[height][position].hex())
            for height in range(SUBTREE_LEVEL, len(full))
            for position in range(len(hashes) >> height)
        }
        assert set(table_rows(store, "merkle_subtrees")) == expected
        assert [c.tree_size for c in list_checkpoints(store)][-1] == len(hashes)


def test_a_checkpoint_made_meanwhile_by_another_round_close_does_not_fail_this_one(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ledger.checkpoints as checkpoints

    fill(store, 600)
    checked_first = checkpoints.recent_stretch(store)  # this round close checked the ledger,
    fill(store, 1)
    make_checkpoint(store, KEY)  # then another one signed, storing the same subtrees
    monkeypatch.setattr(checkpoints, "recent_stretch", lambda _store: checked_first)
    checkpoint, created = make_checkpoint(store, KEY)
    assert created and [c.tree_size for c in list_checkpoints(store)] == [600, 601]
    hashes = [bytes.fromhex(row[10]) for row in store.iter_rows()][:600]
    assert checkpoint.root == rfc_mth(hashes).hex()


def _forged_with_a_fresh_key(signed: str, tmp_path: Path) -> Path:
    """The ledger at `signed` rewritten whole with fresh hashes, its checkpoints and subtrees
    deleted, and the forgery checkpointed by a key of the forger's; that key."""
    with EventStore(signed) as store:
        drop_triggers(store)
        raw(store, "DELETE FROM events", "DELETE FROM merkle_subtrees", "DELETE FROM checkpoints")
        store.append("game/g1", [game_created(), rack(1, "QQQQQ")])
        fill(store, SIZE - 2)
    forger = tmp_path / "forger.key"
    assert arbitru("keys", "new", str(forger)).exit_code == 0
    assert arbitru("ledger", "checkpoint", "--key", str(forger), "--db", signed).exit_code == 0
    return forger


def test_a_key_signs_no_checkpoint_over_a_checkpoint_another_key_made(
    signed: str, key: Path, tmp_path: Path
) -> None:
    forger = _forged_with_a_fresh_key(signed, tmp_path)
    with EventStore(signed) as store:
        forged = table_rows(store, "checkpoints")
    for grown in (False, True):
        if grown:
            with EventStore(signed) as store:
                fill(store, 1, "game/later")
        for how in ([], ["--quick"]):
            made = arbitru("ledger", "checkpoint", "--key", str(key), *how, "--db", signed)
            assert made.exit_code == 1, (how, made.output)
            said = " ".join(made.stderr.split())
            assert "nothing was signed" in said and "was not made by this key" in said, said
    with EventStore(signed) as store:
        with pytest.raises(LedgerAltered, match="was not made by this key"):
            checkpoint_if_configured(store, key)  # what a round close or a game end runs
        assert table_rows(store, "checkpoints") == forged
    assert arbitru("ledger", "checkpoint", "--key", str(forger), "--db", signed).exit_code == 0


def test_a_key_publishes_no_head_over_a_checkpoint_another_key_made(
    signed: str, key: Path, tmp_path: Path
) -> None:
    _forged_with_a_fresh_key(signed, tmp_path)
    head = tmp_path / "head.json"
    published = arbitru("ledger", "head", "--publish", str(head), "--key", str(key), "--db", signed)
    assert published.exit_code == 1, published.output
    said = " ".join(published.stderr.split())
    assert "nothing was published" in said and "was not made by this key" in said, said
    assert not head.exists()


def test_a_checkpoint_whose_signature_does_not_verify_is_not_signed_over(
    signed: str, key: Path
) -> None:
    with EventStore(signed) as store:
        drop_triggers(store)
        if store.engine.dialect.name == "sqlite":
            raw(store, "DROP TRIGGER checkpoints_refuse_update")
        raw(store, "UPDATE checkpoints SET signature = 'AAAA'")
    made = arbitru("ledger", "checkpoint", "--key", str(key), "--quick", "--db", signed)
    assert made.exit_code == 1, made.output
    assert "does not verify" in " ".join(made.stderr.split())


def _altered_after_the_checkpoint(url: str) -> int:
    """Five events added after the checkpoint and the second of them edited in place, its
    stored hash kept: what the quick check reaches. Its seq."""
    seq = SIZE + 2
    with EventStore(url) as store:
        fill(store, 5)
        drop_triggers(store)
        cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
        raw(store, f"""UPDATE events SET payload = '{{"drawn":"ZZZZZ","round":9}}'{cast}
                       WHERE seq = {seq}""")  # fmt: skip
    return seq


TOURNAMENT_LINE = {
    "stream": "tournament/t9",
    "type": "TournamentCreated",
    "schema": 1,
    "payload": {"tournament_id": "t9", "name": "Cupa", "season": "2026"},
}


def test_an_import_onto_a_ledger_failing_the_quick_check_is_refused(
    signed: str, tmp_path: Path
) -> None:
    seq = _altered_after_the_checkpoint(signed)
    with EventStore(signed) as store:
        before = store.head()
    lines = tmp_path / "t9.jsonl"
    lines.write_text(json.dumps(TOURNAMENT_LINE) + "\n", encoding="utf-8")
    refused = arbitru("ledger", "import", str(lines), "--db", signed)
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.stderr.split())
    assert said.startswith(
        "error: refused, nothing was written: the ledger fails its integrity check: "
        f"seq {seq}: its content no longer gives its stored hash"
    ), said
    with EventStore(signed) as store:
        assert store.head() == before


@pytest.mark.parametrize("command", [("head",), ("head", "--json"), ("export",)])
def test_ledger_head_and_export_of_a_ledger_failing_the_quick_check_say_so_and_exit_1(
    signed: str, command: tuple[str, ...]
) -> None:
    seq = _altered_after_the_checkpoint(signed)
    result = arbitru("ledger", *command, "--db", signed)
    assert result.exit_code == 1, result.output
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: the ledger fails its integrity check, so this "), first
    assert f"seq {seq}: its content no longer gives its stored hash" in first
    with EventStore(signed) as store:
        head = store.head()
    if command[0] == "head":
        assert f"{head.seq}:{head.hash}" in result.stdout or json.loads(result.stdout) == {
            "seq": head.seq,
            "hash": head.hash,
        }
    else:
        assert len(result.stdout.splitlines()) == head.seq  # every event, as stored


def test_ledger_head_and_export_of_an_intact_ledger_exit_0_saying_nothing(signed: str) -> None:
    for command in (("head",), ("export",)):
        result = arbitru("ledger", *command, "--db", signed)
        assert result.exit_code == 0, result.output
        assert "integrity" not in result.stderr


def test_without_a_checkpoint_the_quick_check_reads_only_the_last_events(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ledger with no checkpoint: only the last `UNSIGNED_TAIL` events are checked, so an
    edit deeper down is left to `ledger verify`, and one among the last is caught."""
    monkeypatch.setattr(checkpoints_module, "UNSIGNED_TAIL", 50)
    with EventStore(db_url) as store:
        fill(store, SIZE)
        drop_triggers(store)
        cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
        for seq in (10, SIZE - 20):
            raw(store, f"""UPDATE events SET payload = '{{"drawn":"ZZZZZ","round":{seq}}}'{cast}
                           WHERE seq = {seq}""")  # fmt: skip
            result = arbitru("ledger", "head", "--db", db_url)
            if seq == 10:
                assert result.exit_code == 0 and result.stderr == "", result.output
            else:
                assert result.exit_code == 1, result.output
                assert f"seq {seq}: its content no longer gives" in result.stderr
    verified = arbitru("ledger", "verify", "--db", db_url, "--json")
    assert verified.exit_code == 1 and json.loads(verified.stdout)["first_broken_seq"] == 10


def test_the_first_checkpoint_of_a_ledger_checks_every_event(
    db_url: str, key: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints_module, "UNSIGNED_TAIL", 50)
    with EventStore(db_url) as store:
        fill(store, SIZE)
        drop_triggers(store)
        cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
        raw(store, f"""UPDATE events SET payload = '{{"drawn":"ZZZZZ","round":9}}'{cast}
                       WHERE seq = 10""")  # fmt: skip
    for how in (["--quick"], []):
        made = arbitru("ledger", "checkpoint", "--key", str(key), *how, "--db", db_url)
        assert made.exit_code == 1, (how, made.output)
        assert "nothing was signed" in made.stderr
    with (
        EventStore(db_url) as store,
        pytest.raises(LedgerAltered, match="seq 10: its content no longer gives"),
    ):
        make_checkpoint(store, KEY)
    head = tmp_path / "head.json"
    published = arbitru("ledger", "head", "--db", db_url, "--publish", str(head), "--key", str(key))
    assert published.exit_code == 1 and "nothing was published" in published.stderr
    assert not head.exists()


def test_a_published_head_file_above_its_cap_is_refused_before_it_is_read(
    signed: str, key: Path, tmp_path: Path
) -> None:
    head = tmp_path / "head.json"
    made = arbitru("ledger", "head", "--publish", str(head), "--key", str(key), "--db", signed)
    assert made.exit_code == 0, made.output
    pubkey = ("--pubkey", str(key) + ".pub")
    kept = arbitru("ledger", "verify", "--db", signed, "--expect-head", str(head), *pubkey)
    assert kept.exit_code == 0, kept.output
    head.write_text(head.read_text(encoding="utf-8") + " " * 5000, encoding="utf-8")
    refused = arbitru("ledger", "verify", "--db", signed, "--expect-head", str(head), *pubkey)
    assert refused.exit_code == 2, refused.output
    said = " ".join(refused.stderr.split())
    assert "published head file" in said and "4 KiB" in said, said


LONG = 2 * SIZE
"""A ledger of twice `SIZE` events with its checkpoint (of `SIZE`) in the middle: more than
one block of `2**SUBTREE_LEVEL` on each side, so that the quick check reads neither all of it
nor only the events after the checkpoint."""


def _rewritten_from(store: EventStore, first: int) -> None:
    """Every event from `first` on given another rack and the hash its content now gives, so
    that the chain holds together."""
    rows = list(store.iter_rows(from_seq=first))
    prev_hash = rows[0][9]
    cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
    for row in rows:
        payload = canonical_json({"drawn": "QQQQQ", "round": row[0]}).encode()
        digest = chain_hash(prev_hash, envelope_bytes((*row[:6], payload, *row[7:9], prev_hash)))
        raw(store, f"UPDATE events SET payload = '{payload.decode()}'{cast}, prev_hash = "
                   f"'{prev_hash}', hash = '{digest}' WHERE seq = {row[0]}")  # fmt: skip
        prev_hash = digest


def _truncated(store: EventStore) -> str:
    raw(store, f"DELETE FROM events WHERE seq > {SIZE - 20}")
    return f"checkpoint {SIZE} covers {SIZE} events but the ledger holds only {SIZE - 20}"


def _last_events_rewritten(store: EventStore) -> str:
    _rewritten_from(store, SIZE - 10)
    return f"no longer give the root signed by checkpoint {SIZE}"


def _stretch_after_it_altered(store: EventStore) -> str:
    cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
    raw(store, f"""UPDATE events SET payload = '{{"drawn":"ZZZZZ","round":9}}'{cast}
                   WHERE seq = {SIZE + 150}""")  # fmt: skip
    return f"seq {SIZE + 150}: its content no longer gives its stored hash"


@pytest.mark.parametrize(
    "alter",
    [_truncated, _last_events_rewritten, _stretch_after_it_altered],
    ids=["truncation", "last-events-rewritten", "stretch-after-the-checkpoint-altered"],
)
def test_the_quick_check_of_a_long_ledger_reads_from_the_checkpoints_block_and_catches(
    signed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alter
) -> None:
    with EventStore(signed) as store:
        fill(store, LONG - SIZE)
        assert store.head().seq == LONG
    read_from: list[int] = []
    iter_rows = EventStore.iter_rows

    def spied(self, *args, **kwargs):
        read_from.append(kwargs.get("from_seq", 1))
        return iter_rows(self, *args, **kwargs)

    monkeypatch.setattr(EventStore, "iter_rows", spied)
    intact = arbitru("ledger", "head", "--db", signed)
    assert intact.exit_code == 0 and intact.stderr == "", intact.output
    block = (SIZE - 1) >> SUBTREE_LEVEL << SUBTREE_LEVEL
    assert read_from == [block + 1], "from the start of the checkpoint's last block, no earlier"
    with EventStore(signed) as store:
        drop_triggers(store)
        reason = alter(store)
    lines = tmp_path / "t9.jsonl"
    lines.write_text(json.dumps(TOURNAMENT_LINE) + "\n", encoding="utf-8")
    for command in (("head",), ("import", str(lines))):
        caught = arbitru("ledger", *command, "--db", signed)
        assert caught.exit_code == 1, (command, caught.output)
        assert reason in " ".join(caught.stderr.split()), (command, caught.stderr)
