"""`arbitru export --out DIR` publishes a whole export or nothing: a non-empty DIR is refused
without --overwrite, --overwrite replaces only an earlier export, and a failure midway leaves
DIR as it was with no staging directory behind."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.arbitru import app
from pipelines.files import folder as export_dir
from pipelines.season import export as parquet_export

runner = CliRunner()

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"


@pytest.fixture(scope="module")
def ledger(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('atomic') / 'ledger.db'}"
    result = runner.invoke(app, ["ledger", "import", str(FIXTURE), "--db", url])
    assert result.exit_code == 0, result.output
    return url


def _export(ledger: str, out: Path, *extra: str):
    return runner.invoke(app, ["export", "--out", str(out), "--db", ledger, *extra])


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_non_empty_folder_is_refused_without_overwrite(ledger: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    result = _export(ledger, out)
    assert result.exit_code == 2
    assert "is not empty" in result.stderr and "--overwrite" in result.stderr
    assert _tree(out) == {"notes.txt": b"mine"}


def test_overwrite_never_deletes_a_folder_that_is_not_an_export(
    ledger: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    result = _export(ledger, out, "--overwrite")
    assert result.exit_code == 2
    assert "not an earlier export" in result.stderr
    assert _tree(out) == {"notes.txt": b"mine"}


def test_empty_folder_and_new_folder_are_written(ledger: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert _export(ledger, tmp_path / "empty").exit_code == 0
    assert _export(ledger, tmp_path / "new").exit_code == 0
    assert _tree(tmp_path / "empty") == _tree(tmp_path / "new")
    assert "MANIFEST.json" in _tree(tmp_path / "new")
    assert _leftovers(tmp_path) == []


def test_overwrite_replaces_an_earlier_export_whole(ledger: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _export(ledger, out).exit_code == 0
    fresh = _tree(out)
    (out / "stale.parquet").write_bytes(b"from an older export")
    result = _export(ledger, out, "--overwrite", "--json")
    assert result.exit_code == 0, result.stderr
    assert _tree(out) == fresh
    assert json.loads(result.stdout)["out"] == str(out.resolve())
    assert _leftovers(tmp_path) == []


def test_overwrite_works_where_directories_cannot_be_exchanged(
    ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export_dir, "_exchange", lambda first, second: False)
    out = tmp_path / "out"
    assert _export(ledger, out).exit_code == 0
    fresh = _tree(out)
    (out / "stale.parquet").write_bytes(b"old")
    assert _export(ledger, out, "--overwrite").exit_code == 0
    assert _tree(out) == fresh
    assert _leftovers(tmp_path) == []


def _fail_after_first_file(monkeypatch: pytest.MonkeyPatch) -> None:
    written = parquet_export.write_table
    calls = []

    def failing(*args, **kwargs):
        calls.append(args)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return written(*args, **kwargs)

    monkeypatch.setattr(parquet_export, "write_table", failing)


def test_failure_midway_leaves_no_half_export(
    ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_after_first_file(monkeypatch)
    result = _export(ledger, tmp_path / "out")
    assert result.exit_code == 3  # output not written (README "Exit codes"), not bad input
    assert "No space left on device" in result.stderr
    assert not (tmp_path / "out").exists()
    assert _leftovers(tmp_path) == []


def test_failure_midway_of_an_overwrite_keeps_the_earlier_export(
    ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    assert _export(ledger, out).exit_code == 0
    before = _tree(out)
    _fail_after_first_file(monkeypatch)
    result = _export(ledger, out, "--overwrite")
    assert result.exit_code == 3
    assert _tree(out) == before
    assert _leftovers(tmp_path) == []


def test_interrupt_midway_leaves_no_half_export(
    ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(parquet_export, "write_events", interrupted)
    result = _export(ledger, tmp_path / "out")
    assert result.exit_code == 130
    assert "nothing was written" in result.stderr
    assert not (tmp_path / "out").exists()
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("overwrite", [False, True], ids=["new", "overwrite"])
def test_a_signal_once_the_export_is_in_place_says_it_was_written(
    ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overwrite: bool
) -> None:
    out = tmp_path / "out"
    if overwrite:
        assert _export(ledger, out).exit_code == 0
    real = os.fsync

    def fsync(descriptor: int) -> None:  # the folder's sync, after the rename into place
        if os.readlink(f"/proc/self/fd/{descriptor}") == str(tmp_path):
            raise KeyboardInterrupt
        real(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    result = _export(ledger, out, *(["--overwrite"] if overwrite else []))
    assert result.exit_code == 130
    assert result.stderr.replace("\n", "") == f"error: interrupted after {out} was written"
    assert json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
    assert _leftovers(tmp_path) == []


def test_out_that_is_a_file_is_refused(ledger: str, tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file", encoding="utf-8")
    result = _export(ledger, tmp_path / "out")
    assert result.exit_code == 2
    assert "not a directory" in result.stderr
    assert (tmp_path / "out").read_text(encoding="utf-8") == "a file"


def test_out_in_a_missing_folder_is_refused(ledger: str, tmp_path: Path) -> None:
    result = _export(ledger, tmp_path / "missing" / "out")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def _earlier_export_not_swappable(
    ledger: str, out: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, bytes]:
    """An earlier export at `out` (with a stale file of its own), where folders cannot be
    swapped in one step: an overwrite renames it aside and the new one into place."""
    monkeypatch.setattr(export_dir, "_exchange", lambda first, second: False)
    assert _export(ledger, out).exit_code == 0
    (out / "stale.parquet").write_bytes(b"old")
    return _tree(out)


@pytest.mark.parametrize("after", ["set aside", "in place"])
def test_ctrl_c_during_the_renames_of_an_overwrite_waits_for_the_new_export_in_place(
    ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: str
) -> None:
    """Ctrl-C right after the earlier export is renamed aside, or after the new one is put in
    its place: `--out` is never left missing, and no earlier export stays aside."""
    out = tmp_path / "out"
    _earlier_export_not_swappable(ledger, out, monkeypatch)
    real = os.rename

    def rename(source, destination) -> None:
        real(source, destination)
        aside = str(destination).endswith(".old")
        in_place = str(source).endswith(".partial")
        if (after == "set aside" and aside) or (after == "in place" and in_place):
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(os, "rename", rename)
    result = _export(ledger, out, "--overwrite")
    assert result.exit_code == 130
    assert result.stderr.replace("\n", "") == f"error: interrupted after {out} was written"
    assert "stale.parquet" not in _tree(out) and "MANIFEST.json" in _tree(out)
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("raised", "code", "said"),
    [
        (KeyboardInterrupt(), 130, "error: interrupted: nothing was written to {out}"),
        (
            OSError(errno.EIO, os.strerror(errno.EIO)),
            3,
            "error: could not write {out}: "
            + os.strerror(errno.EIO)
            + "; nothing was written to it",
        ),
    ],
)
def test_a_failed_second_rename_of_an_overwrite_puts_the_earlier_export_back(
    raised: BaseException,
    code: int,
    said: str,
    ledger: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A disk error is what a failing second rename really is (a signal waits for both
    renames); either way the earlier export is put back and nothing is said written."""
    out = tmp_path / "out"
    before = _earlier_export_not_swappable(ledger, out, monkeypatch)
    real = os.rename
    set_aside = []

    def rename(source, destination) -> None:
        if set_aside and str(source).endswith(".partial"):
            raise raised
        real(source, destination)
        set_aside.extend([destination] if str(destination).endswith(".old") else [])

    monkeypatch.setattr(os, "rename", rename)
    result = _export(ledger, out, "--overwrite")
    assert set_aside, "the earlier export was never set aside"
    assert result.exit_code == code
    assert result.stderr.replace("\n", "") == said.format(out=out)
    assert _tree(out) == before
    assert _leftovers(tmp_path) == []


def test_a_failed_export_is_not_said_written_when_its_folder_is_gone(
    ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether the export was published is asked before its staging folder is deleted:
    afterwards, another folder made at `--out` could be given the freed inode. Simulated by
    a deletion that moves the staging folder to `--out`, its inode then there."""
    out = tmp_path / "out"
    real = shutil.rmtree

    def rmtree(path, *args, **kwargs) -> None:
        if str(path).endswith(".partial"):
            os.rename(path, out)
        else:
            real(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", rmtree)
    _fail_after_first_file(monkeypatch)
    result = _export(ledger, out)
    assert result.exit_code == 3
    assert "nothing was written" in result.stderr and "was written," not in result.stderr
