"""Reading what an arbiter types or hands over for `arbitru game`: players, times, settings,
and files of submissions (forum comments or typed slips, one per line).

Each reader returns values or raises `InputError` whose message names the file, the line and
the problem and says what to do; nothing here touches the ledger. Files are opened through
`ledger.input_files` (regular files within a cap); a new game's seed must look random.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
from collections.abc import Collection
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from engine.echo import echo
from ledger.input_files import (
    PLAYERS,
    SEED,
    STDIN,
    SUBMISSIONS,
    InputFileError,
    Kind,
    read_input,
)
from pipelines.files.errors import OutputNotWritten, system_refused
from pipelines.files.text import lines
from pipelines.files.whole import beside, clear_leftovers, sync_folder
from pipelines.games import limits

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
            f"{where}: {echo(player_id)} is not a player id: use letters, digits, '.', '_' or "
            "'-' (at most 64, starting with a letter or digit), optionally followed by ':Name'"
        )
    try:
        name = limits.check_text("name", name, f"{where}: the name") if name else name
    except limits.LimitError as exc:
        raise InputError(str(exc)) from None
    return PlayerSpec(player_id, name or None)


def read_players_file(path: Path) -> list[PlayerSpec]:
    """A players file: one `id` or `id:Name` per line; blank lines and `#` comments skipped."""
    players = []
    for number, line in _lines(path, PLAYERS):
        players.append(parse_player(line, f"{path}, line {number}"))
    return players


def parse_time(text: str, where: str) -> datetime:
    """An ISO 8601 time with `Z` or an offset, as UTC. A time without a zone is refused:
    a hall's clock and the server's may differ, and a deadline must not be ambiguous."""
    try:
        value = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise InputError(
            f"{where}: {echo(text)} is not an ISO 8601 time; write e.g. 2026-11-30T18:00:00Z"
        ) from None
    if value.tzinfo is None:
        raise InputError(
            f"{where}: {echo(text)} has no time zone; add Z for UTC (2026-11-30T18:00:00Z) or "
            "an offset (2026-11-30T20:00:00+02:00)"
        )
    try:
        return limits.check_time(value.astimezone(UTC), where)
    except OverflowError:
        raise InputError(
            f"{where}: {echo(text)} is out of range: give a time from "
            f"{limits.EARLIEST:%Y-%m-%d} to {limits.LATEST:%Y-%m-%d}"
        ) from None
    except limits.LimitError as exc:
        raise InputError(str(exc)) from None


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
            raise InputError(f"--set {echo(item)}: write key=value, e.g. --set solo_bonus=10")
        try:
            value: object = json.loads(raw)
        except ValueError:
            value = raw.strip()
        except RecursionError:
            raise InputError(
                f"--set {echo(item)}: nested too deeply: a setting nests at most "
                f"{limits.DEEPEST} levels"
            ) from None
        if isinstance(value, float):
            raise InputError(
                f"--set {echo(item)}: settings are whole numbers or words, not {echo(raw)}"
            )
        settings[key] = value
    try:
        limits.check_settings(settings, "--set: settings")
    except limits.LimitError as exc:
        raise InputError(str(exc)) from None
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
    for number, line in _lines(path, SUBMISSIONS):
        if "\x00" in line:  # no database column can hold it (PostgreSQL's jsonb refuses it)
            problems.append(f"line {number}: holds the control character U+0000; remove it")
            continue
        fields = _FIELD_SEPARATOR.split(line, maxsplit=1)
        if len(fields) < 2 or not fields[1].strip():
            problems.append(
                f"line {number}: expected 'PLAYER | TEXT' or 'PLAYER | RECEIVED_AT | TEXT', "
                f"got {echo(line)}"
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
        try:
            limits.check_text("slip", text, f"line {number}")
        except limits.LimitError as exc:
            problems.append(str(exc))
            continue
        found.append(SubmissionLine(player.player_id, text, received_at, f"{path.name}:{number}"))
    if problems or strangers:
        fix = f"{path}: nothing was submitted; fix these lines: "
        every = sorted(problems + strangers, key=lambda p: int(p.split()[1].rstrip(":,")))
        raise (InputError if problems else NotJoined)(fix + "; ".join(every))
    if not found:
        raise InputError(f"{path}: no submission in the file (one 'PLAYER | TEXT' per line)")
    return found


def _lines(path: Path, kind: Kind) -> list[tuple[int, str]]:
    """The numbered non-blank, non-comment lines of a UTF-8 text file of `kind`."""
    try:
        text = read_input(path, kind).decode("utf-8-sig")
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    return [
        (number, line.strip())
        for number, line in enumerate(lines(text), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def default_seed_path(game_id: str) -> Path:
    """Where a generated seed is kept when no --seed-file is given: the private data
    directory (`ARBITRU_HOME`), one file per game."""
    from pipelines.lexicons.registry import data_home

    return data_home() / "seeds" / f"{game_id}.seed"


def read_seed(path: Path, *, fresh: bool = False) -> str:
    """The seed in a seed file, or on stdin for `-`: a text file's first line (the hex text
    Arbitru writes), or the hex of a file of raw bytes (`head -c 32 /dev/urandom`). A `fresh`
    seed, one a new game is about to commit to, must also look random (`seed_weakness`)."""
    try:
        data = read_input(path, SEED, stdin=True)
    except InputFileError as exc:
        if exc.missing:
            raise InputError(
                f"{path}: no such seed file; give --seed-file with the file written when the "
                "game was created"
            ) from None
        raise InputError(str(exc)) from None
    name = "stdin" if path == STDIN else str(path)
    text = _seed_text(data)
    if text is not None:
        seed = next(lines(text.strip())).strip()
        if not seed:
            raise InputError(f"{name}: the seed file is empty")
        random = bytes.fromhex(seed) if _HEX_SEED.fullmatch(seed) else None
    else:
        seed, random = data.hex(), data
    if fresh and (weakness := seed_weakness(random)) is not None:
        raise InputError(
            f"{name}: {weakness}, so its draws could be guessed: give a seed file of random "
            "bytes, made with `head -c 32 /dev/urandom > FILE`, or leave the file out and "
            "Arbitru writes one"
        )
    return seed


_HEX_SEED = re.compile(r"(?:[0-9a-fA-F]{2})+")
SEED_BYTES = 16
"""The fewest random bytes a new game's seed may hold."""


