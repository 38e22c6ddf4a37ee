"""Verification of the hash chain, for a database and for an exported file alike.

The chain is intact when, in `seq` order: seqs run 1, 2, 3… without gaps; each `prev_hash` is
the previous event's `hash` (the genesis hash for seq 1); each `hash` is recomputed from the
canonical encoding; each stream's versions run 1, 2, 3…; no `event_id` appears twice.
Verification stops at the first break and names its `seq`, because everything after a break
is unproven anyway.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import IO, Any

from ledger.canonical import GENESIS_HASH, canonical_json, chain_hash, envelope_text
from ledger.database import read_transaction
from ledger.envelope import RecordedEvent
from ledger.jsonl import JsonlError, export_line, exported_event, numbered_lines, parse_line
from ledger.store import EventStore


@dataclass(frozen=True)
class VerifyProblem:
    """Where the chain breaks: the `seq` (when it could be read), the file line (when
    verifying a file) and what is wrong."""

    seq: int | None
    line: int | None
    reason: str

    def describe(self) -> str:
        """One sentence naming the place and the defect."""
        where = []
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        if self.line is not None:
            where.append(f"line {self.line}")
        return (", ".join(where) + ": " if where else "") + self.reason


@dataclass(frozen=True)
class VerifyResult:
    """The outcome of a verification. `last_seq` and `last_hash` are the head of the verified
    prefix: when `ok`, the digest to compare with the one the federation published."""

    ok: bool
    checked: int
    last_seq: int
    last_hash: str
    problem: VerifyProblem | None = None

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape of `arbitru ledger verify --json`."""
        problem = self.problem
        return {
            "ok": self.ok,
            "checked": self.checked,
            "last_seq": self.last_seq,
            "last_hash": self.last_hash,
            "first_broken_seq": problem.seq if problem else None,
            "line": problem.line if problem else None,
            "error": problem.reason if problem else None,
        }


@dataclass(frozen=True)
class Unreadable:
    """A record that could not even be read (malformed line, undecodable row): verification
    reports it as the break when it reaches it."""

    seq: int | None
    line: int | None
    reason: str


_Row = tuple
"""An envelope as a tuple in column order (seq, event_id, stream, version, type, schema,
payload, meta, recorded_at, prev_hash, hash), followed by its file line when read from a file.
`payload` and `meta` are the canonical JSON bytes when read raw from SQLite (where the ledger
stores exactly what it hashed), canonical JSON text when encoded from an event, or decoded
values (PostgreSQL jsonb), which are encoded on the way."""


def verify_chain(
    events: Iterable[RecordedEvent | Unreadable], *, complete: bool = True
) -> VerifyResult:
    """Verify events given in `seq` order. With `complete=False` (an export of one stream)
    gaps in `seq` are allowed and links are checked only between consecutive seqs."""
    return _verify((_row_of(e) for e in events), complete)


def verify_file(source: IO[bytes], *, complete: bool = True) -> VerifyResult:
    """Verify an export file on its own, without any database. Beyond the chain, every line
    must be byte for byte the export form of its envelope, so that a change to any byte of
    the file is caught."""
    return _verify(_file_rows(source), complete)


def verify_store(store: EventStore, page_size: int = 5000) -> VerifyResult:
    """Verify the whole chain held in a database."""
    return _verify(_store_rows(store, page_size), complete=True)


def _verify(rows: Iterable[_Row | Unreadable], complete: bool) -> VerifyResult:
    """The chain rules of the module docstring, as one tight loop: this runs once per event
    of a whole ledger, so it keeps its state in locals and hashes inline in the common case
    (a well-typed SQLite row, payload and meta already canonical bytes)."""
    checked, last_seq, last_hash = 0, 0, GENESIS_HASH
    versions: dict[Any, int] = {}
    event_ids: set[Any] = set()
    sha256, quote = hashlib.sha256, encode_basestring
    reason: str | None = None
    row: Any = None
    for row in rows:
        if isinstance(row, Unreadable):
            problem = VerifyProblem(row.seq, row.line, row.reason)
            return VerifyResult(False, checked, last_seq, last_hash, problem)
        seq, event_id, stream, version, type_, schema, payload, meta, recorded_at = row[:9]
        prev_hash, stored_hash = row[9], row[10]
        if type(seq) is not int or seq <= last_seq:
            reason = f"seq {seq!r} does not follow seq {last_seq}"
        elif complete and seq != last_seq + 1:
            reason = f"seq jumps from {last_seq} to {seq}: events are missing"
        elif seq == last_seq + 1 and prev_hash != last_hash:
            reason = (
                f"prev_hash of seq 1 is {prev_hash!r}, not the genesis hash"
                if seq == 1
                else f"prev_hash {prev_hash!r} is not the hash of seq {last_seq} "
                f"({last_hash}): seq {last_seq} or this link was altered"
            )
        if reason is not None:
            break
        digest = None
        if (
            type(payload) is bytes
            and type(meta) is bytes
            and type(version) is int
            and type(schema) is int
            and type(prev_hash) is str
        ):
            try:
                head = f'{prev_hash}{{"event_id":{quote(event_id)},"meta":'
                tail = (
                    f',"prev_hash":{quote(prev_hash)},"recorded_at":{quote(recorded_at)},'
                    f'"schema":{schema},"seq":{seq},"stream":{quote(stream)},'
                    f'"type":{quote(type_)},"version":{version}}}'
                )
                digest = sha256(
                    b"".join((head.encode(), meta, b',"payload":', payload, tail.encode()))
                ).hexdigest()
            except (TypeError, UnicodeEncodeError):
                digest = None
        if digest != stored_hash:
            digest = _recompute(row)
            if digest != stored_hash:
                reason = (
                    f"stored hash {stored_hash!r} does not match the recomputed {digest}: "
                    "the event was altered"
                )
                break
        expected_version = versions.get(stream, 0) + 1
        if version != expected_version and (complete or version < expected_version):
            reason = f"{stream} version {version!r} should be {expected_version}"
            break
        if event_id in event_ids:
            reason = f"event_id {event_id} appears a second time"
            break
        event_ids.add(event_id)
        versions[stream] = version
        last_seq, last_hash = seq, stored_hash
        checked += 1
    if reason is None:
        return VerifyResult(True, checked, last_seq, last_hash)
    seq = row[0] if type(row[0]) is int else None
    line = row[11] if len(row) > 11 else None
    return VerifyResult(False, checked, last_seq, last_hash, VerifyProblem(seq, line, reason))


