"""Checkpoints: signed Merkle tree heads over the ledger, recorded and never edited
(docs/proofs.md); the proofs they make possible are made in `ledger.proving`.

Making a checkpoint costs what is new, not the whole ledger. A complete, aligned subtree
never changes in an append-only log, so the latest checkpoint's tree is kept as its stored
subtrees of `2**SUBTREE_LEVEL` leaves and more plus the event hashes of its last, partial
block (RFC 9162's compact range, read in O(log n)). Before anything is signed, the events
from that block on are read whole: each must give its hash and link to the one before, the
root folded from them and the stored subtrees must be the latest checkpoint's, and every
stored subtree read on the way must match what the events give (`recent_stretch`, which
`ledger.integrity.check_recent` runs alone). Only then is the tree extended over the new
events and its head signed. Events deeper under the latest checkpoint are checked by
`ledger verify`, which recomputes every hash and every checkpoint's root.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from ledger import merkle
from ledger.canonical import GENESIS_HASH, envelope_bytes, now_recorded_at
from ledger.database import read_transaction, write_transaction
from ledger.envelope import MAX_SEQ
from ledger.errors import CheckpointError, LedgerAltered
from ledger.schema import checkpoints as checkpoints_table
from ledger.schema import merkle_subtrees
from ledger.store import EventStore
from ledger.tree_head import Checkpoint

if TYPE_CHECKING:
    from ledger.signing import Ed25519PrivateKey, Ed25519PublicKey

SUBTREE_LEVEL = 8
"""Subtrees of `2**SUBTREE_LEVEL` leaves and more are stored; smaller ones are rehashed."""

_BLOCK = 1 << SUBTREE_LEVEL
_READ_PAGE = 20_000
_INSERT_CHUNK = 5000


_WITH_CHECKPOINTS: weakref.WeakSet[Engine] = weakref.WeakSet()


def _has_checkpoints(connection: Connection) -> bool:
    """Whether the database is migrated far enough to hold checkpoints (0004); remembered per
    engine once true, as the tables are never dropped while a ledger is in use."""
    engine = connection.engine
    if engine in _WITH_CHECKPOINTS:
        return True
    if sa.inspect(connection).has_table("checkpoints"):
        _WITH_CHECKPOINTS.add(engine)
        return True
    return False


def _checkpoint(row: Any) -> Checkpoint:
    return Checkpoint(row.tree_size, row.root, row.created_at, row.key_id, row.signature)


def latest_checkpoint(store: EventStore) -> Checkpoint | None:
    """The checkpoint of the largest tree, or None when there is none."""
    with read_transaction(store.engine) as connection:
        return _latest(connection)


def _latest(connection: Connection) -> Checkpoint | None:
    if not _has_checkpoints(connection):
        return None
    row = connection.execute(
        sa.select(checkpoints_table).order_by(checkpoints_table.c.tree_size.desc()).limit(1)
    ).first()
    return _checkpoint(row) if row else None


def list_checkpoints(store: EventStore) -> list[Checkpoint]:
    """Every checkpoint, smallest tree first."""
    with read_transaction(store.engine) as connection:
        if not _has_checkpoints(connection):
            return []
        rows = connection.execute(
            sa.select(checkpoints_table).order_by(checkpoints_table.c.tree_size)
        )
        return [_checkpoint(row) for row in rows]


def find_checkpoint(store: EventStore, tree_size: int | None = None) -> Checkpoint:
    """The checkpoint of `tree_size` events, or the latest one when it is None."""
    with read_transaction(store.engine) as connection:
        return checkpoint_in(connection, tree_size)


def checkpoint_in(connection: Connection, tree_size: int | None) -> Checkpoint:
    """`find_checkpoint` within a transaction already open."""
    latest = _latest(connection)
    if latest is None:
        raise CheckpointError(
            "the ledger has no checkpoint yet: make one with `arbitru ledger checkpoint --key FILE`"
        )
    if tree_size is None:
        return latest
    row = (
        connection.execute(
            sa.select(checkpoints_table).where(checkpoints_table.c.tree_size == tree_size)
        ).first()
        if 1 <= tree_size <= MAX_SEQ
        else None
    )
    if row is None:
        raise CheckpointError(
            f"there is no checkpoint of {tree_size} events; `arbitru ledger checkpoints` lists "
            f"them (the latest covers {latest.tree_size})"
        )
    return _checkpoint(row)


def make_checkpoint(store: EventStore, key: Ed25519PrivateKey) -> tuple[Checkpoint, bool]:
    """Sign and record a checkpoint of the whole ledger as it is now; returns it and whether
    it is new (False: the ledger has not grown since the latest checkpoint, which is
    returned). The ledger passes `recent_stretch`'s checks first, even when it has not grown,
    and the tree is extended from the stored nodes: the cost is the events since the latest
    checkpoint plus O(log n). The latest checkpoint must be signed by `key`: a history
    vouched for by another key is not signed over. Raises `LedgerAltered` when a check
    fails, `CheckpointError` when the ledger holds no events."""
    from ledger.signing import sign  # only signing loads `cryptography`

    stretch = recent_stretch(store)
    if stretch.size == 0:
        raise CheckpointError("the ledger holds no events yet: there is nothing to checkpoint")
    previous = stretch.previous
    if previous is not None:
        refuse_other_key(previous, key.public_key())
    if previous is not None and previous.tree_size == stretch.size:
        return previous, False
    root = stretch.root(stretch.size)
    fresh = stretch.new_subtrees()
    checkpoint = sign(key, stretch.size, root.hex(), now_recorded_at())
    with write_transaction(store.engine) as connection:
        existing = connection.execute(
            sa.select(checkpoints_table).where(checkpoints_table.c.tree_size == stretch.size)
        ).first()
        if existing is not None:
            return _checkpoint(existing), False
        fresh = _not_yet_stored(connection, stretch, fresh)
        for start in range(0, len(fresh), _INSERT_CHUNK):
            connection.execute(sa.insert(merkle_subtrees), fresh[start : start + _INSERT_CHUNK])
        connection.execute(sa.insert(checkpoints_table).values(**checkpoint.to_dict()))
    return checkpoint, True


def refuse_other_key(checkpoint: Checkpoint, public_key: Ed25519PublicKey) -> None:
    """Raise `LedgerAltered` unless `checkpoint` names `public_key` and its signature verifies
    with it. A key signs only over checkpoints it made itself: one of another key may sign a
    forged history (the events rewritten, the checkpoints deleted and made again)."""
    from ledger.signing import signature_problem

    problem = signature_problem(checkpoint, public_key)
    if problem is not None:
        raise LedgerAltered(
            f"checkpoint {checkpoint.tree_size} was not made by this key ({problem}): "
            "nothing is signed over a history another key vouches for; run "
            "`arbitru ledger verify --pubkey FILE` with the federation's public key"
        )


UNSIGNED_TAIL = 4096
"""How many of the last events the quick check reads on a ledger with no checkpoint. Nothing
signed bounds such a ledger, so reading it whole would make every command cost the whole
ledger (about 6.5 µs an event: 6.5 s at a million); 4096 events, a few tens of milliseconds,
cover the games being played. A ledger that matters has a checkpoint key configured
(`ARBITRU_CHECKPOINT_KEY`), so that round closes sign and the quick check reads from the
latest checkpoint on; `make_checkpoint` checks a ledger's first checkpoint whole."""


