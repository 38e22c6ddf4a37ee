"""`arbitru game replay GAME --html FILE`: the game's page opened from disk in headless Chromium
with every network request blocked shows, at any event, the board `replay --json --at SEQ`
gives and the scores `results --json` gives; the arrow keys move through the events; a slip
holding `<script>` is shown as text; both languages; in anticipation the player selector shows
each player's own board. No console error, nothing fetched.

Chromium is Debian's, driven by Playwright as in `test_tables_in_a_browser.py`; the page is
kept as a screenshot in artefacts/screenshots/replay.png (git-ignored).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from game_cli_helpers import Arbiter, cli
from test_tables_in_a_browser import SCREENSHOTS

pytestmark = pytest.mark.usefixtures("default_home")

SLIP = "</script><script>window.pwned = 1</script>"
NAME = "Bob <b>Ionescu</b>"
DUPLICATE = [
    ("create", "hd1", "--player", "ana:Ana", "--player", f"bob:{NAME}", "--player", "cri"),
    ("draw", "hd1", "--tiles", "VARAEIT"),
    ("submit", "hd1", "--player", "ana", "--text", "H8: VARA"),
    ("submit", "hd1", "--player", "bob", "--text", "H8: VARIATE"),
    ("submit", "hd1", "--player", "cri", "--text", SLIP),
    ("close-round", "hd1"),
    ("draw", "hd1", "--tiles", "CASEIOU"),
    ("submit", "hd1", "--player", "ana", "--text", "9G: CASE"),
    ("warn", "hd1", "--player", "cri", "--reason", "talking"),
    ("close-round", "hd1"),
]
ANTICIPATION = [
    ("create", "an1", "--variant", "anticipation", "--player", "ana:Ana", "--player", "bob"),
    ("draw", "an1", "--tiles", "ABEIRST"),
    ("replace", "an1", "--player", "ana", "--text", "-B+Bo"),
    ("submit", "an1", "--player", "ana", "--text", "H8: SERBoATI"),
    ("submit", "an1", "--player", "bob", "--text", "H8: SARIT"),
    ("close-round", "an1"),
]


@pytest.fixture(scope="module")
def ledger(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('replay') / 'games.db'}"
    for commands in (DUPLICATE, ANTICIPATION):
        arbiter = Arbiter(url, game=commands[0][1])
        for command in commands:
            arbiter.ok(*command)
    return url


class Page:
    """A replay page opened from disk, every request but its own aborted and noted."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1200, "height": 900})
        self.errors: list[str] = []
        self.fetched: list[str] = []
        url = path.resolve().as_uri()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else 0)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def route(request_route: Any) -> None:
            if request_route.request.url == url:
                request_route.continue_()
            else:
                self.fetched.append(request_route.request.url)
                request_route.abort()

        self.page.route("**/*", route)
        self.page.goto(url)

    def clean(self) -> None:
        assert self.errors == [] and self.fetched == []

    @property
    def seq(self) -> int:
        return int(self.page.locator("body").get_attribute("data-seq"))

    def go_to(self, seq: int) -> None:
        """To the event of `seq`, with the keys: Home, then the right arrow."""
        self.page.keyboard.press("Home")
        for _ in range(200):
            if self.seq >= seq:
                break
            self.page.keyboard.press("ArrowRight")
        assert self.seq == seq

    def board(self) -> list[str]:
        """The board shown, as `replay --json` writes it (a joker in lower case)."""
        tiles = self.page.evaluate(
            """() => {
              const shown = [...document.querySelectorAll('#boards .board')]
                .filter(b => !b.hidden);
              if (shown.length !== 1) { return null; }
              return [...shown[0].querySelectorAll('rect.tile')].map(r => [
                r.getAttribute('data-square'), r.nextElementSibling.textContent,
                r.classList.contains('joker')]);
            }"""
        )
        rows = [["."] * 15 for _ in range(15)]
        for square, letter, joker in tiles:
            found = re.fullmatch(r"([A-O])([0-9]+)", square)
            assert found, square
            row, col = ord(found.group(1)) - ord("A"), int(found.group(2)) - 1
            rows[row][col] = letter.lower() if joker else letter
        return ["".join(r) for r in rows]

    def slips(self) -> dict[int, tuple[str, int]]:
        """Each slip shown: its seq, its text as shown and its points."""
        rows = self.page.locator("#submissions tbody tr[data-seq]").all()
        return {
            int(r.get_attribute("data-seq")): (
                r.locator("td.text").inner_text(),
                int(r.locator("td.points").inner_text()),
            )
            for r in rows
        }

    def totals(self) -> dict[str, int]:
        rows = self.page.locator("#standings tbody tr").all()
        return {
            r.get_attribute("data-player"): int(r.locator("td.total").inner_text()) for r in rows
        }


