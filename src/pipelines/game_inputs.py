"""Reading what an arbiter types or hands over for `arbitru game`: players, times, settings,
and files of submissions (forum comments or typed slips, one per line).

Each reader returns values or raises `InputError` whose message names the file, the line and
the problem and says what to do; nothing here touches the ledger.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import unicodedata
from collections.abc import Collection
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pipelines.exits import OutputNotWritten, system_refused

_PLAYER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_FIELD_SEPARATOR = re.compile(r"\s*\|\s*|\t")
_TIME_START = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d")


class InputError(ValueError):
    """Input the CLI cannot use at all (exit code 2); the message says what to do."""


@dataclass(frozen=True)
class PlayerSpec:
    """A player as given on the command line or in a players file."""

    player_id: str
    name: str | None


@dataclass(frozen=True)
class SubmissionLine:
    """One submission of a file: who, what (exactly as written), when, and where it came from
    (`FILE:LINE`)."""

    player_id: str
    text: str
    received_at: datetime | None
    source: str


def parse_player(spec: str, where: str = "--player") -> PlayerSpec:
    """`id` or `id:Name` (a players file may also separate them with a tab)."""
    player_id, _, name = spec.replace("\t", ":", 1).partition(":")
    player_id, name = player_id.strip(), name.strip()
    if not _PLAYER_ID.fullmatch(player_id):
        raise InputError(
            f"{where}: {player_id!r} is not a player id: use letters, digits, '.', '_' or '-' "
            "(at most 64, starting with a letter or digit), optionally followed by ':Name'"
        )
    return PlayerSpec(player_id, name or None)


def read_players_file(path: Path) -> list[PlayerSpec]:
    """A players file: one `id` or `id:Name` per line; blank lines and `#` comments skipped."""
    players = []
    for number, line in _lines(path):
        players.append(parse_player(line, f"{path}, line {number}"))
    return players


def parse_time(text: str, where: str) -> datetime:
    """An ISO 8601 time with `Z` or an offset, as UTC. A time without a zone is refused:
    a hall's clock and the server's may differ, and a deadline must not be ambiguous."""
    try:
        value = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise InputError(
            f"{where}: {text!r} is not an ISO 8601 time; write e.g. 2026-11-30T18:00:00Z"
        ) from None
    if value.tzinfo is None:
        raise InputError(
            f"{where}: {text!r} has no time zone; add Z for UTC (2026-11-30T18:00:00Z) or an "
            "offset (2026-11-30T20:00:00+02:00)"
        )
    try:
        return value.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:00:00-05:00 is after the last day a date may hold
        raise InputError(
            f"{where}: {text!r} is out of range in UTC; write a time such as 2026-11-30T18:00:00Z"
        ) from None


def _looks_like_time(field: str) -> bool:
    """A field meant as a time (a date first): a malformed one is an error, not move text."""
    return bool(_TIME_START.match(field))


def parse_settings(items: list[str]) -> dict[str, object]:
    """`--set key=value` items as game settings; values are read as JSON when they parse
    (`10`, `true`, `"x"`), else kept as text (`players`)."""
    settings: dict[str, object] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--set {item!r}: write key=value, e.g. --set solo_bonus=10")
        try:
            value: object = json.loads(raw)
        except ValueError:
            value = raw.strip()
        if isinstance(value, float):
            raise InputError(f"--set {item!r}: settings are whole numbers or words, not {raw}")
        settings[key] = value
    return settings


class NotJoined(InputError):
    """A submissions file whose only fault is naming players who have not joined the game: the
    rules refuse it (exit 1), the file itself is fine."""


def read_submissions_file(
    path: Path, joined: Collection[str] | None = None
) -> list[SubmissionLine]:
    """A file of submissions, one per line: `PLAYER | TEXT` or `PLAYER | RECEIVED_AT | TEXT`
    (fields separated by `|` or a tab; the text kept exactly as written, unreadable or not).
    Blank lines and lines starting with `#` are skipped. Every bad line (without a player, or,
    given the players who have `joined`, naming another) is reported at once with its number,
    so that the whole file can be fixed in one go; `NotJoined` when strangers are the only
    fault."""
    found: list[SubmissionLine] = []
    problems: list[str] = []
    strangers: list[str] = []
    for number, line in _lines(path):
        control = next((ch for ch in line if ch != "\t" and unicodedata.category(ch) == "Cc"), None)
        if control is not None:
            problems.append(
                f"line {number}: holds the control character U+{ord(control):04X}; remove it"
            )
            continue
        fields = _FIELD_SEPARATOR.split(line, maxsplit=1)
        if len(fields) < 2 or not fields[1].strip():
            problems.append(
                f"line {number}: expected 'PLAYER | TEXT' or 'PLAYER | RECEIVED_AT | TEXT', "
                f"got {line!r}"
            )
            continue
        try:
            player = parse_player(fields[0], f"line {number}")
        except InputError as exc:
            problems.append(str(exc))
            continue
        if joined is not None and player.player_id not in joined:
            strangers.append(f"line {number}: {player.player_id} has not joined the game")
            continue
        text, received_at = fields[1], None
        first, *rest = _FIELD_SEPARATOR.split(text, maxsplit=1)
        if rest and _looks_like_time(first):
            try:
                received_at = parse_time(first, f"line {number}")
            except InputError as exc:
                problems.append(str(exc))
                continue
            text = rest[0]
        found.append(SubmissionLine(player.player_id, text, received_at, f"{path.name}:{number}"))
    if problems or strangers:
        fix = f"{path}: nothing was submitted; fix these lines: "
        every = sorted(problems + strangers, key=lambda p: int(p.split()[1].rstrip(":,")))
        raise (InputError if problems else NotJoined)(fix + "; ".join(every))
    if not found:
        raise InputError(f"{path}: no submission in the file (one 'PLAYER | TEXT' per line)")
    return found


def _lines(path: Path) -> list[tuple[int, str]]:
    """The numbered non-blank, non-comment lines of a UTF-8 text file."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory; give the path of a text file") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def default_seed_path(game_id: str) -> Path:
    """Where a generated seed is kept when no --seed-file is given: the private data
    directory (`ARBITRU_HOME`), one file per game."""
    from pipelines.lexicons import data_home

    return data_home() / "seeds" / f"{game_id}.seed"


def read_seed(path: Path) -> str:
    """The seed held in a file (its first line, without surrounding spaces)."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise InputError(
            f"{path}: no such seed file; give --seed-file with the file written when the game "
            "was created"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the seed file {path}: {exc}") from None
    seed = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not seed:
        raise InputError(f"{path}: the seed file is empty")
    return seed


def new_seed() -> str:
    """A fresh secret seed: 256 random bits in hex."""
    return secrets.token_hex(32)


def keep_seed(path: Path, seed: str) -> None:
    """Write a new seed file readable by its owner only; an existing file is never replaced
    (it may hold the seed another game committed to)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise InputError(f"{path} already exists; it is never overwritten") from None
    except OSError as exc:
        if system_refused(exc):
            raise OutputNotWritten(exc, path) from None
        raise InputError(f"cannot write the seed file {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(seed + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:  # a full disk: no empty seed file may stay to be committed to
        with suppress(OSError):
            path.unlink()
        raise OutputNotWritten(exc, path) from None
