"""Output that could not be written, and why: the errors a writer raises and the one line it
says on stderr.

They live below every room that writes (the files, the game inputs' seed file, the CLI's
guarded stdout) so that none of those reaches up into the command line to raise them; the
command line maps them to exit codes (`pipelines.cli.exits`). Output that cannot be written (a
full disk, a pipe whose reader has gone) is never mistaken for a verdict: `ledger verify`
exiting 1 means a broken chain, not a full disk.
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import suppress
from pathlib import Path


class OutputRefused(Exception):
    """The output cannot be written there (a FIFO, a directory, a missing folder, an export
    folder not empty): the user's input is unusable, exit 2; the message says why and what to
    do (`pipelines.files.whole`, `pipelines.files.folder`)."""


class OutputNotWritten(Exception):
    """Writing the output failed: stdout or stderr, or (`out`) an output file, whose target
    was fine but whose writing the system refused (a full disk, a failing device, a
    permission denied). Deliberately not an OSError: Click turns a broken pipe into a silent
    exit 1, and a command handling its own files' OSErrors must not take this one for theirs.
    `written`: the file at `out` had already been replaced whole when the failure came (only
    the folder's sync to disk failed)."""

    def __init__(self, cause: OSError, out: Path | None = None, *, written: bool = False) -> None:
        self.cause = cause
        reason = "the reader closed the pipe" if cause.errno == errno.EPIPE else cause.strerror
        reason = reason or str(cause)
        if out is None:
            said = f"could not write the output: {reason}"
        elif written:
            said = f"{out} was written, but its folder could not be synced to disk: {reason}"
        else:
            said = f"could not write {out}: {reason}; nothing was written to it"
        super().__init__(said)

    @property
    def reader_gone(self) -> bool:
        """The reader of a pipe stopped reading (`arbitru ledger export | head`)."""
        return self.cause.errno == errno.EPIPE


class Interrupted(Exception):
    """A signal ended the command. While an output file was being written (`out`), its
    temporary file is gone and the file at `out` left as it was, or (`written`) already
    replaced whole when the signal came (`pipelines.files.whole`); without `out`, Ctrl-C came
    anywhere else (`pipelines.cli.arbitru`). `exit_code` is the shell's convention for it, 128 + the
    signal number."""

    def __init__(self, signum: int, out: Path | None = None, *, written: bool = False) -> None:
        if out is None:
            said = "interrupted"
        elif written:
            said = f"interrupted after {out} was written"
        else:
            said = f"interrupted: nothing was written to {out}"
        super().__init__(said)
        self.exit_code = 128 + signum


_done: list[str] = []


def say_if_output_fails(done: str) -> None:
    """Record work already done for good (an import committed), said on stderr should its
    report then fail to be written: the user must not take it for undone."""
    _done.append(done)


def done_before_failure() -> list[str]:
    return list(_done)


def nothing_done_yet() -> None:
    """A command starts: what an earlier one did in this process (a test's) is not its own."""
    _done.clear()


def tell(message: str) -> None:
    """One line on stderr, if stderr can still be written."""
    with suppress(OutputNotWritten, OSError, ValueError):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()


_REFUSED_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})
_SQLITE_REFUSED = {13: "the disk is full", 8: "the file may not be written", 10: "a disk I/O error"}
"""SQLite's result codes for a write the system refused (SQLITE_FULL, _READONLY, _IOERR)."""


def system_refused(exc: BaseException) -> str | None:
    """Why the system refused a write behind `exc` (a full disk, a read-only file system, a
    failing device), looking through the errors it was raised from and the driver's own
    error; None when it is something else. Such a failure is exit 3, not unusable input."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _REFUSED_ERRNOS:
            return current.strerror or os.strerror(current.errno)
        code = getattr(current, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF in _SQLITE_REFUSED:
            return _SQLITE_REFUSED[code & 0xFF]
        if getattr(current, "sqlstate", None) == "53100":  # PostgreSQL's disk_full
            return "the database server's disk is full"
        stack += [current.__cause__, current.__context__, getattr(current, "orig", None)]
    return None
