"""A game's dictionary: its words, its two-letter list, and the hash that names it.

Games record the SHA-256 of the folded, sorted word list so that a replay years later checks
words against exactly the list the game was played with, whatever file it came from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Container, Iterable
from dataclasses import dataclass, field


def canonical_word_bytes(words: Iterable[str]) -> bytes:
    """The bytes a dictionary hash is taken over: distinct folded words, sorted, one per line."""
    ordered = words if _distinct_and_sorted(words) else sorted(set(words))
    return ("\n".join(ordered) + "\n").encode("ascii") if ordered else b""


def _distinct_and_sorted(words: Iterable[str]) -> bool:
    """Whether a tuple or list is already canonical (a word list's words, read back): then
    neither a set nor a sort of its hundreds of thousands of words is needed."""
    return isinstance(words, tuple | list) and all(map(str.__lt__, words, words[1:]))


def dictionary_sha256(words: Iterable[str]) -> str:
    return hashlib.sha256(canonical_word_bytes(words)).hexdigest()


@dataclass(frozen=True)
class Dictionary:
    """Words (folded, upper case) plus the two-letter list a two-letter word must also be on."""

    words: Container[str] = field(repr=False)
    two_letter: frozenset[str] = field(repr=False)
    sha256: str = ""
    name: str = ""

    def accepts(self, word: str) -> bool:
        if word not in self.words:
            return False
        return len(word) != 2 or word in self.two_letter

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "") -> Dictionary:
        """A dictionary held in a set; the two-letter list defaults to its two-letter words."""
        unique = frozenset(words)
        return cls(
            words=unique,
            two_letter=frozenset(w for w in unique if len(w) == 2),
            sha256=dictionary_sha256(unique),
            name=name,
        )
