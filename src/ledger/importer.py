"""Importing an event file, all or nothing: the file is read once, a chunk of lines at a
time, each line checked and appended inside one serialised write transaction, which commits
only when every line was good. Memory stays bounded whatever the file's size: what is kept
across chunks is the event ids seen (a repeated id is an error) and the problems found.

Lines keep the order of the file, which for an export is `seq` order. When a line's format is
wrong, the lines after it are only checked (not appended) and the report lists the format
problems; otherwise it lists the problems against the ledger (version conflicts, event ids
reused for other events, hashes that differ under `require_same_hashes`, times going back).

The write lock is held while the file is read: give a file that reads quickly (the CLI
copies a pipe to a temporary file first), so that a slow producer does not keep other
writers waiting.

`recorded_at`: a restore (`require_same_hashes`: the file must reproduce its chain exactly)
keeps every given time as it is. Any other import keeps a given time only when it does not go
back, not before the time of the event before it in the ledger (including earlier lines of the
same file), and not beyond `FUTURE_TOLERANCE` ahead of this machine's clock: an import
continues the ledger's history and may not rewrite when things happened. A line without
`recorded_at` gets the time of the import.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import islice
from typing import TYPE_CHECKING, Any

from ledger.canonical import format_recorded_at
from ledger.errors import LedgerError, VersionConflict
from ledger.jsonl import ImportLine, JsonlError, PayloadCheck, import_lines
from ledger.store import EventStore, Head

if TYPE_CHECKING:
    from ledger.store import _Writer

FUTURE_TOLERANCE = timedelta(minutes=5)
"""How far ahead of this machine's clock a non-restore import may date an event: clocks of
the machines that recorded it may differ by that much, not more."""

CHUNK_LINES = 1000
"""Lines checked, looked up and appended together: bounds the memory of a long import."""


@dataclass(frozen=True, slots=True)
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


def import_events(
    store: EventStore,
    source: Iterable[bytes],
    *,
    require_same_hashes: bool = False,
    payload_check: PayloadCheck | None = None,
) -> ImportReport:
    """Import a JSON Lines file of events, all or nothing. Events whose `event_id` is already
    stored are skipped. With `require_same_hashes` (a restore), a hash that differs from the
    file's is an error and given times are kept as they are. `payload_check` is asked about
    every line's (type, schema, payload); a problem it returns is that line's error."""
    run = _Import(require_same_hashes)
    with contextlib.suppress(_Rejected), store.writer() as writer:
        for chunk in _chunks(import_lines(source, payload_check)):
            run.take(writer, chunk)
        if run.errors:
            raise _Rejected
        imported = writer.last_seq - writer.start_seq
        head = Head(writer.last_seq, writer.last_hash)
        return ImportReport(run.lines, imported, run.lines - imported, [], run.mismatches, head)
    return ImportReport(run.lines, 0, 0, run.errors)


class _Rejected(Exception):
    """Raised inside the write transaction to roll it back."""


def _chunks(items: Iterator[ImportLine | JsonlError]) -> Iterator[list[ImportLine | JsonlError]]:
    while chunk := list(islice(items, CHUNK_LINES)):
        yield chunk


class _Import:
    """The state of one import across its chunks: lines read, problems, hash differences."""

    def __init__(self, restore: bool) -> None:
        self.restore = restore
        self.latest = format_recorded_at(datetime.now(UTC) + FUTURE_TOLERANCE)
        self.lines = 0
        self.format_errors: list[JsonlError] = []
        self.ledger_errors: list[JsonlError] = []
        self.mismatches: list[HashMismatch] = []

    @property
    def errors(self) -> list[JsonlError]:
        """Format problems when there are any (the file must be fixed first), else the
        problems against the ledger."""
        return self.format_errors or self.ledger_errors

    def take(self, writer: _Writer, chunk: list[ImportLine | JsonlError]) -> None:
        self.lines += len(chunk)
        self.format_errors += [item for item in chunk if isinstance(item, JsonlError)]
        if self.format_errors:
            return
        lines = [item for item in chunk if isinstance(item, ImportLine)]
        writer.prefetch([line.event.event_id for line in lines])
        for line in lines:
            self._append(writer, line)

    def _append(self, writer: _Writer, line: ImportLine) -> None:
        expected = None if line.version is None else line.version - 1
        before_seq, before_at = writer.last_seq, writer.last_recorded_at
        try:
            (recorded,) = writer.append(line.stream, [line.event], expected, envelopes_checked=True)
        except VersionConflict as exc:
            self.ledger_errors.append(JsonlError(line.line, [_conflict(line, exc)]))
            return
        except LedgerError as exc:
            self.ledger_errors.append(JsonlError(line.line, [str(exc)]))
            return
        given = line.event.recorded_at
        if recorded.seq > before_seq and given is not None and not self.restore:
            problem = self._time_problem(given, before_at, before_seq)
            if problem:
                self.ledger_errors.append(JsonlError(line.line, [problem]))
        if line.hash is not None and line.hash != recorded.hash:
            self.mismatches.append(HashMismatch(line.line, recorded.seq, line.hash, recorded.hash))
            if self.restore:
                self.ledger_errors.append(
                    JsonlError(
                        line.line,
                        [
                            f"hash {line.hash} would become {recorded.hash} at seq "
                            f"{recorded.seq}: this ledger's chain differs from the file's"
                        ],
                    )
                )

    def _time_problem(self, given: str, before: str | None, before_seq: int) -> str | None:
        if before is not None and given < before:
            return (
                f"recorded_at {given} is earlier than {before}, the time of the event before "
                f"it (seq {before_seq}): an import may not go back in time. Leave recorded_at "
                "out to record the time of the import, or restore a whole archive into an "
                "empty ledger with --require-same-hashes"
            )
        if given > self.latest:
            return (
                f"recorded_at {given} is in the future (this machine's clock allows up to "
                f"{self.latest}): check the clocks, leave recorded_at out to record the time "
                "of the import, or restore a whole archive with --require-same-hashes"
            )
        return None


def _conflict(line: ImportLine, conflict: VersionConflict) -> str:
    at = conflict.actual
    where = f"at version {at}" if at else "empty"
    return (
        f"the line asks to be version {line.version} of {line.stream}, but at this point of "
        f"the import {line.stream} is {where}, so the next event would be version {at + 1}"
    )
