"""The room's display in headless Chromium at a projector's 1920×1080, as the public: it
follows a round live from the server's stream without a reload (a marker set on the window
stays), the slips' count going up as slips arrive, the top, who found it and the standings
shown within two seconds of the chief's close, the next round's rack and board when it is
drawn, the game's end; one screen that never scrolls; no console error; both languages; a
close told while its stream is down is shown when the stream comes back. And the game's
results page, read without a script. Screenshots: display.png (after a close), results.png."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.server.conftest import Server
from tests.server.pages_helpers import reader
from tests.server.test_display_page import the_room

PROJECTOR = (1920, 1080)
AT_ONCE_MS = 2000
"""How soon the display shows what the stream told (the room waits for no one)."""


@pytest.fixture(scope="module")
def room(server: Server) -> Server:
    return the_room(server)


def posted(server: Server, account: str, path: str, body: dict) -> dict:
    answer = server.client(account).post(path, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def text_is(page, element_id: str, expected: str) -> None:
    """Wait (AT_ONCE_MS at most) until the element's text is `expected`."""
    page.wait_for_function(
        "([id, text]) => document.getElementById(id).textContent.trim() === text",
        arg=[element_id, expected],
        timeout=AT_ONCE_MS,
    )


@pytest.mark.parametrize("lang", ["ro", "en"])
def test_the_display_follows_a_round_live_without_a_reload(browser, room, lang) -> None:
    game = f"live-{lang}"
    deadline = (datetime.now(UTC) + timedelta(minutes=10)).isoformat()
    body = {"game_id": game, "players": ["ana", "bob"], "title": "Finala"}
    posted(room, "boss", "/games", body)
    posted(room, "boss", f"/games/{game}/rounds/1/draw", {"tiles": "ABEIRST", "deadline": deadline})
    public = reader(browser, room, lang=lang, viewport=PROJECTOR)
    page = public.page
    try:
        public.open(f"/games/{game}/display")
        page.evaluate("window.arbitruMarker = 'not reloaded'")
        assert page.locator("#rack").inner_text() == "ABEIRST"
        page.wait_for_function(
            "/^\\d+:\\d\\d$/.test(document.getElementById('countdown').textContent)",
            timeout=AT_ONCE_MS,
        )
        posted(room, "ana", f"/games/{game}/rounds/1/submissions", {"text": "H8: SARIT"})
        text_is(page, "slips", "1")
        posted(room, "bob", f"/games/{game}/rounds/1/submissions", {"text": "H8: BEA"})
        text_is(page, "slips", "2")
        assert page.locator("#results").is_hidden()  # nothing of the open round's slips

        posted(room, "boss", f"/games/{game}/rounds/1/close", {})
        results = room.client("boss").get(f"/games/{game}/rounds/1/results").json()
        text_is(page, "top-move", results["top"]["move"])
        text_is(page, "top-score", str(results["top"]["score"]))
        names = {p["player_id"]: p["name"] for p in results["players"]}
        text_is(page, "found-by", ", ".join(names[p] for p in results["top"]["reached_by"]))
        leader = max(results["players"], key=lambda p: p["total"])
        page.wait_for_function(
            "([name, total]) => { const row = document.querySelector('#standings tbody tr');"
            " return row && row.textContent.includes(name) && row.textContent.includes(total); }",
            arg=[leader["name"], str(leader["total"])],
            timeout=AT_ONCE_MS,
        )
        assert page.evaluate("window.arbitruMarker") == "not reloaded"
        public.screenshot("display" if lang == "ro" else f"display-{lang}", full_page=False)

        drawn = posted(room, "boss", f"/games/{game}/rounds/2/draw", {"tiles": "AEN"})
        rack = room.client().get(f"/games/{game}").json()["round"]["rack"]
        text_is(page, "rack", rack)
        text_is(page, "round-number", "2")
        text_is(page, "slips", "0")
        page.wait_for_function(
            "(version) => { const board = document.getElementById('board');"
            " return board.src.includes('v=' + version) && board.complete"
            " && board.naturalWidth > 0; }",
            arg=str(drawn["version"]),
            timeout=AT_ONCE_MS,
        )
        posted(room, "boss", f"/games/{game}/rounds/2/close", {})
        text_is(
            page, "results-title", {"ro": "Rezultatele rundei 2", "en": "Round 2 results"}[lang]
        )
        posted(room, "boss", f"/games/{game}/end", {"reason": "the last round is played"})
        page.wait_for_selector("#status", state="visible", timeout=AT_ONCE_MS)
        assert page.evaluate("window.arbitruMarker") == "not reloaded"
        scrolled = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        assert scrolled == list(PROJECTOR)  # one screen: the projector never scrolls
        public.assert_no_console_errors()
    finally:
        page.context.close()


def test_the_results_page_reads_without_a_script(browser, room) -> None:
    game = "printed"
    posted(room, "boss", "/games", {"game_id": game, "players": ["ana", "bob"]})
    posted(room, "boss", f"/games/{game}/rounds/1/draw", {"tiles": "ABEIRST"})
    posted(room, "ana", f"/games/{game}/rounds/1/submissions", {"text": "H8: SARIT"})
    posted(room, "boss", f"/games/{game}/rounds/1/close", {})
    public = reader(browser, room, javascript=False, viewport=PROJECTOR)
    try:
        public.open(f"/games/{game}")
        assert "Ana Pop" in public.page.locator("#standings").inner_text()
        assert public.page.locator("#table tr.master").count() == 1
        public.screenshot("results")
        public.assert_no_console_errors()
    finally:
        public.page.context.close()


KEPT_STREAMS = """
window.arbitruStreams = [];
window.EventSource = class extends window.EventSource {
  constructor(url, init) { super(url, init); window.arbitruStreams.push(this); }
};
"""
"""Run before the page's script: every EventSource it opens is kept where a test can end it
(as a dropped network would, or a server answering an error)."""


def test_a_close_while_the_stream_is_down_is_shown_when_it_comes_back(browser, room) -> None:
    game = "dropped"
    posted(room, "boss", "/games", {"game_id": game, "players": ["ana", "bob"]})
    posted(room, "boss", f"/games/{game}/rounds/1/draw", {"tiles": "ABEIRST"})
    public = reader(browser, room, lang="en", viewport=PROJECTOR)
    page = public.page
    try:
        page.add_init_script(KEPT_STREAMS)
        public.open(f"/games/{game}/display")
        page.evaluate("window.arbitruMarker = 'not reloaded'")
        posted(room, "ana", f"/games/{game}/rounds/1/submissions", {"text": "H8: SARIT"})
        text_is(page, "slips", "1")
        page.route("**/live?**", lambda route: route.abort())  # the stream cannot come back yet
        page.evaluate(
            "() => { const s = window.arbitruStreams.at(-1);"
            " s.close(); s.dispatchEvent(new Event('error')); }"
        )
        page.wait_for_selector("#live", state="visible", timeout=AT_ONCE_MS)
        posted(room, "boss", f"/games/{game}/rounds/1/close", {})  # told while it is down
        page.wait_for_function("window.arbitruStreams.length >= 2", timeout=10_000)
        page.unroute("**/live?**")
        page.wait_for_function(
            "document.getElementById('results-title').textContent.trim() === 'Round 1 results'",
            timeout=15_000,
        )
        assert page.locator("#top-move").inner_text() == "H8: SARIT"
        page.wait_for_selector("#live", state="hidden", timeout=AT_ONCE_MS)
        assert page.evaluate("window.arbitruMarker") == "not reloaded"
    finally:
        page.context.close()
