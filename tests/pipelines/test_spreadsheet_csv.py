"""The tables people open in a spreadsheet (a game's table, the tournament and season ranking
tables) are written by one writer: UTF-8 with a byte-order mark, CR LF, and no typed text that
a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import io

import pytest

from pipelines.files.spreadsheet import inert, spreadsheet_lines


@pytest.mark.parametrize("typed", ["=1+1", '=HYPERLINK("http://x")', "+40", "-2", "@SUM(A1)",
                                   "\tx", "\rx"])  # fmt: skip
def test_a_text_a_spreadsheet_would_run_as_a_formula_is_written_inert(typed: str) -> None:
    assert inert(typed) == "'" + typed


@pytest.mark.parametrize("typed", ["Ana Ionescu", "Clubul Cuvântul", "Știrbei", "", "1=1"])
def test_other_texts_are_written_as_typed(typed: str) -> None:
    assert inert(typed) == typed


def test_the_lines_begin_with_the_utf8_mark_end_in_cr_lf_and_read_back() -> None:
    written = b"".join(
        spreadsheet_lines(["rank", "name", "points"], [[1, inert("=1+1"), None], [2, "Țuțu", 4.5]])
    )
    assert written.startswith("\ufeffrank,name,points\r\n".encode())
    text = written.decode("utf-8-sig")
    assert list(csv.reader(io.StringIO(text, newline=""))) == [
        ["rank", "name", "points"],
        ["1", "'=1+1", ""],
        ["2", "Țuțu", "4.5"],
    ]
