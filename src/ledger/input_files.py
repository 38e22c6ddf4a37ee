"""Reading a file a user names: a regular file only, of a size its kind allows.

Every input file of the `arbitru` command (a board, a players or submissions file, a seed, a
key, a points table, a proof, a word list, an import) is opened here, so that one that is not a
file at all is refused at once and by name: a FIFO would block the command for ever, a device
such as /dev/zero would be read until memory runs out. The path is looked at before it is
opened, and opened without blocking (`O_NONBLOCK`) and looked at again, so that a FIFO put in
its place meanwhile is still refused. "No such file" is said only when there is none.

Each kind of file has a cap (`Kind.cap`, README "Input files"): a file above it is refused
before it is read, and one that grows past it while read too; an import is streamed, so it has
none. Where a command documents `-`, standard input is read instead, to the same cap.

Every file read is remembered (`read_inputs`), so that an output of the same command is never
written over one of its inputs (`pipelines.files.whole`). In the ledger, because the ledger
reads its own key files; the pipelines read all the others through it.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

KIB = 1 << 10
MIB = 1 << 20


@dataclass(frozen=True)
class Kind:
    """A kind of input file: what an error calls it, and the most bytes it may hold (None: no
    cap, the file is streamed)."""

    what: str
    cap: int | None


BOARD = Kind("board file", 16 * KIB)
PLAYERS = Kind("players file", 1 * MIB)
SUBMISSIONS = Kind("submissions file", 16 * MIB)
BATCH = Kind("batch file", None)
SEED = Kind("seed file", 4 * KIB)
KEY = Kind("key file", 16 * KIB)
POINTS = Kind("points table", 64 * KIB)
PROOF = Kind("proof file", 4 * MIB)
PUBLISHED_HEAD = Kind("published head file", 4 * KIB)
WORD_LIST = Kind("word list", 64 * MIB)
HUNSPELL = Kind("Hunspell file", 64 * MIB)
EVENTS = Kind("JSON Lines file", None)

STDIN = Path("-")
"""The file name that means standard input, where a command documents it."""

_NOT_FILES = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)

_read: set[tuple[int, int]] = set()


class InputFileError(ValueError):
    """An input file that cannot be read: missing (`missing`), not a regular file, too big,
    not readable. The message names the file and says what to do."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


def read_inputs() -> frozenset[tuple[int, int]]:
    """The (device, inode) of every input file read since `forget_inputs`."""
    return frozenset(_read)


def forget_inputs() -> None:
    """A new command begins: the files read by an earlier one (in the same process, a test's)
    are no longer its inputs."""
    _read.clear()


def _named(path: Path | str, longest: int = 240) -> str:
    """`path` for a message, cut after `longest` characters with its full length said (a
    mistyped path may be 100,000 characters; the file system's own error would repeat it)."""
    text = str(path)
    if len(text) <= longest:
        return text
    return f"{text[:longest]}… ({len(text):,} characters)"


def _size(cap: int) -> str:
    return f"{cap // MIB} MiB" if cap >= MIB else f"{cap // KIB} KiB"


def _refusal(path: Path, kind: Kind, mode: int) -> str | None:
    """Why a file of `mode` is no `kind`, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return (
        f"{kind.what} {_named(path)} is {special_kind(mode)}, not a regular file: give the path "
        "of a file"
    )


def special_kind(mode: int) -> str:
    """What a file of `mode` that is not a regular file is, in words, to name it in a refusal
    (of an input here, of an output in `pipelines.files.whole`)."""
    return next((name for test, name in _NOT_FILES if test(mode)), "a special file")


def _too_big(path: Path | str, kind: Kind, size: int) -> str:
    assert kind.cap is not None
    return (
        f"{kind.what} {_named(path)} holds {size} bytes or more, above the {_size(kind.cap)} a "
        f"{kind.what} may hold: give the right file"
    )


def open_input(path: Path, kind: Kind) -> BinaryIO:
    """`path` opened for reading, after checking that it is a regular file within `kind`'s cap
    (`InputFileError` otherwise); never blocks, whatever the path holds."""
    try:
        mode = os.stat(path).st_mode
        refused = _refusal(path, kind, mode)
        if refused is not None:
            raise InputFileError(refused)
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputFileError(
            f"{_named(path)}: no such file; give the path of a {kind.what}", missing=True
        ) from None
    except PermissionError:
        raise InputFileError(f"cannot read {kind.what} {_named(path)}: permission denied") from None
    except OSError as exc:
        raise InputFileError(
            f"cannot read {kind.what} {_named(path)}: {exc.strerror or exc}"
        ) from None
    try:
        status = os.fstat(descriptor)
        refused = _refusal(path, kind, status.st_mode)  # something else took its place
        if refused is None and kind.cap is not None and status.st_size > kind.cap:
            refused = _too_big(path, kind, status.st_size)
        if refused is not None:
            raise InputFileError(refused)
        os.set_blocking(descriptor, True)
        handle = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    _read.add((status.st_dev, status.st_ino))
    return handle


def standard_input(kind: Kind) -> BinaryIO:
    """Standard input, for a command given `-`: a pipe, a file or a terminal, not a device
    (`< /dev/zero` would be read for ever; `InputFileError`)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):  # no descriptor: stdin replaced, as a test runner does
        mode = stat.S_IFIFO
    if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not sys.stdin.isatty():
        kind_name = "a character device" if stat.S_ISCHR(mode) else "a block device"
        raise InputFileError(
            f"stdin is {kind_name}, not a {kind.what}: pipe or redirect a file to it"
        )
    return sys.stdin.buffer


def read_input(path: Path, kind: Kind, *, stdin: bool = False) -> bytes:
    """The bytes of `path` (`open_input`), or of standard input when `stdin` and `path` is
    `-`; never more than `kind`'s cap: one that holds more is refused (`InputFileError`)."""
    if stdin and path == STDIN:
        return _capped(standard_input(kind), STDIN, kind)
    with open_input(path, kind) as handle:
        return _capped(handle, path, kind)


def _capped(handle: BinaryIO, path: Path, kind: Kind) -> bytes:
    try:
        data = handle.read() if kind.cap is None else handle.read(kind.cap + 1)
    except OSError as exc:
        raise InputFileError(
            f"cannot read {kind.what} {_named(path)}: {exc.strerror or exc}"
        ) from None
    if kind.cap is not None and len(data) > kind.cap:
        raise InputFileError(_too_big("stdin" if path == STDIN else path, kind, len(data)))
    return data
