"""The event store: append batches to streams, read streams and the global log, tell the head.

Every append runs in one serialised write transaction (see `ledger.database`): it reads the
last `seq` and `hash`, gives each new event `seq = last + 1` and `prev_hash = last hash`, and
inserts the batch; it commits whole or not at all. Retrying an append with the same
`event_id`s returns the events already stored instead of storing them twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ledger.canonical import GENESIS_HASH, envelope_hash, now_recorded_at
from ledger.database import (
    DEFAULT_URL,
    create_db_engine,
    ensure_schema,
    read_transaction,
    unreachable,
    write_transaction,
)
from ledger.envelope import NewEvent, RecordedEvent, check_new_event, check_position
from ledger.errors import (
    EnvelopeError,
    EventIdConflict,
    StreamStructureError,
    VersionConflict,
)
from ledger.schema import events as events_table

_COLUMNS = [events_table.c[name] for name in RecordedEvent.__dataclass_fields__]
_ID_LOOKUP_CHUNK = 500
_FLUSH_ROWS = 1000
_COMPARED = ("stream", "type", "schema", "payload", "meta")


@dataclass(frozen=True)
class Head:
    """The end of the chain: the digest a federation publishes. An empty ledger has seq 0 and
    the genesis hash."""

    seq: int
    hash: str


class Writer:
    """Appends inside one serialised write transaction; obtained from `EventStore.writer()`.
    Rows are buffered and inserted in batches; everything commits when the block ends."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        last = connection.execute(
            sa.select(events_table.c.seq, events_table.c.hash)
            .order_by(events_table.c.seq.desc())
            .limit(1)
        ).first()
        self.start_seq = last.seq if last else 0
        self.last_seq = self.start_seq
        self.last_hash = last.hash if last else GENESIS_HASH
        self._versions: dict[str, int] = {}
        self._pending: dict[str, RecordedEvent] = {}
        self._rows: list[dict[str, Any]] = []

    def append(
        self, stream: str, events: Sequence[NewEvent], expected_version: int | None = None
    ) -> list[RecordedEvent]:
        """Append `events` to `stream` in order, all or none. `expected_version` is the version
        the caller last saw (0 for a new stream); `None` appends wherever the stream is.
        Events whose `event_id` is already stored are not stored again; they come back as
        recorded, and when the whole batch is such a retry no version check applies."""
        events = list(events)
        _check_batch(stream, events)
        stored = self._stored([e.event_id for e in events])
        for event in events:
            if event.event_id in stored:
                _check_same(stream, event, stored[event.event_id])
        fresh = [e for e in events if e.event_id not in stored]
        if not fresh:
            return [stored[e.event_id] for e in events]
        current = self.stream_version(stream)
        if expected_version is not None and expected_version != current:
            raise VersionConflict(stream, expected_version, current)
        recorded: list[RecordedEvent] = []
        seq, prev_hash = self.last_seq, self.last_hash
        for offset, event in enumerate(fresh, start=1):
            misplaced = check_position(stream, event.type, current + offset)
            if misplaced:
                raise StreamStructureError(misplaced)
            seq += 1
            envelope = {
                "seq": seq,
                "event_id": event.event_id,
                "stream": stream,
                "version": current + offset,
                "type": event.type,
                "schema": event.schema,
                "payload": event.payload,
                "meta": event.meta,
                "recorded_at": event.recorded_at or now_recorded_at(),
                "prev_hash": prev_hash,
            }
            prev_hash = envelope["hash"] = envelope_hash(envelope)
            recorded.append(RecordedEvent(**envelope))
        self._rows.extend(r.to_dict() for r in recorded)
        self._pending.update((r.event_id, r) for r in recorded)
        self.last_seq, self.last_hash = seq, prev_hash
        self._versions[stream] = current + len(fresh)
        if len(self._rows) >= _FLUSH_ROWS:
            self.flush()
        stored.update((r.event_id, r) for r in recorded)
        return [stored[e.event_id] for e in events]

    def stream_version(self, stream: str) -> int:
        """The stream's version as this transaction sees it (0 for a stream not yet written)."""
        if stream not in self._versions:
            self._versions[stream] = self._connection.execute(
                sa.select(sa.func.coalesce(sa.func.max(events_table.c.version), 0)).where(
                    events_table.c.stream == stream
                )
            ).scalar_one()
        return self._versions[stream]

    def flush(self) -> None:
        """Insert the buffered rows (still uncommitted)."""
        if self._rows:
            self._connection.execute(events_table.insert(), self._rows)
            self._rows = []

    def _stored(self, event_ids: list[str]) -> dict[str, RecordedEvent]:
        found = {i: self._pending[i] for i in event_ids if i in self._pending}
        wanted = [i for i in event_ids if i not in found]
        for start in range(0, len(wanted), _ID_LOOKUP_CHUNK):
            chunk = wanted[start : start + _ID_LOOKUP_CHUNK]
            rows = self._connection.execute(
                sa.select(*_COLUMNS).where(events_table.c.event_id.in_(chunk))
            )
            found.update((row.event_id, RecordedEvent(*row)) for row in rows)
        return found