def _page(ledger: str, tmp_path: Path, game: str, *extra: str) -> Path:
    out = tmp_path / f"{game}{'-'.join(extra)}.html"
    cli("game", "replay", game, "--db", ledger, "--html", str(out), *extra)
    return out


def _seqs(ledger: str, game: str) -> dict[str, list[int]]:
    """The seqs of the game's events, by type."""
    from ledger import EventStore

    found: dict[str, list[int]] = {}
    with EventStore(ledger, upgrade=False) as store:
        for event in store.read_stream(f"game/{game}"):
            found.setdefault(event.type, []).append(event.seq)
    return found


def test_the_page_shows_the_board_and_scores_the_json_gives_at_three_events(
    browser: Any, ledger: str, tmp_path: Path
) -> None:
    seqs = _seqs(ledger, "hd1")
    opened = Page(browser, _page(ledger, tmp_path, "hd1"))
    results = {n: cli("game", "results", "hd1", "--round", str(n), "--db", ledger, "--json")
               for n in (1, 2)}  # fmt: skip
    scores = {s["seq"]: (s["text"], s["score"])
              for n in (1, 2) for p in results[n]["players"] for s in p["submissions"]}  # fmt: skip
    chosen = (seqs["SubmissionReceived"][1], seqs["RoundClosed"][0], seqs["RoundClosed"][1])
    for seq in chosen:
        opened.go_to(seq)
        at = cli("game", "replay", "hd1", "--at", str(seq), "--db", ledger, "--json")
        assert opened.board() == at["board"]
        assert opened.totals() == {s["player_id"]: s["total"] for s in at["standings"]}
        shown = opened.slips()
        assert shown and all(scores[s] == shown[s] for s in shown)
    assert opened.board()[7] == ".......VARIATE."
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    opened.page.screenshot(path=str(SCREENSHOTS / "replay.png"), full_page=True)
    opened.clean()
    opened.page.close()


def test_the_arrow_keys_and_the_slider_move_through_the_events(
    browser: Any, ledger: str, tmp_path: Path
) -> None:
    seqs = sorted(s for found in _seqs(ledger, "hd1").values() for s in found)
    opened = Page(browser, _page(ledger, tmp_path, "hd1"))
    assert opened.seq == seqs[-1]  # the last event by default
    opened.page.keyboard.press("ArrowLeft")
    assert opened.seq == seqs[-2]
    opened.page.keyboard.press("ArrowRight")
    opened.page.keyboard.press("ArrowRight")  # no further than the last
    assert opened.seq == seqs[-1]
    opened.page.keyboard.press("Home")
    assert opened.seq == seqs[0]
    opened.page.locator("#step").fill("3")
    assert opened.seq == seqs[3]
    opened.page.locator("#step").focus()
    opened.page.keyboard.press("ArrowRight")  # one event, not two (the slider's own and ours)
    assert opened.seq == seqs[4]
    opened.clean()
    opened.page.close()


def test_a_page_opens_at_the_event_at_names(browser: Any, ledger: str, tmp_path: Path) -> None:
    first_close = _seqs(ledger, "hd1")["RoundClosed"][0]
    opened = Page(browser, _page(ledger, tmp_path, "hd1", "--round", "1"))
    assert opened.seq == first_close
    opened.clean()
    opened.page.close()


def test_a_slip_holding_a_script_and_a_name_holding_markup_are_shown_as_text(
    browser: Any, ledger: str, tmp_path: Path
) -> None:
    out = _page(ledger, tmp_path, "hd1")
    assert SLIP not in out.read_text(encoding="utf-8")  # never raw in the file
    opened = Page(browser, out)
    opened.go_to(_seqs(ledger, "hd1")["RoundClosed"][0])
    texts = [text for text, _points in opened.slips().values()]
    assert SLIP in texts
    assert opened.page.evaluate("() => window.pwned") is None
    assert opened.page.locator("script").count() == 2  # the data and our script, no other
    assert opened.page.locator("b").count() == 0
    names = opened.page.locator("#standings td.player").all_inner_texts()
    assert f"bob {NAME}" in names
    opened.clean()
    opened.page.close()


