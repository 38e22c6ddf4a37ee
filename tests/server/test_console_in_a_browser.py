"""The arbiter's console in headless Chromium, as a hall's arbiter runs a round from it: the
chief draws the round (a rejected draw first), a player's slip sent through the API appears
live without a reload, the chief annuls it with the keyboard after its dry run is shown, enters
a paper slip for another player and closes the round; and two arbiters' consoles racing on a
decision: the one whose dry run was made on the old version is told and shown the game as it
now is, and the ledger holds only the first decision; and the room's display, open beside the
console, shows the top within 2 s of the chief closing the round from the console."""

from __future__ import annotations

import pytest

from tests.server.pages_helpers import reader, with_password

ROUND = "w1"
RACE = "w2"
TIE = "w3"
ROOM = "w4"
AT_ONCE_MS = 2000
SLIP = "8B: AIESTOR"
RACED = "Another arbiter changed the game: here is what it is now; nothing of yours was recorded."
REFUSED_412 = "Failed to load resource: the server responded with a status of 412"


@pytest.fixture(scope="module")
def site(server) -> None:
    """Three games of ana, bob and cora: w1 not drawn yet; w2 with round 1 open; w3 with
    round 1 open and ana's and bob's different moves sharing the top."""
    server.account("chief", "Chief", "chief", tournament="t9")
    server.account("deputy", "Deputy", "deputy", tournament="t9")
    for account in ("chief", "deputy"):
        with_password(server, account)
    for player in ("ana", "bob", "cora"):
        server.account(player, player.title() + " Pop")
    chief = server.client("chief")
    for game in (ROUND, RACE, TIE, ROOM):
        made = {"game_id": game, "players": ["ana", "bob", "cora"], "tournament_id": "t9"}
        assert chief.post("/games", json=made).status_code == 201
    for game in (RACE, TIE, ROOM):
        assert chief.post(f"/games/{game}/rounds/1/draw", json={"tiles": "AERTSIO"}).is_success
    for player, move in (("ana", SLIP), ("bob", "8H: AIESTOR")):  # the same word, mirrored
        slip = {"text": move}
        sent = server.client(player).post(f"/games/{TIE}/rounds/1/submissions", json=slip)
        assert sent.status_code == 201, sent.text


pytestmark = pytest.mark.usefixtures("site")


def decisions(server, game: str) -> list[dict]:
    answer = server.client("chief").get(f"/games/{game}/rounds/1/results")
    assert answer.status_code == 200, answer.text
    return answer.json()["decisions"]


def test_the_chief_runs_a_round_from_the_console(browser, server) -> None:
    chief = reader(browser, server, "chief")
    page = chief.page
    try:
        chief.open(f"/games/{ROUND}/console")
        page.wait_for_selector("#live-state:has-text('conectat')")
        page.evaluate("window.notReloaded = true")
        # the draw: one rejected, then the rack, with a deadline
        page.fill("#draw-tiles", "UUIIEEA")
        page.click("#draw-reject")
        assert page.inner_text("#draw-rejected").startswith("UUIIEEA")
        page.fill("#draw-tiles", "AERTSIO")
        page.fill("#draw-minutes", "10")
        page.click("#draw-submit")
        page.wait_for_selector("#rack:has-text('AERTSIO')")
        drawn = server.client("chief").get(f"/games/{ROUND}/rounds/1/results").json()
        assert (drawn["rack"], drawn["rejected"]) == ("AERTSIO", ["UUIIEEA"])
        assert drawn["deadline"] is not None
        assert page.locator("#draw").is_hidden()

        # a player's slip, sent through the API, appears live
        slip = {"text": SLIP}
        sent = server.client("ana").post(f"/games/{ROUND}/rounds/1/submissions", json=slip)
        assert sent.status_code == 201, sent.text
        row = page.locator("#slips tbody tr", has_text="Ana Pop")
        row.locator("td.slip", has_text=SLIP).first.wait_for()
        assert "numărat" in row.inner_text() and "66" in row.inner_text()
        assert page.evaluate("window.notReloaded") is True

        # the annulment, with the keyboard: its dry run first, nothing recorded before "Confirm"
        row.get_by_role("button", name="Anulează").click()
        assert page.evaluate("document.activeElement.id") == "decide-reason"
        page.keyboard.type("a copiat")
        page.keyboard.press("Enter")
        page.wait_for_selector("#preview:not([hidden])")
        preview = page.inner_text("#preview")
        assert "Anulare" in preview and "Ana Pop: runda aceasta 76 → 0" in preview
        assert page.evaluate("document.activeElement.id") == "preview-title"
        assert decisions(server, ROUND) == []
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "preview-confirm"
        page.keyboard.press("Enter")
        page.wait_for_selector("#console-status:has-text('Înregistrat')")
        [annulled] = decisions(server, ROUND)
        assert (annulled["type"], annulled["player_id"]) == ("SubmissionAnnulled", "ana")
        assert (annulled["reason"], annulled["actor"]) == ("a copiat", "chief")
        page.locator("#decisions tbody tr", has_text="a copiat").wait_for()
        ana = page.locator("#players tbody tr", has_text="Ana Pop").inner_text()
        assert "anulată de arbitru" in ana  # the reason code in Romanian

        # a paper slip for bob
        page.select_option("#paper-player", "bob")
        page.fill("#paper-text", SLIP)
        page.click("#paper-form button[type=submit]")
        page.wait_for_selector("#console-status:has-text('Bob Pop')")
        bob = page.locator("#slips tbody tr", has_text="Bob Pop")
        assert SLIP in bob.inner_text() and "paper" in bob.inner_text()
        assert page.evaluate("document.activeElement.id") == "paper-player"
        results = server.client("chief").get(f"/games/{ROUND}/rounds/1/results").json()
        [bobs] = [p for p in results["players"] if p["player_id"] == "bob"]
        assert [(s["text"], s["source"]) for s in bobs["submissions"]] == [(SLIP, "paper")]

        # closing the round: its dry run, then confirmed
        page.click("#close-round")
        page.wait_for_selector("#preview:not([hidden])")
        assert "Runda ar fi închisă." in page.inner_text("#preview")
        page.click("#preview-confirm")
        page.wait_for_selector("#round-number:has-text('închisă')")
        assert server.client().get(f"/games/{ROUND}").json()["round"]["closed"] is True
        assert page.locator("#draw").is_visible()  # the next round may be drawn
        chief.screenshot("console")
        chief.assert_no_console_errors()
    finally:
        page.context.close()


