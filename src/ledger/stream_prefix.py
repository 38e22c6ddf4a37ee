"""The events of one kind of stream, found by the start of their streams' names: what a
projection of a few streams scattered among a long ledger's reads instead of every event (the
roster of accounts reads the `account/` streams of a ledger of a million game events).

The streams are found through the (stream, version) index by a range on the name, from the
prefix to the prefix with its last character's successor. In a byte-order collation (SQLite's,
PostgreSQL's C and C.UTF-8) that range holds exactly the names that start with the prefix; in
ICU's and glibc's language collations a punctuation mark such as `/` sorts before every digit
and letter at the first level, so the range still holds all of them, and perhaps others (the
same letters in another case), which are left out here.
"""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa

from ledger.canonical import GENESIS_HASH
from ledger.database import read_transaction, single_read
from ledger.envelope import RecordedEvent
from ledger.schema import events as events_table
from ledger.store import EventStore, Head

_COLUMNS = [events_table.c[name] for name in RecordedEvent.__dataclass_fields__]


def read_prefixed(store: EventStore, prefix: str) -> tuple[Head, list[RecordedEvent]]:
    """The head of the ledger, and the events up to it of every stream whose name starts
    with `prefix`, in `seq` order: a reader folds them and then follows the log from the
    head's `seq` on, missing nothing. The head is read first, in the same transaction: an
    event committed after it is left out here (it comes after the head), and every event up
    to it was committed before it (writes are serialised and `seq` is commit order)."""
    if not prefix:
        raise ValueError("read_prefixed needs the start of the streams' names")
    column = events_table.c.stream
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    last = sa.select(events_table.c.seq, events_table.c.hash).order_by(events_table.c.seq.desc())
    query = sa.select(*_COLUMNS).where(column >= prefix, column < upper)
    with read_transaction(store.engine) as connection:
        row = connection.execute(last.limit(1)).first()
        head = Head(row.seq, row.hash) if row else Head(0, GENESIS_HASH)
        rows = connection.execute(query.order_by(events_table.c.seq)).all()
    # the seq bound is applied to the rows read, not in the query (see EventStore.read_stream)
    return head, [
        RecordedEvent(*row) for row in rows if row.seq <= head.seq and row.stream.startswith(prefix)
    ]


def follow_prefixed(store: EventStore, prefix: str, after: int, page: int) -> list[Any]:
    """The events after `after`, in `seq` order, at most `page` of them, each as a row of its
    `seq`, `stream`, `type` and `payload`, the payload only for the streams whose name starts
    with `prefix` (None for the others): what a reader following a few streams among the
    whole log reads to move on. Every event's seq comes back, so that the reader's position
    moves past the others' events too, but only the few it folds are read whole: following
    the roster through a rush of slips read and decoded every slip's payload before."""
    with single_read(store.engine) as connection:
        return connection.execute(_following(prefix, page), {"after": after}).all()


@functools.lru_cache(maxsize=8)
def _following(prefix: str, page: int) -> sa.Select:
    """`follow_prefixed`'s query, made once: a server runs it on every request, and making
    and keying the statement cost more than running it."""
    column = events_table.c.stream
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    payload = events_table.c.payload
    return (
        sa.select(
            events_table.c.seq,
            column,
            events_table.c.type,
            sa.case((sa.and_(column >= prefix, column < upper), payload), else_=sa.null()).label(
                "payload"
            ),
        )
        .where(events_table.c.seq > sa.bindparam("after"))
        .order_by(events_table.c.seq)
        .limit(page)
    )