def _recompute(row: _Row) -> str:
    payload, meta = row[6], row[7]
    try:
        digest = _digest(row, _as_json(payload), _as_json(meta))
        if digest != row[10] and isinstance(payload, str) and isinstance(meta, str):
            digest = _digest(row, _reencode(payload), _reencode(meta))
    except (TypeError, ValueError, RecursionError) as exc:
        return f"(nothing: the row cannot be encoded, {exc})"
    return digest


def _digest(row: _Row, payload_json: str, meta_json: str) -> str:
    text = envelope_text(*row[:6], payload_json, meta_json, row[8], row[9])
    return chain_hash(str(row[9]), text.encode("utf-8"))


def _as_json(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return value if isinstance(value, str) else canonical_json(value)


def _reencode(value: Any) -> str:
    """The canonical text of a stored value that was not already canonical text (a
    PostgreSQL jsonb value, or SQLite text written by someone other than the ledger)."""
    if isinstance(value, bytes | str):
        return canonical_json(json.loads(value))
    return canonical_json(value)


def _row_of(event: RecordedEvent | Unreadable, line: int | None = None) -> _Row | Unreadable:
    if isinstance(event, Unreadable):
        return event
    return (
        event.seq,
        event.event_id,
        event.stream,
        event.version,
        event.type,
        event.schema,
        canonical_json(event.payload),
        canonical_json(event.meta),
        event.recorded_at,
        event.prev_hash,
        event.hash,
        *([] if line is None else [line]),
    )


def _file_rows(source: IO[bytes]) -> Iterator[_Row | Unreadable]:
    for number, raw in numbered_lines(source):
        try:
            obj = parse_line(raw, number)
        except JsonlError as exc:
            yield Unreadable(None, number, "; ".join(exc.problems))
            return
        try:
            event = exported_event(obj, number)
        except JsonlError as exc:
            seq = obj.get("seq") if type(obj.get("seq")) is int else None
            yield Unreadable(seq, number, "; ".join(exc.problems))
            return
        yield _row_of(event, number)
        if raw != export_line(event).encode("utf-8"):
            yield Unreadable(
                event.seq,
                number,
                "the line is not byte for byte the export form of its envelope "
                "(white space, key order, escapes or line ending were changed)",
            )
            return


_SELECT_PAGE = (
    "SELECT seq, {event_id}, stream, version, type, schema, {payload}, {meta}, recorded_at,"
    " prev_hash, hash FROM events WHERE seq > {after} ORDER BY seq LIMIT {limit}"
)


def _store_rows(store: EventStore, page_size: int) -> Iterator[_Row | Unreadable]:
    """The rows of the events table as stored, read page by page through the driver: on
    SQLite `payload` and `meta` come back as the very bytes that were hashed."""
    if store.engine.dialect.name == "postgresql":
        columns = {"event_id": "CAST(event_id AS TEXT)", "payload": "payload", "meta": "meta"}
    else:
        columns = {
            "event_id": "event_id",
            "payload": "CAST(payload AS BLOB)",
            "meta": "CAST(meta AS BLOB)",
        }
    after = 0
    while True:
        with read_transaction(store.engine) as connection:
            cursor = connection.connection.cursor()
            try:
                cursor.execute(
                    _SELECT_PAGE.format(**columns, after=int(after), limit=int(page_size))
                )
                page = cursor.fetchall()
            finally:
                cursor.close()
        yield from page
        if len(page) < page_size:
            return
        after = page[-1][0]