def check_since_checkpoint(store: EventStore) -> None:
    """`recent_stretch`'s checks, except that on a ledger with no checkpoint only the last
    `UNSIGNED_TAIL` events are read (each linking to the one before it and giving its hash):
    the quick check every command runs, at a cost that does not grow with the ledger."""
    _stretch(store, UNSIGNED_TAIL)


def recent_stretch(store: EventStore) -> Stretch:
    """The ledger since its latest checkpoint, checked: the head is not below the checkpoint;
    the events from the start of the checkpoint's last block of `_BLOCK` seqs to the head run
    without gaps, each links to the one before and its content gives its hash; the root
    folded from those event hashes and the stored subtrees left of them is the checkpoint's
    root, and every stored subtree on the way matches. Without a checkpoint the stretch is
    the whole ledger. Raises `LedgerAltered` naming the first thing wrong."""
    stretch = _stretch(store, None)
    assert stretch is not None
    return stretch


def _stretch(store: EventStore, unsigned_tail: int | None) -> Stretch | None:
    """`recent_stretch`; with `unsigned_tail` and no checkpoint, only that many of the last
    events (at most) are checked, and None is returned: there is no signed root to reproduce,
    so their leaves are not hashed (nor would the last events' leaves make the whole tree)."""
    with read_transaction(store.engine) as connection:
        # Through the driver: a command that runs this once pays no statement compilation.
        found = _has_checkpoints(connection) and connection.exec_driver_sql(_LATEST_SQL).first()
        previous = _checkpoint(found) if found else None
        last = connection.exec_driver_sql(_HEAD_SQL).first()
        size = last.seq if last else 0
        signed = previous.tree_size if previous else 0
        if signed > size:
            raise LedgerAltered(
                f"checkpoint {signed} covers {signed} events but the ledger holds only {size}: "
                f"events were removed; run `arbitru ledger verify`"
            )
        tail_only = previous is None and unsigned_tail is not None and size > unsigned_tail
        first = (signed - 1) >> SUBTREE_LEVEL << SUBTREE_LEVEL if signed else 0
        if tail_only:
            first = size - (unsigned_tail or 0)
        stored = {} if tail_only else _stored_near(connection, first, size)
    if previous is None and unsigned_tail is not None:
        _checked_leaves(store, first, size, leaves=None)
        return None
    leaves: list[bytes] = []
    _checked_leaves(store, first, size, leaves)
    stretch = Stretch(previous, size, first, merkle.levels(leaves, SUBTREE_LEVEL), stored)
    if previous is not None and stretch.root(signed).hex() != previous.root:
        raise LedgerAltered(
            f"the event hashes from seq {first + 1} to {signed} and the stored subtrees before "
            f"them no longer give the root signed by checkpoint {signed}: an event hash or a "
            "stored subtree was altered after it was signed; run `arbitru ledger verify`"
        )
    return stretch


