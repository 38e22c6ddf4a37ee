"""Importing an event file: every line checked before anything is written, then the whole
file appended in one serialised transaction, all or nothing.

Lines keep the order of the file, which for an export is `seq` order. An imported line that
carries `recorded_at` keeps it (a restored archive keeps its original times), so re-importing
a complete export into an empty ledger reproduces every hash; a line that carries `hash` is
compared with the hash the ledger computes, and every difference is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from ledger.errors import LedgerError, VersionConflict
from ledger.jsonl import ImportLine, JsonlError, read_import
from ledger.store import EventStore, Head


@dataclass(frozen=True)
class HashMismatch:
    """An imported line whose `hash` differs from the one the ledger computed: the event sits
    at another place in this ledger's chain than in the file's."""

    line: int
    seq: int
    file_hash: str
    ledger_hash: str


@dataclass(frozen=True)
class ImportReport:
    """What an import did. Nothing was written when `errors` is not empty."""

    lines: int
    imported: int
    skipped: int
    errors: list[JsonlError] = field(default_factory=list)
    hash_mismatches: list[HashMismatch] = field(default_factory=list)
    head: Head | None = None

    @property
    def ok(self) -> bool:
        """True when the file was imported."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape of `arbitru ledger import --json`."""
        return {
            "ok": self.ok,
            "lines": self.lines,
            "imported": self.imported,
            "skipped": self.skipped,
            "errors": [{"line": e.line, "problems": e.problems} for e in self.errors],
            "hash_mismatches": [
                {
                    "line": m.line,
                    "seq": m.seq,
                    "file_hash": m.file_hash,
                    "ledger_hash": m.ledger_hash,
                }
                for m in self.hash_mismatches
            ],
            "head": {"seq": self.head.seq, "hash": self.head.hash} if self.head else None,
        }


class _Rejected(Exception):
    """Raised inside the write transaction to roll it back."""

    def __init__(self, errors: list[JsonlError]) -> None:
        self.errors = errors


PayloadCheck = Callable[[str, int, dict[str, Any]], str | None]
"""A check of one line's payload by its reader (type, schema, payload): the line's problem,
or None. The ledger stores envelopes; whoever reads the payloads can refuse what they cannot."""


def import_events(
    store: EventStore,
    source: IO[bytes],
    *,
    require_same_hashes: bool = False,
    payload_check: PayloadCheck | None = None,
) -> ImportReport:
    """Import a JSON Lines file of events. Events whose `event_id` is already stored are
    skipped. With `require_same_hashes`, a hash that differs from the file's is an error and
    nothing is written (restoring an archive must reproduce it exactly). `payload_check` is
    asked about every valid line; a problem it returns is that line's error."""
    lines, errors = read_import(source)
    read = len(lines) + len(errors)
    if payload_check is not None:
        for line in lines:
            problem = payload_check(line.event.type, line.event.schema, line.event.payload)
            if problem is not None:
                errors.append(JsonlError(line.line, [problem]))
        errors.sort(key=lambda error: error.line)
    if errors:
        return ImportReport(read, 0, 0, errors)
    try:
        return _write(store, lines, require_same_hashes)
    except _Rejected as rejected:
        return ImportReport(len(lines), 0, 0, rejected.errors)


def _write(store: EventStore, lines: list[ImportLine], require_same_hashes: bool) -> ImportReport:
    errors: list[JsonlError] = []
    mismatches: list[HashMismatch] = []
    with store.writer() as writer:
        writer.prefetch([line.event.event_id for line in lines])
        for line in lines:
            expected = None if line.version is None else line.version - 1
            try:
                (recorded,) = writer.append(line.stream, [line.event], expected)
            except VersionConflict as exc:
                errors.append(JsonlError(line.line, [_conflict(line, exc)]))
                continue
            except LedgerError as exc:
                errors.append(JsonlError(line.line, [str(exc)]))
                continue
            if line.hash is not None and line.hash != recorded.hash:
                mismatch = HashMismatch(line.line, recorded.seq, line.hash, recorded.hash)
                mismatches.append(mismatch)
                if require_same_hashes:
                    errors.append(
                        JsonlError(
                            line.line,
                            [
                                f"hash {line.hash} would become {recorded.hash} at seq "
                                f"{recorded.seq}: this ledger's chain differs from the file's"
                            ],
                        )
                    )
        if errors:
            raise _Rejected(errors)
        imported = writer.last_seq - writer.start_seq
        head = Head(writer.last_seq, writer.last_hash)
    return ImportReport(len(lines), imported, len(lines) - imported, [], mismatches, head)


def _conflict(line: ImportLine, conflict: VersionConflict) -> str:
    at = conflict.actual
    where = f"at version {at}" if at else "empty"
    return (
        f"the line asks to be version {line.version} of {line.stream}, but at this point of "
        f"the import {line.stream} is {where}, so the next event would be version {at + 1}"
    )
