"""The canonical byte encoding of an envelope and the hash chain built on it.

This is the contract an independent verifier implements (README.md, "Canonical encoding"):
the JSON text of the envelope without `hash`, keys sorted by Unicode code point at every level,
no insignificant white space, non-ASCII characters written as themselves in UTF-8, integers
as plain decimal integers; then `hash = SHA-256(prev_hash || canonical bytes)`, where
`prev_hash` is taken as its 64 lowercase hexadecimal ASCII characters.
"""

from __future__ import annotations

import hashlib
import json
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
    """The canonical encoding of the hashed fields of `envelope` (extra keys are ignored)."""
    return _encoder.encode({k: envelope[k] for k in HASHED_FIELDS}).encode("utf-8")


def envelope_text(
    seq: int,
    event_id: str,
    stream: str,
    version: int,
    type_: str,
    schema: int,
    payload_json: str,
    meta_json: str,
    recorded_at: str,
    prev_hash: str,
) -> str:
    """The canonical envelope as text, assembled from the canonical JSON of `payload` and
    `meta`: the same result as `canonical_bytes` (a property test holds them equal), without
    building and sorting a dict, because appends and verification do this for every event."""
    if type(seq) is int and type(version) is int and type(schema) is int:
        try:
            return (
                f'{{"event_id":{encode_basestring(event_id)},"meta":{meta_json},'
                f'"payload":{payload_json},"prev_hash":{encode_basestring(prev_hash)},'
                f'"recorded_at":{encode_basestring(recorded_at)},"schema":{schema},'
                f'"seq":{seq},"stream":{encode_basestring(stream)},'
                f'"type":{encode_basestring(type_)},"version":{version}}}'
            )
        except TypeError:
            pass
    return canonical_json(
        {
            "seq": seq,
            "event_id": event_id,
            "stream": stream,
            "version": version,
            "type": type_,
            "schema": schema,
            "payload": json.loads(payload_json),
            "meta": json.loads(meta_json),
            "recorded_at": recorded_at,
            "prev_hash": prev_hash,
        }
    )


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
