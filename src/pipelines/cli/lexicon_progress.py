"""Progress of long word-list work (a build, a first lexicon cache), drawn on stderr.

Shown only when stderr is a terminal and the command was not asked for JSON: a script reading
the output, or a log file, gets no bars. The work reports through a plain callable
(`pipelines.lexicons.report`), so the build and the lexicon cache know nothing of Rich.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING

from pipelines.lexicons.report import Progress, Report, quiet

if TYPE_CHECKING:
    from rich.progress import TaskID


def wanted(as_json: bool = False) -> bool:
    """Whether to draw progress: stderr is a terminal and the output is not JSON."""
    return not as_json and sys.stderr.isatty()


def on_stderr(as_json: bool = False) -> Progress:
    """The progress a lexicon's first cache build draws: on stderr when `wanted`."""
    return partial(progress_on_stderr, wanted(as_json))


@contextmanager
def progress_on_stderr(show: bool) -> Iterator[Report]:
    """A report drawing one line per step on stderr (cleared at the end), or `quiet`."""
    if not show:
        yield quiet
        return
    # Imported here: every command that loads a word list imports this module, and Rich's
    # progress bars take tens of milliseconds to import.
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(stderr=True, emoji=False)
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        steps: dict[str, TaskID] = {}

        def report(step: str, done: int, total: int | None) -> None:
            if step not in steps:
                for task in progress.tasks:
                    if not task.finished:
                        end = max(task.completed, 1)
                        progress.update(task.id, total=end, completed=end)
                steps[step] = progress.add_task(step, total=total)
            progress.update(steps[step], completed=done, total=total)

        yield report
