"""A stored payload read into its typed event, and an event written back.

`decode_event` turns a stored payload into an event (`events`), upcasting older payload schemas
first, and refuses a payload that does not fit with an `EventDecodeError` naming the field;
`encode_event` writes an event back as (type, schema, payload); `decode_recorded` and
`read_recorded` read a whole envelope, with the meta facts the rules use, into a `Recorded`.
Each field is read by its type as the event class declares it, so that a new event type needs
no reader of its own.
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, dataclass, fields
from datetime import UTC, datetime
from typing import Any, Union, get_args, get_origin, get_type_hints

from engine.games.events import (
    DRAW_MODES,
    EVENT_TYPES,
    VARIANTS,
    DictionaryRef,
    Event,
    Recorded,
    Undecodable,
)
from engine.tiles import JOKER, fold

CURRENT_SCHEMA = 1
"""The payload schema this engine writes; older schemas are upcast on decoding."""

_HEX64 = re.compile(r"^[0-9a-f]{64}\Z")


class EventDecodeError(ValueError):
    """A stored payload does not fit its event type; `field` names the offending field."""

    def __init__(self, type_name: str, field_name: str, problem: str) -> None:
        self.type_name = type_name
        self.field = field_name
        self.problem = problem
        where = f"{type_name}.{field_name}" if field_name else type_name
        super().__init__(f"{where}: {problem}")


# --- upcasting ---------------------------------------------------------------------------

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

UPCASTERS: Mapping[tuple[str, int], Upcaster] = types.MappingProxyType({})
"""(type, schema) -> a function turning that payload into the payload of schema + 1.

Schema 1 is current, so the table is empty: when a payload changes shape, bump
`CURRENT_SCHEMA` and add the step from the old schema here, never editing stored records.
"""


def upcast(type_name: str, schema: int, payload: dict[str, Any]) -> dict[str, Any]:
    """The payload brought to the current schema, one step at a time."""
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        raise EventDecodeError(type_name, "schema", f"expected a whole number >= 1, got {schema!r}")
    if schema > CURRENT_SCHEMA:
        raise EventDecodeError(
            type_name,
            "schema",
            f"schema {schema} is newer than this version of Arbitru reads ({CURRENT_SCHEMA});"
            " upgrade Arbitru",
        )
    while schema < CURRENT_SCHEMA:
        step = UPCASTERS.get((type_name, schema))
        if step is None:
            raise EventDecodeError(type_name, "schema", f"no upcaster from schema {schema}")
        payload = step(payload)
        schema += 1
    return payload


# --- decoding ----------------------------------------------------------------------------


def _text(type_name: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise EventDecodeError(type_name, name, f"expected a string, got {value!r}")
    return value


def _whole(type_name: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EventDecodeError(type_name, name, f"expected a whole number, got {value!r}")
    return value


def parse_time(value: Any, type_name: str = "meta", name: str = "received_at") -> datetime:
    """An ISO 8601 time as an aware UTC datetime (a time without offset is taken as UTC)."""
    if not isinstance(value, str):
        raise EventDecodeError(type_name, name, f"expected an ISO 8601 UTC time, got {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise EventDecodeError(
            type_name,
            name,
            f"expected an ISO 8601 UTC time such as 2026-05-01T18:00:00Z, got {value!r}",
        ) from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-01:00 is in no year of the calendar in UTC
        raise EventDecodeError(
            type_name, name, f"{value!r} is out of range: it falls outside the calendar in UTC"
        ) from None


def format_time(moment: datetime) -> str:
    """A time as the record format writes it: ISO 8601 in UTC with a `Z`."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _tiles(type_name: str, name: str, value: Any) -> str:
    text = _text(type_name, name, value)
    tiles = "".join(fold(text).split()).upper()
    for ch in tiles:
        if ch != JOKER and not ("A" <= ch <= "Z"):
            raise EventDecodeError(
                type_name, name, f"{text!r}: {ch!r} is not a tile (letters A-Z, '?' a joker)"
            )
    return tiles


