"""Echoing what a user typed back in an error message, cut to a readable length.

A message names the input it refuses so that the user can find it; a move of a million
letters must not come back whole. Every message that quotes user input goes through `echo`.
"""

from __future__ import annotations

ECHO_LIMIT = 60
"""How many characters of an input a message quotes before cutting it."""


def echo(text: str, *, quote: bool = True) -> str:
    """`text` quoted as Python's repr does (or bare with `quote=False`), cut after
    ECHO_LIMIT characters with its full length said: `'AAA…' (1,000,000 characters)`."""
    if len(text) <= ECHO_LIMIT:
        return repr(text) if quote else text
    head = repr(text[:ECHO_LIMIT]) if quote else text[:ECHO_LIMIT]
    return f"{head}… ({len(text):,} characters)"
