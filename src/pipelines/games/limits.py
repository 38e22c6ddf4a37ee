"""What may come in: the limits of every text and number Arbitru records, as data, and the
checks that hold them, before anything is written.

A value recorded once is in the ledger for good, so it must fit every place it will reach: the
ledger's integer columns, the Parquet export's int32 columns, JSON's exact integers (2^53), a
Hive partition's folder name, a terminal. The command line and `ledger import` check the same
table (the server to come will too): `check_text`, `check_number`, `check_time` and
`check_id` for one value as it enters, `event_problem` for a whole event (payload and meta).
A refused value raises `LimitError` (exit 2), quoting at most `ECHO_LIMIT` characters of it.
`shown` is what every human view calls on recorded text, so that a control character is seen
escaped instead of acting on the screen.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from engine.echo import echo


class LimitError(ValueError):
    """A value outside its limits (exit code 2); the message names it and says what fits."""


@dataclass(frozen=True)
class TextLimit:
    """How long a text may be and what it may hold (never empty or blank). `controls`: it may
    hold control, invisible or bidi characters and other spaces than U+0020 (kept as written,
    shown escaped); `one_script`: its letters must all come from one script (no look-alikes)."""

    what: str
    longest: int
    controls: bool = False
    one_script: bool = False


@dataclass(frozen=True)
class NumberLimit:
    """The whole numbers a value may take, both ends included."""

    what: str
    least: int
    most: int


TEXTS: Mapping[str, TextLimit] = MappingProxyType(
    {
        "slip": TextLimit("a submission's text", 500, controls=True),
        "name": TextLimit("a name", 100, one_script=True),
        "title": TextLimit("a title", 200),
        "reason": TextLimit("a reason", 500),
        "source": TextLimit("a source", 200),
        "actor": TextLimit("an actor", 100),
        "label": TextLimit("a label (place, club, date, list name, seed)", 200),
        "word": TextLimit("a setting's word", 64),
    }
)
"""Every free text, by kind. Only a slip may hold control characters: it is recorded exactly as
the player wrote it (and shown escaped); a name, reason or source is the arbiter's."""

IDS: Mapping[str, tuple[str, int]] = MappingProxyType(
    {
        "id": (r"[A-Za-z0-9][A-Za-z0-9._-]*", 64),
        "season": (r"[A-Za-z0-9][A-Za-z0-9._-]*", 32),
        "account": (r"[a-z0-9][a-z0-9-]*", 64),
    }
)
"""Ids (players, games, tournaments, rulesets, setting keys) and seasons: ASCII letters, digits,
'.', '_' and '-', starting with a letter or digit, so one script and nothing invisible; a
season names a folder of the export, so it is short enough for any file system and, starting
with a letter or digit, never the no-season folder `__HIVE_DEFAULT_PARTITION__`, `.` or `..`.
Player ids are unique within a game without case, a rule of the game (`ana` and `ANA` are one
player: `engine.games.duplicate_evolve`). An account's id names its stream (`account/<id>`), so
it is written as a stream's id is: lowercase letters, digits and '-', starting with a letter or
digit; so are the game and tournament a role is granted on, which name streams too."""

_ID_SAID: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "id": ("an id", "ASCII letters, digits, '.', '_' or '-'"),
        "season": ("a season", "ASCII letters, digits, '.', '_' or '-'"),
        "account": ("an account id", "lowercase ASCII letters, digits or '-'"),
    }
)
"""What each kind of id is called in a refusal, and the characters it may hold."""

NUMBERS: Mapping[str, NumberLimit] = MappingProxyType(
    {
        "points": NumberLimit("a penalty's points", 1, 1_000),
        "setting": NumberLimit("a setting's number", 0, 1_000),
        "round": NumberLimit("a round", 1, 10_000),
        "part": NumberLimit("a part", 1, 9),
        "limit": NumberLimit("--limit", 1, 100_000),
        "workers": NumberLimit("--workers", 1, 64),
        "words": NumberLimit("a word list's size", 0, 100_000_000),
        "ranking_points": NumberLimit("a place's ranking points", 0, 1_000_000),
    }
)
"""Every number that comes in, by kind: small enough that a round's score (points, bonuses,
penalties) stays within the export's int32 columns whatever is added up."""

EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9998, 12, 31, 23, 59, 59, tzinfo=UTC)
"""The times that may be recorded (deadlines, arrivals): every one of them stays a valid time
in any zone and in the export's timestamp columns."""

TILES_LONGEST = 100
"""The most tiles a draw (or a draw put back) may name."""

DEEPEST = 4
"""How deeply a setting's value (lists in objects in lists...) may nest."""