def _positive(type_name: str, name: str, value: Any) -> Any:
    if value < 1:
        raise EventDecodeError(type_name, name, f"expected a whole number >= 1, got {value}")
    return value


def _variant(type_name: str, name: str, value: Any) -> Any:
    if value not in VARIANTS:
        raise EventDecodeError(
            type_name, name, f"expected one of {', '.join(VARIANTS)}, got {value!r}"
        )
    return value


def _draw_mode(type_name: str, name: str, value: Any) -> Any:
    if value not in DRAW_MODES:
        raise EventDecodeError(type_name, name, f"expected manual or seeded, got {value!r}")
    return value


def _commitment(type_name: str, name: str, value: Any) -> Any:
    if value is not None and not _HEX64.match(value):
        raise EventDecodeError(type_name, name, "expected a SHA-256 in lowercase hex (64 digits)")
    return value


def _id(type_name: str, name: str, value: Any) -> Any:
    if value is not None and not value.strip():
        raise EventDecodeError(type_name, name, "expected a non-empty id")
    return value


_RULES: Mapping[str, Callable[[str, str, Any], Any]] = {
    "round": _positive,
    "part": _positive,
    "points": _positive,
    "variant": _variant,
    "draw": _draw_mode,
    "seed_commitment": _commitment,
}
"""Field rules that hold whatever the event (positive rounds, known variants), by field name;
every field named `..._id` must also be set (`_id`)."""


def _dictionary(type_name: str, _field: str, value: Any) -> DictionaryRef:
    if not isinstance(value, dict):
        raise EventDecodeError(type_name, "dictionary", f"expected an object, got {value!r}")
    name = value.get("name")
    sha256 = value.get("sha256")
    words = value.get("words")
    if name is not None:
        _text(type_name, "dictionary.name", name)
    if sha256 is not None and not (isinstance(sha256, str) and _HEX64.match(sha256)):
        raise EventDecodeError(
            type_name, "dictionary.sha256", "expected a SHA-256 in lowercase hex (64 digits)"
        )
    if words is not None and (_whole(type_name, "dictionary.words", words) < 0):
        raise EventDecodeError(type_name, "dictionary.words", f"expected a count >= 0, got {words}")
    return DictionaryRef(name, sha256, words)


def _time(type_name: str, name: str, value: Any) -> datetime:
    return parse_time(value, type_name, name)


