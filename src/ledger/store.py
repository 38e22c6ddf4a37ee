"""The event store: append batches to streams, read streams and the global log, tell the head.

Every append runs in one serialised write transaction (see `ledger.database`): it reads the
last `seq` and `hash`, gives each new event `seq = last + 1` and `prev_hash = last hash`, and
inserts the batch; it commits whole or not at all. Retrying an append with the same
`event_id`s returns the events already stored instead of storing them twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ledger.append_checks import check_batch, check_same
from ledger.canonical import (
    GENESIS_HASH,
    canonical_json,
    chain_hash,
    envelope_bytes,
    now_recorded_at,
)
from ledger.database import (
    create_db_engine,
    ensure_schema,
    read_transaction,
    refuse_in_memory,
    require_ledger,
    unreachable,
    write_transaction,
)
from ledger.default_url import DEFAULT_URL
from ledger.envelope import MAX_SEQ, NewEvent, RecordedEvent, check_position
from ledger.errors import DatabaseError, StreamStructureError, VersionConflict
from ledger.schema import events as events_table

_COLUMNS = [events_table.c[name] for name in RecordedEvent.__dataclass_fields__]
_ID_LOOKUP_CHUNK = 500
_FLUSH_ROWS = 1000
_INSERT_SQL = {
    "sqlite": "INSERT INTO events (seq, event_id, stream, version, type, schema, payload, meta,"
    " recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "postgresql": "INSERT INTO events (seq, event_id, stream, version, type, schema, payload,"
    " meta, recorded_at, prev_hash, hash)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s)",
}


@dataclass(frozen=True)
class Head:
    """The end of the chain: the digest a federation publishes. An empty ledger has seq 0 and
    the genesis hash."""

    seq: int
    hash: str


class _Writer:
    """Appends inside one serialised write transaction. Private: only `EventStore.writer()`
    makes one, after taking the write lock, which is what keeps `seq` order commit order.
    Rows are buffered and inserted in batches; everything commits when the block ends."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        last = connection.execute(
            sa.select(events_table.c.seq, events_table.c.hash, events_table.c.recorded_at)
            .order_by(events_table.c.seq.desc())
            .limit(1)
        ).first()
        self.start_seq = last.seq if last else 0
        self.last_seq = self.start_seq
        self.last_hash = last.hash if last else GENESIS_HASH
        self.last_recorded_at: str | None = last.recorded_at if last else None
        self._versions: dict[str, int] = {}
        self._known: dict[str, RecordedEvent] = {}
        self._rows: list[tuple[Any, ...]] = []
        self._absent: set[str] = set()
        self.fresh_ids = False
        """Set by a caller whose events' ids cannot be stored yet (made new for this write,
        or derived from an idempotency key this transaction found unused): appending them
        then asks the database nothing, one round trip fewer per append under the lock. Were
        one stored after all, the unique `event_id` would refuse the transaction."""
        self._insert_sql = _INSERT_SQL[connection.dialect.name]

    def append(
        self,
        stream: str,
        events: Sequence[NewEvent],
        expected_version: int | None = None,
        *,
        envelopes_checked: bool = False,
    ) -> list[RecordedEvent]:
        """Append `events` to `stream` in order, all or none. `expected_version` is the version
        the caller last saw (0 for a new stream); `None` appends wherever the stream is.
        Events whose `event_id` is already stored are not stored again; they come back as
        recorded, and when the whole batch is such a retry no version check applies.
        `envelopes_checked` says that the caller already ran `check_new_event` on each event
        (an import checks every line as it reads it), so that it does not run twice."""
        events = list(events)
        if not envelopes_checked:
            check_batch(stream, events)
        stored = self._stored([e.event_id for e in events])
        for event in events:
            if event.event_id in stored:
                check_same(stream, event, stored[event.event_id])
        fresh = [e for e in events if e.event_id not in stored]
        if not fresh:
            return [stored[e.event_id] for e in events]
        current = self.stream_version(stream)
        if expected_version is not None and expected_version != current:
            raise VersionConflict(stream, expected_version, current)
        recorded: list[RecordedEvent] = []
        rows: list[tuple[Any, ...]] = []
        seq, prev_hash = self.last_seq, self.last_hash
        now = now_recorded_at()
        for offset, event in enumerate(fresh, start=1):
            version = current + offset
            misplaced = check_position(stream, event.type, version)
            if misplaced:
                raise StreamStructureError(misplaced)
            seq += 1
            recorded_at = event.recorded_at or now
            payload_json = canonical_json(event.payload)
            meta_json = canonical_json(event.meta)
            key = (seq, event.event_id, stream, version, event.type, event.schema)
            hashed = envelope_bytes(
                (*key, payload_json.encode(), meta_json.encode(), recorded_at, prev_hash)
            )
            digest = chain_hash(prev_hash, hashed)
            rows.append((*key, payload_json, meta_json, recorded_at, prev_hash, digest))
            recorded.append(
                RecordedEvent(*key, event.payload, event.meta, recorded_at, prev_hash, digest)
            )
            prev_hash = digest
        self._rows.extend(rows)
        self._known.update((r.event_id, r) for r in recorded)
        self.last_seq, self.last_hash = seq, prev_hash
        self.last_recorded_at = recorded[-1].recorded_at
        self._versions[stream] = current + len(fresh)
        if len(self._rows) >= _FLUSH_ROWS:
            self.flush()
        stored.update((r.event_id, r) for r in recorded)
        return [stored[e.event_id] for e in events]

    def read_version(self, stream: str, version: int) -> None:
        """Tell the writer the stream's version as the caller read it in this transaction (its
        events read through the transaction's connection, under the write lock), so that an
        append checks its expected version against it instead of asking the database again:
        one round trip fewer while the lock is held. Were it wrong, the database's unique
        (stream, version) would still refuse the rows."""
        self._versions.setdefault(stream, version)

    def stream_version(self, stream: str) -> int:
        """The stream's version as this transaction sees it (0 for a stream not yet written)."""
        if stream not in self._versions:
            self._versions[stream] = self._connection.execute(
                sa.select(sa.func.coalesce(sa.func.max(events_table.c.version), 0)).where(
                    events_table.c.stream == stream
                )
            ).scalar_one()
        return self._versions[stream]

    def prefetch(self, event_ids: Sequence[str]) -> None:
        """Look up the event ids of the next appends at once (a chunk of an import), so that
        appending them one by one does not query the database for each. What earlier chunks
        looked up is forgotten (after their rows are flushed, so that the database answers
        for them), which keeps a long import in bounded memory."""
        self.flush()
        self._known, self._absent = {}, set()
        found = self._stored(list(event_ids))
        self._known, self._absent = found, {i for i in event_ids if i not in found}

    def flush(self) -> None:
        """Insert the buffered rows (still uncommitted). The payload and meta go in as the
        canonical JSON text that was hashed, straight through the driver: this is the hot
        path of every append."""
        if self._rows:
            self._connection.exec_driver_sql(self._insert_sql, self._rows)
            self._rows = []

    def _stored(self, event_ids: list[str]) -> dict[str, RecordedEvent]:
        found = {i: self._known[i] for i in event_ids if i in self._known}
        wanted = [] if self.fresh_ids else [i for i in event_ids if i not in found]
        wanted = [i for i in wanted if i not in self._absent]
        for start in range(0, len(wanted), _ID_LOOKUP_CHUNK):
            chunk = wanted[start : start + _ID_LOOKUP_CHUNK]
            rows = self._connection.execute(
                sa.select(*_COLUMNS).where(events_table.c.event_id.in_(chunk))
            )
            found.update((row.event_id, RecordedEvent(*row)) for row in rows)
        return found


