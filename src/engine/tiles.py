"""Letters as the game knows them: Romanian diacritics folded to the 26 letters A-Z.

The federation writes ĂÂÎȘȚ but the tiles carry A, I, S, T: folding happens once, at every
edge where text enters (notation, word lists, racks), so that the rest of the engine only ever
sees A-Z.
"""

from __future__ import annotations

import string

ALPHABET = string.ascii_uppercase
JOKER = "?"

_FOLD = str.maketrans(
    {
        "Ă": "A", "ă": "a", "Â": "A", "â": "a", "Î": "I", "î": "i",
        "Ș": "S", "ș": "s", "Ş": "S", "ş": "s", "Ț": "T", "ț": "t", "Ţ": "T", "ţ": "t",
    }
)  # fmt: skip


def fold(text: str) -> str:
    """Replace Romanian diacritics by their base letters, keeping case (Ș → S, ă → a)."""
    return text.translate(_FOLD)


def fold_word(word: str) -> str | None:
    """A word-list entry as the engine stores it: folded, upper case, A-Z only; else None."""
    folded = fold(word.strip())
    if folded and folded.isascii() and folded.isalpha():
        return folded.upper()
    return None
