"""The games' reading routes through the real server, narrowed by who asks: the public sees the
standings the last closed round left and nothing of an open round's slips; a player sees
their own slip's row of an open round and nothing that would give the others' away; the
game's arbiters see everything. And the game the server keeps folded catches up with what
`arbitru game` wrote on the same ledger meanwhile."""

from __future__ import annotations

import os

import pytest

from tests.pipelines.game_cli_helpers import Arbiter

GAME = "r1"


@pytest.fixture(scope="module")
def game(server) -> str:
    """Round 1 closed (ana's AIESTOR, 66 and the solo's 10); round 2 open: ana and bob have
    submitted, and the chief has penalised ana 5 points in it."""
    server.account("chief", "Chief", "admin")
    for player in ("ana", "bob", "carol"):
        server.account(player, player.title())
    server.account("watcher", "Watcher", "read-only", game=GAME)
    chief = server.client("chief")
    steps = [
        ("/games", {"game_id": GAME, "players": ["ana", "bob"]}),
        (f"/games/{GAME}/rounds/1/draw", {"tiles": "AERTSIO"}),
    ]
    for path, body in steps:
        assert chief.post(path, json=body).status_code == 201
    ana, bob = server.client("ana"), server.client("bob")
    assert ana.post(f"/games/{GAME}/rounds/1/submissions", json={"text": "8B: AIESTOR"}).is_success
    assert chief.post(f"/games/{GAME}/rounds/1/close", json={}).is_success
    assert chief.post(f"/games/{GAME}/rounds/2/draw", json={"tiles": "AENLUIC"}).is_success
    assert ana.post(f"/games/{GAME}/rounds/2/submissions", json={"text": "C7: NAI"}).is_success
    assert bob.post(f"/games/{GAME}/rounds/2/submissions", json={"text": "I9: CAI"}).is_success
    penalty = {"player": "ana", "points": 5, "reason": "noise"}
    assert chief.post(f"/games/{GAME}/rounds/2/penalties", json=penalty).is_success
    return GAME


pytestmark = pytest.mark.usefixtures("game")


def totals(answer) -> dict[str, int]:
    assert answer.status_code == 200, answer.text
    return {s["player_id"]: s["total"] for s in answer.json()["standings"]}


def test_public_standings_are_those_of_the_last_closed_round(server) -> None:
    public = totals(server.client().get(f"/games/{GAME}/standings"))
    assert public == {"ana": 76, "bob": 0}
    assert totals(server.client("ana").get(f"/games/{GAME}/standings")) == public
    arbiters = totals(server.client("chief").get(f"/games/{GAME}/standings"))
    assert arbiters["ana"] != public["ana"]  # the open round's penalty and slips count
    assert totals(server.client("watcher").get(f"/games/{GAME}/standings")) == arbiters


def test_public_standings_before_any_round_closes_are_the_games_start(server) -> None:
    chief = server.client("chief")
    assert chief.post("/games", json={"game_id": "r0", "players": ["ana"]}).is_success
    assert chief.post("/games/r0/rounds/1/draw", json={"tiles": "AERTSIO"}).is_success
    slip = {"text": "8B: AIESTOR"}
    assert server.client("ana").post("/games/r0/rounds/1/submissions", json=slip).is_success
    assert totals(server.client().get("/games/r0/standings")).get("ana", 0) == 0
    assert totals(chief.get("/games/r0/standings"))["ana"] > 0


@pytest.mark.parametrize("what", ["results", "submissions"])
def test_an_open_round_is_refused_to_the_public_401_and_to_others_403(server, what) -> None:
    path = f"/games/{GAME}/rounds/2/{what}"
    anonymous = server.client().get(path)
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "unauthenticated"
    assert "Bearer" in anonymous.headers["www-authenticate"]
    stranger = server.client("carol").get(path)
    assert stranger.status_code == 403 and stranger.json()["code"] == "forbidden"


@pytest.mark.parametrize("what", ["results", "submissions"])
def test_a_player_sees_only_their_own_slip_of_an_open_round(server, what) -> None:
    slips = {"ana": "C7: NAI", "bob": "I9: CAI"}
    for player, other in (("ana", "bob"), ("bob", "ana")):
        answer = server.client(player).get(f"/games/{GAME}/rounds/2/{what}")
        assert answer.status_code == 200, answer.text
        document = answer.json()
        [row] = document["players"]
        assert row["player_id"] == player and row["submissions"][0]["text"] == slips[player]
        assert (row["solo"], row["total"]) == (None, None)
        assert (document["top"], document["tied"]) == (None, [])
        assert all(d["player_id"] == player for d in document["decisions"])
        assert f'"{other}"' not in answer.text and slips[other] not in answer.text


def test_a_player_is_not_told_whether_the_word_list_takes_their_slip_before_the_close(
    server,
) -> None:
    """Else a player could send a word, read "not in the dictionary" and send another."""
    chief, ana = server.client("chief"), server.client("ana")
    assert chief.post("/games", json={"game_id": "wl1", "players": ["ana"]}).is_success
    assert chief.post("/games/wl1/rounds/1/draw", json={"tiles": "AERTSIO"}).is_success
    slip = {"text": "H8: OSTAER"}  # placed well, but not a word
    assert ana.post("/games/wl1/rounds/1/submissions", json=slip).is_success
    for what in ("results", "submissions"):
        [row] = ana.get(f"/games/wl1/rounds/1/{what}").json()["players"]
        assert (row["score"], row["code"], row["message"]) == (None, None, None)
        [sent] = row["submissions"]
        assert sent["text"] == "H8: OSTAER" and sent["seq"] is not None
        assert (sent["valid"], sent["points"], sent["score"], sent["problems"]) == (
            None, None, None, None
        )  # fmt: skip
        told = ana.get(f"/games/wl1/rounds/1/{what}").text
        assert "not_in_dictionary" not in told and "not in the dictionary" not in told, told
    assert chief.post("/games/wl1/rounds/1/close", json={}).is_success
    [row] = ana.get("/games/wl1/rounds/1/results").json()["players"]
    assert row["code"] == "not_in_dictionary" and row["score"] == 0