def _tile_list(type_name: str, name: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise EventDecodeError(type_name, name, f"expected a list, got {value!r}")
    return tuple(_tiles(type_name, f"{name}[{i}]", v) for i, v in enumerate(value))


def _object(type_name: str, name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise EventDecodeError(type_name, name, f"expected an object, got {value!r}")
    return dict(value)


@dataclass(frozen=True)
class _FieldPlan:
    """How one payload field is decoded: its reader (by the field's type), the rule its value
    must then meet, whether it may be null or left out."""

    name: str
    read: Callable[[str, str, Any], Any]
    rule: Callable[[str, str, Any], Any] | None
    optional: bool
    required: bool


def _field_plan(type_name: str, f: Field[Any], hints: dict[str, Any]) -> _FieldPlan:
    hint = hints[f.name]
    optional = get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint)
    base = next((a for a in get_args(hint) if a is not type(None)), hint) if optional else hint
    read: Callable[[str, str, Any], Any]
    if base is str:
        read = _tiles if f.name == "drawn" else _text
    elif base is int:
        read = _whole
    elif base is datetime:
        read = _time
    elif base is DictionaryRef:
        read = _dictionary
    elif get_origin(base) is tuple:
        read = _tile_list
    elif get_origin(base) is dict:
        read = _object
    else:
        raise AssertionError(f"{type_name}.{f.name}: no decoder for {hint!r}")
    rule = _RULES.get(f.name) or (_id if f.name.endswith("_id") else None)
    required = f.default is MISSING and f.default_factory is MISSING
    return _FieldPlan(f.name, read, rule, optional, required)


@functools.cache
def _plan(type_name: str) -> tuple[_FieldPlan, ...]:
    """An event type's fields as decoded, worked out once from its class, when an event of the
    type is first decoded: a replay decodes every event of the ledger, and reading the dataclass
    fields and type hints on each cost more than checking the values (and working them out for
    every type on import, when a game records a few of them, cost more than the import needs)."""
    cls = EVENT_TYPES[type_name]
    hints = get_type_hints(cls)
    return tuple(_field_plan(type_name, f, hints) for f in fields(cls))


def decode_event(type_name: str, schema: int, payload: Any) -> Event:
    """The typed event of a stored payload (upcast from `schema` first).

    Fields the event type does not know are ignored (the record format may add optional
    fields); a missing required field or a value of the wrong kind raises `EventDecodeError`.
    """
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise EventDecodeError(type_name, "", f"unknown event type {type_name!r}")
    if not isinstance(payload, dict):
        raise EventDecodeError(type_name, "payload", f"expected an object, got {payload!r}")
    payload = upcast(type_name, schema, payload)
    values: dict[str, Any] = {}
    for plan in _plan(type_name):
        name = plan.name
        if name not in payload:
            if plan.required:
                raise EventDecodeError(type_name, name, "missing")
            continue
        value = payload[name]
        if value is not None or not plan.optional:
            value = plan.read(type_name, name, value)
        values[name] = value if plan.rule is None else plan.rule(type_name, name, value)
    return cls(**values)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, DictionaryRef):
        return {k: v for k, v in vars(value).items() if v is not None}
    if isinstance(value, tuple):
        return list(value)
    return value


def encode_event(event: Event) -> tuple[str, int, dict[str, Any]]:
    """(type, schema, payload) of an event; optional fields left at their default are omitted."""
    payload: dict[str, Any] = {}
    for f in fields(event):
        value = getattr(event, f.name)
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        if default is not MISSING and value == default:
            continue
        payload[f.name] = _plain(value)
    return type(event).__name__, CURRENT_SCHEMA, payload


def _meta_text(meta: Mapping[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) else None


def decode_recorded(
    type_name: str,
    schema: int,
    payload: Any,
    meta: Mapping[str, Any] | None = None,
    *,
    event_id: str = "",
    seq: int | None = None,
    version: int = 0,
) -> Recorded:
    """A stored envelope as a `Recorded` event; raises `EventDecodeError` like `decode_event`
    (and for a `meta.received_at` that is not an ISO time)."""
    meta = meta or {}
    event = decode_event(type_name, schema, payload)
    raw_time = meta.get("received_at")
    received_at = None if raw_time is None else parse_time(raw_time)
    return Recorded(event, event_id, seq, version, received_at=received_at, **_meta_of(meta))


def read_recorded(
    type_name: str, schema: int, payload: Any, meta: Mapping[str, Any] | None = None, **where: Any
) -> Recorded:
    """Like `decode_recorded`, which is handed the same arguments (`where`: event_id, seq
    and version), but never raises: an envelope that does not decode becomes an
    `Undecodable` event, which a game keeps as ignored with the decoding error as reason."""
    try:
        return decode_recorded(type_name, schema, payload, meta, **where)
    except EventDecodeError as exc:
        schema_number = schema if isinstance(schema, int) else 0
        event = Undecodable(type_name, schema_number, payload, str(exc))
        return Recorded(event=event, **_meta_of(meta), **where)


def _meta_of(meta: Mapping[str, Any] | None) -> dict[str, str | None]:
    """The meta facts a `Recorded` keeps besides the time: who recorded it, from what."""
    return {key: _meta_text(meta or {}, key) for key in ("actor", "source")}
