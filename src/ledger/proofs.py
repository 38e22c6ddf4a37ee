"""Proof files: what `arbitru ledger prove` and `arbitru ledger consistency` write, and their
offline verification, which needs the proof and the federation's public key, nothing else.

An inclusion proof (docs/proofs.md gives the procedure step by step):

    {"format": "arbitru-inclusion-proof/1", "event": "<the event's export line>",
     "leaf_index": seq - 1, "audit_path": ["<hex>", ...], "checkpoint": {...}}

A consistency proof:

    {"format": "arbitru-consistency-proof/1", "old": {...}, "new": {...},
     "consistency_path": ["<hex>", ...]}

where a checkpoint is {"tree_size", "root", "created_at", "key_id", "signature"}
(`ledger.tree_head`). The verifier is the security boundary: it trusts nothing in the file but
what the signature and the hashes prove, and says why it rejects a proof.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from ledger import merkle
from ledger.canonical import chain_hash, envelope_bytes
from ledger.jsonl import JsonlError, event_row, exported_event, parse_line
from ledger.tree_head import Checkpoint

if TYPE_CHECKING:  # the proofs' makers read a database: checking a proof needs none
    from ledger.proving import ConsistencyProof, InclusionProof
    from ledger.signing import Ed25519PublicKey

INCLUSION_FORMAT = "arbitru-inclusion-proof/1"
CONSISTENCY_FORMAT = "arbitru-consistency-proof/1"

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_CHECKPOINT_FIELDS = ("tree_size", "root", "created_at", "key_id", "signature")


class MalformedProof(ValueError):
    """A proof file whose shape is wrong: a field missing or of the wrong kind."""


@dataclass(frozen=True)
class ProofVerdict:
    """The outcome of checking a proof: `ok`, and either what it proves or why it fails."""

    ok: bool
    kind: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "kind": self.kind, ("proves" if self.ok else "error"): self.detail}


def inclusion_document(proof: InclusionProof) -> dict[str, Any]:
    """The JSON document of an inclusion proof."""
    return {
        "format": INCLUSION_FORMAT,
        "event": proof.event_line.decode("utf-8"),
        "leaf_index": proof.seq - 1,
        "audit_path": [node.hex() for node in proof.audit_path],
        "checkpoint": proof.checkpoint.to_dict(),
    }


def consistency_document(proof: ConsistencyProof) -> dict[str, Any]:
    """The JSON document of a consistency proof."""
    return {
        "format": CONSISTENCY_FORMAT,
        "old": proof.old.to_dict(),
        "new": proof.new.to_dict(),
        "consistency_path": [node.hex() for node in proof.path],
    }


def verify_document(document: Any, public_key: Ed25519PublicKey) -> ProofVerdict:
    """Check a proof document of either kind against the federation's public key."""
    kind = document.get("format") if isinstance(document, dict) else None
    try:
        if kind == INCLUSION_FORMAT:
            return _verify_inclusion(document, public_key)
        if kind == CONSISTENCY_FORMAT:
            return _verify_consistency(document, public_key)
    except MalformedProof as exc:
        return ProofVerdict(False, str(kind), f"malformed proof: {exc}")
    return ProofVerdict(
        False,
        "unknown",
        f"not an Arbitru proof: its format is {kind!r}, expected {INCLUSION_FORMAT!r} or "
        f"{CONSISTENCY_FORMAT!r}",
    )


def _verify_inclusion(document: dict[str, Any], public_key: Ed25519PublicKey) -> ProofVerdict:
    reject = partial(ProofVerdict, False, "inclusion")

    checkpoint = _checkpoint(document.get("checkpoint"), "checkpoint")
    index = _natural(document.get("leaf_index"), "leaf_index")
    path = _hashes(document.get("audit_path"), "audit_path")
    line = document.get("event")
    if not isinstance(line, str):
        raise MalformedProof("event must be the event's export line, as text")
    problem = _unsigned(public_key, ("", checkpoint))
    if problem:
        return reject(problem)
    try:
        row = event_row(exported_event(parse_line(line, 1), 1))
    except JsonlError as exc:
        return reject("the event is not a valid exported envelope: " + "; ".join(exc.problems))
    seq, stored_hash = row[0], row[10]
    if chain_hash(row[9], envelope_bytes(row)) != stored_hash:
        return reject(f"seq {seq}: the event's content does not give its hash: it was altered")
    if seq != index + 1:
        return reject(
            f"the event is seq {seq} but the audit path is for leaf {index} (seq {index + 1}): "
            "a proof for another event"
        )
    if index >= checkpoint.tree_size:
        return reject(
            f"seq {seq} is not in the checkpoint, which covers seqs 1 to {checkpoint.tree_size}"
        )
    expected = _inclusion_length(index, checkpoint.tree_size)
    if len(path) != expected:
        return reject(
            f"the audit path has {len(path)} hashes but leaf {index} of a tree of "
            f"{checkpoint.tree_size} needs {expected}: it was truncated or extended"
        )
    found = merkle.root_from_inclusion(
        index, checkpoint.tree_size, merkle.leaf_hash(stored_hash), path
    )
    if found is None or found.hex() != checkpoint.root:
        return reject(
            "the audit path does not lead to the checkpoint's root: the path was altered or "
            "reordered, or belongs to another event or tree"
        )
    return ProofVerdict(
        True,
        "inclusion",
        f"seq {seq} ({row[2]} version {row[3]}, {row[4]}) is event {seq} of the "
        f"{checkpoint.tree_size} events signed at {checkpoint.created_at} by key "
        f"{checkpoint.key_id} (root {checkpoint.root})",
    )


