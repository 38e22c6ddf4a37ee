"""The offline verifier is the security boundary: every forged or altered proof is rejected,
and the rejection says why."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from ledger_helpers import event_line, game_created, rack

from ledger import EventStore, NewEvent
from ledger.canonical import canonical_json, chain_hash, envelope_bytes
from ledger.checkpoints import make_checkpoint
from ledger.jsonl import event_row, exported_event, parse_line, row_line
from ledger.proofs import consistency_document, inclusion_document, verify_document
from ledger.proving import prove_consistency, prove_inclusion
from ledger.signing import sign

FEDERATION = Ed25519PrivateKey.generate()
PUBLIC = FEDERATION.public_key()
INTRUDER = Ed25519PrivateKey.generate()


def build(url: str, drawn: str) -> EventStore:
    """A ledger of 40 events checkpointed at 13 and at 40."""
    store = EventStore(url)
    store.append("game/g1", [game_created(), *(rack(i, drawn) for i in range(1, 13))])
    make_checkpoint(store, FEDERATION)
    store.append("game/g1", [rack(i, drawn) for i in range(13, 40)])
    make_checkpoint(store, FEDERATION)
    return store


@pytest.fixture(scope="module")
def ledgers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EventStore, EventStore]]:
    folder: Path = tmp_path_factory.mktemp("proofs")
    ours = build(f"sqlite:///{folder / 'ours.db'}", "AEIR?")
    unrelated = build(f"sqlite:///{folder / 'other.db'}", "BCDEF")
    yield ours, unrelated
    ours.close()
    unrelated.close()


@pytest.fixture(scope="module")
def proof(ledgers: tuple[EventStore, EventStore]) -> dict:
    return inclusion_document(prove_inclusion(ledgers[0], 7))


def rejected(document: dict, reason: str) -> None:
    verdict = verify_document(document, PUBLIC)
    assert not verdict.ok
    assert reason in verdict.detail, verdict.detail


def resigned(checkpoint: dict, key: Ed25519PrivateKey, **changes) -> dict:
    fields = {**checkpoint, **changes}
    return sign(key, fields["tree_size"], fields["root"], fields["created_at"]).to_dict()


def test_an_untouched_proof_holds(proof: dict) -> None:
    verdict = verify_document(proof, PUBLIC)
    assert verdict.ok
    assert "seq 7 (game/g1 version 7, RackDrawn) is event 7 of the 40 events" in verdict.detail


def test_the_event_of_another_seq_is_rejected_as_a_proof_for_another_event(
    proof: dict, ledgers: tuple[EventStore, EventStore]
) -> None:
    rejected(dict(proof, event=event_line(ledgers[0], 8)), "a proof for another event")


def test_another_events_path_with_its_index_does_not_lead_to_the_root(
    proof: dict, ledgers: tuple[EventStore, EventStore]
) -> None:
    forged = dict(proof, event=event_line(ledgers[0], 8), leaf_index=7)
    rejected(forged, "does not lead to the checkpoint's root")


def test_a_truncated_path_is_rejected(proof: dict) -> None:
    rejected(dict(proof, audit_path=proof["audit_path"][:-1]), "it was truncated or extended")


def test_an_extended_path_is_rejected(proof: dict) -> None:
    path = [*proof["audit_path"], proof["audit_path"][0]]
    rejected(dict(proof, audit_path=path), "it was truncated or extended")


def test_a_reordered_path_is_rejected(proof: dict) -> None:
    path = proof["audit_path"]
    reordered = [path[1], path[0], *path[2:]]
    rejected(dict(proof, audit_path=reordered), "path was altered or reordered")


def test_a_forged_root_breaks_the_signature(proof: dict) -> None:
    forged = copy.deepcopy(proof)
    forged["checkpoint"]["root"] = "ab" * 32
    rejected(forged, "signature does not verify")


def test_a_changed_tree_size_breaks_the_signature(proof: dict) -> None:
    forged = copy.deepcopy(proof)
    forged["checkpoint"]["tree_size"] = 41
    rejected(forged, "signature does not verify")


def test_a_checkpoint_signed_by_another_key_is_rejected(proof: dict) -> None:
    forged = dict(proof, checkpoint=resigned(proof["checkpoint"], INTRUDER, root="ab" * 32))
    rejected(forged, "it was signed by another key")


def test_another_keys_signature_under_the_federations_key_id_is_rejected(proof: dict) -> None:
    signed = resigned(proof["checkpoint"], INTRUDER)
    forged = dict(proof, checkpoint=dict(signed, key_id=proof["checkpoint"]["key_id"]))
    rejected(forged, "signature does not verify")


def test_a_tampered_event_is_rejected_by_its_own_hash(proof: dict) -> None:
    event = json.loads(proof["event"])
    event["payload"]["drawn"] = "ZZZZZ"
    rejected(dict(proof, event=canonical_json(event)), "content does not give its hash")


def test_a_tampered_event_with_its_hash_recomputed_does_not_reach_the_root(proof: dict) -> None:
    event = exported_event(parse_line(proof["event"], 1), 1)
    row = list(event_row(event))
    row[6] = b'{"drawn":"ZZZZZ","round":6}'
    row[10] = chain_hash(row[9], envelope_bytes(row))
    forged = dict(proof, event=row_line(row).decode().rstrip("\n"))
    rejected(forged, "does not lead to the checkpoint's root")


def test_an_index_beyond_the_tree_is_rejected(ledgers: tuple[EventStore, EventStore]) -> None:
    """An event recorded after the checkpoint, its index matching it: the checkpoint does not
    cover it, whatever the path says."""
    within = inclusion_document(prove_inclusion(ledgers[0], 7, 13))
    forged = dict(within, leaf_index=19, event=event_line(ledgers[0], 20))
    rejected(forged, "seq 20 is not in the checkpoint, which covers seqs 1 to 13")


def test_a_consistency_proof_between_unrelated_trees_is_rejected(
    ledgers: tuple[EventStore, EventStore],
) -> None:
    ours, unrelated = ledgers
    honest = consistency_document(prove_consistency(ours, 13, 40))
    assert verify_document(honest, PUBLIC).ok
    theirs = consistency_document(prove_consistency(unrelated, 13, 40))
    rejected(dict(honest, new=theirs["new"]), "does not lead to the new checkpoint's root")
    rejected(dict(theirs, old=honest["old"]), "the trees are unrelated")


def test_a_truncated_or_altered_consistency_path_is_rejected(
    ledgers: tuple[EventStore, EventStore],
) -> None:
    honest = consistency_document(prove_consistency(ledgers[0], 13, 40))
    path = honest["consistency_path"]
    rejected(dict(honest, consistency_path=path[:-1]), "does not fit trees of 13 and 40")
    rejected(dict(honest, consistency_path=path[::-1]), "does not lead to the")


def test_a_consistency_proof_backwards_is_rejected(ledgers: tuple[EventStore, EventStore]) -> None:
    honest = consistency_document(prove_consistency(ledgers[0], 13, 40))
    swapped = dict(honest, old=honest["new"], new=honest["old"])
    rejected(swapped, "is larger than the new one")


def test_a_consistency_proof_with_a_checkpoint_of_another_key_is_rejected(
    ledgers: tuple[EventStore, EventStore],
) -> None:
    honest = consistency_document(prove_consistency(ledgers[0], 13, 40))
    rejected(dict(honest, new=resigned(honest["new"], INTRUDER)), "new checkpoint: ")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"format": "something/1"}, "not an Arbitru proof"),
        ({"audit_path": ["xyz"]}, "malformed proof: audit_path"),
        ({"leaf_index": -1}, "malformed proof: leaf_index"),
        ({"leaf_index": True}, "malformed proof: leaf_index"),
        ({"checkpoint": {"tree_size": 40}}, "malformed proof: checkpoint lacks root"),
        ({"event": 7}, "malformed proof: event"),
        ({"event": "{not json"}, "not a valid exported envelope"),
    ],
)
def test_a_malformed_proof_is_rejected_naming_the_field(
    proof: dict, change: dict, reason: str
) -> None:
    rejected(dict(proof, **change), reason)


def test_a_proof_that_is_not_an_object_is_rejected() -> None:
    assert not verify_document(["not", "a", "proof"], PUBLIC).ok


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_changing_any_hex_digit_of_a_proof_is_rejected(proof: dict, data: st.DataObject) -> None:
    """Every hash of the proof, one digit changed anywhere."""
    fields = [("audit_path", i) for i in range(len(proof["audit_path"]))]
    fields += [("checkpoint", "root"), ("checkpoint", "key_id")]
    outer, inner = data.draw(st.sampled_from(fields))
    forged = copy.deepcopy(proof)
    text = forged[outer][inner]
    at = data.draw(st.integers(0, len(text) - 1))
    replacement = data.draw(st.sampled_from("0123456789abcdef").filter(lambda c: c != text[at]))
    forged[outer][inner] = text[:at] + replacement + text[at + 1 :]
    assert not verify_document(forged, PUBLIC).ok


def test_a_one_event_ledger_proves_its_event_with_an_empty_path(tmp_path: Path) -> None:
    with EventStore(f"sqlite:///{tmp_path / 'one.db'}") as store:
        store.append("game/g1", [NewEvent("GameCreated", {"game_id": "g1"})])
        make_checkpoint(store, FEDERATION)
        document = inclusion_document(prove_inclusion(store, 1))
    assert document["audit_path"] == []
    assert verify_document(document, PUBLIC).ok
    rejected(dict(document, audit_path=["00" * 32]), "it was truncated or extended")