class EventStore:
    """The ledger at a database URL (SQLite or PostgreSQL), created or migrated before first
    use. With `upgrade=False` the database is only opened: it must already hold a ledger
    (`NoLedger` otherwise), and nothing is created or migrated. `read_only=True` also opens
    it that way, through a connection that cannot write (`ledger.database`): how the reading
    commands open it, so that a copy nobody may write can be verified. An in-memory SQLite
    URL is refused for writing. `pool_size` and `pre_ping`: see `create_db_engine`."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        upgrade: bool = True,
        read_only: bool = False,
        pool_size: int | None = None,
        pre_ping: bool = True,
    ) -> None:
        self.url = url
        self.read_only = read_only
        self.engine = create_db_engine(
            url, read_only=read_only, pool_size=pool_size, pre_ping=pre_ping
        )
        try:
            if upgrade and not read_only:
                refuse_in_memory(self.engine)
                ensure_schema(self.engine)
            else:
                require_ledger(self.engine)
        except BaseException:
            self.engine.dispose()
            raise

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def writer(self) -> Iterator[_Writer]:
        """A serialised write transaction for several appends that must commit together
        (an import). Committed when the block ends, rolled back if it raises."""
        if self.read_only:
            raise DatabaseError(f"the ledger at {self.engine.url} was opened read-only")
        try:
            with write_transaction(self.engine) as connection:
                writer = _Writer(connection)
                yield writer
                writer.flush()
        except sa.exc.OperationalError as exc:
            raise unreachable(self.engine, exc) from exc

    def append(
        self, stream: str, events: Sequence[NewEvent], expected_version: int | None = None
    ) -> list[RecordedEvent]:
        """Append a batch to one stream atomically; see `_Writer.append`. Raises
        `VersionConflict` when `expected_version` is stale, `EnvelopeError` or
        `StreamStructureError` for malformed events, `EventIdConflict` when an `event_id` is
        reused for a different event."""
        with self.writer() as writer:
            return writer.append(stream, events, expected_version)

    def read_stream(
        self,
        stream: str,
        up_to_version: int | None = None,
        up_to_seq: int | None = None,
        *,
        after_version: int = 0,
    ) -> list[RecordedEvent]:
        """The events of one stream in version order, optionally only those after
        `after_version` (what a reader keeping the stream folded has not seen yet) and only
        up to (and including) a version or a global `seq`. The `seq` bound is applied to the
        rows read, not in the query: with it, PostgreSQL (whose statistics lag behind a bulk
        load) intersects the stream's index with a scan of the whole `seq` index, a thousand
        times slower."""
        query = sa.select(*_COLUMNS).where(events_table.c.stream == stream)
        if after_version:
            query = query.where(events_table.c.version > after_version)
        if up_to_version is not None:
            query = query.where(events_table.c.version <= up_to_version)
        last = up_to_seq if up_to_seq is not None else MAX_SEQ
        with read_transaction(self.engine) as connection:
            rows = connection.execute(query.order_by(events_table.c.version))
            return [RecordedEvent(*row) for row in rows if row.seq <= last]

    def find_events(self, event_ids: Sequence[str]) -> dict[str, RecordedEvent]:
        """The stored events among `event_ids`, by id: what an idempotent retry recorded on
        its first try."""
        wanted = list(event_ids)[:_ID_LOOKUP_CHUNK]
        with read_transaction(self.engine) as connection:
            rows = connection.execute(
                sa.select(*_COLUMNS).where(events_table.c.event_id.in_(wanted))
            )
            return {row.event_id: RecordedEvent(*row) for row in rows}

    def read_streams(
        self, streams: Sequence[str], up_to_seq: int | None = None
    ) -> dict[str, list[RecordedEvent]]:
        """The events of several streams (up to a global `seq`), each in version order, read
        in one query through the driver: what a recompute reads, a batch of games at a time,
        where a query per stream through SQLAlchemy's result processing cost more than the
        reading. A stream without events is absent. Events after `up_to_seq` are left out
        here rather than by the query (see `read_stream`)."""
        postgres = self.engine.dialect.name == "postgresql"
        found: dict[str, list[RecordedEvent]] = {}
        rows = []
        with read_transaction(self.engine) as connection:
            cursor = connection.connection.cursor()
            try:
                for start in range(0, len(streams), _ID_LOOKUP_CHUNK):
                    chunk = list(streams[start : start + _ID_LOOKUP_CHUNK])
                    if postgres:
                        cursor.execute(_STREAMS_SQL["postgresql"], (chunk,))
                    else:
                        sql = _STREAMS_SQL["sqlite"].format(marks=", ".join("?" * len(chunk)))
                        cursor.execute(sql, chunk)
                    rows += cursor.fetchall()
            finally:
                cursor.close()
        loads = (lambda value: value) if postgres else _loads
        last = up_to_seq if up_to_seq is not None else MAX_SEQ
        for seq, event_id, stream, version, kind, schema, payload, meta, at, prev, digest in rows:
            if seq > last:
                continue
            event = RecordedEvent(
                seq, event_id, stream, version, kind, schema, loads(payload), loads(meta), at,
                prev, digest,
            )  # fmt: skip
            found.setdefault(stream, []).append(event)
        return found

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

    def iter_rows(
        self, stream: str | None = None, page_size: int = 5000, from_seq: int = 1
    ) -> Iterator[tuple[Any, ...]]:
        """Every event as stored, in `seq` order (of one stream, if given), read page by page
        through the driver: tuples (seq, event_id, stream, version, type, schema, payload,
        meta, recorded_at, prev_hash, hash) whose payload and meta are canonical JSON bytes.
        On SQLite they are the very bytes that were stored (and hashed), so that verification
        and exports see exactly what the database holds; PostgreSQL's jsonb keeps values, not
        text, so there they are encoded on the way. What verification and exports read;
        `from_seq` skips the events before it."""
        postgres = self.engine.dialect.name == "postgresql"
        sql = _PAGE_SQL["postgresql" if postgres else "sqlite"]
        where = "" if stream is None else "stream = {p} AND ".format(p="%s" if postgres else "?")
        sql = sql.format(where=where)
        first = () if stream is None else (stream,)
        after = from_seq - 1
        while True:
            with read_transaction(self.engine) as connection:
                cursor = connection.connection.cursor()
                try:
                    cursor.execute(sql, (*first, after, page_size))
                    page = cursor.fetchall()
                finally:
                    cursor.close()
            if postgres:
                page = [_encode_pg_row(row) for row in page]
            yield from page
            if len(page) < page_size:
                return
            after = page[-1][0]

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


_PAGE_SQL = {
    "sqlite": "SELECT seq, event_id, stream, version, type, schema, CAST(payload AS BLOB),"
    " CAST(meta AS BLOB), recorded_at, prev_hash, hash FROM events"
    " WHERE {where}seq > ? ORDER BY seq LIMIT ?",
    "postgresql": "SELECT seq, CAST(event_id AS TEXT), stream, version, type, schema, payload,"
    " meta, recorded_at, prev_hash, hash FROM events"
    " WHERE {where}seq > %s ORDER BY seq LIMIT %s",
}


_STREAMS_SQL = {
    "sqlite": "SELECT seq, event_id, stream, version, type, schema, payload, meta, recorded_at,"
    " prev_hash, hash FROM events WHERE stream IN ({marks}) ORDER BY stream, version",
    "postgresql": "SELECT seq, CAST(event_id AS TEXT), stream, version, type, schema, payload,"
    " meta, recorded_at, prev_hash, hash FROM events WHERE stream = ANY(%s)"
    " ORDER BY stream, version",
}


_scan = json.JSONDecoder().scan_once


def _loads(text: Any) -> Any:
    """`json.loads` of a stored payload or meta, reading the value with the decoder's scanner
    directly: half the cost of `json.loads` on short texts, where finding the start and the end
    of the value was as long as reading it. Any text the scanner does not read whole (leading
    or trailing spaces, bytes, errors) goes to `json.loads`, which reads it or raises as ever."""
    if type(text) is str:
        try:
            value, end = _scan(text, 0)
        except StopIteration:
            return json.loads(text)
        if end == len(text):
            return value
    return json.loads(text)


def _encode_pg_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    try:
        payload = canonical_json(row[6]).encode()
        meta = canonical_json(row[7]).encode()
    except (TypeError, ValueError, UnicodeEncodeError):
        return tuple(row)
    return (*row[:6], payload, meta, *row[8:])


def open_store(url: str = DEFAULT_URL) -> EventStore:
    """The ledger at `url`, migrated to the newest schema."""
    return EventStore(url)
