"""The replay page (`game replay --html FILE`, the server's `/games/{game}/replay`): one
self-contained HTML file that fetches nothing. Every board is inline SVG, the moments of the
game one JSON document (`pipelines.pictures.replay_steps`), and a small script of our own
(`replay.js`, beside this module) shows the one the slider or the arrow keys choose.

The page's words are English in `replay_words` and Romanian (the default) in the catalogue
`locale/ro/replay.po`, as the server's pages keep theirs (`pipelines.pictures.catalogues`); why
a slip does not count is said by its code (`pipelines.pictures.reasons`). Recorded texts
(names, slips) reach the page only as JSON, which the script puts in as text, never as
markup; the JSON is written so that nothing in it can end its `<script>` element.
"""

from __future__ import annotations

import json
from functools import cache
from html import escape
from importlib.resources import files
from typing import Any

from pipelines.pictures.catalogues import LANGUAGES, translations
from pipelines.pictures.reasons import reason_texts
from pipelines.pictures.replay_steps import Replay
from pipelines.pictures.replay_words import WORDS

STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 1em; color: #111; background: #fff; }
h1 { font-size: 1.25em; margin: 0 0 0.4em; }
h2 { font-size: 1.05em; margin: 0.8em 0 0.3em; }
nav { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em; }
nav input[type=range] { flex: 1 1 20em; }
#where { font-weight: bold; }
p.hint, footer, p.note { font-size: 0.85em; color: #444; }
p.warning { color: #a00; font-weight: bold; }
main { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
main > section:first-child { flex: 0 1 600px; }
main > section:last-child { flex: 1 1 30em; min-width: 0; }
.board svg { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #999; padding: 0.15em 0.4em; text-align: left; vertical-align: top; }
td.number { text-align: right; }
tr.zero td.points { color: #a00; }
td.text { font-family: "DejaVu Sans Mono", monospace; white-space: pre-wrap; }
footer { margin-top: 1.5em; word-break: break-all; }
"""


@cache
def messages(lang: str) -> dict[str, Any]:
    """The page's words in `lang` (one of LANGUAGES): `replay_words.WORDS` translated."""
    if lang not in LANGUAGES:
        raise ValueError(f"no replay page in {lang!r}: choose one of {', '.join(LANGUAGES)}")
    say = translations("pipelines.pictures", lang).gettext

    def words(table: dict[str, Any]) -> dict[str, Any]:
        return {k: words(v) if isinstance(v, dict) else say(v) for k, v in table.items()}

    return {"lang": lang, **words(WORDS)}


def _script() -> str:
    return files("pipelines.pictures").joinpath("replay.js").read_text("utf-8")


def script_json(value: Any) -> str:
    """`value` as JSON that may stand inside a `<script>` element: every `<`, `>` and `&`
    written as a `\\u` escape, so that no recorded text (a slip reading `</script>`) ends it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def replay_page(
    replay: Replay, lang: str = "ro", *, start: int | None = None, player: str | None = None
) -> str:
    """The page of `replay`, opening at step `start` (the last one by default) and, in
    anticipation, on `player`'s board (the first player's by default)."""
    words = messages(lang)
    document = replay.document
    steps = document["steps"]
    last = max(len(steps) - 1, 0)
    opening = last if start is None else min(max(start, 0), last)
    title = words["title"].replace("{game}", document["game_id"])
    if document.get("title"):
        title += f" · {document['title']}"
    reasons = reason_texts(lang) if lang != "en" else {}
    data = {**document, "messages": words, "reasons": reasons, "start": opening, "player": player}
    boards = "\n".join(
        f'<div class="board" data-board="{i}" hidden>\n{svg}</div>'
        for i, svg in enumerate(replay.boards)
    )
    chooser = ""
    if document["anticipation"] and document["players"]:
        chosen = player or document["players"][0]["player_id"]
        options = "".join(
            f'<option value="{escape(p["player_id"])}"'
            + (" selected" if p["player_id"] == chosen else "")
            + f">{escape(_label(p))}</option>"
            for p in document["players"]
        )
        chooser = f'<label>{escape(words["player"])} <select id="player">{options}</select></label>'
    columns = words["columns"]

    def heads(*keys: str) -> str:
        return "".join(f"<th>{escape(columns[key])}</th>" for key in keys)

    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{escape(title)}</h1>\n"
        '<p class="warning" id="altered" hidden></p>\n'
        + (f'<p class="note">{escape(words["public"])}</p>\n' if document["public"] else "")
        + '<nav>\n<button type="button" id="previous">'
        f"{escape(words['previous'])}</button>\n"
        f'<input type="range" id="step" min="0" max="{last}" value="{opening}" '
        f'aria-label="{escape(words["slider"])}">\n'
        f'<button type="button" id="next">{escape(words["next"])}</button>\n'
        f"{chooser}\n</nav>\n"
        '<p id="where"></p>\n'
        f'<p class="hint">{escape(words["keys"])}</p>\n'
        "<main>\n<section>\n"
        f'<div id="boards">\n{boards}\n</div>\n'
        '<p id="rack"></p>\n<p id="bag"></p>\n<p id="state"></p>\n</section>\n'
        '<section>\n<h2 id="round"></h2>\n<p id="top"></p>\n'
        f"<h2>{escape(words['submissions'])}</h2>\n"
        f'<table id="submissions">\n<thead><tr>'
        f"{heads('player', 'text', 'move', 'points', 'detail', 'status', 'round_total')}"
        "</tr></thead>\n<tbody></tbody>\n</table>\n"
        f'<h2>{escape(words["decisions"])}</h2>\n<ul id="decisions"></ul>\n'
        f"<h2>{escape(words['standings'])}</h2>\n"
        f'<table id="standings">\n<thead><tr>'
        f"{heads('rank', 'player', 'total', 'solos', 'warnings', 'pct')}"
        "</tr></thead>\n<tbody></tbody>\n</table>\n</section>\n</main>\n"
        '<footer id="head"></footer>\n'
        f'<script type="application/json" id="replay-data">{script_json(data)}</script>\n'
        f"<script>\n{_script()}</script>\n</body>\n</html>\n"
    )


def _label(player: dict[str, Any]) -> str:
    name = player.get("name")
    return f"{player['player_id']} {name}" if name else player["player_id"]