@pytest.mark.parametrize("arbiter", ["chief", "watcher"])
def test_the_games_arbiters_see_every_slip_of_an_open_round(server, arbiter) -> None:
    document = server.client(arbiter).get(f"/games/{GAME}/rounds/2/results").json()
    assert {p["player_id"] for p in document["players"]} == {"ana", "bob"}
    assert [d["type"] for d in document["decisions"]] == ["PenaltyGiven"]


def test_a_closed_round_is_public(server) -> None:
    for what in ("results", "submissions"):
        answer = server.client().get(f"/games/{GAME}/rounds/1/{what}")
        assert answer.status_code == 200, answer.text
        assert answer.json()["top"]["move"] == "8B: AIESTOR"
    replayed = server.client().get(f"/games/{GAME}/replay", params={"round": 1})
    assert replayed.status_code == 200, replayed.text


def test_the_replay_of_an_open_round_is_its_arbiters_only(server) -> None:
    assert server.client().get(f"/games/{GAME}/replay").status_code == 401
    assert server.client("ana").get(f"/games/{GAME}/replay").status_code == 403
    assert server.client("chief").get(f"/games/{GAME}/replay").status_code == 200


def test_the_game_now_shows_the_open_rounds_rack_and_how_many_slips_not_which(server) -> None:
    answer = server.client().get(f"/games/{GAME}")
    assert answer.status_code == 200, answer.text
    game = answer.json()
    assert answer.headers["etag"] == f'"{game["version"]}"'
    assert game["round"]["round"] == 2 and game["round"]["slips"] == 2
    assert "NAI" not in answer.text and "CAI" not in answer.text


def test_the_server_sees_what_the_command_line_wrote_on_its_ledger(server) -> None:
    chief = server.client("chief")
    before = int(chief.get(f"/games/{GAME}").headers["etag"].strip('"'))
    Arbiter(server.db, game=GAME, actor="clerk").ok(
        "submit", GAME, "--player", "bob", "--text", "H8: LAC"
    )
    seen = chief.get(f"/games/{GAME}/rounds/2/submissions").json()
    bob = next(p for p in seen["players"] if p["player_id"] == "bob")
    assert [s["text"] for s in bob["submissions"]][-1] == "H8: LAC"
    now = chief.get(f"/games/{GAME}")
    assert now.headers["etag"] == f'"{before + 1}"'
    warned = chief.post(
        f"/games/{GAME}/rounds/2/warnings",
        json={"player": "bob", "reason": "late paper"},
        headers={"If-Match": now.headers["etag"]},
    )
    assert warned.status_code == 201, warned.text


def test_a_game_drawn_by_hand_has_no_seed_to_reveal_and_says_so(server) -> None:
    answer = server.client("chief").post(f"/games/{GAME}/seed", json={})
    assert answer.status_code == 409, answer.text
    assert answer.json()["code"] == "not_seeded"
    assert "drawn by hand" in answer.json()["detail"]


def test_a_seeded_game_whose_seed_this_server_does_not_hold_is_refused_not_a_crash(
    server, tmp_path
) -> None:
    """A seeded game created at a terminal with its seed in a file of the arbiter's own (not
    where the server keeps seeds): the server says it does not hold the seed."""
    seed = tmp_path / "sd1.seed"
    seed.write_bytes(os.urandom(32))
    created = Arbiter(server.db, game="sd1").run(
        "create", "sd1", "--draw", "seeded", "--seed-file", str(seed), "--player", "ana"
    )
    assert created.exit_code == 0, created.output
    server.account("chief", role="chief", game="sd1")
    answer = server.client("chief").post("/games/sd1/rounds/1/draw", json={})
    assert answer.status_code == 409, answer.text
    assert answer.json()["code"] == "seed_missing"


def _replay_page(server, account: str | None = None) -> tuple[str, dict]:
    """`GET /games/{game}/replay` (the HTML page, outside /api/v1) as `account` sees it: the
    page and the JSON document it embeds."""
    import json
    import re

    import httpx

    headers = {"Authorization": f"Bearer {server.tokens[account]}"} if account else {}
    answer = httpx.get(
        f"http://127.0.0.1:{server.port}/games/{GAME}/replay", headers=headers, timeout=60
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    found = re.search(
        r'<script type="application/json" id="replay-data">(.*?)</script>', answer.text
    )
    assert found
    return answer.text, json.loads(found.group(1))


def test_the_public_replay_page_stops_at_the_last_closed_round(server) -> None:
    page, document = _replay_page(server)
    closes = [s for s in document["steps"] if s["type"] == "RoundClosed"]
    assert document["public"] and len(closes) == 1
    assert document["steps"][-1] == closes[0]  # nothing of round 2: it is open
    assert "NAI" not in page and "CAI" not in page
    assert _replay_page(server, "ana")[1]["steps"] == document["steps"]  # a player: the same


def test_the_games_arbiters_replay_page_is_the_whole_game(server) -> None:
    page, document = _replay_page(server, "watcher")
    assert not document["public"]
    assert document["steps"][-1]["round"] == 2
    assert "PenaltyGiven" in {s["type"] for s in document["steps"]}
    assert "C7: NAI" in page
    assert document["head"]["seq"] >= document["steps"][-1]["seq"]
