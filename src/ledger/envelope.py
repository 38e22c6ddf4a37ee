"""Envelopes: the event a caller hands to the ledger (`NewEvent`), the event the ledger has
recorded (`RecordedEvent`), and the checks every envelope passes before it is stored.

Only the envelope is checked here, never game rules: stream ids, known event types, JSON
objects of JSON values the canonical encoding can reproduce exactly, UUIDs, positive versions.
The check functions return every problem found rather than stopping at the first, because an
imported file is reported line by line, all at once.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ledger.catalogue import KNOWN_TYPES, STREAM_FORMAT, STREAM_KINDS, kinds_holding, stream_kind

STREAM_PATTERN = re.compile(f"^{STREAM_FORMAT}\\Z")

HASH_PATTERN = re.compile(r"^[0-9a-f]{64}\Z")
"""A SHA-256 digest in lowercase hex, as `prev_hash` and `hash` are written."""

UUID_PATTERN = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
"""An event id in the one form the ledger stores: lowercase, hyphenated."""

RECORDED_AT_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z\Z")

MAX_SAFE_INTEGER = 2**53 - 1
"""Integers in payload and meta stay within ±(2**53 - 1), so that verifiers written in
languages whose JSON numbers are doubles (JavaScript) re-encode them exactly."""

MAX_COUNTER = 2**31 - 1
"""The largest `version` and `schema`: both are 32-bit integer columns on every backend."""

MAX_SEQ = 2**63 - 1
"""The largest `seq`: a 64-bit integer column."""

MAX_DEPTH = 32
"""How deeply payload and meta may nest: far beyond any record, well within every parser."""


def new_event_id() -> str:
    """A fresh random event id (UUID 4, lowercase, hyphenated)."""
    return str(uuid.uuid4())


@dataclass(frozen=True)
class NewEvent:
    """An event to append. `event_id` is the idempotency key: appending the same id again
    stores it once. `recorded_at` is left `None` (the ledger stamps the time of the append)
    except when restoring an archive, whose events keep their original times."""

    type: str
    payload: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    event_id: str = field(default_factory=new_event_id)
    schema: int = 1
    recorded_at: str | None = None


@dataclass(frozen=True)
class RecordedEvent:
    """An event as the ledger holds it: the envelope of docs/record-format.md. `payload` and `meta`
    are plain dicts for convenience; treat them as read-only."""

    seq: int
    event_id: str
    stream: str
    version: int
    type: str
    schema: int
    payload: dict[str, Any]
    meta: dict[str, Any]
    recorded_at: str
    prev_hash: str
    hash: str

    def to_dict(self) -> dict[str, Any]:
        """Every envelope field, in the order an export writes them: the fields' own order,
        which is also the table's columns (`ledger.store` reads them in it)."""
        return asdict(self)


