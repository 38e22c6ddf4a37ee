"""The player's page in headless Chromium: a player types a slip and sees it previewed on the
board with its score, sends it with Enter and sees the receipt the ledger holds, then sees the
round close and the next one drawn without reloading; with the script off the form still
sends; both languages, a phone's width; no console error. Each test plays its own game (the
tests of a module may run in two processes, each with its server)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ledger import EventStore
from tests.server.pages_helpers import reader, with_password

RACK = "VARZATE"


@pytest.fixture(scope="module")
def players(server) -> None:
    server.account("chief", "Chief", "admin")
    for account in ("ana", "bob"):
        server.account(account)
        with_password(server, account)


def new_game(server, game: str) -> None:
    """`game`, played by ana and bob, its round 1 drawn with a deadline an hour away."""
    chief = server.client("chief")
    assert chief.post("/games", json={"game_id": game, "players": ["ana", "bob"]}).is_success
    deadline = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    drawn = chief.post(f"/games/{game}/rounds/1/draw", json={"tiles": RACK, "deadline": deadline})
    assert drawn.status_code == 201, drawn.text


def assert_the_receipt_is_the_ledgers(server, page, text: str) -> None:
    seq = int(page.inner_text('#receipt [data-field="seq"]'))
    with EventStore(server.db) as store:
        (event,) = store.read_all(from_seq=seq, limit=1)
    assert event.type == "SubmissionReceived" and event.payload["text"] == text
    assert page.inner_text('#receipt [data-field="hash"]') == event.hash
    assert page.inner_text('#receipt [data-field="text"]') == text
    shown = page.get_attribute('#receipt [data-field="received_at"]', "datetime")
    assert shown == event.meta["received_at"]


def test_a_player_previews_sends_and_follows_the_round_live(browser, server, players) -> None:
    new_game(server, "live1")
    expected = server.client("ana").post(
        "/games/live1/rounds/1/preview", json={"text": "H8: VARZA"}
    )
    score = expected.json()["score"]
    ana = reader(browser, server, "ana")
    try:
        ana.open("/games/live1/play")
        assert ana.page.locator("#countdown").is_visible()
        ana.page.focus("#slip")
        ana.page.keyboard.type("H8: VARZA")
        ana.page.wait_for_function("document.querySelectorAll('#board .preview-tile').length === 5")
        squares = ana.page.eval_on_selector_all(
            "#board .preview-tile", "tiles => tiles.map(t => t.dataset.square)"
        )
        assert squares == ["H8", "H9", "H10", "H11", "H12"]
        assert ana.page.inner_text("#preview-score") == f"Punctaj: {score}"
        assert "VARZA" in ana.page.inner_text("#preview-words")
        ana.screenshot("player")
        ana.page.keyboard.press("Enter")
        ana.page.wait_for_selector('#receipt [data-field="seq"]')
        assert "receipt=" in ana.page.url
        assert_the_receipt_is_the_ledgers(server, ana.page, "H8: VARZA")
        assert "H8: VARZA" in ana.page.inner_text("#slips")

        chief = server.client("chief")
        assert chief.post("/games/live1/rounds/1/close", json={}).status_code == 201
        ana.page.wait_for_selector("#results h2")
        assert "Rezultatele rundei 1" in ana.page.inner_text("#results")
        drawn = chief.post("/games/live1/rounds/2/draw", json={"tiles": "IONSU"})
        assert drawn.status_code == 201, drawn.text
        ana.page.wait_for_function("document.querySelector('#round h2').textContent.includes('2')")
        rack = chief.get("/games/live1").json()["round"]["rack"]
        assert ana.page.inner_text("#rack") == rack and "IONSU" in rack
        assert ana.page.locator("#board .tile").count() >= 5  # the top laid on the board
        ana.assert_no_console_errors()
    finally:
        ana.page.context.close()


def test_with_the_script_off_the_form_still_sends(browser, server, players) -> None:
    new_game(server, "plain1")
    bob = reader(browser, server, "bob", javascript=False)
    try:
        bob.open("/games/plain1/play")
        assert not bob.page.locator("#countdown").is_visible()  # the deadline as text only
        assert bob.page.locator("#deadline").inner_text().endswith("UTC")
        bob.page.fill("#slip", "H8: ARTE")
        with bob.page.expect_navigation():
            bob.page.click("#send button[type=submit]")
        assert_the_receipt_is_the_ledgers(server, bob.page, "H8: ARTE")
        bob.assert_no_console_errors()
    finally:
        bob.page.context.close()


@pytest.mark.parametrize(("lang", "heading"), [("ro", "Runda 1"), ("en", "Round 1")])
def test_the_page_in_both_languages_fits_a_phone(browser, server, players, lang, heading) -> None:
    new_game(server, f"phone-{lang}")
    ana = reader(browser, server, "ana", lang=lang, viewport=(390, 844))
    try:
        ana.open(f"/games/phone-{lang}/play")
        assert ana.page.inner_text("#round h2") == heading
        ana.page.fill("#slip", "H8: VARZA")
        ana.page.wait_for_selector("#board .preview-tile")
        assert ana.page.evaluate("document.documentElement.scrollWidth") <= 390
        ana.screenshot("player-phone" if lang == "ro" else "player-phone-en")
        ana.assert_no_console_errors()
    finally:
        ana.page.context.close()
