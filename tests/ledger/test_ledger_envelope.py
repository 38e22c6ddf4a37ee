"""Envelope checks and the JSON Lines reader: every defect of a line is reported, with its
line number, and nothing but the ledger's own error escapes."""

from __future__ import annotations

import io
import json

import pytest

from ledger.envelope import NewEvent, check_new_event, check_object
from ledger.jsonl import ImportLine, JsonlError, import_line, import_lines, parse_line

UUID = "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d"


def _line(**fields: object) -> dict[str, object]:
    return {"stream": "game/g1", "type": "GameCreated", "payload": {"game_id": "g1"}, **fields}


def test_a_minimal_import_line_gets_an_event_id_and_schema_1() -> None:
    parsed = import_line(_line(), 1)
    assert parsed.stream == "game/g1"
    assert parsed.event.schema == 1
    assert len(parsed.event.event_id) == 36
    assert (parsed.version, parsed.hash, parsed.event.recorded_at) == (None, None, None)


def test_an_exported_line_keeps_recorded_at_and_hash_and_ignores_seq() -> None:
    parsed = import_line(
        _line(seq=9, recorded_at="2026-01-02T03:04:05.000006Z", prev_hash="0" * 64, hash="a" * 64),
        1,
    )
    assert parsed.event.recorded_at == "2026-01-02T03:04:05.000006Z"
    assert parsed.hash == "a" * 64


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"stream": "game/-x"}, "stream"),
        ({"stream": "game/" + "x" * 65}, "stream"),
        ({"stream": "player/x"}, "stream"),
        ({"type": "GameStarted"}, "not a known event type"),
        ({"type": "PlayerRegistered"}, "belongs on tournament streams"),
        ({"payload": "x"}, "payload must be a JSON object"),
        ({"payload": {"points": 1.0}}, "payload.points"),
        ({"payload": {"n": 2**53}}, "outside"),
        ({"payload": {"s": "a\x00b"}}, "U+0000"),
        ({"payload": {"s": "\ud800"}}, "surrogate"),
        ({"meta": None}, "meta must be a JSON object"),
        ({"event_id": UUID.upper()}, "lowercase"),
        ({"event_id": "123"}, "not a UUID"),
        ({"version": 0}, "version must be a positive integer"),
        ({"version": True}, "version must be a positive integer"),
        ({"version": 2}, "must be version 1"),
        ({"schema": "1"}, "schema must be a positive integer"),
        ({"recorded_at": "2026-11-30T08:07:35Z"}, "recorded_at"),
        ({"recorded_at": "2026-02-30T08:07:35.000000Z"}, "not a real date"),
        ({"hash": "ABC"}, "hash must be 64"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_a_bad_field_is_named(fields: dict[str, object], fragment: str) -> None:
    with pytest.raises(JsonlError) as caught:
        import_line(_line(**fields), 7)
    assert caught.value.line == 7
    assert fragment in str(caught.value)


def test_missing_required_fields_are_all_listed() -> None:
    with pytest.raises(JsonlError) as caught:
        import_line({}, 3)
    assert len(caught.value.problems) == 3


def test_payload_nesting_is_bounded() -> None:
    deep: dict[str, object] = {}
    cursor = deep
    for _ in range(40):
        cursor["a"] = {}
        cursor = cursor["a"]  # type: ignore[assignment]
    assert any("nested" in p for p in check_object("payload", deep))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{", "not valid JSON"),
        ("[]", "one JSON object"),
        ('{"a": 1, "a": 2}', "appears twice"),
        ('{"a": NaN}', "not a JSON number"),
        ("[" * 100_000, "JSON"),
        ('{"n": ' + "9" * 5000 + "}", "not valid JSON"),
    ],
)
def test_the_line_parser_raises_only_its_own_error(text: str, fragment: str) -> None:
    with pytest.raises(JsonlError, match=fragment):
        parse_line(text, 1)


def test_invalid_utf8_is_reported_with_its_line() -> None:
    with pytest.raises(JsonlError, match="UTF-8"):
        parse_line(b'{"a": "\xff"}', 4)


def test_lines_split_on_newline_only_and_blank_lines_are_skipped() -> None:
    line = json.dumps(_line(payload={"game_id": "g1", "t": "a\u2028b"}), ensure_ascii=False)
    data = ("\n" + line + "\n\n").encode("utf-8")
    (checked,) = import_lines(io.BytesIO(data))
    assert isinstance(checked, ImportLine) and checked.line == 2
    assert checked.event.payload["t"] == "a\u2028b"


def test_an_event_id_twice_in_one_file_is_an_error_on_the_second_line() -> None:
    line = json.dumps(_line(event_id=UUID))
    first, second = import_lines(io.BytesIO(f"{line}\n{line}\n".encode()))
    assert isinstance(first, ImportLine)
    assert isinstance(second, JsonlError) and second.line == 2 and "line 1" in str(second)


def test_a_new_event_is_checked_whole() -> None:
    problems = check_new_event("game/g1", NewEvent("RackDrawn", {"round": 1}))
    assert problems == []
