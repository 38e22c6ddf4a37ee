"""The canonical byte encoding of an envelope and the hash chain built on it.

This is the contract an independent verifier implements (docs/record-format.md, "Canonical
encoding and hash chain"): the JSON text of the envelope without `hash`, keys sorted by Unicode
code point at every level, no insignificant white space, non-ASCII characters written as
themselves in UTF-8, integers as plain decimal integers; then
`hash = SHA-256(prev_hash || canonical bytes)`, where `prev_hash` is taken as its 64 lowercase
hexadecimal ASCII characters.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from json.encoder import encode_basestring
from typing import Any

GENESIS_HASH = "0" * 64
"""The `prev_hash` of the first event of a ledger (seq 1)."""

HASHED_FIELDS = (
    "seq",
    "event_id",
    "stream",
    "version",
    "type",
    "schema",
    "payload",
    "meta",
    "recorded_at",
    "prev_hash",
)
"""The envelope fields covered by the hash: every field but `hash` itself."""

_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of a JSON value (no floats: the envelope forbids them)."""
    return _encoder.encode(value)


def canonical_bytes(envelope: dict[str, Any]) -> bytes:
    """The canonical encoding of the hashed fields of `envelope` (extra keys are ignored),
    straight from the definition: the reference `envelope_bytes` is tested against."""
    return _encoder.encode({k: envelope[k] for k in HASHED_FIELDS}).encode("utf-8")


def envelope_bytes(row: Sequence[Any], hash_: str | None = None, prefix: str = "") -> bytes:
    """The canonical envelope in UTF-8, from an envelope as a row in column order (`seq`,
    `event_id`, `stream`, `version`, `type`, `schema`, `payload`, `meta`, `recorded_at`,
    `prev_hash`; anything after is ignored) whose `payload` and `meta` are their canonical
    JSON bytes, inserted as they are. Without `hash_` these are the hashed bytes; with it,
    the export line without its newline (`"hash"` sorts right after `"event_id"`). `prefix`
    goes in front: `prefix=prev_hash` gives the input of the chain hash in one piece.

    This is the one envelope encoder of the ledger: appends, verification (database and
    file) and exports all use it. It equals `canonical_bytes` (a property test holds them
    equal) without building and sorting a dict, because it runs once per event. Raises
    `TypeError` for a field of the wrong type (a bool or text where an integer belongs, bytes
    where text belongs) and `UnicodeEncodeError` for a lone surrogate."""
    seq, event_id, stream, version, type_, schema, payload, meta, recorded_at, prev_hash = row[:10]
    if type(seq) is not int or type(version) is not int or type(schema) is not int:
        raise TypeError("seq, version and schema must be integers")
    quote = encode_basestring
    hashed = "" if hash_ is None else f'"hash":{quote(hash_)},'
    head = f'{prefix}{{"event_id":{quote(event_id)},{hashed}"meta":'
    tail = (
        f',"prev_hash":{quote(prev_hash)},"recorded_at":{quote(recorded_at)},'
        f'"schema":{schema},"seq":{seq},"stream":{quote(stream)},'
        f'"type":{quote(type_)},"version":{version}}}'
    )
    return b"".join((head.encode(), meta, b',"payload":', payload, tail.encode()))


def chain_hash(prev_hash: str, canonical: bytes) -> str:
    """`SHA-256(prev_hash || canonical)` as 64 lowercase hex digits."""
    return hashlib.sha256(prev_hash.encode("ascii") + canonical).hexdigest()


def envelope_hash(envelope: dict[str, Any]) -> str:
    """The hash an envelope must carry, given its own `prev_hash`."""
    return chain_hash(envelope["prev_hash"], canonical_bytes(envelope))


def format_recorded_at(moment: datetime) -> str:
    """A moment in the one text form `recorded_at` takes: UTC, six fractional digits and a
    `Z`, e.g. `2026-11-30T08:07:35.123456Z`."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def now_recorded_at() -> str:
    """The current time as a `recorded_at` value."""
    return format_recorded_at(datetime.now(UTC))
