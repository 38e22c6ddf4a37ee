"""CSV written for a spreadsheet: the tables people open in one (a game's table, a tournament's
and a season's ranking tables). UTF-8 with a byte-order mark, so that a spreadsheet shows the
diacritics of Romanian names rather than guessing a code page; CR LF line ends, as RFC 4180
has them; and no text a spreadsheet would run as a formula. The Parquet export's CSV beside it
is for statisticians' tools and keeps to plain UTF-8 (`pipelines.season.csv_files`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(text: str) -> str:
    """A text as a spreadsheet shows it, never as a formula it would run: one starting with
    `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe (OWASP's advice
    for CSV files). Only texts people typed (names, clubs) need it: numbers stay numbers."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def spreadsheet_lines(header: Sequence[str], rows: Iterable[Sequence[object]]) -> Iterator[bytes]:
    """The header and the rows, a line each (None as an empty cell), the first line beginning
    with the byte-order mark: one chunk a line, so that a writer counting chunks counts lines."""
    buffer = io.StringIO("\ufeff")
    buffer.seek(0, io.SEEK_END)
    writer = csv.writer(buffer, lineterminator="\r\n")
    for values in (header, *rows):
        writer.writerow(["" if value is None else value for value in values])
        yield buffer.getvalue().encode("utf-8")
        buffer.seek(0)
        buffer.truncate()