def _unsigned(public_key: Ed25519PublicKey, *named: tuple[str, Checkpoint]) -> str | None:
    """Why the first of these checkpoints that is not signed by `public_key` is not (after
    its name and "checkpoint:", when it has one), or None when all are."""
    from ledger.signing import signature_problem  # only checking loads `cryptography`

    for name, checkpoint in named:
        problem = signature_problem(checkpoint, public_key)
        if problem:
            return f"{name} checkpoint: {problem}" if name else problem
    return None


def _verify_consistency(document: dict[str, Any], public_key: Ed25519PublicKey) -> ProofVerdict:
    reject = partial(ProofVerdict, False, "consistency")

    old = _checkpoint(document.get("old"), "old")
    new = _checkpoint(document.get("new"), "new")
    path = _hashes(document.get("consistency_path"), "consistency_path")
    problem = _unsigned(public_key, ("old", old), ("new", new))
    if problem:
        return reject(problem)
    if old.tree_size > new.tree_size:
        return reject(
            f"the old checkpoint ({old.tree_size} events) is larger than the new one "
            f"({new.tree_size})"
        )
    roots = merkle.roots_from_consistency(
        old.tree_size, new.tree_size, bytes.fromhex(old.root), path
    )
    if roots is None:
        return reject(
            f"the consistency path ({len(path)} hashes) does not fit trees of {old.tree_size} "
            f"and {new.tree_size} events: it was truncated, extended or altered"
        )
    if roots[0].hex() != old.root:
        return reject(
            "the consistency path does not lead to the old checkpoint's root: the trees are "
            "unrelated, or the path was altered"
        )
    if roots[1].hex() != new.root:
        return reject(
            "the consistency path does not lead to the new checkpoint's root: the new tree "
            "does not extend the old one, or the path was altered"
        )
    return ProofVerdict(
        True,
        "consistency",
        f"the {new.tree_size} events signed at {new.created_at} begin with the "
        f"{old.tree_size} events signed at {old.created_at}, unchanged (key {new.key_id})",
    )


def _inclusion_length(index: int, size: int) -> int:
    return len(merkle.inclusion_path(index, size, lambda _start, _end: b""))


def _checkpoint(value: Any, name: str) -> Checkpoint:
    if not isinstance(value, dict):
        raise MalformedProof(f"{name} must be an object with {', '.join(_CHECKPOINT_FIELDS)}")
    missing = [field for field in _CHECKPOINT_FIELDS if field not in value]
    if missing:
        raise MalformedProof(f"{name} lacks {', '.join(missing)}")
    size = value["tree_size"]
    if type(size) is not int or size < 1:
        raise MalformedProof(f"{name}.tree_size must be a positive integer")
    for field in ("root", "key_id"):
        if not isinstance(value[field], str) or not _HEX64.match(value[field]):
            raise MalformedProof(f"{name}.{field} must be 64 lowercase hexadecimal digits")
    for field in ("created_at", "signature"):
        if not isinstance(value[field], str):
            raise MalformedProof(f"{name}.{field} must be text")
    return Checkpoint(*(value[field] for field in _CHECKPOINT_FIELDS))


def _natural(value: Any, name: str) -> int:
    if type(value) is not int or value < 0:
        raise MalformedProof(f"{name} must be a non-negative integer")
    return value


def _hashes(value: Any, name: str) -> list[bytes]:
    if not isinstance(value, list) or not all(
        isinstance(item, str) and _HEX64.match(item) for item in value
    ):
        raise MalformedProof(f"{name} must be a list of 64-digit lowercase hexadecimal hashes")
    return [bytes.fromhex(item) for item in value]
