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

RECORDED_AT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
"""`recorded_at` is always UTC with microseconds, e.g. `2026-11-30T08:07:35.123456Z`."""

_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of a JSON value (no floats: the envelope forbids them)."""
    return _encoder.encode(value)


def canonical_bytes(envelope: dict[str, Any]) -> bytes:
    """The canonical encoding of the hashed fields of `envelope` (extra keys are ignored)."""
    return _encoder.encode({k: envelope[k] for k in HASHED_FIELDS}).encode("utf-8")


def chain_hash(prev_hash: str, canonical: bytes) -> str:
    """`SHA-256(prev_hash || canonical)` as 64 lowercase hex digits."""
    digest = hashlib.sha256(prev_hash.encode("ascii"))
    digest.update(canonical)
    return digest.hexdigest()


def envelope_hash(envelope: dict[str, Any]) -> str:
    """The hash an envelope must carry, given its own `prev_hash`."""
    return chain_hash(envelope["prev_hash"], canonical_bytes(envelope))


def format_recorded_at(moment: datetime) -> str:
    """A moment in the one text form `recorded_at` takes (UTC, microseconds, `Z`)."""
    return moment.astimezone(UTC).strftime(RECORDED_AT_FORMAT)


def now_recorded_at() -> str:
    """The current time as a `recorded_at` value."""
    return format_recorded_at(datetime.now(UTC))
