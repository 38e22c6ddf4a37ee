"""The quick check of the ledger against its latest checkpoint, and the check of events as a
stream is read: what every command runs before it trusts what it reads or appends to, at a
cost that does not grow with the ledger (docs/proofs.md, "What a checkpoint guarantees").

`check_recent` is the check a checkpoint makes before it signs (`ledger.checkpoints`): the
latest checkpoint's root reproduced from the stored tree and the event hashes of its last
block, the head not below it, every event since intact; on a ledger with no checkpoint, the
last `UNSIGNED_TAIL` events only. `ledger verify` is the full check.

`check_since` is the incremental check a long-running process (the server) runs before each
write, between full `check_recent`s: from a watermark it verified (a seq and its hash), it
reads the row at the watermark and every event after it, in one indexed read. The watermark's
row must still hold the verified hash, and each event after it must link to the one before
and give its own hash. So what a `check_recent` would catch after the watermark is caught
(an edited event, a truncation, a tail rewritten with fresh hashes, which changes the
watermark row's hash or removes it), at the cost of what is new since the last check, not
of everything since the latest checkpoint. The trade-off: an event below the watermark
edited with its hash (and every hash after it, up to the watermark) recomputed is not seen
here; the caller runs `check_recent` again periodically and before a checkpoint is signed,
which catches it (against the checkpoint's root or the unsigned tail), as `ledger verify`
does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from ledger.canonical import GENESIS_HASH, chain_hash, envelope_bytes
from ledger.checkpoints import LedgerAltered, check_since_checkpoint
from ledger.envelope import RecordedEvent
from ledger.jsonl import event_row
from ledger.store import EventStore, Head

_SINCE_PAGE = 5000


def check_recent(store: EventStore) -> None:
    """Raise ledger.errors.LedgerAltered (message naming what is wrong and saying to run
    `arbitru ledger verify`) unless: the latest checkpoint's root is reproduced from the stored
    tree and the event hashes of its last block, the head is not below it, and every event after
    it links to the one before and its content gives its hash. Without a checkpoint, only the
    last `ledger.checkpoints.UNSIGNED_TAIL` events are checked. Cost: the events since the
    latest checkpoint (at most that many without one) plus O(log n)."""
    check_since_checkpoint(store)


def check_since(store: EventStore, seq: int, hash: str) -> Head:
    """The head after checking the events since a verified watermark (`seq`, `hash`; seq 0
    with the genesis hash for an empty ledger): the row at `seq` still holds `hash`, seqs run
    on from it without gaps, each event links to the one before and its content gives its
    stored hash. Raises LedgerAltered naming the first thing wrong (the watermark row missing
    or changed: the ledger was truncated or its tail rewritten). Cost: one indexed read of
    the events from `seq` on. Edits below the watermark are left to `check_recent` (see the
    module docstring)."""
    prev_hash, expected = (GENESIS_HASH, 1) if seq == 0 else (None, seq)
    try:
        for row in store.iter_rows(from_seq=max(seq, 1), page_size=_SINCE_PAGE):
            if row[0] != expected:
                raise LedgerAltered(_missing(expected, seq))
            stored = row[10]
            if prev_hash is None:
                if stored != hash:
                    raise LedgerAltered(
                        f"seq {seq} no longer holds the hash this process verified: the "
                        "ledger's tail was rewritten; run `arbitru ledger verify`"
                    )
            else:
                if row[9] != prev_hash:
                    raise LedgerAltered(
                        f"seq {row[0]} does not link to the event before it (its prev_hash "
                        "is not that event's hash): the ledger was altered; run "
                        "`arbitru ledger verify`"
                    )
                _check_content(row)
            prev_hash, expected = stored, expected + 1
    except (TypeError, ValueError):
        raise LedgerAltered.not_hexadecimal(expected) from None
    if prev_hash is None:
        raise LedgerAltered(_missing(seq, seq))
    return Head(expected - 1, prev_hash)


def _missing(expected: int, watermark: int) -> str:
    return (
        f"seq {expected} is missing (this process verified the ledger up to seq {watermark}): "
        "the ledger was truncated or altered; run `arbitru ledger verify`"
    )


def _check_content(row: tuple[Any, ...]) -> None:
    """Raise LedgerAltered unless the stored row's content gives its stored hash."""
    try:
        digest = hashlib.sha256(envelope_bytes(row, None, row[9])).hexdigest()
    except (TypeError, AttributeError, UnicodeEncodeError):
        digest = None
    if digest != row[10]:
        raise LedgerAltered(
            f"seq {row[0]}: its content no longer gives its stored hash: the event was "
            "altered; run `arbitru ledger verify`"
        )


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