def _seed_text(data: bytes) -> str | None:
    """A seed file's content as text, or None for raw bytes (not UTF-8, or holding control
    characters other than line ends and tabs)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    return text if text.translate(_LINE_ENDS).isprintable() else None


_LINE_ENDS = str.maketrans("", "", "\r\n\t")


def seed_weakness(random: bytes | None) -> str | None:
    """Why a seed's bytes (None: a text that is not hex) do not look random, or None when
    they do: at least `SEED_BYTES` of them, with at least three quarters as many distinct
    values as that many random bytes show on average (12 of 16, 23 of 32), and no value four
    times in a row. Only a gross mistake is caught (a password, a counter, a repeated byte):
    a seed that passes is not thereby proven random."""
    if random is None:
        return "it holds text like a password, not random bytes or their hex"
    if len(random) < SEED_BYTES:
        return f"it holds {len(random)} bytes, fewer than the {SEED_BYTES} a seed needs"
    expected = 256 * (1 - (255 / 256) ** len(random))
    if len(set(random)) < math.ceil(0.75 * expected):
        return f"its {len(random)} bytes take only {len(set(random))} distinct values"
    if re.search(rb"(.)\1{3}", random, re.DOTALL):
        return "it repeats one byte four times in a row"
    return None


def new_seed() -> str:
    """A fresh secret seed: 256 random bits in hex."""
    return secrets.token_hex(32)


def keep_seed(path: Path, seed: str) -> None:
    """Write a new seed file readable by its owner only; an existing file is never replaced
    (it may hold the seed another game committed to). The seed goes to a temporary file
    beside it first, linked to `path` only once on disk, so that a full disk leaves no
    empty seed file to block the next run (`OutputNotWritten`, exit 3)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the seed file {path}: {exc.strerror or exc}") from None
    if path.exists() or path.is_symlink():
        raise InputError(f"{path} already exists; it is never overwritten")
    clear_leftovers(path)
    partial = beside(path, "partial")
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(f"{seed}\n".encode("ascii"))
            handle.flush()
            os.fsync(handle.fileno())
        os.link(partial, path)  # never replaces: fails if another run made `path` meanwhile
        sync_folder(path.parent)
    except FileExistsError:
        raise InputError(f"{path} already exists; it is never overwritten") from None
    except OSError as exc:
        if system_refused(exc):
            raise OutputNotWritten(exc, path) from None
        raise InputError(f"cannot write the seed file {path}: {exc.strerror or exc}") from None
    finally:
        with suppress(OSError):  # a folder that refused the write may refuse this too
            partial.unlink(missing_ok=True)
