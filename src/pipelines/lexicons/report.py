"""How long word-list work (a build, a first lexicon cache) says how far it has got: through a
plain callable, so that the build and the cache know nothing of the terminal that may draw it
(`pipelines.cli.lexicon_progress` draws it on stderr; a server would log it, or nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Report = Callable[[str, int, int | None], None]
"""``report(step, done, total)``: the step under way, units done, and the total if known."""

Progress = Callable[[], AbstractContextManager[Report]]
"""Opens a report for the time of the work and closes it after (a bar drawn, then cleared);
called only when there is work to report, so that nothing is drawn or imported otherwise."""


def quiet(step: str, done: int, total: int | None) -> None:
    """The report that shows nothing."""


@contextmanager
def no_progress() -> Iterator[Report]:
    """The progress that shows nothing: `quiet`, opened and closed."""
    yield quiet


_unasked: Progress = no_progress


def show_unasked_with(progress: Progress) -> None:
    """How work reports when its caller hands it no progress of its own (the service layer
    loading a game's word list): the command line says it once, before any command runs (a
    spinner on a terminal); by default, and for any other caller, nothing is shown."""
    global _unasked
    _unasked = progress


def unasked() -> AbstractContextManager[Report]:
    """The progress set by `show_unasked_with`, opened: the default of work that reports."""
    return _unasked()
