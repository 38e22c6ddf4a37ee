"""The public's results pages through the real server, read with httpx as a browser without
a script reads them: a game's page and a tournament's page show the figures `arbitru game
table --json` and `arbitru tournament table --json` give for the same ledger, only closed
rounds (an open round's slips change nothing on them), a 404 page for what does not exist,
in Romanian and English."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import httpx
import pytest

from ledger import EventStore, NewEvent
from pipelines.pictures.reasons import reason_text
from tests.server.conftest import Server, arbitru_command
from tests.server.html_tables import table_rows, text_of

PLAYERS = {"ana": "Ana Pop", "bob": "Bob Ionescu", "cid": "Cid"}
TWO_ROUNDS = [
    ("draw", 1, "AERTSIO"),
    ("submit", 1, "ana", "H8: SERAT"),
    ("submit", 1, "bob", "H8: ARTE"),
    ("close", 1),
    ("draw", 2, "AENL"),
    ("submit", 2, "bob", "H8: ARTELE"),
    ("submit", 2, "cid", "H8: ARTEI"),
    ("close", 2),
]


def play(server: Server, game: str, steps: list[tuple[Any, ...]], **created: Any) -> None:
    """A game made and played through the API: the admin draws and closes, players submit."""
    boss = server.client("boss")
    body = {"game_id": game, "players": list(PLAYERS), **created}
    assert boss.post("/games", json=body).status_code == 201
    for step in steps:
        kind, number, *rest = step
        if kind == "draw":
            answer = boss.post(f"/games/{game}/rounds/{number}/draw", json={"tiles": rest[0]})
        elif kind == "submit":
            answer = server.client(rest[0]).post(
                f"/games/{game}/rounds/{number}/submissions", json={"text": rest[1]}
            )
        else:
            answer = boss.post(f"/games/{game}/rounds/{number}/close", json={})
        assert answer.status_code == 201, answer.text


def tournament(server: Server, tournament_id: str, games: list[str]) -> None:
    """A tournament in the ledger (as `arbitru ledger import` would bring it): its players
    registered with their clubs, its games added."""
    events = [
        NewEvent(
            "TournamentCreated",
            {"tournament_id": tournament_id, "name": f"Cupa {tournament_id}", "season": "2026"},
        ),
        *(
            NewEvent("PlayerRegistered", {"player_id": p, "name": n, "club": "CS Litera"})
            for p, n in PLAYERS.items()
        ),
        *(NewEvent("GameAdded", {"game_id": g}) for g in games),
    ]
    with EventStore(server.db) as store:
        store.append(f"tournament/{tournament_id}", events)


def cli(server: Server, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [*arbitru_command(), *args, "--json", "--db", server.db],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def page(server: Server, path: str, lang: str = "ro") -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{server.port}{path}", params={"lang": lang}, timeout=30)


@pytest.fixture(scope="module")
def ledger(server: Server) -> Server:
    """t1: two games all closed; t2: a game whose second round is open with a slip in it."""
    server.account("boss", "Boss", "admin")
    for player, name in PLAYERS.items():
        server.account(player, name)
    play(server, "r1", TWO_ROUNDS, tournament_id="t1", title="Finala")
    play(server, "r2", TWO_ROUNDS[:4], tournament_id="t1")
    play(server, "r3", TWO_ROUNDS[:6], tournament_id="t2")
    tournament(server, "t1", ["r1", "r2"])
    tournament(server, "t2", ["r3"])
    return server


def shown_cell(cell: dict[str, Any], master: bool) -> str:
    mark = "" if master else {"solo": "**", "top": "*"}.get(cell["mark"] or "", "")
    return f"{cell['score']}{mark}"


def expected_row(row: dict[str, Any], rounds: int, master: bool) -> list[str]:
    by_round = {c["round"]: shown_cell(c, master) for c in row["rounds"]}
    pct = row["pct_of_top"]
    return [
        "" if row["rank"] is None else str(row["rank"]),
        "Master" if master else row["name"],
        *(by_round.get(n, "") for n in range(1, rounds + 1)),
        *(str(row[k]) for k in ("subtotal", "solos", "penalties", "warnings", "total")),
        str(row["negative"]),
        "–" if pct is None else f"{pct:.2f}",
    ]


def test_a_games_page_shows_the_figures_of_game_table(ledger) -> None:
    table = cli(ledger, "game", "table", "r1")
    html = page(ledger, "/games/r1").text
    expected = [expected_row(table["master"], table["rounds"], master=True)]
    expected += [expected_row(r, table["rounds"], master=False) for r in table["players"]]
    assert table_rows(html, "table") == expected
    standings = [[str(r["rank"]), r["name"], str(r["total"])] for r in table["players"]]
    assert [row[:3] for row in table_rows(html, "standings")] == standings
    tops = [(c["round"], c["rack"], c["move"], str(c["score"])) for c in table["master"]["rounds"]]
    assert [(int(r[0]), r[1], r[2], r[3]) for r in table_rows(html, "rounds")] == tops
    first_round = table_rows(html, "rounds")[0]
    found = [r["name"] for r in table["players"] if r["rounds"][0]["mark"] in ("top", "solo")]
    assert found and first_round[4].startswith(", ".join(found))
    for row in table["players"]:
        for cell in row["rounds"]:
            if cell["code"]:  # why a round scored nothing, said under the table
                why = reason_text(cell["code"], "ro", cell["message"])
                assert f"{row['name']}, runda {cell['round']}: {why}" in html
    assert "un cuvânt format nu este în dicționarul jocului" in html  # SERAT, in Romanian
    assert "<script" not in html  # a plain page: it needs no script


def test_a_tournaments_page_shows_the_figures_of_tournament_table(ledger) -> None:
    table = cli(ledger, "tournament", "table", "t1")
    html = page(ledger, "/tournaments/t1").text
    expected = [
        [
            str(s["rank"]),
            s["name"],
            s["club"] or "",
            *(str(s[k]) for k in ("total", "games", "solos", "tops", "best_round", "warnings")),
            "" if s["points"] is None else str(s["points"]),
        ]
        for s in table["standings"]
    ]
    shown = table_rows(html, "standings")
    for row in shown:  # a place's points as published: "-" when the scale lacks them
        row[-1] = "" if row[-1] == "-" else row[-1]
    assert shown == expected
    assert f"valoarea acestui eveniment este {table['value']}" in text_of(html, "points-note")
    links = [f'href="/games/{g}"' for g in table["tournament"]["games"]]
    assert all(link in html for link in links)
    assert "<script" not in html


def test_an_open_rounds_slips_are_on_no_results_page(ledger) -> None:
    html = page(ledger, "/games/r3").text
    assert len(table_rows(html, "rounds")) == 1
    assert "Runda 2 se joacă acum" in text_of(html, "playing")
    assert "ARTELE" not in html
    closed = cli(ledger, "game", "table", "r3")  # the command line counts the open round too
    bob = next(r for r in closed["players"] if r["player_id"] == "bob")
    shown_bob = next(r for r in table_rows(html, "standings") if r[1] == "Bob Ionescu")
    assert int(shown_bob[2]) == bob["rounds"][0]["total"] < bob["total"]
    t2 = table_rows(page(ledger, "/tournaments/t2").text, "standings")
    assert next(r for r in t2 if r[1] == "Bob Ionescu")[3] == shown_bob[2]


@pytest.mark.parametrize(
    ("lang", "missing", "words"),
    [("ro", "Nu există", "Rundă cu rundă"), ("en", "Not found", "Round by round")],
)
def test_the_pages_in_both_languages_and_a_404_page_for_what_does_not_exist(
    ledger, lang, missing, words
) -> None:
    assert words in page(ledger, "/games/r1", lang).text
    ranking = {"ro": "Puncte de clasament", "en": "Ranking points"}[lang]
    assert ranking in page(ledger, "/tournaments/t1", lang).text
    for path in ("/games/nowhere", "/tournaments/nowhere"):
        answer = page(ledger, path, lang)
        assert answer.status_code == 404
        assert answer.headers["content-type"].startswith("text/html")
        assert missing in text_of(answer.text, "main")
