"""Publishing a directory whole or not at all: the Parquet export's `--out DIR`.

The export is written into a new hidden directory beside DIR (same filesystem, so that a
rename can publish it) and renamed to DIR only once every file is complete and on disk. A
failure, Ctrl-C, SIGTERM or SIGHUP removes the staging directory and leaves DIR as it was.

DIR must be absent or empty. With `overwrite`, a DIR that holds an earlier export (it has the
marker file, MANIFEST.json) is replaced: on Linux the two directories are exchanged in one
`renameat2(RENAME_EXCHANGE)` call, so that readers see the old export or the new one, never
neither; elsewhere the old one is renamed aside, the new one into place (a signal waits until
both renames are done, so that DIR is never missing), and the old one then deleted. A
non-empty DIR that is not an export is never deleted, even with `overwrite`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import secrets
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipelines.exits import Interrupted, OutputNotWritten
from pipelines.output_file import (
    OutputRefused,
    _Terminated,
    _terminations_raise,
    held_signals,
    sync_folder,
)

MARKER = "MANIFEST.json"
"""The file every export holds; only a directory with it may be replaced."""

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def export_target(out: Path, *, overwrite: bool) -> Path:
    """The directory `out` names (a symbolic link is followed), checked before any work:
    `OutputRefused` when it is not a directory, not empty without `overwrite`, or not an
    earlier export."""
    target = Path(os.path.realpath(out))
    if not target.exists():
        if not target.parent.is_dir():
            raise OutputRefused(f"cannot write {out}: folder {target.parent} does not exist")
        return target
    if not target.is_dir():
        raise OutputRefused(f"{out} exists and is not a directory: give a new or empty folder")
    try:
        entries = os.listdir(target)
    except OSError as exc:
        raise OutputRefused(f"cannot read {out}: {exc.strerror or exc}") from None
    if not entries:
        return target
    if not overwrite:
        raise OutputRefused(
            f"{out} is not empty: give a new or empty folder, or --overwrite to replace an "
            "earlier export there"
        )
    if MARKER not in entries:
        raise OutputRefused(
            f"{out} is not empty and holds no {MARKER}, so it is not an earlier export: "
            "--overwrite only replaces an export; give a new or empty folder"
        )
    return target


@contextmanager
def staged(out: Path, target: Path) -> Iterator[Path]:
    """A new empty staging directory beside `target`; when the block ends without error it
    becomes `target` (`publish`); otherwise it is removed and `target` left untouched
    (`OutputNotWritten` for a filesystem error, `Interrupted` for a signal; either says when
    `target` had already been published whole)."""
    partial = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    ours = None
    try:
        with _terminations_raise():
            partial.mkdir()
            ours = partial.stat()
            yield partial
            _sync_tree(partial)
            publish(partial, target)
    except OSError as exc:
        written = _is_ours(target, ours)  # asked before a freed inode can be reused
        shutil.rmtree(partial, ignore_errors=True)
        raise OutputNotWritten(exc, out, written=written) from None
    except (_Terminated, KeyboardInterrupt) as exc:
        written = _is_ours(target, ours)
        shutil.rmtree(partial, ignore_errors=True)
        signum = exc.signum if isinstance(exc, _Terminated) else signal.SIGINT
        raise Interrupted(signum, out, written=written) from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def publish(partial: Path, target: Path) -> None:
    """Make the complete directory `partial` the directory `target`: a rename when `target`
    is absent or empty, an exchange (or, failing that, two renames) when it holds an export;
    the old export is then deleted."""
    try:
        os.rename(partial, target)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    else:
        sync_folder(target.parent)
        return
    if _exchange(partial, target):
        sync_folder(target.parent)
        shutil.rmtree(partial, ignore_errors=True)
        return
    old = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.old")
    swapped = False
    try:
        with held_signals():  # never `target` missing, the earlier export set aside
            os.rename(target, old)
            try:
                os.rename(partial, target)
            except BaseException:
                os.rename(old, target)
                raise
            swapped = True
        sync_folder(target.parent)
    finally:
        if swapped:
            shutil.rmtree(old, ignore_errors=True)


def _is_ours(path: Path, ours: os.stat_result | None) -> bool:
    """Whether `path` is now the folder `ours` was made as: whether the rename that publishes
    it happened, asked of the disk rather than of a flag set after it, which a signal could
    come before. Asked before that folder is deleted, whose inode could then be reused."""
    if ours is None:
        return False
    try:
        return os.path.samestat(path.stat(), ours)
    except OSError:
        return False


def _exchange(first: Path, second: Path) -> bool:
    """Swap two directories atomically (Linux `renameat2`); False where the system or the
    filesystem cannot."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    libc = ctypes.CDLL(name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _sync_tree(root: Path) -> None:
    """Every file and directory under `root` on disk before it is published."""
    for folder, _dirs, files in os.walk(root):
        for name in files:
            descriptor = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
        sync_folder(Path(folder))
