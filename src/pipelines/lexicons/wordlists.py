"""Word-list files: one word per line, with or without diacritics, folded and hashed.

This is how any list enters Arbitru, the federation's own (LOC) as much as the shipped one;
the hash of the folded, sorted words (engine.dictionary) is what names the list in games.

A list names the words that can be played: a word must fit the 15x15 board and be at least two
letters long, so words of other lengths (a federation list may hold one-letter words or long
compounds) are skipped and counted, not refused, and the hash is over the playable words.
A line far longer than any word is refused: it is not a word list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.dictionary import dictionary_sha256
from engine.tiles import fold_word
from ledger.input_files import WORD_LIST, InputFileError, read_input
from pipelines.files.text import lines

MIN_LETTERS, MAX_LETTERS = 2, 15
MAX_LINE_CHARS = 1_000
_SHOWN_SKIPPED = 3


class WordListError(ValueError):
    """A word-list file that cannot be read as one word per line, naming the file and line."""


@dataclass(frozen=True)
class Skipped:
    """A word left out of a list because it cannot be played: too short or too long."""

    line: int
    word: str


@dataclass(frozen=True)
class WordList:
    """The distinct folded words of a file, sorted, the hash that names them, what was skipped."""

    words: tuple[str, ...]
    sha256: str
    source: str
    skipped: tuple[Skipped, ...] = ()

    def skipped_note(self) -> str:
        """One line saying how many words were skipped and which, or "" when none was."""
        if not self.skipped:
            return ""
        shown = ", ".join(f"line {s.line} {s.word!r}" for s in self.skipped[:_SHOWN_SKIPPED])
        more = ", ..." if len(self.skipped) > _SHOWN_SKIPPED else ""
        return (
            f"{self.source}: skipped {len(self.skipped):,} words outside {MIN_LETTERS}-"
            f"{MAX_LETTERS} letters (they cannot be played on the board): {shown}{more}"
        )


def parse_word_list(text: str, source: str = "<text>", allow_empty: bool = False) -> WordList:
    """Read one word per line, with or without diacritics; blank lines and ``#`` lines skipped.

    A line that is not a single word of letters A-Z after folding is an error naming the line:
    the list's hash names the dictionary a game is played with, so silently dropping a line
    would name a different list from the one the federation published. Words that cannot be
    played (outside MIN_LETTERS..MAX_LETTERS) are skipped and listed in ``skipped``.
    """
    words: set[str] = set()
    skipped: list[Skipped] = []
    for number, raw in enumerate(lines(text.removeprefix("\ufeff")), start=1):
        if len(raw) > MAX_LINE_CHARS:
            raise WordListError(
                f"{source}, line {number}: {len(raw):,} characters, not a word (a word has at "
                f"most {MAX_LETTERS} letters): is this a word list, one word per line?"
            )
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        folded = fold_word(line)
        if folded is None:
            raise WordListError(
                f"{source}, line {number}: {line!r} is not one word of letters A-Z "
                "(diacritics ĂÂÎȘȚ are folded); fix or delete the line, or comment it out with #"
            )
        if MIN_LETTERS <= len(folded) <= MAX_LETTERS:
            words.add(folded)
        else:
            skipped.append(Skipped(number, folded))
    if not words and not allow_empty:
        raise WordListError(
            f"{source}: no words of {MIN_LETTERS}-{MAX_LETTERS} letters "
            "(one word per line expected)"
        )
    ordered = tuple(sorted(words))
    return WordList(ordered, dictionary_sha256(ordered), source, tuple(skipped))


def read_word_list(path: Path, allow_empty: bool = False) -> WordList:
    """`parse_word_list` of a UTF-8 file (a byte-order mark is allowed)."""
    return word_list_of_bytes(read_file_bytes(path), path, allow_empty)


def word_list_of_bytes(data: bytes, path: Path, allow_empty: bool = False) -> WordList:
    """`parse_word_list` of a file's bytes, already read (so that they are hashed as parsed)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise WordListError(
            f"{path}, line {line}: not UTF-8; convert the file first, for example "
            f"iconv -f CP1250 -t UTF-8 {path.name} > words-utf8.txt"
        ) from exc
    return parse_word_list(text, str(path), allow_empty)


def read_file_bytes(path: Path) -> bytes:
    """A file's bytes, or WordListError naming the file and why it cannot be read."""
    try:
        return read_input(path, WORD_LIST)
    except InputFileError as exc:
        raise WordListError(str(exc)) from None
