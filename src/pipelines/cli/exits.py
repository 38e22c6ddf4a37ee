"""How the `arbitru` command ends: its exit codes, and output that could not be written.

The codes are one table for every command (README "Exit codes"). Output that cannot be
written (a full disk, a pipe whose reader has gone) gets its own code, so that it is never
mistaken for a verdict: `ledger verify` exiting 1 means a broken chain, not a full disk. The
errors themselves are raised below the command line (`pipelines.files.errors`).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum
from typing import TextIO

from pipelines.files.errors import Interrupted, OutputNotWritten, done_before_failure, tell


class ExitCode(IntEnum):
    """The exit codes of every `arbitru` command."""

    OK = 0
    """Success: the move is valid, the chain intact, the import done, every line judged."""
    NEGATIVE = 1
    """A negative verdict: an invalid move, a broken chain, a rejected import, a batch with
    lines in error, a word not in the list."""
    UNUSABLE = 2
    """The command could not run: bad usage, a bad input file, an unreachable database."""
    UNWRITTEN = 3
    """The output could not be written."""
    INTERNAL = 4
    """An internal error: a bug in Arbitru, to be reported."""


def ended(exc: OutputNotWritten | Interrupted) -> int:
    """Say on stderr how the command ended, with what was already done; its exit code."""
    tell(f"error: {exc}" + "".join(f"; {note}" for note in done_before_failure()))
    return exc.exit_code if isinstance(exc, Interrupted) else ExitCode.UNWRITTEN


class _GuardedFile(io.RawIOBase):
    """A file descriptor whose failed write raises OutputNotWritten. After one failure the
    rest is dropped, so that Python's own flush at exit does not fail a second time."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        if self._failed:
            return len(data)
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            self._failed = True
            raise OutputNotWritten(exc) from exc


def _guarded(stream: TextIO | None, *, write_through: bool) -> TextIO | None:
    """A text stream on the same descriptor as `stream`, or None when `stream` has none
    (under a test runner's capture, say)."""
    if stream is None:
        return None
    try:
        fd = stream.fileno()
        stream.flush()
    except (OSError, ValueError):
        return None
    return io.TextIOWrapper(
        io.BufferedWriter(_GuardedFile(fd)),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=write_through,
    )


@contextmanager
def guarded_output() -> Iterator[None]:
    """Within, sys.stdout and sys.stderr raise OutputNotWritten when a write fails."""
    saved = sys.stdout, sys.stderr
    stdout = _guarded(sys.stdout, write_through=False)
    stderr = _guarded(sys.stderr, write_through=True)
    sys.stdout = stdout or sys.stdout
    sys.stderr = stderr or sys.stderr
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
