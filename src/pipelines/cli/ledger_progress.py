"""Progress of the ledger's long work (import, export to a file, verify) on the terminal.

A bar is drawn on stderr only when stderr is a terminal and the output is not `--json`: a log
file or a pipe gets no control sequences, and the lines of stdout stay the command's result.
The ledger knows nothing of it: the bar counts what passes between the ledger and the command
(the bytes of the file read, the rows of the database), a batch at a time.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

Advance = Callable[[int], None]

_ROWS_PER_STEP = 2000
_BYTES_PER_STEP = 1 << 20


@contextmanager
def progress(
    console: Console, description: str, total: int | None, *, in_bytes: bool, shown: bool
) -> Iterator[Advance]:
    """A bar titled `description` counting up to `total` (None when unknown), yielding the
    function that advances it; without `shown`, a function that does nothing."""
    if not shown:
        yield lambda _done: None
        return
    count = TransferSpeedColumn() if in_bytes else MofNCompleteColumn()
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), count)
    with Progress(*columns, TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda done: bar.advance(task, done)


@contextmanager
def lines_read(
    console: Console, description: str, source: IO[bytes], *, shown: bool
) -> Iterator[Iterable[bytes]]:
    """The lines of `source` (an export file), counted on a bar of its bytes titled
    `description` when `shown`: how importing and verifying a file read it."""
    with progress(console, description, file_size(source), in_bytes=True, shown=shown) as advance:
        yield counted_lines(source, advance) if shown else source


@contextmanager
def rows_read(
    console: Console, description: str, rows: Iterable[Any], total: int | None, *, shown: bool
) -> Iterator[Iterable[Any]]:
    """The database's `rows`, counted on a bar up to `total` titled `description` when
    `shown`: how exporting and verifying the ledger read it."""
    with progress(console, description, total, in_bytes=False, shown=shown) as advance:
        yield counted_rows(rows, advance) if shown else rows


def shows_progress(console: Console, as_json: bool = False) -> bool:
    """True when a bar belongs on `console`: a terminal, and not machine-readable output."""
    return console.is_terminal and not as_json


def counted_rows(rows: Iterable[Any], advance: Advance) -> Iterator[Any]:
    """The rows, advancing the bar by each batch of them that went by."""
    done = 0
    for row in rows:
        yield row
        done += 1
        if done == _ROWS_PER_STEP:
            advance(done)
            done = 0
    advance(done)


def counted_lines(source: IO[bytes], advance: Advance) -> Iterator[bytes]:
    """The lines of a binary file, advancing the bar by the bytes read, a batch at a time."""
    done = 0
    for line in source:
        yield line
        done += len(line)
        if done >= _BYTES_PER_STEP:
            advance(done)
            done = 0
    advance(done)


def file_size(source: IO[bytes]) -> int | None:
    """The size of a regular file (what is left of it to read); None for a pipe or terminal."""
    try:
        info = os.fstat(source.fileno())
        position = source.tell() if stat.S_ISREG(info.st_mode) else 0
    except (OSError, ValueError, AttributeError):
        return None
    return info.st_size - position if stat.S_ISREG(info.st_mode) else None