def is_positive_int(value: object) -> bool:
    """True for an int (not a bool) greater than zero."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def check_stream(stream: object) -> list[str]:
    """Problems with a stream id."""
    if not isinstance(stream, str):
        return [f"stream must be a string, got {_kind(stream)}"]
    if not STREAM_PATTERN.match(stream):
        return [
            f"stream {stream!r} is not {_KINDS_SAID} "
            "with an id of lowercase letters, digits and '-' (at most 64, not starting with '-')"
        ]
    return []


_KINDS_SAID = " or ".join(f"'{kind}/<id>'" for kind in STREAM_KINDS)


def check_type(stream: object, event_type: object) -> list[str]:
    """Problems with an event type, including a type that belongs on another kind of stream."""
    if not isinstance(event_type, str):
        return [f"type must be a string, got {_kind(event_type)}"]
    if event_type not in KNOWN_TYPES:
        return [f"type {event_type!r} is not a known event type (see docs/record-format.md)"]
    on_stream = isinstance(stream, str) and STREAM_PATTERN.match(stream)
    if on_stream and event_type not in stream_kind(str(stream)).types:
        kinds = "/".join(kinds_holding(event_type))
        return [f"type {event_type} belongs on {kinds} streams, not on {stream}"]
    return []


def check_event_id(event_id: object) -> list[str]:
    """Problems with an event id: it must be a UUID in lowercase hyphenated form."""
    if not isinstance(event_id, str):
        return [f"event_id must be a UUID string, got {_kind(event_id)}"]
    if UUID_PATTERN.match(event_id):
        return []
    try:
        parsed = uuid.UUID(event_id)
    except ValueError:
        return [f"event_id {event_id!r} is not a UUID"]
    if str(parsed) != event_id:
        return [f"event_id {event_id!r} must be written in lowercase hyphenated form {parsed}"]
    return []


def check_recorded_at(value: object) -> list[str]:
    """Problems with a `recorded_at` time, which has exactly one text form."""
    if not isinstance(value, str) or not RECORDED_AT_PATTERN.match(value):
        return [f"recorded_at {value!r} is not a UTC time like 2026-11-30T08:07:35.123456Z"]
    try:
        datetime.fromisoformat(value[:-1])
    except ValueError:
        return [f"recorded_at {value!r} is not a real date and time"]
    return []


def check_hash(name: str, value: object) -> list[str]:
    """Problems with a `prev_hash` or `hash` value."""
    if not isinstance(value, str) or not HASH_PATTERN.match(value):
        return [f"{name} must be 64 lowercase hexadecimal digits, got {value!r}"]
    return []


def check_positive(name: str, value: object, maximum: int = MAX_COUNTER) -> list[str]:
    """Problems with a field that must be an integer from 1 to `maximum` (2**31 - 1 for
    `version` and `schema`, which the database stores as 32-bit integers)."""
    if not is_positive_int(value):
        return [f"{name} must be a positive integer, got {value!r}"]
    if value > maximum:  # type: ignore[operator]
        return [f"{name} must be at most {maximum}, got {value!r}"]
    return []


def check_event_type(event_type: object) -> list[str]:
    """Problems with an event type as an export carries it: any non-empty string. The
    catalogue grows (docs/record-format.md), so verifying an export never consults it."""
    if not isinstance(event_type, str) or not event_type:
        return [f"type must be a non-empty string, got {event_type!r}"]
    return []


def check_object(name: str, value: object) -> list[str]:
    """Problems with `payload` or `meta`: a JSON object whose values the canonical encoding
    reproduces exactly (no floats, integers within ±(2**53 - 1), strings of valid Unicode
    without U+0000, which PostgreSQL cannot store)."""
    if not isinstance(value, dict):
        return [f"{name} must be a JSON object, got {_kind(value)}"]
    problems: list[str] = []
    _check_value(name, value, 0, problems)
    return problems


def check_new_event(stream: object, event: NewEvent) -> list[str]:
    """Every problem with an event about to be appended to `stream`."""
    return (
        check_stream(stream)
        + check_type(stream, event.type)
        + check_object("payload", event.payload)
        + check_object("meta", event.meta)
        + check_event_id(event.event_id)
        + check_positive("schema", event.schema)
        + ([] if event.recorded_at is None else check_recorded_at(event.recorded_at))
    )


def check_position(stream: str, event_type: str, version: int) -> str | None:
    """The structural problem, if any, with `event_type` landing at `version` of `stream`:
    version 1 must be the stream's opening event, and the opening event nowhere else."""
    opening = stream_kind(stream).opened_by
    if version == 1 and event_type != opening:
        return f"{stream} must start with {opening}: version 1 cannot be {event_type}"
    if version != 1 and event_type == opening:
        return f"{opening} must be version 1 of {stream}, not version {version}"
    return None


def _check_value(path: str, value: object, depth: int, problems: list[str]) -> None:
    if depth > MAX_DEPTH:
        problems.append(f"{path}: nested more than {MAX_DEPTH} levels deep")
        return
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            problems.append(f"{path}: integer {value} is outside ±(2**53 - 1)")
        return
    if isinstance(value, float):
        problems.append(f"{path}: numbers must be integers, {value!r} is not")
        return
    if isinstance(value, str):
        _check_text(path, value, problems)
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_value(f"{path}[{i}]", item, depth + 1, problems)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(f"{path}: keys must be strings, got {_kind(key)}")
                continue
            _check_text(f"{path} key {key!r}", key, problems)
            _check_value(f"{path}.{key}", item, depth + 1, problems)
        return
    problems.append(f"{path}: {_kind(value)} is not a JSON value")


def _check_text(path: str, text: str, problems: list[str]) -> None:
    if "\x00" in text:
        problems.append(f"{path}: strings may not contain U+0000")
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        problems.append(f"{path}: string contains a lone surrogate, not valid Unicode")


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    return names.get(type(value), type(value).__name__)
