"""Writing an output file whole or not at all, and only where a file belongs.

Every file a user names that Arbitru may replace (`--out`, `--svg`, the demo's picture,
`lexicon build --out DIR`'s files) is written here, and must never destroy what is at its
path: a symbolic link is followed (the file it leads to is replaced, the link stays), a FIFO,
a device, a directory or a socket is refused rather than replaced, and the new content goes
to a temporary file beside the target that is renamed over it only once complete and on disk.
Ctrl-C, SIGTERM and SIGHUP remove the temporary file before the command ends (a signal the
process ignores, SIGHUP under `nohup`, stays ignored). Files that belong together
(`lexicon build --out DIR`'s three) are all written before any is renamed into place.

Some regular files are never replaced either: a SQLite database (the ledger's own
`arbitru.db`, one typo away from any `--out`), the `-wal`, `-shm` or `-journal` beside one,
and a file the same command read (`ledger.input_files`). A run killed outright (`kill -9`)
cannot remove its temporary file; the next run writing the same file does, and says so.

How each ending is told (README "Exit codes"): a target refused is the user's input unusable
(`OutputRefused`, exit 2, said by the command); a write the system refuses, a full disk or a
permission denied, is output not written (`OutputNotWritten`, exit 3), and a signal ends with
128 + its number (`Interrupted`), both said in one place for every command
(`pipelines.cli.arbitru`).

Not written here: key files and seed files, only ever created, never replaced (written where
they are made, with `O_EXCL` and owner-only permissions); and Arbitru's own files in its data
directory (registered lists, the lexicon cache: `pipelines.lexicons.registry.atomic_write`), at
paths Arbitru chose, not a user, with folders made on the way and mode 0o644 whatever the umask, so
that a data directory shared between users stays readable.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from ledger.input_files import read_inputs, special_kind
from pipelines.files.errors import (
    Interrupted,
    OutputNotWritten,
    OutputRefused,
    say_if_output_fails,
    tell,
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
    replaced; so is a file that must be kept (`_kept`). What a killed earlier write of the
    same file left beside it is removed first (`clear_leftovers`)."""
    target = Path(os.path.realpath(out))
    name = str(out) if target == Path(os.path.abspath(out)) else f"{out} (a link to {target})"
    try:
        status = target.stat()
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise OutputRefused(
                f"cannot write {out}: folder {target.parent} does not exist"
            ) from None
        _refuse_if_kept(name, target, None)
        clear_leftovers(target)
        return target
    except OSError as exc:
        raise OutputRefused(f"cannot write {out}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = special_kind(status.st_mode)
        raise OutputRefused(f"{name} is {kind}, not a regular file: {what_to_do}")
    _refuse_if_kept(name, target, status)
    clear_leftovers(target)
    return target


SQLITE_HEADER = b"SQLite format 3\0"
"""How every SQLite database file begins (a ledger's among them)."""

_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database, named after it."""


def _refuse_if_kept(name: str, target: Path, status: os.stat_result | None) -> None:
    """`OutputRefused` when `target` (of `status`, None when it does not exist yet) must be
    kept: an input of this command (the same file), a SQLite database (a ledger: one typo
    of `--out arbitru.db` would replace every event), or the write-ahead log, shared memory
    or journal of one."""
    if status is not None and (status.st_dev, status.st_ino) in read_inputs():
        raise OutputRefused(
            f"{name} is an input of this command; an output never replaces it: give another path"
        )
    if status is not None and _is_sqlite(target):
        raise OutputRefused(
            f"{name} is a SQLite database (a ledger?); an output never replaces one: give "
            "another path"
        )
    for suffix in _SQLITE_COMPANIONS:
        database = target.with_name(target.name.removesuffix(suffix))
        if target.name.endswith(suffix) and _is_sqlite(database):
            raise OutputRefused(
                f"{name} belongs to the SQLite database {database} (its {suffix[1:]} file); an "
                "output never replaces it: give another path"
            )


def _is_sqlite(path: Path) -> bool:
    """Whether `path` is a regular file that begins as a SQLite database does."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.read(descriptor, len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False
    finally:
        os.close(descriptor)


_LEFTOVER = re.compile(r"(?P<pid>[0-9]+)\.[0-9a-f]{8}\.(?P<kind>partial|old)")
"""What follows `.NAME.` in the name of a file or folder `beside` gave for NAME."""


def clear_leftovers(target: Path) -> None:
    """Remove the temporary files and folders (`beside`) that a write of `target` killed
    before it could clean up (`kill -9`, a power cut) left in its folder, and say so in one
    line. Only those of a process no longer running: another run may be writing `target` at
    this moment. An earlier export set aside (`old`) stays while `target` is missing: it may
    then be the only copy."""
    prefix = f".{target.name}."
    try:
        names = sorted(os.listdir(target.parent))
    except OSError:
        return
    removed = []
    for entry in names:
        found = _LEFTOVER.fullmatch(entry[len(prefix) :]) if entry.startswith(prefix) else None
        if found is None or _running(int(found["pid"])):
            continue
        if found["kind"] == "old" and not target.exists():
            continue
        path = target.parent / entry
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(entry)
    if removed:
        tell(f"removed what an interrupted earlier run left beside {target}: {', '.join(removed)}")


def _running(pid: int) -> bool:
    """Whether a process `pid` is running (this one included)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's
        return True
    return True


class _Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while the file was being written."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _handled(signals: Iterable[int]) -> list[int]:
    """Of `signals`, those the process does not ignore: one ignored (SIGHUP under `nohup`)
    stays ignored, so that closing the terminal does not end the command."""
    return [sig for sig in signals if signal.getsignal(sig) is not signal.SIG_IGN]


def beside(target: Path, kind: str) -> Path:
    """A new hidden name in `target`'s folder for a file or folder of `kind` ("partial",
    "old") on its way to or from `target`: same filesystem, so that a rename can move it."""
    return target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.{kind}")


@contextmanager
def _signals_to(handler: Callable[[int, object], None], signals: Iterable[int]) -> Iterator[None]:
    """For the duration, `signals` (those not ignored) go to `handler`; in the main thread
    only, where Python runs signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, handler) for sig in _handled(signals)}
    try:
        yield
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)


