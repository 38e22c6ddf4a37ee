"""The registry of word lists by hash, and the lexicon cache in the data directory."""

import json
import shutil
from pathlib import Path

import pytest

from engine.lexicon import Lexicon
from pipelines.lexicons.cache import load_dictionary
from pipelines.lexicons.registry import (
    LexiconSpecError,
    cache_path,
    data_home,
    default_sha256,
    register_list,
    resolve,
)
from pipelines.lexicons.wordlists import read_word_list

DATA = Path(__file__).parents[1] / "data" / "lexicon"
FEDERATION = DATA / "federation.txt"
DEFAULT_SHA256 = "1c4d2d521b59a5f0d6cd20e3993e8f8e6264e794992598e2f8f7da86f042dacf"


def test_data_directory_prefers_arbitru_home_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv("ARBITRU_HOME", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert data_home() == tmp_path / "a"
    monkeypatch.delenv("ARBITRU_HOME")
    assert data_home() == tmp_path / "x" / "arbitru"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert data_home() == tmp_path / "h" / ".local" / "share" / "arbitru"


def test_registered_list_is_named_by_the_hash_of_its_folded_sorted_words(home):
    entry = register_list(FEDERATION, name="LOC test")
    assert entry.sha256 == read_word_list(FEDERATION).sha256
    assert entry.name == "LOC test" and entry.words_path.parent == home / "lists"
    assert resolve(entry.sha256) == entry
    assert resolve(entry.sha256.upper()) == entry


def test_registering_again_keeps_the_name_and_the_hash(home):
    first = register_list(FEDERATION, name="LOC")
    assert register_list(FEDERATION) == first


def test_dictionary_from_a_path_uses_the_engine_lexicon_and_its_two_letter_words(home):
    dictionary = load_dictionary(str(FEDERATION))
    assert isinstance(dictionary.words, Lexicon)
    assert dictionary.sha256 == read_word_list(FEDERATION).sha256
    assert dictionary.accepts("TARA") and not dictionary.accepts("TAR")
    assert dictionary.two_letter == {"AL", "ZI"}


def test_list_loaded_by_path_can_be_loaded_later_by_hash_after_the_file_is_gone(home, tmp_path):
    moved = tmp_path / "loc.txt"
    shutil.copy(FEDERATION, moved)
    sha256 = load_dictionary(str(moved)).sha256
    moved.unlink()
    assert load_dictionary(sha256).accepts("SAH")


def test_two_letter_file_given_at_registration_replaces_the_default(home):
    entry = register_list(FEDERATION, two_letter=DATA / "two-letter.txt")
    dictionary = load_dictionary(entry.sha256)
    assert dictionary.two_letter == {"AL"}
    assert not dictionary.accepts("ZI") and dictionary.accepts("AL")


def test_a_registered_lists_two_letter_list_is_never_replaced(home, tmp_path):
    """Games record the words' SHA-256 only: its two-letter list must not change under them."""
    entry = register_list(FEDERATION, two_letter=DATA / "two-letter.txt")
    register_list(FEDERATION, two_letter=DATA / "two-letter.txt")  # the same one: idempotent
    other = tmp_path / "other-two.txt"
    other.write_text("AL\nZI\n", encoding="utf-8")
    with pytest.raises(LexiconSpecError, match="would change the verdicts"):
        register_list(FEDERATION, two_letter=other)
    assert load_dictionary(entry.sha256).two_letter == {"AL"}


def test_a_two_letter_list_is_not_added_to_a_list_registered_without_one(home):
    entry = register_list(FEDERATION)
    with pytest.raises(LexiconSpecError, match="no two-letter list of its own"):
        register_list(FEDERATION, two_letter=DATA / "two-letter.txt")
    assert load_dictionary(entry.sha256).two_letter == {"AL", "ZI"}


def test_two_letter_argument_overrides_the_registered_list(home):
    dictionary = load_dictionary(str(FEDERATION), two_letter=str(DATA / "two-letter.txt"))
    assert dictionary.two_letter == {"AL"}


def test_unknown_hash_says_to_register_the_list(home):
    with pytest.raises(LexiconSpecError, match="lexicon add"):
        resolve("0" * 64)


def test_missing_file_spec_says_what_a_spec_can_be(home):
    with pytest.raises(LexiconSpecError, match="no such word-list file"):
        resolve("no/such/file.txt")


def test_cache_is_written_under_the_list_hash_atomically(home):
    sha256 = load_dictionary(str(FEDERATION)).sha256
    assert cache_path(sha256).is_file()
    assert not [p for p in (home / "cache").iterdir() if p.name.endswith(".tmp")]


def test_cache_is_rebuilt_when_the_list_changes(home, tmp_path):
    path = tmp_path / "loc.txt"
    path.write_text("vară\nșah\n", "utf-8")
    before = load_dictionary(str(path))
    path.write_text("vară\nșah\nțară\n", "utf-8")
    after = load_dictionary(str(path))
    assert before.sha256 != after.sha256 and after.accepts("TARA")
    assert cache_path(before.sha256).is_file() and cache_path(after.sha256).is_file()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-7],
        lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]),
        lambda data: b"not json\n" + data,
        lambda data: data.replace(b'"words": 6', b'"words": 7'),
        lambda data: b"",
    ],
    ids=["truncated", "flipped-byte", "bad-header", "wrong-count", "empty"],
)
def test_corrupt_cache_is_rebuilt_not_trusted(home, damage):
    sha256 = load_dictionary(str(FEDERATION)).sha256
    path = cache_path(sha256)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    dictionary = load_dictionary(sha256)
    assert len(dictionary.words) == 6 and dictionary.accepts("VARA")
    assert path.read_bytes() == good


