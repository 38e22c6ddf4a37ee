"""JSON Lines, the interchange format of docs/record-format.md: parsing lines into envelopes
with errors that carry the line number, and writing exports.

An export line is the canonical encoding (see `ledger.canonical`) of the full envelope,
`hash` included, followed by `\\n`. Because that form is unique, a verifier can insist on it
and catch a change to any byte of an exported file, white space included.
"""

from __future__ import annotations

import codecs
import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from ledger.canonical import canonical_json, envelope_bytes
from ledger.catalogue import naming_problem
from ledger.envelope import (
    MAX_SEQ,
    NewEvent,
    RecordedEvent,
    check_event_id,
    check_event_type,
    check_hash,
    check_object,
    check_position,
    check_positive,
    check_recorded_at,
    check_stream,
    check_type,
    new_event_id,
)
from ledger.errors import LedgerError

ENVELOPE_FIELDS = frozenset(RecordedEvent.__dataclass_fields__)
"""Every envelope field. An import line may carry any of them (anything else is refused, not
silently dropped); an export line carries all of them."""


class JsonlError(LedgerError):
    """A line of a JSON Lines file that is not a valid envelope; `line` is 1-based."""

    def __init__(self, line: int, problems: list[str]) -> None:
        self.line = line
        self.problems = list(problems)
        super().__init__(f"line {line}: " + "; ".join(self.problems))


@dataclass(frozen=True)
class ImportLine:
    """One valid line of an import file. `version`, when given, is the version the event must
    get; `hash`, when given, is compared with the hash the ledger computes for it."""

    line: int
    stream: str
    event: NewEvent
    version: int | None
    hash: str | None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"key {key!r} appears twice in one object")
        result[key] = value
    return result


