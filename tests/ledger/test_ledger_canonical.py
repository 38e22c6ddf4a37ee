"""The canonical encoding and the hash chain, pinned to the worked example of
docs/record-format.md so that the published specification and the code cannot drift apart."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ledger.canonical import (
    GENESIS_HASH,
    canonical_bytes,
    canonical_json,
    envelope_bytes,
    envelope_hash,
)

EXAMPLE = {
    "seq": 1,
    "event_id": "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d",
    "stream": "game/g1",
    "version": 1,
    "type": "GameCreated",
    "schema": 1,
    "payload": {"variant": "duplicate", "game_id": "g1", "title": "Cupa Brașov"},
    "meta": {"actor": "arb-1"},
    "recorded_at": "2026-11-30T08:07:35.123456Z",
    "prev_hash": GENESIS_HASH,
}
EXAMPLE_CANONICAL = (
    '{"event_id":"6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d","meta":{"actor":"arb-1"},'
    '"payload":{"game_id":"g1","title":"Cupa Brașov","variant":"duplicate"},'
    '"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000",'
    '"recorded_at":"2026-11-30T08:07:35.123456Z","schema":1,"seq":1,"stream":"game/g1",'
    '"type":"GameCreated","version":1}'
)
EXAMPLE_HASH = "93f67236e9441b1238a66cd2a426c9a86f84a03cf209e2328ebf33ed90060e70"


def test_the_canonical_encoding_sorts_keys_without_white_space_in_utf8() -> None:
    assert canonical_bytes(EXAMPLE) == EXAMPLE_CANONICAL.encode("utf-8")


def test_the_hash_is_sha256_of_prev_hash_hex_then_canonical_bytes() -> None:
    expected = hashlib.sha256(GENESIS_HASH.encode("ascii") + EXAMPLE_CANONICAL.encode()).hexdigest()
    assert envelope_hash(EXAMPLE) == expected == EXAMPLE_HASH


def test_the_hash_field_itself_is_not_hashed() -> None:
    assert canonical_bytes({**EXAMPLE, "hash": "f" * 64}) == canonical_bytes(EXAMPLE)


def test_the_fast_envelope_encoder_equals_the_definition() -> None:
    fields = dict(EXAMPLE)
    encoded = envelope_bytes(
        (
            fields["seq"],
            fields["event_id"],
            fields["stream"],
            fields["version"],
            fields["type"],
            fields["schema"],
            canonical_json(fields["payload"]).encode(),
            canonical_json(fields["meta"]).encode(),
            fields["recorded_at"],
            fields["prev_hash"],
        )
    )
    assert encoded == canonical_bytes(EXAMPLE)


def test_strings_escape_only_quote_backslash_and_control_characters() -> None:
    value = {"s": 'a"b\\c\nd\x01é€😀\u2028\x7f/'}
    assert canonical_json(value) == '{"s":"a\\"b\\\\c\\nd\\u0001é€😀\u2028\x7f/"}'


def test_keys_sort_by_code_point_not_by_utf16_unit() -> None:
    assert canonical_json({"😀": 1, "\uff5e": 2, "Z": 3, "a": 4}) == '{"Z":3,"a":4,"～":2,"😀":1}'


def test_the_record_format_doc_states_the_worked_example() -> None:
    spec = Path(__file__).parents[2] / "docs" / "record-format.md"
    text = spec.read_text(encoding="utf-8")
    assert EXAMPLE_CANONICAL in text
    assert EXAMPLE_HASH in text
