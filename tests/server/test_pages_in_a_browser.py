"""The pages every reader meets first, in headless Chromium: signing in with the script off
(a plain form) and on, in both languages, readable on a phone's width; no console error."""

from __future__ import annotations

import pytest

from tests.server.pages_helpers import reader, with_password


@pytest.fixture(scope="module")
def site(server) -> None:
    server.account("chief", "Chief", "admin")
    server.account("ana", "Ana Pop")
    with_password(server, "ana")
    chief = server.client("chief")
    assert chief.post("/games", json={"game_id": "b1", "players": ["ana"]}).is_success


@pytest.mark.parametrize("javascript", [False, True], ids=["script-off", "script-on"])
def test_a_player_signs_in_with_the_form_and_sees_their_game(browser, server, site, javascript):
    ana = reader(browser, server, "ana", javascript=javascript)
    try:
        assert "Autentificat ca ana" in ana.page.inner_text("header")
        assert ana.page.locator('a[href="/games/b1/play"]').count() == 1
        ana.assert_no_console_errors()
    finally:
        ana.page.context.close()


def test_the_sign_in_page_in_both_languages_and_on_a_phone(browser, server, site) -> None:
    for lang, title in (("ro", "Autentificare"), ("en", "Sign in")):
        public = reader(browser, server, lang=lang, viewport=(390, 844))
        try:
            public.open("/signin")
            assert public.page.locator("h1").inner_text() == title
            assert public.page.evaluate("document.documentElement.scrollWidth") <= 390
            public.screenshot(f"signin-{lang}")
            public.assert_no_console_errors()
        finally:
            public.page.context.close()


def test_a_wrong_password_is_said_on_the_page(browser, server, site) -> None:
    ana = reader(browser, server)
    try:
        ana.sign_in("ana", "wrong")
        assert "Contul sau parola sunt greșite." in ana.page.inner_text("main")
        assert ana.page.input_value("#account") == "ana"
    finally:
        ana.page.context.close()