class EventStore:
    """The ledger at a database URL (SQLite or PostgreSQL), migrated before first use."""

    def __init__(self, url: str = DEFAULT_URL, *, upgrade: bool = True) -> None:
        self.url = url
        self.engine = create_db_engine(url)
        if upgrade:
            ensure_schema(self.engine)

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def writer(self) -> Iterator[Writer]:
        """A serialised write transaction for several appends that must commit together
        (an import). Committed when the block ends, rolled back if it raises."""
        try:
            with write_transaction(self.engine) as connection:
                writer = Writer(connection)
                yield writer
                writer.flush()
        except sa.exc.OperationalError as exc:
            raise unreachable(self.engine, exc) from exc

    def append(
        self, stream: str, events: Sequence[NewEvent], expected_version: int | None = None
    ) -> list[RecordedEvent]:
        """Append a batch to one stream atomically; see `Writer.append`. Raises
        `VersionConflict` when `expected_version` is stale, `EnvelopeError` or
        `StreamStructureError` for malformed events, `EventIdConflict` when an `event_id` is
        reused for a different event."""
        with self.writer() as writer:
            return writer.append(stream, events, expected_version)

    def read_stream(
        self, stream: str, up_to_version: int | None = None, up_to_seq: int | None = None
    ) -> list[RecordedEvent]:
        """The events of one stream in version order, optionally only up to (and including)
        a version or a global `seq`."""
        query = sa.select(*_COLUMNS).where(events_table.c.stream == stream)
        if up_to_version is not None:
            query = query.where(events_table.c.version <= up_to_version)
        if up_to_seq is not None:
            query = query.where(events_table.c.seq <= up_to_seq)
        with read_transaction(self.engine) as connection:
            rows = connection.execute(query.order_by(events_table.c.version))
            return [RecordedEvent(*row) for row in rows]

    def read_all(self, from_seq: int = 1, limit: int | None = None) -> list[RecordedEvent]:
        """Events of every stream from `from_seq` on, in `seq` order: what a pipeline following
        the log reads, passing the last `seq` it saw plus one next time."""
        query = (
            sa.select(*_COLUMNS)
            .where(events_table.c.seq >= from_seq)
            .order_by(events_table.c.seq)
            .limit(limit)
        )
        with read_transaction(self.engine) as connection:
            return [RecordedEvent(*row) for row in connection.execute(query)]

    def iter_all(
        self, from_seq: int = 1, stream: str | None = None, page_size: int = 2000
    ) -> Iterator[RecordedEvent]:
        """Every event from `from_seq` on (of one stream, if given), in `seq` order, read a
        page at a time so that exporting a large ledger needs little memory."""
        query = sa.select(*_COLUMNS).order_by(events_table.c.seq).limit(page_size)
        if stream is not None:
            query = query.where(events_table.c.stream == stream)
        next_seq = from_seq
        while True:
            with read_transaction(self.engine) as connection:
                page = connection.execute(query.where(events_table.c.seq >= next_seq)).all()
            for row in page:
                yield RecordedEvent(*row)
            if len(page) < page_size:
                return
            next_seq = page[-1].seq + 1

    def stream_version(self, stream: str) -> int:
        """The current version of a stream (0 when it has no events)."""
        query = sa.select(sa.func.coalesce(sa.func.max(events_table.c.version), 0)).where(
            events_table.c.stream == stream
        )
        with read_transaction(self.engine) as connection:
            return int(connection.execute(query).scalar_one())

    def head(self) -> Head:
        """The last `seq` and its hash."""
        query = (
            sa.select(events_table.c.seq, events_table.c.hash)
            .order_by(events_table.c.seq.desc())
            .limit(1)
        )
        with read_transaction(self.engine) as connection:
            row = connection.execute(query).first()
        return Head(row.seq, row.hash) if row else Head(0, GENESIS_HASH)


def open_store(url: str = DEFAULT_URL) -> EventStore:
    """The ledger at `url`, migrated to the newest schema."""
    return EventStore(url)


def _check_batch(stream: str, events: list[NewEvent]) -> None:
    problems: list[str] = []
    seen: set[str] = set()
    for index, event in enumerate(events):
        prefix = f"event {index + 1}: " if len(events) > 1 else ""
        problems += [prefix + p for p in check_new_event(stream, event)]
        if event.event_id in seen:
            problems.append(f"{prefix}event_id {event.event_id} appears twice in the batch")
        seen.add(event.event_id)
    if problems:
        raise EnvelopeError(problems)


def _check_same(stream: str, event: NewEvent, stored: RecordedEvent) -> None:
    wanted = {"stream": stream, **{k: getattr(event, k) for k in _COMPARED if k != "stream"}}
    differences = [k for k in _COMPARED if wanted[k] != getattr(stored, k)]
    if differences:
        raise EventIdConflict(event.event_id, differences)
