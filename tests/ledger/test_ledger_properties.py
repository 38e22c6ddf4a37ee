"""Property tests: any JSON payload the ledger accepts survives export and verification
byte for byte, the fast canonical encoder agrees with its definition, and the JSON Lines
reader turns any input whatsoever into either envelopes or its own error."""

from __future__ import annotations

import contextlib
import io
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import EventStore, NewEvent, verify_file, write_export
from ledger.canonical import canonical_bytes, canonical_json, envelope_bytes
from ledger.envelope import MAX_SAFE_INTEGER, check_new_event, check_object
from ledger.jsonl import (
    ImportLine,
    JsonlError,
    exported_event,
    import_line,
    import_lines,
    parse_line,
)

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER) | _text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_text, children, max_size=4),
    max_leaves=20,
)
_objects = st.dictionaries(_text, _json, max_size=6)
_counter = itertools.count()


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EventStore]:
    path: Path = tmp_path_factory.mktemp("props") / "ledger.db"
    with EventStore(f"sqlite:///{path}") as store:
        yield store


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=_objects, meta=_objects)
def test_any_accepted_payload_round_trips_through_export_and_verify(
    shared_store: EventStore, payload: dict, meta: dict
) -> None:
    stream = f"game/p{next(_counter)}"
    (recorded,) = shared_store.append(stream, [NewEvent("GameCreated", payload, meta)], 0)
    (stored,) = shared_store.read_stream(stream)
    assert stored == recorded
    export = io.BytesIO()
    write_export(shared_store.iter_all(), export)
    result = verify_file(io.BytesIO(export.getvalue()))
    assert result.ok, result.problem
    assert result.last_hash == shared_store.head().hash
    last_line = export.getvalue().splitlines()[-1]
    assert exported_event(parse_line(last_line, 1), 1) == recorded


@given(payload=_objects, meta=_objects, seq=st.integers(1, 2**40), version=st.integers(1, 2**31))
def test_the_fast_envelope_encoder_agrees_with_the_canonical_definition(
    payload: dict, meta: dict, seq: int, version: int
) -> None:
    envelope = {
        "seq": seq,
        "event_id": "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d",
        "stream": "game/x",
        "version": version,
        "type": "RackDrawn",
        "schema": 1,
        "payload": payload,
        "meta": meta,
        "recorded_at": "2026-11-30T08:07:35.123456Z",
        "prev_hash": "ab" * 32,
    }
    row = (
        seq, envelope["event_id"], "game/x", version, "RackDrawn", 1,
        canonical_json(payload).encode(), canonical_json(meta).encode(),
        envelope["recorded_at"], "ab" * 32,
    )  # fmt: skip
    assert envelope_bytes(row) == canonical_bytes(envelope)
    with_hash = envelope_bytes(row, "cd" * 32)
    assert with_hash == canonical_json({**envelope, "hash": "cd" * 32}).encode()


@given(st.one_of(st.text(), st.binary()))
def test_the_line_parser_raises_nothing_but_its_own_error(raw: str | bytes) -> None:
    try:
        value = parse_line(raw, 1)
    except JsonlError:
        return
    with contextlib.suppress(JsonlError):
        import_line(value, 1)


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "stream",
                "type",
                "payload",
                "meta",
                "event_id",
                "version",
                "schema",
                "seq",
                "recorded_at",
                "prev_hash",
                "hash",
                "x",
            ]
        ),
        _json,
    )
)
def test_envelope_checks_raise_nothing_but_their_own_error(obj: dict) -> None:
    for check in (import_line, exported_event):
        with contextlib.suppress(JsonlError):
            check(obj, 1)


@given(st.binary(max_size=400))
def test_reading_an_import_file_never_raises(data: bytes) -> None:
    assert all(isinstance(x, ImportLine | JsonlError) for x in import_lines(io.BytesIO(data)))


@given(_objects)
def test_accepted_objects_have_a_canonical_encoding(value: dict) -> None:
    assert check_object("payload", value) == []
    canonical_json(value).encode("utf-8")


_near_valid_lines = st.fixed_dictionaries(
    {
        "stream": st.sampled_from(["game/g1", "tournament/t1", "Game/g1", "game/", 7]),
        "type": st.sampled_from(["GameCreated", "RackDrawn", "PlayerRegistered", "Nope", 1]),
        "payload": st.one_of(_objects, _json),
    },
    optional={
        "meta": st.one_of(_objects, _json),
        "event_id": st.sampled_from(
            ["6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d", "6F1C8A52-3D4E-4B7A-9C1D-2E3F4A5B6C7D", "x"]
        ),
        "schema": st.integers(-1, 2**32),
        "recorded_at": st.sampled_from(
            ["2026-11-30T08:07:35.123456Z", "2026-02-30T08:07:35.123456Z", "yesterday"]
        ),
    },
)


@given(_near_valid_lines)
def test_an_accepted_import_line_passes_every_check_of_an_append(obj: dict) -> None:
    """An import appends its lines without checking their envelopes a second time: whatever
    `import_line` accepts, `check_new_event` must accept too."""
    try:
        line = import_line(obj, 1)
    except JsonlError:
        return
    assert check_new_event(line.stream, line.event) == []
