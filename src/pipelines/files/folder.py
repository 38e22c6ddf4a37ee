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
import functools
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pipelines.files.whole import (
    OutputRefused,
    beside,
    clear_leftovers,
    ending,
    held_signals,
    sync_folder,
    terminations_raise,
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
        clear_leftovers(target)
        return target
    if not target.is_dir():
        raise OutputRefused(f"{out} exists and is not a directory: give a new or empty folder")
    try:
        entries = os.listdir(target)
    except OSError as exc:
        raise OutputRefused(f"cannot read {out}: {exc.strerror or exc}") from None
    if not entries:
        clear_leftovers(target)
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
    clear_leftovers(target)
    return target


@contextmanager
def staged(out: Path, target: Path) -> Iterator[Path]:
    """A new empty staging directory beside `target`; when the block ends without error it
    becomes `target` (`_swap_in`); otherwise it is removed and `target` left untouched
    (`OutputNotWritten` for a filesystem error, `Interrupted` for a signal; either says when
    `target` had already been published whole). The renames that publish run with signals
    held, so that whether they happened is known for certain."""
    partial = beside(target, "partial")
    published = False
    leftover: Path | None = None  # the earlier export, set aside, to delete
    try:
        with terminations_raise():
            partial.mkdir()
            yield partial
            _sync_tree(partial)
            _renameat2()  # looked up (it may run ldconfig) before signals are held
            with held_signals():
                leftover = _swap_in(partial, target)
                published = True
            sync_folder(target.parent)
    except BaseException as exc:
        shutil.rmtree(partial, ignore_errors=True)
        told = ending(exc, out, written=published)
        if told is None:
            raise
        raise told from None
    finally:
        if leftover is not None:
            shutil.rmtree(leftover, ignore_errors=True)


def _swap_in(partial: Path, target: Path) -> Path | None:
    """Renames only: the complete directory `partial` becomes `target`, by a rename when
    `target` is absent or empty, by an exchange (or, failing that, two renames) when it holds
    an export; the earlier export's new place, to delete, or None."""
    try:
        os.rename(partial, target)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    else:
        return None
    if _exchange(partial, target):
        return partial
    old = beside(target, "old")
    os.rename(target, old)
    try:
        os.rename(partial, target)
    except BaseException:
        os.rename(old, target)  # never `target` missing
        raise
    return old


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """The C library's `renameat2`, None where there is none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    return getattr(ctypes.CDLL(name, use_errno=True), "renameat2", None)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two directories atomically (Linux `renameat2`); False where the system or the
    filesystem cannot."""
    renameat2 = _renameat2()
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
