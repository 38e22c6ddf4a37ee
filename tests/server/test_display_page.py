"""The room's display through the real server, read with httpx: public, it shows an open
round's number, rack and how many slips arrived, never the slips nor a score of the open
round (not even to an arbiter who opens it: the projector shows the room), and once the round
closes its top, who found it, the solos, the round's scores and the standings; its board
picture is the public's board; anticipation has none; an unknown game is a 404 page."""

from __future__ import annotations

import httpx
import pytest

from tests.server.conftest import Server
from tests.server.html_tables import table_rows, text_of

NEW_TILE = "#ffd54a"
"""How the board picture fills the tiles of the last move (pipelines.pictures.board_svg)."""


def the_room(server: Server) -> Server:
    """The room's accounts: an admin who draws and closes, two players."""
    server.account("boss", "Boss", "admin")
    server.account("ana", "Ana Pop")
    server.account("bob", "Bob Ionescu")
    return server


@pytest.fixture(scope="module")
def room(server: Server) -> Server:
    return the_room(server)


def new_round(server: Server, game: str, variant: str = "duplicate") -> httpx.Client:
    """A game with round 1 drawn and Ana's slip in it; the admin's client."""
    boss = server.client("boss")
    body = {"game_id": game, "variant": variant, "players": ["ana", "bob"], "title": "Finala"}
    assert boss.post("/games", json=body).status_code == 201
    drawn = boss.post(f"/games/{game}/rounds/1/draw", json={"tiles": "ABEIRST"})
    assert drawn.status_code == 201, drawn.text
    slip = server.client("ana").post(
        f"/games/{game}/rounds/1/submissions", json={"text": "H8: SARIT"}
    )
    assert slip.status_code == 201, slip.text
    return boss


def display(server: Server, game: str, lang: str = "ro", token: str | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = httpx.get(
        f"http://127.0.0.1:{server.port}/games/{game}/display",
        params={"lang": lang},
        headers=headers,
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return answer.text


def board(server: Server, game: str) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{server.port}/games/{game}/display/board", timeout=30)


def test_the_display_shows_an_open_rounds_rack_and_slip_count_never_its_slips(room) -> None:
    new_round(room, "d1")
    for token in (None, room.tokens["boss"]):  # the public, and the arbiter at the projector
        html = display(room, "d1", token=token)
        assert text_of(html, "round-number") == "1"
        assert text_of(html, "rack") == "ABEIRST"
        assert text_of(html, "slips") == "1"
        assert "SARIT" not in html and "H8" not in html
        assert table_rows(html, "round-table") == []
        assert table_rows(html, "standings") == []  # no round closed: no standings yet
    assert board(room, "d1").text.count(NEW_TILE) == 1  # the legend's: no slip on the board


def test_after_the_close_the_display_shows_the_top_who_found_it_and_the_standings(room) -> None:
    boss = new_round(room, "d2")
    assert boss.post("/games/d2/rounds/1/close", json={}).status_code == 201
    results = boss.get("/games/d2/rounds/1/results").json()
    html = display(room, "d2", lang="en")
    assert text_of(html, "results-title") == "Round 1 results"
    assert text_of(html, "top-move") == results["top"]["move"]
    assert text_of(html, "top-score") == str(results["top"]["score"])
    assert text_of(html, "found-by") == "Ana Pop"
    assert text_of(html, "solos") == "Ana Pop"
    ana = next(p for p in results["players"] if p["player_id"] == "ana")
    assert table_rows(html, "round-table")[0] == ["Ana Pop", str(ana["total"])]
    assert table_rows(html, "standings")[0] == ["1", "Ana Pop", str(ana["total"])]
    bob = table_rows(display(room, "d2", lang="ro"), "round-table")[1]
    assert bob[0] == "Bob Ionescu jucătorul nu a trimis nimic în această rundă"  # why: 0
    picture = board(room, "d2")
    assert picture.headers["content-type"].startswith("image/svg+xml")
    assert picture.text.count(NEW_TILE) == 1 + len(results["top"]["tiles"])  # and the legend


def test_the_display_in_both_languages_and_a_404_page_for_an_unknown_game(room) -> None:
    new_round(room, "d3")
    assert "Bilete primite" in display(room, "d3", "ro")
    assert "Slips received" in display(room, "d3", "en")
    missing = httpx.get(f"http://127.0.0.1:{room.port}/games/nowhere/display", timeout=30)
    assert missing.status_code == 404
    assert "Nu există" in text_of(missing.text, "main")


def test_an_anticipation_display_shows_the_group_drawn_and_no_board(room) -> None:
    new_round(room, "d4", variant="anticipation")
    html = display(room, "d4", lang="en")
    assert text_of(html, "rack") == "ABEIRST"
    assert "Group drawn" in html
    assert 'id="board"' not in html
    assert board(room, "d4").status_code == 404