def test_a_cache_is_split_at_its_first_newline_however_long_its_header(home, monkeypatch):
    """The payload is read apart from the header line (`cache._split_cache`), even when the line
    runs past the first block read; a file with no newline is no cache."""
    from pipelines.lexicons import cache

    sha256 = load_dictionary(str(FEDERATION)).sha256
    path = cache_path(sha256)
    header, _, payload = path.read_bytes().partition(b"\n")
    path.write_bytes(header[:-1] + b" " * 5000 + b"}\n" + payload)  # JSON allows the spaces
    assert cache._split_cache(path) == (header[:-1] + b" " * 5000 + b"}", payload)
    with monkeypatch.context() as patched:
        patched.setattr(cache.Lexicon, "from_words", None)  # read, not rebuilt
        assert load_dictionary(sha256).accepts("VARA")
    path.write_bytes(header)
    assert cache._split_cache(path) == (header, b"")
    assert load_dictionary(sha256).accepts("VARA") and path.read_bytes() != header


def test_cache_holding_another_list_is_not_trusted(home, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("mac\n", "utf-8")
    sha256 = load_dictionary(str(FEDERATION)).sha256
    other_sha = load_dictionary(str(other)).sha256
    shutil.copy(cache_path(other_sha), cache_path(sha256))
    assert load_dictionary(sha256).accepts("VARA")


def test_default_list_is_the_pinned_rospell_build_cached_in_the_data_directory(default_home):
    dictionary = load_dictionary()
    assert dictionary.sha256 == DEFAULT_SHA256 == default_sha256()
    assert len(dictionary.words) == 679_217 and len(dictionary.two_letter) == 98
    assert cache_path(DEFAULT_SHA256).parent == default_home / "cache"
    assert all(dictionary.accepts(w) for w in ("FETELOR", "CASA", "SAH", "LUPILOR", "AL"))
    assert not any(dictionary.accepts(w) for w in ("LUPULE", "ABBA", "CM", "RELUPILOR"))


def test_default_list_can_be_named_by_its_hash(default_home):
    assert load_dictionary(DEFAULT_SHA256).name == load_dictionary("default").name


def test_default_list_is_read_from_its_cache_not_built_again(default_home, monkeypatch):
    """Building takes a few seconds; every later command reads the DAWG from the cache (how long
    that takes is measured by benchmarks/replay_bench.py, not asserted here)."""

    def built_again(words):
        raise AssertionError("the default list was built again despite its cache")

    monkeypatch.setattr(Lexicon, "from_words", built_again)
    dictionary = load_dictionary()
    assert dictionary.accepts("FETELOR")


def test_cache_header_names_its_list(default_home):
    header = cache_path(DEFAULT_SHA256).read_bytes().partition(b"\n")[0]
    assert json.loads(header) == {"cache": 1, "sha256": DEFAULT_SHA256, "words": 679_217}


def test_wrong_remembered_hash_of_the_shipped_list_is_cleared_not_trusted(home):
    wrong = "f" * 64
    assert default_sha256() == DEFAULT_SHA256
    (record,) = (home / "sources").iterdir()
    record.write_text(wrong + "\n")
    with pytest.raises(LexiconSpecError, match="run the command again"):
        load_dictionary()
    assert not cache_path(wrong).exists()
    assert default_sha256() == DEFAULT_SHA256


def test_a_damaged_stored_list_is_registered_again_from_the_file_given(home):
    entry = register_list(FEDERATION)
    entry.words_path.write_bytes(b"not xz at all")
    entry.cache_path.unlink(missing_ok=True)
    dictionary = load_dictionary(str(FEDERATION))
    assert dictionary.sha256 == entry.sha256
    assert len(dictionary.words) == len(read_word_list(FEDERATION).words)


def test_unwritable_data_directory_is_named_with_what_to_do(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("ARBITRU_HOME", str(blocker / "home"))
    with pytest.raises(ValueError, match=r"cannot write to the data directory .* set ARBITRU_HOME"):
        load_dictionary(str(FEDERATION))


def test_unwritable_cache_warns_and_the_list_still_loads(home, capsys):
    entry = register_list(FEDERATION)
    assert not entry.cache_path.parent.exists()
    entry.cache_path.parent.write_text("a file where the cache folder should be")
    dictionary = load_dictionary(entry.sha256)
    assert len(dictionary.words) == len(read_word_list(FEDERATION).words)
    assert "cannot write the lexicon cache" in capsys.readouterr().err