def _raise_terminated(signum: int, _frame: object) -> None:
    raise _Terminated(signum)


def terminations_raise() -> AbstractContextManager[None]:
    """For the duration, SIGTERM and SIGHUP raise `_Terminated`, so that cleanup code runs as
    it does for Ctrl-C."""
    return _signals_to(_raise_terminated, (signal.SIGTERM, signal.SIGHUP))


@contextmanager
def held_signals() -> Iterator[None]:
    """For the duration, Ctrl-C, SIGTERM and SIGHUP wait: one that comes is delivered as it
    would have been once the block is over, whether the block ended well or not, so that
    renames that belong together (the files of one output, an old folder set aside and the
    new one put in its place) are never cut between. Only renames belong inside: they take
    no time."""
    pending: list[int] = []
    try:
        with _signals_to(lambda signum, _frame: pending.append(signum), _ENDING_SIGNALS):
            yield
    finally:
        for sig in dict.fromkeys(pending):
            signal.raise_signal(sig)


def ending(exc: BaseException, out: Path, *, written: bool) -> Exception | None:
    """How a write of `out` that `exc` stopped ends for the user: `OutputNotWritten` for a
    write the system refused, `Interrupted` for a signal (`written`: the target had already
    been replaced whole); None for anything else, to be raised as it is."""
    if isinstance(exc, OSError):
        return OutputNotWritten(exc, out, written=written)
    if isinstance(exc, _Terminated | KeyboardInterrupt):
        signum = exc.signum if isinstance(exc, _Terminated) else signal.SIGINT
        return Interrupted(signum, out, written=written)
    return None


def write_whole(lines: Iterable[bytes], out: Path, target: Path) -> int:
    """Write `lines` to `target` (what `output_target(out)` gave) and return how many: into
    a new temporary file beside it, renamed over it once complete, so that a failure, Ctrl-C,
    SIGTERM or SIGHUP leaves no half-written file behind and an earlier file at `target`
    untouched: `OutputNotWritten` when the system refuses the writing (a full disk),
    `Interrupted` for a signal, `OutputRefused` when something else than a regular file took
    the target's place meanwhile. Once renamed, the file is whole: a failure or a signal
    while its folder is synced says so (`written`). The new file keeps the permissions of the
    file it replaces; a new file gets those the umask leaves."""
    (count,) = write_together([(lines, out, target)])
    return count


def write_together(files: Sequence[tuple[Iterable[bytes], Path, Path]]) -> list[int]:
    """`write_whole` for several files (lines, out, target) that belong together, and how
    many lines each got: every one is written to its temporary file first, and only once all
    are complete and on disk are they renamed over their targets, one after the other with
    signals held, so that a failure or a signal while writing leaves every earlier file as it
    was. Should a rename itself fail, the files already replaced are said
    (`say_if_output_fails`)."""
    partials = [beside(target, "partial") for _lines, _out, target in files]
    counts: list[int] = []
    replaced: list[Path] = []
    out = files[0][1]  # the file an error names: the one being written or renamed
    try:
        with terminations_raise():
            for partial, (lines, name, _target) in zip(partials, files, strict=True):
                out = name
                descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "wb") as handle:
                    counts.append(0)
                    for line in lines:
                        handle.write(line)
                        counts[-1] += 1
                    handle.flush()
                    os.fsync(handle.fileno())
            with held_signals():
                modes = [_final_mode(target, out) for _lines, out, target in files]
                for partial, mode, (_lines, name, target) in zip(
                    partials, modes, files, strict=True
                ):
                    out = name
                    os.chmod(partial, mode)
                    partial.replace(target)
                    replaced.append(out)  # no signal comes between: `replaced` is certain
            for folder in dict.fromkeys(target.parent for _lines, _out, target in files):
                sync_folder(folder)
    except BaseException as exc:
        _cleared(partials, replaced, out)
        told = ending(exc, out, written=out in replaced)
        if told is None:
            raise
        raise told from None
    return counts


def _cleared(partials: list[Path], replaced: list[Path], out: Path) -> None:
    """After a failure: the temporary files are removed, and the files other than `out` (the
    one the error names) that had already been replaced are said to be."""
    for partial in partials:
        try:
            partial.unlink(missing_ok=True)
        except OSError:  # a read-only folder: never created; else it is said to be left
            if partial.exists():
                say_if_output_fails(f"{partial} could not be removed")
    for other in replaced:
        if other != out:
            say_if_output_fails(f"{other} was written")


def _umask() -> int:
    """The process's umask (read by setting it, the only portable way, and setting it back)."""
    umask = os.umask(0o077)
    os.umask(umask)
    return umask


def _final_mode(target: Path, out: Path) -> int:
    """The permissions the new file gets: those of the file it replaces, or for a new file
    those the umask leaves (`OutputRefused` when something else than a regular file took the
    target's place meanwhile). Until renamed it is its owner's alone, so that the content of
    a private file is never readable by others while it is written."""
    try:
        before = target.lstat()
    except FileNotFoundError:
        return 0o666 & ~_umask()
    if not stat.S_ISREG(before.st_mode):
        raise OutputRefused(f"{out} was replaced by something else than a regular file")
    return stat.S_IMODE(before.st_mode)


def sync_folder(folder: Path) -> None:
    """Make the renames in `folder` durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
