"""A reader of the server's pages in headless Chromium (the `browser` fixture of the top
conftest.py): a browser context of their own (cookies, language, script on or off), signed in
through the sign-in form as a person would, every console error and failed script noted so
that a test can hold a page to having none, and screenshots written where CI keeps them
(`artefacts/screenshots/`, git-ignored)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ledger import EventStore
from pipelines.accounts.credentials import set_password

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artefacts" / "screenshots"
PASSWORD = "correct horse battery"


def form_token(client: httpx.Client, path: str = "/signin") -> str:
    """The form token the page at `path` gives this client (its cookie set with it)."""
    page = client.get(path)
    assert page.status_code == 200, page.text
    return re.search(r'name="form_token" value="([^"]+)"', page.text)[1]


def signed_in_client(site: str, account: str, password: str = PASSWORD) -> httpx.Client:
    """A client of the pages (no redirect followed), signed in with the sign-in form."""
    client = httpx.Client(base_url=site, timeout=30, follow_redirects=False)
    fields = {"form_token": form_token(client), "account": account, "password": password}
    answer = client.post("/signin", data=fields)
    assert answer.status_code == 303, answer.text
    return client


def with_password(server: Any, account: str) -> None:
    """Give `account` (already made, e.g. by `server.account`) the password PASSWORD."""
    with EventStore(server.db) as store:
        set_password(store, account, PASSWORD)


@dataclass
class Reader:
    """One person at one browser: `page` is their tab."""

    page: Any
    site: str
    errors: list[str] = field(default_factory=list)

    def open(self, path: str) -> Any:
        """Go to `path` of the site and wait until it has loaded; the answer."""
        return self.page.goto(self.site + path, wait_until="load")

    def sign_in(self, account: str, password: str = PASSWORD) -> None:
        """Sign in with the form, as a person types it."""
        self.open("/signin")
        self.page.fill("#account", account)
        self.page.fill("#password", password)
        with self.page.expect_navigation():
            self.page.click("form.stacked button[type=submit]")

    def screenshot(self, name: str, *, full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(target), full_page=full_page)
        return target

    def assert_no_console_errors(self) -> None:
        assert self.errors == [], self.errors


def reader(
    browser: Any,
    server: Any,
    account: str | None = None,
    *,
    lang: str = "ro",
    javascript: bool = True,
    viewport: tuple[int, int] = (1200, 900),
) -> Reader:
    """A new reader of `server`'s pages in `lang`, signed in as `account` (with PASSWORD,
    which `with_password` gave it) or the public; the caller closes `reader.page.context`."""
    context = browser.new_context(
        locale={"ro": "ro-RO", "en": "en-GB"}[lang],
        extra_http_headers={"Accept-Language": lang},
        java_script_enabled=javascript,
        viewport={"width": viewport[0], "height": viewport[1]},
    )
    page = context.new_page()
    made = Reader(page, f"http://127.0.0.1:{server.port}")
    page.on("console", lambda m: made.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: made.errors.append(str(e)))
    if account is not None:
        made.sign_in(account)
    return made
