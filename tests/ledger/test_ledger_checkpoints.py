"""Checkpoints and proofs over a real ledger, on SQLite and PostgreSQL: every proof made holds
and matches the tree computed independently from the exported event hashes; checkpoints are
recorded and never edited; a ledger altered after a checkpoint gets no new checkpoint or proof
for what changed, and `verify` fails."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from ledger_helpers import event_line, game_created, rack, rfc_mth

from ledger import EventStore, verify_store
from ledger.canonical import chain_hash, envelope_bytes
from ledger.checkpoints import (
    SUBTREE_LEVEL,
    CheckpointError,
    LedgerAltered,
    find_checkpoint,
    list_checkpoints,
    make_checkpoint,
)
from ledger.proofs import consistency_document, inclusion_document, verify_document
from ledger.proving import prove_consistency, prove_inclusion

KEY = Ed25519PrivateKey.generate()
PUBLIC = KEY.public_key()


def grow(store: EventStore, count: int) -> None:
    """Append `count` events to game/g1 (opening it first if needed)."""
    version = store.stream_version("game/g1")
    events = [] if version else [game_created()]
    events += [rack(version + i) for i in range(1, count - len(events) + 1)]
    store.append("game/g1", events)


def stored_hashes(store: EventStore) -> list[str]:
    return [row[10] for row in store.iter_rows()]


def raw(store: EventStore, *statements: str) -> None:
    with store.engine.begin() as connection:
        for statement in statements:
            connection.exec_driver_sql(statement)


def drop_event_triggers(store: EventStore) -> None:
    if store.engine.dialect.name == "postgresql":
        raw(store, "DROP TRIGGER events_refuse_update_delete ON events")
    else:
        raw(store, "DROP TRIGGER events_refuse_update", "DROP TRIGGER events_refuse_delete")


def rewrite_schema(store: EventStore, seq: int, *, rehash: bool) -> None:
    """Alter event `seq` (schema 1 -> 2) behind the ledger's back; with `rehash` the forger
    also stores the hash the altered content gives, as a careful forger would."""
    drop_event_triggers(store)
    row = next(store.iter_rows(from_seq=seq, page_size=1))
    altered = (*row[:5], 2, *row[6:])
    new_hash = chain_hash(row[9], envelope_bytes(altered))
    assignment = f"schema = 2, hash = '{new_hash}'" if rehash else "schema = 2"
    raw(store, f"UPDATE events SET {assignment} WHERE seq = {seq}")


def test_a_checkpoint_signs_the_rfc_9162_head_of_the_event_hashes(store: EventStore) -> None:
    grow(store, 300)
    checkpoint, created = make_checkpoint(store, KEY)
    assert created
    assert checkpoint.tree_size == 300
    assert checkpoint.root == rfc_mth([bytes.fromhex(h) for h in stored_hashes(store)]).hex()
    assert find_checkpoint(store) == checkpoint == list_checkpoints(store)[0]


def test_every_inclusion_proof_holds_and_its_event_is_the_export_line(store: EventStore) -> None:
    grow(store, 2 * (1 << SUBTREE_LEVEL) + 37)
    checkpoint, _ = make_checkpoint(store, KEY)
    lines = {row[0]: row for row in store.iter_rows()}
    for seq in range(1, checkpoint.tree_size + 1):
        proof = prove_inclusion(store, seq)
        document = inclusion_document(proof)
        assert json.loads(document["event"])["hash"] == lines[seq][10]
        verdict = verify_document(document, PUBLIC)
        assert verdict.ok, (seq, verdict.detail)


def test_proofs_against_an_older_checkpoint_and_consistency_between_any_two(
    store: EventStore,
) -> None:
    sizes = []
    for count in (5, 250, 300, 17):
        grow(store, count)
        sizes.append(make_checkpoint(store, KEY)[0].tree_size)
    assert sizes == [5, 255, 555, 572]
    for size in sizes:
        for seq in (1, size // 2, size):
            proof = prove_inclusion(store, seq, size)
            assert proof.checkpoint.tree_size == size
            assert verify_document(inclusion_document(proof), PUBLIC).ok
    for old in sizes:
        for new in sizes:
            if old <= new:
                document = consistency_document(prove_consistency(store, old, new))
                assert verify_document(document, PUBLIC).ok, (old, new)


def test_checkpointing_an_unchanged_ledger_signs_nothing_new(store: EventStore) -> None:
    grow(store, 3)
    first, _ = make_checkpoint(store, KEY)
    again, created = make_checkpoint(store, KEY)
    assert (again, created) == (first, False)
    assert len(list_checkpoints(store)) == 1


def test_an_empty_ledger_cannot_be_checkpointed(store: EventStore) -> None:
    with pytest.raises(CheckpointError, match="no events yet"):
        make_checkpoint(store, KEY)


def test_proving_without_a_checkpoint_or_outside_it_says_what_to_do(store: EventStore) -> None:
    grow(store, 4)
    with pytest.raises(CheckpointError, match="no checkpoint yet"):
        prove_inclusion(store, 1)
    make_checkpoint(store, KEY)
    grow(store, 2)
    with pytest.raises(CheckpointError, match=r"not covered by checkpoint 4.*newer checkpoint"):
        prove_inclusion(store, 5)
    with pytest.raises(CheckpointError, match="no checkpoint of 6 events"):
        prove_inclusion(store, 1, 6)
    for size in (0, -1, 2**64):
        with pytest.raises(CheckpointError, match=f"no checkpoint of {size} events"):
            prove_consistency(store, size, size)
    with pytest.raises(CheckpointError, match="must not be larger"):
        prove_consistency(store, 4, 1)


@pytest.mark.parametrize("table", ["checkpoints", "merkle_subtrees"])
def test_checkpoints_and_subtrees_are_never_updated_or_deleted(
    store: EventStore, table: str
) -> None:
    grow(store, 1 << SUBTREE_LEVEL)
    make_checkpoint(store, KEY)
    column = "created_at" if table == "checkpoints" else "hash"
    for statement in (f"UPDATE {table} SET {column} = 'x'", f"DELETE FROM {table}"):
        with pytest.raises(sa.exc.DBAPIError, match="never changed"):
            raw(store, statement)
    if store.engine.dialect.name == "postgresql":
        with pytest.raises(sa.exc.DBAPIError, match="never changed"):
            raw(store, f"TRUNCATE {table}")
    else:
        key = "tree_size" if table == "checkpoints" else "level, position"
        with pytest.raises(sa.exc.DBAPIError, match="may not be replaced"):
            raw(store, f"INSERT OR REPLACE INTO {table} SELECT * FROM {table} ORDER BY {key}")


@pytest.mark.parametrize("rehash", [False, True], ids=["content-only", "content-and-hash"])
def test_an_event_altered_after_a_checkpoint_fails_verify_and_every_later_proof(
    store: EventStore, rehash: bool
) -> None:
    grow(store, 300)
    make_checkpoint(store, KEY)
    honest = inclusion_document(prove_inclusion(store, 7))
    original = stored_hashes(store)
    rewrite_schema(store, 7, rehash=rehash)

    assert not verify_store(store).ok
    reason = "no longer matches checkpoint 300" if rehash else "seq 7 was altered"
    with pytest.raises(LedgerAltered, match=reason):
        prove_inclusion(store, 7)
    forged = dict(honest, event=event_line(store, 7))
    assert not verify_document(forged, PUBLIC).ok
    if rehash:
        for seq in (1, 8, 256):  # neighbours whose audit paths cover the altered leaf
            with pytest.raises(LedgerAltered, match=reason):
                prove_inclusion(store, seq)
        # The next checkpoint extends the signed tree from its stored subtrees: the altered
        # hash never enters a signed root, and the new checkpoint is consistent with the old.
        before = stored_hashes(store)
        grow(store, 3)
        extended, _ = make_checkpoint(store, KEY)
        honest = [*before[:6], original[6], *before[7:], *stored_hashes(store)[300:]]
        assert extended.root == rfc_mth([bytes.fromhex(h) for h in honest]).hex()
        assert verify_document(consistency_document(prove_consistency(store, 300, 303)), PUBLIC).ok


def test_events_altered_before_any_checkpoint_are_never_signed(store: EventStore) -> None:
    grow(store, 10)
    rewrite_schema(store, 4, rehash=False)
    with pytest.raises(LedgerAltered, match="seq 4: its content no longer gives its stored hash"):
        make_checkpoint(store, KEY)
    assert list_checkpoints(store) == []


def test_an_altered_stored_subtree_is_caught_by_the_next_proof_and_checkpoint(
    store: EventStore,
) -> None:
    grow(store, 3 * (1 << SUBTREE_LEVEL))
    make_checkpoint(store, KEY)
    trigger = (
        "DROP TRIGGER merkle_subtrees_refuse_update_delete ON merkle_subtrees"
        if store.engine.dialect.name == "postgresql"
        else "DROP TRIGGER merkle_subtrees_refuse_update"
    )
    raw(store, trigger, f"UPDATE merkle_subtrees SET hash = '{'ab' * 32}' WHERE position = 0")
    with pytest.raises(LedgerAltered, match="no longer matches checkpoint"):
        prove_inclusion(store, 3 * (1 << SUBTREE_LEVEL))
    grow(store, 1)
    with pytest.raises(LedgerAltered, match="no longer give the root signed by checkpoint 768"):
        make_checkpoint(store, KEY)
