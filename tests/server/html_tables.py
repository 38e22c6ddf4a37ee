"""A page's tables read as a reader sees them: each body row of the table with that id, its
cells' texts (whitespace squeezed), so that a test compares a page's figures with the command
line's without caring how the page lays them out."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.depth = 0  # > 0 inside the wanted table
        self.in_body = False
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and (self.depth or dict(attrs).get("id") == self.wanted):
            self.depth += 1
        elif self.depth and tag == "tbody":
            self.in_body = True
        elif self.depth and self.in_body and tag == "tr":
            self.rows.append([])
        elif self.depth and self.in_body and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.depth:
            self.depth -= 1
        elif tag == "tbody":
            self.in_body = False
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def table_rows(html: str, table_id: str) -> list[list[str]]:
    """The body rows of `<table id=table_id>` in `html`, each a list of its cells' texts."""
    parser = _Tables(table_id)
    parser.feed(html)
    return parser.rows


class _Text(HTMLParser):
    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.depth = 0
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth or dict(attrs).get("id") == self.wanted:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.found.append(data)


def text_of(html: str, element_id: str) -> str:
    """The text of the element with that id (one with no void element, e.g. `<img>`,
    inside), whitespace squeezed; empty when there is none."""
    parser = _Text(element_id)
    parser.feed(html)
    return " ".join("".join(parser.found).split())
