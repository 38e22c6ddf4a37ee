"""Writing an output file whole or not at all, and only where a file belongs.

Every file a user names that Arbitru may replace (`--out`, `--svg`, the demo's picture,
`lexicon build --out DIR`'s files) is written here, and must never destroy what is at its
path: a symbolic link is followed (the file it leads to is replaced, the link stays), a FIFO,
a device, a directory or a socket is refused rather than replaced, and the new content goes
to a temporary file beside the target that is renamed over it only once complete and on disk.
Ctrl-C, SIGTERM and SIGHUP remove the temporary file before the command ends.

How each ending is told (README "Exit codes"): a target refused is the user's input unusable
(`OutputRefused`, exit 2, said by the command); a write the system refuses, a full disk or a
permission denied, is output not written (`OutputNotWritten`, exit 3), and a signal ends with
128 + its number (`Interrupted`), both said in one place for every command (`pipelines.cli`).

Not written here: key files and seed files, only ever created, never replaced (written where
they are made, with `O_EXCL` and owner-only permissions); and Arbitru's own files in its data
directory (registered lists, the lexicon cache: `pipelines.lexicons.atomic_write`), at paths
Arbitru chose, not a user, with folders made on the way and mode 0o644 whatever the umask, so
that a data directory shared between users stays readable.
"""

from __future__ import annotations

import os
import secrets
import signal
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pipelines.exits import Interrupted, OutputNotWritten


class OutputRefused(Exception):
    """The output cannot be written there; the message says why and what to do."""


_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


TO_STDOUT = (
    "--out writes a new path or replaces an earlier file; to feed a pipe or a device, write to "
    "stdout"
)
"""What a command that prints its output without `--out` says of a path it refuses."""


def output_target(out: Path, what_to_do: str = TO_STDOUT) -> Path:
    """The file `out` names: `out` itself, or the file a symbolic link at `out` leads to
    (the link stays a link). Only a new path or a regular file will do: a FIFO, a device or a
    directory is refused (`OutputRefused`, its message ending in `what_to_do`), never
    replaced."""
    target = Path(os.path.realpath(out))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise OutputRefused(
                f"cannot write {out}: folder {target.parent} does not exist"
            ) from None
        return target
    except OSError as exc:
        raise OutputRefused(f"cannot write {out}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "a special file")
        name = str(out) if target == Path(os.path.abspath(out)) else f"{out} (a link to {target})"
        raise OutputRefused(f"{name} is {kind}, not a regular file: {what_to_do}")
    return target


class _Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while the file was being written."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _terminations_raise() -> Iterator[None]:
    """For the duration, SIGTERM and SIGHUP raise `_Terminated` (in the main thread, where
    Python runs signal handlers), so that cleanup code runs as it does for Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, _frame: object) -> None:
        raise _Terminated(signum)

    previous = {sig: signal.signal(sig, _raise) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def write_whole(lines: Iterable[bytes], out: Path, target: Path) -> int:
    """Write `lines` to `target` (what `output_target(out)` gave) and return how many: into
    a new temporary file beside it, renamed over it once complete, so that a failure, Ctrl-C,
    SIGTERM or SIGHUP leaves no half-written file behind and an earlier file at `target`
    untouched: `OutputNotWritten` when the system refuses the writing (a full disk),
    `Interrupted` for a signal, `OutputRefused` when something else than a regular file took
    the target's place meanwhile. Once renamed, the file is whole: a failure or a signal
    while its folder is synced says so (`written`). The new file keeps the permissions of the
    file it replaces."""
    partial = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    ours = None
    try:
        with _terminations_raise():
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            with os.fdopen(descriptor, "wb") as handle:
                ours = os.fstat(descriptor)
                count = 0
                for line in lines:
                    handle.write(line)
                    count += 1
                handle.flush()
                os.fsync(handle.fileno())
            _replace(partial, target, out)
            sync_folder(target.parent)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise OutputNotWritten(exc, out, written=is_ours(target, ours)) from None
    except (_Terminated, KeyboardInterrupt) as exc:
        partial.unlink(missing_ok=True)
        signum = exc.signum if isinstance(exc, _Terminated) else signal.SIGINT
        raise Interrupted(signum, out, written=is_ours(target, ours)) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return count


def is_ours(path: Path, ours: os.stat_result | None) -> bool:
    """Whether `path` is now the file (or folder) `ours` was made as: whether the rename that
    publishes it happened, asked of the disk rather than of a flag set after it, which a
    signal could come before."""
    if ours is None:
        return False
    try:
        return os.path.samestat(path.stat(), ours)
    except OSError:
        return False


def _replace(partial: Path, target: Path, out: Path) -> None:
    """Rename the finished file over `target`, still a regular file (or absent), with the
    permissions of the file it replaces."""
    try:
        before = target.lstat()
    except FileNotFoundError:
        before = None
    if before is not None:
        if not stat.S_ISREG(before.st_mode):
            partial.unlink(missing_ok=True)
            raise OutputRefused(f"{out} was replaced by something else than a regular file")
        os.chmod(partial, stat.S_IMODE(before.st_mode))
    partial.replace(target)


def sync_folder(folder: Path) -> None:
    """Make the renames in `folder` durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