def parse_line(raw: bytes | str, line: int) -> dict[str, Any]:
    """The JSON object on one line. Raises `JsonlError`, and nothing else, for any text that
    is not a single JSON object in UTF-8 with unique keys."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if text.startswith("\ufeff"):
            raise JsonlError(
                line,
                [
                    "the line starts with a byte order mark (bytes EF BB BF): only the first "
                    "line of a file may carry one; remove it"
                ],
            )
        value = json.loads(
            text, object_pairs_hook=_no_duplicate_keys, parse_constant=_refuse_constant
        )
    except UnicodeDecodeError as exc:
        raise JsonlError(line, [f"not valid UTF-8 at byte {exc.start}"]) from None
    except RecursionError:
        raise JsonlError(line, ["JSON nested too deeply"]) from None
    except ValueError as exc:
        raise JsonlError(line, [f"not valid JSON: {exc}"]) from None
    if not isinstance(value, dict):
        raise JsonlError(line, ["each line must be one JSON object"])
    return value


def import_line(obj: dict[str, Any], line: int) -> ImportLine:
    """Check one parsed line against the import rules of docs/record-format.md. Raises
    `JsonlError` that lists every problem of the line."""
    problems = [f"unknown field {k!r}" for k in sorted(set(obj) - ENVELOPE_FIELDS)]
    for required in ("stream", "type", "payload"):
        if required not in obj:
            problems.append(f"missing required field {required!r}")
    stream = obj.get("stream")
    if "stream" in obj:
        problems += check_stream(stream)
    if "type" in obj:
        problems += check_type(stream, obj["type"])
    if "payload" in obj:
        problems += check_object("payload", obj["payload"])
    if "meta" in obj:
        problems += check_object("meta", obj["meta"])
    if "event_id" in obj:
        problems += check_event_id(obj["event_id"])
    for name in ("version", "schema"):
        if name in obj:
            problems += check_positive(name, obj[name])
    if "seq" in obj:
        problems += check_positive("seq", obj["seq"], MAX_SEQ)
    if "recorded_at" in obj:
        problems += check_recorded_at(obj["recorded_at"])
    for name in ("prev_hash", "hash"):
        if name in obj:
            problems += check_hash(name, obj[name])
    if not problems and "version" in obj:
        misplaced = check_position(obj["stream"], obj["type"], obj["version"])
        problems += [misplaced] if misplaced else []
    if problems:
        raise JsonlError(line, problems)
    event = NewEvent(
        type=obj["type"],
        payload=obj["payload"],
        meta=obj.get("meta", {}),
        event_id=obj.get("event_id") or new_event_id(),
        schema=obj.get("schema", 1),
        recorded_at=obj.get("recorded_at"),
    )
    return ImportLine(line, obj["stream"], event, obj.get("version"), obj.get("hash"))


def exported_event(obj: dict[str, Any], line: int) -> RecordedEvent:
    """The recorded event on one line of an export. Raises `JsonlError` when a field is
    missing, unknown or malformed. The event type is not looked up in the catalogue: an
    export written by a newer Arbitru, with types added since, verifies all the same."""
    problems = [f"unknown field {k!r}" for k in sorted(set(obj) - ENVELOPE_FIELDS)]
    problems += [f"missing field {k!r}" for k in sorted(ENVELOPE_FIELDS - set(obj))]
    if problems:
        raise JsonlError(line, problems)
    stream = obj["stream"]
    problems = (
        check_positive("seq", obj["seq"], MAX_SEQ)
        + check_event_id(obj["event_id"])
        + check_stream(stream)
        + check_positive("version", obj["version"])
        + check_event_type(obj["type"])
        + check_positive("schema", obj["schema"])
        + check_object("payload", obj["payload"])
        + check_object("meta", obj["meta"])
        + check_recorded_at(obj["recorded_at"])
        + check_hash("prev_hash", obj["prev_hash"])
        + check_hash("hash", obj["hash"])
    )
    if problems:
        raise JsonlError(line, problems)
    return RecordedEvent(**{k: obj[k] for k in RecordedEvent.__dataclass_fields__})


def row_line(row: Sequence[Any]) -> bytes:
    """The export line of a row (seq, event_id, stream, version, type, schema, payload, meta,
    recorded_at, prev_hash, hash) whose payload and meta are canonical JSON bytes: the
    canonical full envelope, `hash` included, and a newline."""
    return envelope_bytes(row, row[10]) + b"\n"


def export_line(event: RecordedEvent) -> bytes:
    """The export form of an event: its canonical full envelope and a newline, in UTF-8."""
    return row_line(event_row(event))


def event_row(event: RecordedEvent) -> tuple[Any, ...]:
    """An event as a row in column order, with payload and meta as canonical JSON bytes."""
    return (
        event.seq,
        event.event_id,
        event.stream,
        event.version,
        event.type,
        event.schema,
        canonical_json(event.payload).encode(),
        canonical_json(event.meta).encode(),
        event.recorded_at,
        event.prev_hash,
        event.hash,
    )


def write_export(events: Iterable[RecordedEvent], out: IO[bytes]) -> int:
    """Write events as JSON Lines in UTF-8 to a binary file (no newline translation, so
    the bytes are exactly the export form); returns how many were written."""
    return write_rows((export_line(event) for event in events), out)


def write_rows(lines: Iterable[bytes], out: IO[bytes]) -> int:
    """Write export lines to a binary file; returns how many were written."""
    count = 0
    for line in lines:
        out.write(line)
        count += 1
    return count


def numbered_lines(source: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of an import file with their 1-based numbers; a UTF-8 byte order
    mark opening line 1 is dropped. Lines are split on `\\n` only: U+2028 and friends are
    legal inside JSON strings."""
    for number, raw in enumerate(source, start=1):
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        if raw.strip():
            yield number, raw


PayloadCheck = Callable[[str, int, dict[str, Any], dict[str, Any]], str | None]
"""A check of an event's payload beyond its envelope, given (type, schema, payload, meta):
the problem as one sentence, or None. The pipelines pass the engine's event decoder; the ledger
itself knows envelopes only."""


def import_lines(
    source: Iterable[bytes], payload_check: PayloadCheck | None = None
) -> Iterator[ImportLine | JsonlError]:
    """Every non-blank line of an import file, checked, in file order: a valid line or the
    error of a bad one, read one at a time so that a file of any size takes little memory.
    Beyond single lines, an `event_id` may appear only once in a file (only the ids and
    their line numbers are remembered), `payload_check`, when given, is asked about every
    line whose envelope is valid, and an opening event must name its own stream's id
    (`catalogue.naming_problem`): one game or tournament id is one stream."""
    first_seen: dict[bytes, int] = {}
    for number, raw in numbered_lines(source):
        try:
            parsed = import_line(parse_line(raw, number), number)
        except JsonlError as exc:
            yield exc
            continue
        event = parsed.event
        earlier = first_seen.setdefault(uuid.UUID(event.event_id).bytes, number)
        if earlier != number:
            yield JsonlError(number, [f"event_id {event.event_id} already on line {earlier}"])
            continue
        problem = (
            payload_check(event.type, event.schema, event.payload, event.meta)
            if payload_check
            else None
        ) or naming_problem(parsed.stream, event.type, event.payload)
        yield JsonlError(number, [problem]) if problem else parsed
