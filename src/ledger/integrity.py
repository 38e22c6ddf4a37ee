"""The quick check of the ledger against its latest checkpoint, and the check of events as a
stream is read: what every command runs before it trusts what it reads or appends to, at a
cost that does not grow with the ledger (docs/proofs.md, "What a checkpoint guarantees").

`check_recent` is the check a checkpoint makes before it signs (`ledger.checkpoints`): the
latest checkpoint's root reproduced from the stored tree and the event hashes of its last
block, the head not below it, every event since intact; on a ledger with no checkpoint, the
last `UNSIGNED_TAIL` events only. `ledger verify` is the full check.
"""

from __future__ import annotations

from collections.abc import Iterable

from ledger.canonical import chain_hash, envelope_bytes
from ledger.checkpoints import LedgerAltered, check_since_checkpoint
from ledger.envelope import RecordedEvent
from ledger.jsonl import event_row
from ledger.store import EventStore


def check_recent(store: EventStore) -> None:
    """Raise ledger.errors.LedgerAltered (message naming what is wrong and saying to run
    `arbitru ledger verify`) unless: the latest checkpoint's root is reproduced from the stored
    tree and the event hashes of its last block, the head is not below it, and every event after
    it links to the one before and its content gives its hash. Without a checkpoint, only the
    last `ledger.checkpoints.UNSIGNED_TAIL` events are checked. Cost: the events since the
    latest checkpoint (at most that many without one) plus O(log n)."""
    check_since_checkpoint(store)


def check_events(events: Iterable[RecordedEvent]) -> None:
    """Raise LedgerAltered naming the first event (by seq) whose content no longer gives its
    stored hash (hash = chain_hash(prev_hash, envelope bytes)); used on a stream as it is read."""
    for event in events:
        try:
            digest = chain_hash(event.prev_hash, envelope_bytes(event_row(event)))
        except (TypeError, AttributeError, UnicodeEncodeError, ValueError):
            digest = None
        if digest != event.hash:
            raise LedgerAltered(
                f"seq {event.seq} ({event.stream} version {event.version}): its content no "
                "longer gives its stored hash: the event was altered; run "
                "`arbitru ledger verify`"
            )