@dataclass
class Stretch:
    """The events after `first` (leaf hashes, with their levels up to `SUBTREE_LEVEL`) and
    the stored subtrees near them: enough to compute any subtree of the first `size` events
    that is not entirely left of `first`, and the heads of the trees of `previous.tree_size`
    and of `size` events."""

    previous: Checkpoint | None
    size: int
    first: int
    levels: list[list[bytes]]
    stored: dict[tuple[int, int], bytes]
    computed: dict[tuple[int, int], bytes] = field(default_factory=dict)

    def root(self, size: int) -> bytes:
        """MTH of the first `size` events, folded from their compact range."""
        return merkle.fold([self.node(h, p) for h, p in merkle.compact_range(size)])

    def node(self, height: int, position: int) -> bytes:
        """The hash of the perfect subtree `position` at `height`: from the leaves when it
        lies right of `first`, stored when left of it, from its two halves when it spans
        it. A computed subtree that a checkpoint stored must equal the stored one."""
        key = (height, position)
        if key in self.computed:
            return self.computed[key]
        start, end = position << height, (position + 1) << height
        if start >= self.first and height <= SUBTREE_LEVEL:
            value = self.levels[height][(start - self.first) >> height]
        elif end <= self.first:
            value = self.stored.get(key) or self._missing(start, end)
        else:
            value = merkle.node_hash(
                self.node(height - 1, 2 * position), self.node(height - 1, 2 * position + 1)
            )
        known = self.stored.get(key)
        signed = self.previous.tree_size if self.previous else 0
        if known is None and height >= SUBTREE_LEVEL and end <= signed:
            self._missing(start, end)
        if known is not None and known != value:
            raise LedgerAltered(
                f"the stored subtree of seqs {start + 1} to {end} no longer matches those "
                "events: the ledger was altered; run `arbitru ledger verify`"
            )
        self.computed[key] = value
        return value

    def new_subtrees(self) -> list[dict[str, Any]]:
        """The rows of `merkle_subtrees` the checkpoint of `size` events adds: every complete
        aligned subtree of at least `_BLOCK` events ending after the latest checkpoint."""
        signed = self.previous.tree_size if self.previous else 0
        rows = []
        for height in range(SUBTREE_LEVEL, self.size.bit_length()):
            for position in range(signed >> height, self.size >> height):
                value = self.node(height, position)
                if (height, position) not in self.stored:
                    rows.append({"level": height, "position": position, "hash": value.hex()})
        return rows

    def _missing(self, start: int, end: int) -> NoReturn:
        raise LedgerAltered(
            f"the stored subtree of seqs {start + 1} to {end} is missing, though a checkpoint "
            "covers those events: the ledger was altered; run `arbitru ledger verify`"
        )