def preview_penalty(arbiter, points: str, reason: str) -> None:
    page = arbiter.page
    page.select_option("#decide-kind", "penalty")
    page.select_option("#decide-player", "cora")
    page.fill("#decide-points", points)
    page.fill("#decide-reason", reason)
    page.click("#decide-preview")
    page.wait_for_selector("#preview:not([hidden])")


def test_two_arbiters_racing_the_second_is_told_and_shown_the_game_now(browser, server) -> None:
    chief = reader(browser, server, "chief")
    deputy = reader(browser, server, "deputy", lang="en", viewport=(820, 1180))  # a tablet
    try:
        for arbiter in (chief, deputy):
            arbiter.open(f"/games/{RACE}/console")
        assert deputy.page.locator("h1").inner_text().startswith("Arbiter's console")
        assert deputy.page.evaluate("document.documentElement.scrollWidth") <= 820
        preview_penalty(chief, "5", "telefon")
        preview_penalty(deputy, "10", "phone")  # made on the same version as the chief's
        chief.page.click("#preview-confirm")
        chief.page.wait_for_selector("#console-status:has-text('Înregistrat')")
        stale = deputy.page.locator("#preview-stale")  # the live stream told the deputy's console
        stale.filter(has_text="confirming it will be refused").wait_for()
        deputy.page.click("#preview-confirm")
        alert = deputy.page.locator("#console-alert")
        alert.wait_for()
        assert RACED in alert.inner_text()
        assert deputy.page.evaluate("document.activeElement.id") == "console-alert"
        # shown the game as it now is: the chief's penalty, the new version, no preview
        deputy.page.locator("#decisions tbody tr", has_text="telefon").wait_for()
        assert deputy.page.locator("#preview").is_hidden()
        now = server.client("chief").get(f"/games/{RACE}").headers["etag"].strip('"')
        assert deputy.page.inner_text("#version") == now
        assert deputy.page.input_value("#decide-reason") == "phone"  # kept, to send again
        deputy.screenshot("console-tablet-412")
        [penalty] = decisions(server, RACE)
        assert (penalty["points"], penalty["reason"], penalty["actor"]) == (5, "telefon", "chief")
        chief.assert_no_console_errors()
        # the browser notes the API's 412 answer itself; nothing else went wrong on the page
        assert [e for e in deputy.errors if not e.startswith(REFUSED_412)] == []
    finally:
        chief.page.context.close()
        deputy.page.context.close()


def test_a_tie_for_the_top_is_settled_from_the_console(browser, server) -> None:
    chief = reader(browser, server, "chief", lang="en")
    page = chief.page
    try:
        chief.open(f"/games/{TIE}/console")
        tie = page.locator("#tie")
        assert "Several different moves share the top" in tie.inner_text()
        tie.get_by_role("button", name="Choose this top").nth(1).click()
        page.wait_for_selector("#preview:not([hidden])")
        assert "The top: no top → 8H: AIESTOR (66)" in page.inner_text("#preview")
        page.click("#preview-confirm")
        tie.wait_for(state="hidden")
        [chosen] = decisions(server, TIE)
        assert (chosen["type"], chosen["move"]) == ("TopChosen", "8H: AIESTOR")
        chief.assert_no_console_errors()
    finally:
        page.context.close()


def test_the_room_sees_the_top_within_2_s_of_the_console_closing_the_round(browser, server) -> None:
    sent = server.client("ana").post(f"/games/{ROOM}/rounds/1/submissions", json={"text": SLIP})
    assert sent.status_code == 201, sent.text
    chief = reader(browser, server, "chief")
    room = reader(browser, server, viewport=(1920, 1080))
    try:
        room.open(f"/games/{ROOM}/display")
        room.page.evaluate("window.notReloaded = true")
        chief.open(f"/games/{ROOM}/console")
        chief.page.wait_for_selector("#live-state:has-text('conectat')")
        chief.page.click("#close-round")
        chief.page.wait_for_selector("#preview:not([hidden])")
        chief.page.click("#preview-confirm")
        room.page.wait_for_function(
            "(move) => document.getElementById('top-move').textContent.trim() === move",
            arg=SLIP,
            timeout=AT_ONCE_MS,
        )
        assert "Ana Pop" in room.page.inner_text("#found-by")
        assert room.page.evaluate("window.notReloaded") is True
        room.assert_no_console_errors()
        chief.assert_no_console_errors()
    finally:
        chief.page.context.close()
        room.page.context.close()