LISTS_LONGEST = 100
"""The most items a list of a payload (draws put back, a setting's list) may hold."""

_FIELDS: Mapping[str, str] = MappingProxyType(
    {
        "text": "slip",
        "move": "slip",
        "name": "name",
        "title": "title",
        "reason": "reason",
        "source": "source",
        "actor": "actor",
        "starts_on": "label",
        "ends_on": "label",
        "federation": "label",
        "place": "label",
        "club": "label",
        "licence": "label",
        "seed": "label",
        "event_id": "label",
        "game_id": "id",
        "player_id": "id",
        "tournament_id": "id",
        "account_id": "account",
        "ruleset": "id",
        "season": "season",
        "round": "round",
        "part": "part",
        "points": "points",
        "deadline": "time",
        "received_at": "time",
        "drawn": "tiles",
        "rejected": "tiles",
        "settings": "settings",
        "dictionary": "dictionary",
    }
)
"""Which limit each payload or meta field of the record format is held to, by its name."""

_HIDDEN = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""Unicode categories a terminal does not show as a character: controls, invisible format
characters (zero-width, bidi overrides), private, surrogate, unassigned, line separators. A
text held to no control character must also be `str.isprintable`: none of these, and no other
space than U+0020 (a no-break space looks like one and is not, so two names would look the
same and differ)."""


def check_text(kind: str, value: str, where: str) -> str:
    """`value` as recorded (NFC-normalised), or LimitError saying what `where` must be."""
    limit = TEXTS[kind]
    if not limit.controls and not value.isascii():
        value = unicodedata.normalize("NFC", value)
    if not value.strip():
        raise LimitError(f"{where}: {limit.what} may not be empty or blank; write it out")
    if len(value) > limit.longest:
        raise LimitError(
            f"{where}: {echo(value)} is too long: {limit.what} has at most "
            f"{limit.longest:,} characters"
        )
    if not limit.controls and not value.isprintable():
        hidden = next(c for c in value if not c.isprintable())
        raise LimitError(
            f"{where}: {echo(value)} holds {_char_name(hidden)}: {limit.what} may hold no "
            "control, invisible or bidi character, nor another space than U+0020; retype it"
        )
    if "\x00" in value:
        raise LimitError(
            f"{where}: {echo(value)} holds the control character U+0000, which no database "
            f"column can hold; remove it"
        )
    if limit.one_script and not value.isascii():
        scripts = sorted({s for s in map(_script, value) if s})
        if len(scripts) > 1:
            raise LimitError(
                f"{where}: {echo(value)} mixes letters of {' and '.join(scripts)} scripts, "
                "which look alike; write it in one script"
            )
    return value


def check_id(kind: str, value: str, where: str) -> str:
    """An id or a season as recorded, or LimitError naming what fits."""
    pattern, longest = IDS[kind]
    what, characters = _ID_SAID[kind]
    if len(value) > longest or not re.fullmatch(pattern, value):
        raise LimitError(
            f"{where}: {echo(value)} is not {what}: use {characters}, at most {longest}, "
            "starting with a letter or digit"
        )
    return value


def check_number(kind: str, value: int, where: str) -> int:
    """`value` when it is a whole number within its limits, else LimitError."""
    limit = NUMBERS[kind]
    if isinstance(value, bool) or not isinstance(value, int):
        raise LimitError(f"{where}: {limit.what} is a whole number, not {echo(str(value))}")
    if not limit.least <= value <= limit.most:
        raise LimitError(
            f"{where}: {echo(str(value))} is out of range: {limit.what} goes from "
            f"{limit.least:,} to {limit.most:,}"
        )
    return value


def check_time(value: datetime, where: str) -> datetime:
    """A zoned time within EARLIEST..LATEST, or LimitError."""
    if not EARLIEST <= value <= LATEST:
        raise LimitError(
            f"{where}: {value.isoformat()} is out of range: give a time from "
            f"{EARLIEST:%Y-%m-%d} to {LATEST:%Y-%m-%d}"
        )
    return value


def shown(text: str) -> str:
    """`text` for a human view: every control, invisible or bidi character written as its
    escape (`\\x1b`, `\\u202e`), everything else as it is."""
    if text.isprintable() or not any(map(_hidden, text)):
        return text
    return "".join(
        ch.encode("unicode_escape").decode("ascii") if _hidden(ch) else ch for ch in text
    )


def event_problem(payload: Mapping[str, Any], meta: Mapping[str, Any]) -> str | None:
    """The first value of an event (payload or meta) outside its limits, as one sentence naming
    the field, or None. Fields the table does not know are held to the nesting limit only."""
    try:
        for part, values in (("payload", payload), ("meta", meta)):
            if not isinstance(values, Mapping):
                continue
            for name, value in values.items():
                if value is not None:
                    _check_field(name, value, f"{part}.{name}")
    except LimitError as exc:
        return str(exc)
    return None


def _check_field(name: str, value: Any, where: str) -> None:
    kind = _FIELDS.get(name)
    if kind is None:
        _nested(value, where, DEEPEST)
    elif kind == "time":
        if isinstance(value, str):
            _check_recorded_time(value, where)
    elif kind == "tiles":
        items = value if isinstance(value, list) else [value]
        _longest_list(items, where)
        for item in items:
            if isinstance(item, str) and len(item) > TILES_LONGEST:
                raise LimitError(
                    f"{where}: {echo(item)} is too long: a draw names at most {TILES_LONGEST} tiles"
                )
    elif kind == "settings":
        if isinstance(value, Mapping):
            check_settings(value, where)
    elif kind == "dictionary":
        if isinstance(value, Mapping):
            for key, item in value.items():
                if key == "words" and isinstance(item, int):
                    check_number("words", item, f"{where}.words")
                elif key == "name" and isinstance(item, str):
                    _recorded_text("label", item, f"{where}.name")
    elif isinstance(value, str) and kind in IDS:
        check_id(kind, value, where)
    elif isinstance(value, str) and kind in TEXTS:
        _recorded_text(kind, value, where)
    elif isinstance(value, int) and kind in NUMBERS:
        check_number(kind, value, where)


def check_settings(settings: Mapping[str, Any], where: str = "settings") -> Mapping[str, Any]:
    """A game's settings within limits: keys are ids, numbers and words within theirs, lists
    and objects no deeper than DEEPEST."""
    for key, value in settings.items():
        check_id("id", key, f"{where} key")
        _setting_value(value, f"{where}.{key}", DEEPEST)
    return settings


def _setting_value(value: Any, where: str, depth: int) -> None:
    if depth < 1:
        raise LimitError(f"{where}: nested too deeply: a setting nests at most {DEEPEST} levels")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        check_number("setting", value, where)
    elif isinstance(value, str):
        check_text("word", value, where)
    elif isinstance(value, list):
        _longest_list(value, where)
        for i, item in enumerate(value):
            _setting_value(item, f"{where}[{i}]", depth - 1)
    elif isinstance(value, Mapping):
        _longest_list(list(value), where)
        for key, item in value.items():
            check_id("id", str(key), f"{where} key")
            _setting_value(item, f"{where}.{key}", depth - 1)


def _nested(value: Any, where: str, depth: int) -> None:
    """A value no deeper than `depth` levels of lists and objects (walked without recursion
    beyond that, so a deep value cannot exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        item, left = stack.pop()
        if isinstance(item, list | Mapping):
            if left < 1:
                raise LimitError(f"{where}: nested too deeply (at most {depth} levels)")
            stack.extend(
                (v, left - 1) for v in (item.values() if isinstance(item, Mapping) else item)
            )


def _longest_list(items: list[Any], where: str) -> None:
    if len(items) > LISTS_LONGEST:
        raise LimitError(f"{where}: {len(items):,} items: a list holds at most {LISTS_LONGEST}")


def _recorded_text(kind: str, value: str, where: str) -> None:
    """A recorded text must already be as `check_text` would record it (an import cannot change
    it: its bytes are hashed)."""
    if check_text(kind, value, where) != value:
        raise LimitError(f"{where}: {echo(value)} is not in Unicode NFC form; normalise it")


def _check_recorded_time(value: str, where: str) -> None:
    """A recorded time within limits (one that does not parse is the event decoder's to
    refuse)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        check_time(moment, where)
    except OverflowError:
        raise LimitError(
            f"{where}: {echo(value)} is out of range: give a time from "
            f"{EARLIEST:%Y-%m-%d} to {LATEST:%Y-%m-%d}"
        ) from None


def _hidden(ch: str) -> bool:
    return unicodedata.category(ch) in _HIDDEN


def _char_name(ch: str) -> str:
    return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'a control character').lower()})"


def _script(ch: str) -> str | None:
    """The script of a letter, as the first word of its Unicode name (LATIN, CYRILLIC,
    GREEK...); None for what is not a letter (digits, spaces, punctuation)."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    return unicodedata.name(ch, "").split(" ", 1)[0] or None


def escaped(text: str) -> str:
    """Recorded text for a Rich view: `shown`, then markup escaped (a slip may hold
    brackets that Rich would otherwise read as markup)."""
    from rich.markup import escape

    return escape(shown(text))
