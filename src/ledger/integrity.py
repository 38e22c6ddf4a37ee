"""The cheap checks a command runs before it trusts what it reads: the chain as a whole
against its latest checkpoint (`check_recent`), and the events a command has just read
(`check_events`). Both raise `LedgerAltered`, whose message names what is wrong and says to
run `arbitru ledger verify`.

This version checks simply: `check_recent` verifies the whole chain and rebuilds the latest
checkpoint's tree from the event hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from ledger import merkle
from ledger.canonical import envelope_bytes
from ledger.checkpoints import LedgerAltered, latest_checkpoint
from ledger.envelope import RecordedEvent
from ledger.jsonl import event_row
from ledger.store import EventStore
from ledger.verify import verify_store

_VERIFY = "run `arbitru ledger verify`"


def check_recent(store: EventStore) -> None:
    """Raise `LedgerAltered` unless the chain is intact and the latest checkpoint still
    holds: it covers no more events than the ledger has, and the hashes of the events it
    covers still give its signed root."""
    result = verify_store(store)
    if not result.ok:
        assert result.problem is not None
        raise LedgerAltered(f"the hash chain is broken at {result.problem.describe()}; {_VERIFY}")
    checkpoint = latest_checkpoint(store)
    if checkpoint is None:
        return
    size = checkpoint.tree_size
    if size > result.last_seq:
        raise LedgerAltered(
            f"checkpoint {size} covers {size} events but the ledger holds only "
            f"{result.last_seq}: events were removed; {_VERIFY}"
        )
    leaves = [merkle.leaf_hash(row[10]) for row in store.iter_rows() if row[0] <= size]
    if merkle.root(leaves).hex() != checkpoint.root:
        raise LedgerAltered(
            f"the events no longer give the root signed by checkpoint {size}: the ledger was "
            f"rewritten after it was signed; {_VERIFY}"
        )


def check_events(events: Iterable[RecordedEvent]) -> None:
    """Raise `LedgerAltered` naming the first event whose content no longer gives its hash."""
    for event in events:
        try:
            digest = hashlib.sha256(envelope_bytes(event_row(event), None, event.prev_hash))
            found = digest.hexdigest()
        except (TypeError, ValueError, AttributeError, UnicodeEncodeError):
            found = None
        if found != event.hash:
            raise LedgerAltered(
                f"seq {event.seq} ({event.stream} version {event.version}): its content no "
                f"longer gives its stored hash: the event was altered; {_VERIFY}"
            )
