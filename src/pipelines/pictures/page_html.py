"""The printable page every published table shares (`game table`, `tournament table` and
`season table` with `--html FILE`): one self-contained HTML file, its style inline, with no
script, link, image or font to fetch, so that it opens and prints the same anywhere, offline
too; a heading, the table, and the notes under it, every text escaped."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

STYLE = """
body { font-family: sans-serif; margin: 1em; color: #000; background: #fff; }
h1 { font-size: 1.2em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #888; padding: 0.15em 0.4em; text-align: right; }
th.name, td.name { text-align: left; }
tr.master { font-weight: bold; background: #eee; }
td.top { background: #dfd; }
td.solo { background: #bdf; font-weight: bold; }
td.zero { color: #a00; }
p.legend { font-size: 0.85em; }
@media print { body { margin: 0; } table { font-size: 0.7em; } }
"""


def page(title: str, head: str, body: str, notes: Sequence[str]) -> str:
    """The page around a table whose header row (`head`) and body rows (`body`) are HTML
    already; the title and the notes are text."""
    legend = "".join(f'<p class="legend">{escape(note)}</p>\n' for note in notes)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{escape(title)}</h1>\n"
        f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>\n"
        f"{legend}</body>\n</html>\n"
    )


def table_page(
    title: str,
    columns: Sequence[tuple[str, bool]],
    rows: Sequence[Sequence[str]],
    notes: Sequence[str],
) -> str:
    """A page of a table of text cells: `columns` are (heading, whether it holds text, set
    flush left, rather than numbers, flush right), each row one text per column."""
    klass = [' class="name"' if text else "" for _, text in columns]

    def cells(tag: str, texts: Sequence[str]) -> str:
        pairs = zip(klass, texts, strict=True)
        return "".join(f"<{tag}{k}>{escape(text)}</{tag}>" for k, text in pairs)

    head = cells("th", [name for name, _ in columns])
    body = "\n".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return page(title, head, body, notes)
