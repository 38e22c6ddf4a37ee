"""The arbiter's console as the server makes it (no script): who may open it (the public is
sent to sign in, a player or a stranger is refused, each arbiter role and an admin open it),
the controls each role is given (no more than the ACCESS table lets it use), and the game's
state shown at once (round, rack, slips, players, version)."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from tests.server.pages_helpers import signed_in_client, with_password

GAME = "k1"
PAGE = f"/games/{GAME}/console"
CONTROLS = ("draw", "close", "paper", "decide")


@pytest.fixture(scope="module")
def game(server) -> str:
    """Round 1 open with the rack AERTSIO; ana has sent her slip, bob none."""
    server.account("chief", "Chief Arbiter", "chief", tournament="t1")
    server.account("deputy", "Deputy", "deputy", game=GAME)
    server.account("clerk", "Clerk", "data-entry", game=GAME)
    server.account("watcher", "Watcher", "read-only", game=GAME)
    server.account("root", "Root", "admin")
    for player in ("ana", "bob", "stranger"):
        server.account(player, player.title() + " Pop")
    for account in ("chief", "deputy", "clerk", "watcher", "root", "ana", "stranger"):
        with_password(server, account)
    chief = server.client("chief")
    made = {"game_id": GAME, "players": ["ana", "bob"], "tournament_id": "t1", "title": "Cupa"}
    assert chief.post("/games", json=made).status_code == 201
    assert chief.post(f"/games/{GAME}/rounds/1/draw", json={"tiles": "AERTSIO"}).is_success
    slip = {"text": "8B: AIESTOR"}
    assert server.client("ana").post(f"/games/{GAME}/rounds/1/submissions", json=slip).is_success
    return GAME


pytestmark = pytest.mark.usefixtures("game")


def signed_in(server, account: str | None) -> httpx.Client:
    """A browser-like client of the pages, signed in as `account` with the sign-in form."""
    site = f"http://127.0.0.1:{server.port}"
    if account is None:
        return httpx.Client(base_url=site, timeout=30)
    return signed_in_client(site, account)


def controls_shown(html: str) -> set[str]:
    return {c for c in CONTROLS if f'<section id="{c}"' in html}


def test_the_public_is_sent_to_sign_in_and_back(server) -> None:
    answer = signed_in(server, None).get(PAGE)
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/signin?next={PAGE}"


@pytest.mark.parametrize("account", ["ana", "stranger"])
def test_a_player_or_a_stranger_is_refused_with_a_page(server, account) -> None:
    answer = signed_in(server, account).get(PAGE)
    assert answer.status_code == 403
    assert answer.headers["content-type"].startswith("text/html")
    assert "Consola este a arbitrilor partidei" in answer.text
    assert "8B: AIESTOR" not in answer.text


@pytest.mark.parametrize(
    ("account", "controls"),
    [
        ("chief", {"draw", "close", "paper", "decide"}),
        ("deputy", {"draw", "paper", "decide"}),
        ("clerk", {"paper"}),
        ("watcher", set()),
        ("root", set()),
    ],
)
def test_each_arbiter_role_gets_only_the_controls_it_may_use(server, account, controls) -> None:
    answer = signed_in(server, account).get(PAGE)
    assert answer.status_code == 200, answer.text
    assert controls_shown(answer.text) == controls
    data = answer.text.split('id="console-data">', 1)[1].split("</script>", 1)[0]
    shown = json.loads(data)["can"]  # what the script is told it may do: the same
    allowed = {"draw": "draw", "close": "close", "paper": "enter", "decide": "decide"}
    assert {c for c, key in allowed.items() if shown[key]} == controls


def test_the_page_shows_the_game_at_once_without_a_script(server) -> None:
    answer = signed_in(server, "watcher").get(PAGE)
    html = answer.text
    assert re.search(r'id="round-number">1 \(deschisă\)<', html)
    assert '<dd id="rack" class="rack">AERTSIO</dd>' in html
    assert "<noscript>" in html
    slips = html.split('<table id="slips">', 1)[1].split("</table>", 1)[0]
    assert "8B: AIESTOR" in slips and "numărat" in slips and ">66<" in slips
    assert "Bob Pop" in slips and "niciun bilet" in slips
    players = html.split('<table id="players">', 1)[1].split("</table>", 1)[0]
    assert "Ana Pop" in players and "Bob Pop" in players
    assert "jucătorul nu a trimis nimic în această rundă" in players  # the reason, in Romanian
    version = server.client("chief").get(f"/games/{GAME}").headers["etag"].strip('"')
    assert f'<dd id="version">{version}</dd>' in html
    assert answer.headers["cache-control"] == "private, no-store"


def test_the_page_in_english(server) -> None:
    html = signed_in(server, "chief").get(PAGE, params={"lang": "en"}).text
    assert "<h1>Arbiter's console: Cupa" in html
    assert "Enter a paper slip" in html and "Show the dry run" in html


def test_an_unknown_game_is_a_404_page(server) -> None:
    answer = signed_in(server, "chief").get("/games/nope/console")
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