def _not_yet_stored(
    connection: Connection, stretch: Stretch, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`rows` less those a checkpoint made meanwhile (another round closing) has stored, read
    again inside the write transaction; a stored one that differs means the table was
    altered."""
    stored = _stored_near(connection, stretch.first, stretch.size)
    fresh = []
    for row in rows:
        known = stored.get((row["level"], row["position"]))
        if known is None:
            fresh.append(row)
        elif known.hex() != row["hash"]:
            first, last = row["position"] << row["level"], (row["position"] + 1) << row["level"]
            raise LedgerAltered(
                f"the stored subtree of seqs {first + 1} to {last} no longer matches those "
                "events: the ledger was altered; run `arbitru ledger verify`"
            )
    return fresh


def _stored_near(connection: Connection, first: int, size: int) -> dict[tuple[int, int], bytes]:
    """The stored subtrees that computing a `Stretch` after `first` may read or must match:
    at each level, from the one just left of `first` to the end of the tree."""
    if not _has_checkpoints(connection):
        return {}
    terms = " OR ".join(
        f"(level = {height} AND position BETWEEN {max(0, (first >> height) - 1)} AND "
        f"{size >> height})"
        for height in range(SUBTREE_LEVEL, max(size.bit_length(), SUBTREE_LEVEL + 1))
    )  # integers computed here, never input: written into the text, one statement to plan
    rows = connection.exec_driver_sql(
        f"SELECT level, position, hash FROM merkle_subtrees WHERE {terms}"
    ).all()
    try:
        return {(level, position): bytes.fromhex(digest) for level, position, digest in rows}
    except (TypeError, ValueError):
        raise LedgerAltered(
            "a stored subtree hash is not hexadecimal: the ledger was altered; run "
            "`arbitru ledger verify`"
        ) from None


def _checked_leaves(store: EventStore, first: int, size: int, leaves: list[bytes] | None) -> None:
    """Events `first + 1` to `size`, each read whole and checked: seqs run without gaps, each
    links to the one before (seq 1 to the genesis hash), and its content gives its stored
    hash. Their leaves are appended to `leaves`, unless it is None (the check alone)."""
    append = leaves.append if leaves is not None else None
    sha256, fromhex, encode = hashlib.sha256, bytes.fromhex, envelope_bytes
    prev_hash, expected = GENESIS_HASH if first == 0 else None, first + 1
    page = min(_READ_PAGE, max(size - first, 1))
    try:
        for row in store.iter_rows(from_seq=first + 1, page_size=page):
            seq, stored = row[0], row[10]
            if seq > size:
                break
            if seq != expected:
                raise LedgerAltered(
                    f"seq {expected} is missing: the ledger was altered; run "
                    "`arbitru ledger verify`"
                )
            if prev_hash is not None and row[9] != prev_hash:
                raise LedgerAltered(
                    f"seq {seq} does not link to the event before it (its prev_hash is not "
                    "that event's hash): the ledger was altered; run `arbitru ledger verify`"
                )
            try:
                digest = sha256(encode(row, None, row[9])).hexdigest()
            except (TypeError, AttributeError, UnicodeEncodeError):
                digest = None
            if digest != stored:
                raise LedgerAltered(
                    f"seq {seq}: its content no longer gives its stored hash: the event was "
                    "altered; run `arbitru ledger verify`"
                )
            if append is not None:
                append(sha256(b"\x00" + fromhex(stored)).digest())
            elif stored is None:  # equal to the digest of content that cannot be encoded:
                raise TypeError  # refused as not hexadecimal, as fromhex refuses it above
            prev_hash, expected = stored, expected + 1
    except (TypeError, ValueError):
        raise LedgerAltered.not_hexadecimal(expected) from None
    if expected <= size:
        raise LedgerAltered(
            f"seq {expected} is missing: the ledger was altered; run `arbitru ledger verify`"
        )


_HEAD_SQL = "SELECT seq FROM events ORDER BY seq DESC LIMIT 1"
_LATEST_SQL = (
    "SELECT tree_size, root, created_at, key_id, signature FROM checkpoints"
    " ORDER BY tree_size DESC LIMIT 1"
)
