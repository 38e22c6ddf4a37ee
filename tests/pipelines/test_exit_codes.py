"""Exit codes as the README's table says (README "Exit codes"), through the real CLI: every code
the commands use is one the table lists with that meaning, and a command exits 0 only when it
did what it says. An unknown tournament or season, an empty export file, a missing stream are
unusable input (2); tiles that are not tiles, an unknown ruleset or a bad setting too, never a
verdict of the rules (1); a number too large for any use is refused (2), not an internal error;
a read-only folder or a full disk is output not written (3), whoever writes: a seed file, an
export, a picture, a key, the demo (which then leaves no half a folder)."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter, cli, create, runner

from pipelines.cli.arbitru import app
from pipelines.cli.exits import ExitCode
from pipelines.files.errors import OutputNotWritten

ROOT = Path(__file__).parents[2]
GAME = ROOT / "fixtures" / "games" / "duplicate-game.jsonl"
BOARD = ROOT / "fixtures" / "boards" / "diluaram.txt"

pytestmark = pytest.mark.usefixtures("default_home")


def readme_table() -> dict[int, str]:
    """The README's exit-code table: code -> meaning."""
    text = (ROOT / "README.md").read_text("utf-8")
    section = text[text.index("## Exit codes") :]
    section = section[: section.index("\n## ", 3)]
    return {int(m[1]): m[2] for m in re.finditer(r"^\| (\d) \| (.+) \|$", section, re.M)}


def test_the_readme_table_lists_exactly_the_codes_the_commands_use():
    table = readme_table()
    assert sorted(table) == [int(code) for code in ExitCode]
    assert "negative verdict" in table[1] and "could not run" in table[2]
    assert "could not be written" in table[3] and "internal error" in table[4]


def _code(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exit_code in readme_table(), result.output
    return result.exit_code, " ".join(result.stderr.split())


@pytest.fixture
def ledger(db_url: str) -> str:
    cli("ledger", "import", str(GAME), "--db", db_url, "--json")
    return db_url


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--tournament", "cupa-bucurest"), "no game of tournament cupa-bucurest"),
        (("--season", "1999"), "no game of season 1999"),
        (("--game", "nope"), "no game nope"),
    ],
)
def test_recompute_of_an_unknown_selection_is_unusable_not_up_to_date(ledger, args, said):
    code, stderr = _code("recompute", "--db", ledger, *args)
    assert code == ExitCode.UNUSABLE and said in stderr and "nothing was recomputed" in stderr


def test_exporting_a_missing_stream_is_unusable_and_writes_no_file(ledger, tmp_path):
    out = tmp_path / "g.jsonl"
    code, stderr = _code(
        "ledger", "export", "--db", ledger, "--stream", "game/zz", "--out", str(out)
    )
    assert code == ExitCode.UNUSABLE and "no stream game/zz" in stderr and not out.exists()
    code, _ = _code("ledger", "export", "--db", ledger, "--stream", "game/zz")
    assert code == ExitCode.UNUSABLE


def test_verifying_an_empty_export_file_is_unusable_not_an_intact_chain(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    code, stderr = _code("ledger", "verify", "--file", str(empty))
    assert code == ExitCode.UNUSABLE and "holds no event" in stderr


def test_a_limit_too_large_for_any_position_is_refused_as_usage():
    code, _ = _code("engine", "top", "--board", str(BOARD), "--rack", "ABC", "--limit",
                    "99999999999999999999")  # fmt: skip
    assert code == ExitCode.UNUSABLE


def _read_only(monkeypatch, folder: Path) -> None:
    """`folder` is on a read-only file system: creating or removing anything in it fails
    with EROFS, as the kernel says it."""
    real_open, real_unlink = os.open, Path.unlink

    def refused(path) -> OSError:
        return OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    def opening(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and Path(path).parent == folder:
            raise refused(path)
        return real_open(path, flags, *args, **kwargs)

    def unlinking(self, missing_ok=False):
        if self.parent == folder:
            raise refused(self)
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(os, "open", opening)
    monkeypatch.setattr(Path, "unlink", unlinking)


def test_a_read_only_folder_is_output_not_written_for_every_writer(ledger, tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    _read_only(monkeypatch, folder)
    for args in (
        ("ledger", "export", "--db", ledger, "--out", str(folder / "x.jsonl")),
        ("game", "replay", "cb26-p1", "--db", ledger, "--svg", str(folder / "x.svg")),
        ("keys", "new", str(folder / "k")),
        ("game", "create", "s1", "--draw", "seeded", "--seed-file", str(folder / "s"), "--db",
         ledger),
    ):  # fmt: skip
        code, stderr = _code(*args)
        assert code == ExitCode.UNWRITTEN, (args, stderr)
        assert "Read-only file system" in stderr, stderr
    assert list(folder.iterdir()) == []


def test_a_full_disk_under_seed_file_exits_3_and_leaves_no_empty_seed(
    ledger, tmp_path, monkeypatch
):
    seed = tmp_path / "s1.seed"
    real = os.fsync

    def fsync(descriptor: int) -> None:
        written = Path(os.readlink(f"/proc/self/fd/{descriptor}"))  # the seed or its .partial
        if written == seed or written.name.startswith(f".{seed.name}."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    arbiter = Arbiter(ledger, game="s1")
    stderr = arbiter.refused(3, "create", "s1", "--draw", "seeded", "--seed-file", str(seed))
    assert "No space left on device" in stderr and not seed.exists()
    monkeypatch.setattr(os, "fsync", real)
    create(arbiter, "--draw", "seeded", "--seed-file", str(seed))  # the retry works
    assert seed.read_text().strip()


def test_a_demo_that_fails_half_way_leaves_no_half_a_folder(tmp_path, monkeypatch):
    def full(*_args, **_kwargs):
        raise OutputNotWritten(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), tmp_path)

    monkeypatch.setattr("pipelines.season.export.export_parquet", full)  # as the demo runs
    target = tmp_path / "demo"
    code, stderr = _code("demo", "--dir", str(target))
    assert code == ExitCode.UNWRITTEN and "No space left on device" in stderr
    assert "--db" not in stderr and not target.exists()
    given = tmp_path / "empty"
    given.mkdir()
    assert _code("demo", "--dir", str(given))[0] == ExitCode.UNWRITTEN
    assert given.is_dir() and list(given.iterdir()) == []


def test_a_penalty_too_large_for_the_export_is_refused_before_it_is_recorded(db_url, tmp_path):
    arbiter = Arbiter(db_url)
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "CARTEAM")
    before = arbiter.count()
    huge = arbiter.run("penalise", "hd1", "--player", "ana", "--points", "9007199254740991",
                       "--reason", "x")  # fmt: skip
    assert huge.exit_code == 2 and "--points" in huge.stderr and arbiter.count() == before
    arbiter.ok("penalise", "hd1", "--player", "ana", "--points", "1000", "--reason", "x")
    assert cli("export", "--db", db_url, "--out", str(tmp_path / "out")).exit_code == 0


@pytest.mark.parametrize("when", ["9999-12-31T23:59:59-23:00", "0001-01-01T00:00:00+01:00"])
def test_a_time_beyond_the_calendar_in_utc_is_unusable_not_an_internal_error(when, sqlite_url):
    arbiter = Arbiter(sqlite_url)
    create(arbiter)
    refused = arbiter.refused(2, "draw", "hd1", "--tiles", "CARTEAM", "--deadline", when)
    assert "--deadline" in refused and "out of range" in refused