@pytest.mark.parametrize("lang", ["ro", "en"])
def test_the_page_speaks_the_language_asked_for(
    browser: Any, ledger: str, tmp_path: Path, lang: str
) -> None:
    extra = () if lang == "ro" else ("--lang", "en")
    opened = Page(browser, _page(ledger, tmp_path, "hd1", *extra))
    words = _catalogue(lang)
    assert opened.page.locator("html").get_attribute("lang") == lang
    assert opened.page.locator("h1").inner_text() == words["title"].replace("{game}", "hd1")
    heads = opened.page.locator("#standings thead th").all_inner_texts()
    assert heads[0] == words["columns"]["rank"]
    legend = opened.page.locator("#boards .board:not([hidden]) svg text").all_text_contents()
    assert words["legend"]["last_move"] in legend
    opened.go_to(_seqs(ledger, "hd1")["RoundClosed"][0])
    unreadable = {"ro": "textul nu se poate citi ca mutare", "en": "expected a coordinate"}
    statuses = opened.page.locator("#submissions td.status").all_inner_texts()
    assert any(unreadable[lang] in status for status in statuses), statuses  # cri's slip
    opened.clean()
    opened.page.close()


def _catalogue(lang: str) -> dict[str, Any]:
    from pipelines.pictures.replay_html import messages

    return messages(lang)


def test_the_words_name_every_event_type() -> None:
    from ledger.catalogue import STREAM_KINDS

    assert set(_catalogue("ro")["events"]) == set(STREAM_KINDS["game"].types)


def test_the_anticipation_selector_shows_each_players_own_board(
    browser: Any, ledger: str, tmp_path: Path
) -> None:
    opened = Page(browser, _page(ledger, tmp_path, "an1"))
    seq = opened.seq
    boards = {}
    for player in ("ana", "bob"):
        opened.page.locator("#player").select_option(player)
        at = cli("game", "replay", "an1", "--at", str(seq), "--player", player,
                 "--db", ledger, "--json")  # fmt: skip
        boards[player] = opened.board()
        assert boards[player] == at["board"]
        rack = opened.page.locator("#rack").inner_text()
        assert rack.endswith(at["rack"] or "–")
    assert boards["ana"] != boards["bob"]
    opened.clean()
    opened.page.close()


def test_the_page_embeds_one_json_document_and_names_the_ledger_head(
    ledger: str, tmp_path: Path
) -> None:
    from ledger import EventStore

    text = _page(ledger, tmp_path, "hd1").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', text)
    assert found
    document = json.loads(found.group(1))
    with EventStore(ledger, upgrade=False) as store:
        head = store.head()
    assert document["head"] == {"seq": head.seq, "hash": head.hash}
    assert [s["seq"] for s in document["steps"]] == sorted(
        s for found in _seqs(ledger, "hd1").values() for s in found
    )


def test_the_page_is_never_written_over_the_ledger_nor_in_an_unknown_language(
    ledger: str, tmp_path: Path
) -> None:
    database = ledger.removeprefix("sqlite:///")
    before = Path(database).read_bytes()[:100]
    refused = cli("game", "replay", "hd1", "--db", ledger, "--html", database, code=2)
    assert "SQLite database" in refused.stderr
    assert Path(database).read_bytes()[:100] == before
    out = tmp_path / "fr.html"
    refused = cli(
        "game", "replay", "hd1", "--db", ledger, "--html", str(out), "--lang", "fr", code=2
    )
    assert "ro, en" in refused.stderr and not out.exists()
    same = cli(
        "game", "replay", "hd1", "--db", ledger, "--html", str(out), "--svg", str(out), code=2
    )
    assert "same file" in same.stderr and not out.exists()


def test_the_help_says_what_html_does() -> None:
    shown = " ".join(cli("game", "replay", "--help").stdout.split())
    assert "--html" in shown and "self-contained HTML page" in shown and "--lang" in shown
