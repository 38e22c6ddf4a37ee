"""Inclusion and consistency proofs made from the stored tree of a signed checkpoint
(`ledger.checkpoints`; docs/proofs.md).

Proofs do not rebuild the tree: a complete, aligned subtree never changes in an append-only
log, so every one of at least `2**SUBTREE_LEVEL` leaves is stored when a checkpoint covers
it, and a proof reads those plus the event hashes of at most two such blocks. Each proof is
checked against its signed root before it is handed out, so that a ledger altered after the
checkpoint yields no proof for the altered part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ledger import merkle
from ledger.canonical import chain_hash, envelope_bytes
from ledger.checkpoints import SUBTREE_LEVEL, CheckpointError, LedgerAltered, checkpoint_in
from ledger.database import read_transaction
from ledger.jsonl import row_line
from ledger.schema import events as events_table
from ledger.schema import merkle_subtrees
from ledger.store import EventStore
from ledger.tree_head import Checkpoint

_BLOCK = 1 << SUBTREE_LEVEL


@dataclass(frozen=True)
class InclusionProof:
    """Event `seq` (its export line) is leaf `seq - 1` of the tree signed by `checkpoint`."""

    event_line: bytes
    seq: int
    audit_path: tuple[bytes, ...]
    checkpoint: Checkpoint


@dataclass(frozen=True)
class ConsistencyProof:
    """The tree signed by `new` extends the tree signed by `old`."""

    old: Checkpoint
    new: Checkpoint
    path: tuple[bytes, ...]


def _recomputed(row: tuple[Any, ...]) -> str | None:
    try:
        return chain_hash(row[9], envelope_bytes(row))
    except (TypeError, AttributeError, UnicodeEncodeError):
        return None


def _range(levels: list[list[bytes]], start: int, end: int) -> bytes:
    """MTH(D[start:end]) read from the levels of a tree that holds those leaves."""
    if merkle.is_perfect(start, end):
        height = (end - start).bit_length() - 1
        return levels[height][start >> height]
    middle = start + merkle.split_point(end - start)
    return merkle.node_hash(_range(levels, start, middle), _range(levels, middle, end))


_SUBTREE_SQL = sa.select(merkle_subtrees.c.hash).where(
    merkle_subtrees.c.level == sa.bindparam("level"),
    merkle_subtrees.c.position == sa.bindparam("position"),
)
_BLOCK_SQL = (
    sa.select(events_table.c.seq, events_table.c.hash)
    .where(events_table.c.seq > sa.bindparam("first"), events_table.c.seq <= sa.bindparam("last"))
    .order_by(events_table.c.seq)
)


class _Subtrees:
    """MTH(D[a:b]) for a tree of `size` events, from stored subtrees and, below
    `SUBTREE_LEVEL`, from the tree of one block of event hashes, each block read once."""

    def __init__(self, connection: Connection, size: int) -> None:
        self._connection = connection
        self._size = size
        self._blocks: dict[int, list[list[bytes]]] = {}

    def __call__(self, start: int, end: int) -> bytes:
        if end - start >= _BLOCK and merkle.is_perfect(start, end):
            height = (end - start).bit_length() - 1
            found = self._connection.execute(
                _SUBTREE_SQL, {"level": height, "position": start >> height}
            ).scalar()
            if found is not None:
                return bytes.fromhex(found)
        block = start // _BLOCK
        if block == (end - 1) // _BLOCK:
            offset = block * _BLOCK
            return _range(self._block(block), start - offset, end - offset)
        middle = start + merkle.split_point(end - start)
        return merkle.node_hash(self(start, middle), self(middle, end))

    def _block(self, block: int) -> list[list[bytes]]:
        """The levels of the tree over one block of leaves (the last block may be partial)."""
        if block not in self._blocks:
            first = block * _BLOCK
            last = min(first + _BLOCK, self._size)
            rows = self._connection.execute(_BLOCK_SQL, {"first": first, "last": last}).all()
            if [row.seq for row in rows] != list(range(first + 1, last + 1)):
                raise LedgerAltered(
                    f"events between seq {first + 1} and {last} are missing: the ledger was "
                    "altered; run `arbitru ledger verify`"
                )
            try:
                self._blocks[block] = merkle.levels([merkle.leaf_hash(row.hash) for row in rows])
            except (TypeError, ValueError):
                raise LedgerAltered(
                    f"a stored hash between seq {first + 1} and {last} is not hexadecimal: the "
                    "ledger was altered; run `arbitru ledger verify`"
                ) from None
        return self._blocks[block]


def prove_inclusion(store: EventStore, seq: int, tree_size: int | None = None) -> InclusionProof:
    """The proof that event `seq` is in the checkpoint of `tree_size` events (the latest
    when None), checked against the signed root before it is returned."""
    with read_transaction(store.engine) as connection:
        checkpoint = checkpoint_in(connection, tree_size)
        if not 1 <= seq <= checkpoint.tree_size:
            raise CheckpointError(
                f"seq {seq} is not covered by checkpoint {checkpoint.tree_size}, which holds "
                f"seqs 1 to {checkpoint.tree_size}"
                + ("" if seq < 1 else "; make a newer checkpoint with `arbitru ledger checkpoint`")
            )
        path = merkle.inclusion_path(
            seq - 1, checkpoint.tree_size, _Subtrees(connection, checkpoint.tree_size)
        )
    row = next(store.iter_rows(from_seq=seq, page_size=1))
    recomputed = _recomputed(row)
    if recomputed != row[10]:
        raise LedgerAltered(
            f"seq {seq} was altered after it was recorded: its content no longer gives its "
            "hash; run `arbitru ledger verify`"
        )
    leaf = merkle.leaf_hash(recomputed)
    found = merkle.root_from_inclusion(seq - 1, checkpoint.tree_size, leaf, path)
    if found is None or found.hex() != checkpoint.root:
        raise LedgerAltered(
            f"the ledger no longer matches checkpoint {checkpoint.tree_size}: event hashes it "
            "covers were altered after it was signed; run `arbitru ledger verify`"
        )
    return InclusionProof(row_line(row).rstrip(b"\n"), seq, tuple(path), checkpoint)


def prove_consistency(store: EventStore, old_size: int, new_size: int) -> ConsistencyProof:
    """The proof that checkpoint `new_size` extends checkpoint `old_size`, checked against
    both signed roots before it is returned."""
    if old_size > new_size:
        raise CheckpointError(
            f"the old checkpoint ({old_size}) must not be larger than the new one ({new_size})"
        )
    with read_transaction(store.engine) as connection:
        old, new = checkpoint_in(connection, old_size), checkpoint_in(connection, new_size)
        path = merkle.consistency_path(old_size, new_size, _Subtrees(connection, new_size))
    roots = merkle.roots_from_consistency(old_size, new_size, bytes.fromhex(old.root), path)
    if roots is None or (roots[0].hex(), roots[1].hex()) != (old.root, new.root):
        raise LedgerAltered(
            f"the ledger no longer matches checkpoints {old_size} and {new_size}: event hashes "
            "they cover were altered after they were signed; run `arbitru ledger verify`"
        )
    return ConsistencyProof(old, new, tuple(path))
