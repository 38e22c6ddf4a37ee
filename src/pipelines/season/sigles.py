"""A tournament's results as a SIGLES file: the simple Latin-1 lines French-system
federations import, `"place","name","total"`, one player a line, in the order of the
standings (docs/exchange.md).

    sigles_lines(standings) -> Sigles
        The lines (Latin-1 bytes ending in CRLF) and the names that had to be transliterated.

The first field, which SIGLES calls the table, holds the player's place: Arbitru records no
seating, and its player ids mean nothing to another federation. Tied players share the place
(1, 1, 3), as in `arbitru tournament standings`. Latin-1 has â, î and Â, Î but no ș, ț or ă:
a letter it lacks is written as its base letter (ș → s, Ă → A), one with none as `?`; the
command says which names were changed, so that nobody is surprised by the federation's list.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipelines.season.tournaments import TournamentStanding

ENCODING = "latin-1"
LINE_END = b"\r\n"

_NO_BASE = {"ß": "ss", "Œ": "OE", "œ": "oe", "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "ı": "i"}
"""Letters outside Latin-1 that decomposition does not reduce to one inside it."""


@dataclass(frozen=True)
class Sigles:
    """A SIGLES file: its lines, and each name written otherwise (as recorded, as written)."""

    lines: tuple[bytes, ...]
    transliterated: tuple[tuple[str, str], ...]


def latin1(text: str) -> str:
    """`text` with every character Latin-1 lacks replaced: by its letter without the accent
    (ș ş → s, ț ţ → t, ă → a), a few by a spelling (ł → l), any other by `?`; runs of white
    space and control characters become one space, so that a name stays on its line."""
    letters = []
    for char in unicodedata.normalize("NFC", text):
        if unicodedata.category(char)[0] in "CZ" or char.isspace():
            letters.append(" ")
        elif ord(char) < 0x100:
            letters.append(char)
        elif char in _NO_BASE:
            letters.append(_NO_BASE[char])
        else:
            base = "".join(
                c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)
            )
            letters.append(base if base and all(ord(c) < 0x100 for c in base) else "?")
    return " ".join("".join(letters).split())


def _field(value: str) -> bytes:
    return b'"' + value.replace('"', '""').encode(ENCODING) + b'"'


def sigles_lines(standings: Sequence[TournamentStanding]) -> Sigles:
    """The SIGLES lines of a tournament's standings, in their order; a player with no name
    recorded is written by their id."""
    lines = []
    changed = []
    for s in standings:
        recorded = s.name or s.player_id
        written = latin1(recorded)
        if written != " ".join(unicodedata.normalize("NFC", recorded).split()):
            changed.append((recorded, written))
        fields = (str(s.rank), written, str(s.total))
        lines.append(b",".join(_field(f) for f in fields) + LINE_END)
    return Sigles(tuple(lines), tuple(changed))
