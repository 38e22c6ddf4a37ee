"""Text files read as lines, the same way wherever a user's file comes in (slips, seed files,
word lists, Hunspell dictionaries).

A line ends at `\n` (or `\r\n`) only, never at the other line breaks `str.splitlines`
knows (U+2028, U+0085, a lone CR, VT, FF), which a forum text may carry inside a slip: a
slip read by the game inputs and a word read by the lexicons are cut at the same places.
"""

from __future__ import annotations

from collections.abc import Iterator


def lines(text: str) -> Iterator[str]:
    """The lines of a text file: split on `\n` (and `\r\n`) only."""
    for line in text.split("\n"):
        yield line.removesuffix("\r")
