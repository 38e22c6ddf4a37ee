"""The lexicon cache: a registered list's DAWG (engine.lexicon), built once and kept under the
data directory's ``cache/<sha256>.lexicon``, rebuilt when missing or corrupt; and the
dictionaries and counts read through it.

The registry (`pipelines.lexicons.registry`) says which list a spec names; this module turns
it into what the engine plays with. A first build takes a second or more, so it reports its
progress through a `Progress` its caller hands over, or else the one the command line set (a
spinner on a terminal), never through a terminal of its own.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import sys
from collections.abc import Container
from pathlib import Path

from engine.dictionary import Dictionary
from engine.lexicon import Lexicon, LexiconError
from engine.tiles import ALPHABET
from pipelines.lexicons.registry import (
    _HEX64,
    DEFAULT_SPEC,
    LexiconSpecError,
    ListInfo,
    RegisteredList,
    _default_registered,
    _list_paths,
    _read_meta,
    _spec_file,
    _words_of,
    atomic_write,
    cache_path,
    registered,
    resolve,
)
from pipelines.lexicons.report import Progress, unasked
from pipelines.lexicons.wordlists import read_file_bytes, read_word_list, word_list_of_bytes

_CACHE_FORMAT = 1
_HEADER_READ = 4096
"""Bytes read to find a cache file's header line (about 110 bytes of JSON)."""


def lexicon_of(entry: RegisteredList, progress: Progress = unasked) -> Lexicon:
    """The entry's DAWG from the cache; built and cached when the cache is missing or bad.

    The build takes about 1.5 s for the default list (about 5 s without the compiled
    extension): ``progress`` is opened only then, to say what is happening (by default what the
    command line set, a spinner on a terminal: `pipelines.lexicons.report.unasked`).
    """
    cached = _read_cache(entry.cache_path, entry.sha256)
    if cached is not None:
        return cached
    with progress() as report:
        report(f"building the lexicon cache of {entry.name} (once per list)", 0, None)
        lexicon = Lexicon.from_words(_words_of(entry).words)
    header = json.dumps({"cache": _CACHE_FORMAT, "sha256": entry.sha256, "words": len(lexicon)})
    try:
        atomic_write(entry.cache_path, header.encode("ascii") + b"\n" + lexicon.to_bytes())
    except OSError as exc:
        # The cache only saves time: say so once and go on with the lexicon just built.
        sys.stderr.write(
            f"warning: cannot write the lexicon cache {entry.cache_path} "
            f"({exc.strerror or exc}); set ARBITRU_HOME to a writable folder\n"
        )
    return lexicon


def _read_cache(path: Path, sha256: str) -> Lexicon | None:
    """The lexicon in a cache file, or None when it is missing, foreign or corrupt."""
    try:
        line, payload = _split_cache(path)
        header = json.loads(line)
        words = header["words"]
        if header != {"cache": _CACHE_FORMAT, "sha256": sha256, "words": words}:
            return None
        lexicon = Lexicon.from_bytes(payload)
    except (OSError, ValueError, LexiconError, TypeError, KeyError):
        return None
    return lexicon if len(lexicon) == words else None


def _split_cache(path: Path) -> tuple[bytes, bytes]:
    """A cache file's header line and what follows it, as `read_bytes().partition(b"\\n")`
    gives them, but with the payload read straight into its own bytes: splitting the file's
    bytes would copy its ten megabytes once more, in every command that reads a game."""
    with path.open("rb", buffering=0) as file:
        line, newline, _ = file.read(_HEADER_READ).partition(b"\n")
        if not newline:  # no header line in the first block: read the rest and split it whole
            line, _, payload = (line + file.read()).partition(b"\n")
            return line, payload
        file.seek(len(line) + 1)
        return line, file.read()


def _two_letter(lexicon: Lexicon) -> frozenset[str]:
    return frozenset(a + b for a in ALPHABET for b in ALPHABET if a + b in lexicon)


def _two_letter_words(
    entry: RegisteredList, words: Container[str], override: str | None
) -> frozenset[str]:
    if override is not None:
        return frozenset(read_word_list(Path(override).expanduser()).words)
    if entry.two_letter_path is not None:
        return frozenset(read_word_list(entry.two_letter_path).words)
    return _two_letter(words)


def load_dictionary(
    spec: str | None = None, two_letter: str | None = None, progress: Progress = unasked
) -> Dictionary:
    """The engine dictionary a spec names; ``two_letter`` is a file replacing its two-letter list.

    The words are the engine's Lexicon, read from the cache when present and valid; for
    ``progress`` see `lexicon_of`.
    """
    entry = resolve(spec)
    lexicon = lexicon_of(entry, progress)
    two = _two_letter_words(entry, lexicon, two_letter)
    return Dictionary(words=lexicon, two_letter=two, sha256=entry.sha256, name=entry.name)


def describe(spec: str | None = None) -> ListInfo:
    """A list's entry and counts, only read: nothing is registered, no cache is written.

    The counts come from the lexicon cache when it is built, else from the list itself.
    """
    if spec is None or spec == DEFAULT_SPEC:
        return _counted(_default_registered(remember=False), 0)
    if _HEX64.fullmatch(spec):
        entry = registered(spec, remember=False)
        return _counted(entry, int(_read_meta(_list_paths(entry.sha256)[1]).get("skipped", 0)))
    path = _spec_file(spec)
    words = word_list_of_bytes(read_file_bytes(path), path)
    try:
        entry = registered(words.sha256, remember=False)
    except LexiconSpecError:
        entry = RegisteredList(
            sha256=words.sha256,
            name=path.stem,
            source=str(path.resolve()),
            words_path=path.resolve(),
            two_letter_path=None,
            cache_path=cache_path(words.sha256),
        )
        two = sum(1 for w in words.words if len(w) == 2)
        return ListInfo(entry, len(words.words), two, False, len(words.skipped), False)
    return _counted(entry, len(words.skipped))


def _counted(entry: RegisteredList, skipped: int) -> ListInfo:
    cached = _read_cache(entry.cache_path, entry.sha256)
    if cached is not None:
        count, two = len(cached), _two_letter_words(entry, cached, None)
    else:
        words = _canonical_words(entry)
        short = frozenset(w for w in words if len(w) == 2)
        count, two = len(words), _two_letter_words(entry, short, None)
    return ListInfo(entry, count, len(two), True, skipped, cached is not None)


def _canonical_words(entry: RegisteredList) -> list[str]:
    """The entry's words, read from its stored canonical bytes when they hash right.

    Faster than parsing the list again (which `_words_of` does, and which names the damage).
    """
    try:
        data = lzma.decompress(entry.words_path.read_bytes())
    except (OSError, lzma.LZMAError):
        data = b""
    if hashlib.sha256(data).hexdigest() != entry.sha256:
        return list(_words_of(entry).words)
    return data.decode("ascii").split()
