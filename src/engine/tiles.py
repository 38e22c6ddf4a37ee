"""Letters as the game knows them: Romanian diacritics folded to the 26 letters A-Z.

The federation writes ĂÂÎȘȚ but the tiles carry A, I, S, T: folding happens once, at every
edge where text enters (notation, word lists, racks), so that the rest of the engine only ever
sees A-Z.
"""

from __future__ import annotations

import string
import unicodedata

ALPHABET = string.ascii_uppercase
JOKER = "?"

_FOLD = str.maketrans(
    {
        "Ă": "A", "ă": "a", "Â": "A", "â": "a", "Î": "I", "î": "i",
        "Ș": "S", "ș": "s", "Ş": "S", "ş": "s", "Ț": "T", "ț": "t", "Ţ": "T", "ţ": "t",
    }
)  # fmt: skip


_APOSTROPHES = str.maketrans("", "", "'’ʼ")


def fold(text: str) -> str:
    """Replace Romanian diacritics by their base letters, keeping case (Ș → S, ă → a).

    Text is first composed (NFC), so that a letter typed as A plus a combining breve folds
    like Ă does.
    """
    return unicodedata.normalize("NFC", text).translate(_FOLD)


def fold_word(word: str) -> str | None:
    """A word-list entry as the engine stores it: folded, upper case, A-Z only; else None.

    Apostrophes are dropped (the federation accepts words written with one, and tiles carry
    no apostrophe); anything else outside A-Z after folding (hyphenated compounds, digits,
    other alphabets) makes the entry no word.
    """
    if word.isascii() and word.isalpha():  # most entries: nothing to fold (a list's load time)
        return word if word.isupper() else word.upper()
    folded = fold(word.strip()).translate(_APOSTROPHES)
    if folded and folded.isascii() and folded.isalpha():
        return folded.upper()
    return None
