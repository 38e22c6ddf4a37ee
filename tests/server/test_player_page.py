"""The player's page and the preview route, through the real server without a browser: who may
open the page, a slip sent with the plain form (no script) recorded as the API records it and
its receipt as the ledger holds it, and the preview: placed and scored as the engine places
and scores the move, an unplaceable text's reason, and never a word about the word list."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from ledger import EventStore
from pipelines.pictures.reasons import reason_text
from tests.server.conftest import arbitru_command
from tests.server.pages_helpers import form_token, signed_in_client, with_password

RACK = "VARZATE"


@pytest.fixture(scope="module")
def site(server) -> str:
    """Game `pp`: ana and bob play it (with passwords), cid plays none, chief is its chief
    arbiter (admin); round 1 drawn, with a deadline an hour away."""
    server.account("chief", "Chief", "admin")
    for account in ("ana", "bob", "cid"):
        server.account(account)
        with_password(server, account)
    chief = server.client("chief")
    made = chief.post("/games", json={"game_id": "pp", "players": ["ana", "bob"]})
    assert made.status_code == 201, made.text
    deadline = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    drawn = chief.post("/games/pp/rounds/1/draw", json={"tiles": RACK, "deadline": deadline})
    assert drawn.status_code == 201, drawn.text
    return f"http://127.0.0.1:{server.port}"


def signed_in(site: str, account: str) -> httpx.Client:
    return signed_in_client(site, account)


def preview(client: httpx.Client, text: str, **more) -> httpx.Response:
    return client.post("/api/v1/games/pp/rounds/1/preview", json={"text": text, **more})


def test_the_public_is_sent_to_sign_in_and_back(site) -> None:
    answer = httpx.get(f"{site}/games/pp/play", follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/signin?next=/games/pp/play"


def test_an_account_that_does_not_play_the_game_is_refused_with_a_page(site) -> None:
    answer = signed_in(site, "cid").get("/games/pp/play?lang=en")
    assert answer.status_code == 403
    assert answer.headers["content-type"].startswith("text/html")
    assert "cid does not play pp" in answer.text


def test_a_player_sees_the_board_their_tiles_and_the_deadline(site) -> None:
    page = signed_in(site, "ana").get("/games/pp/play")
    assert page.status_code == 200
    assert "<svg" in page.text and 'class="square TW"' in page.text
    assert f'<span class="rack" id="rack">{RACK}</span>' in page.text
    assert re.search(r'<time id="deadline" datetime="[^"]+">[^<]+ UTC</time>', page.text)
    assert 'id="slip" name="text"' in page.text and "Runda 1" in page.text


def test_a_slip_sent_without_a_script_is_recorded_and_its_receipt_is_the_ledgers(
    site, server
) -> None:
    ana = signed_in(site, "ana")
    for text in ("H8: ARTE", "H8: VARZA"):
        token = form_token(ana, "/games/pp/play")
        sent = ana.post("/games/pp/play", data={"form_token": token, "round": "1", "text": text})
        assert sent.status_code == 303, sent.text
    seq = int(re.fullmatch(r"/games/pp/play\?receipt=(\d+)", sent.headers["location"])[1])
    page = ana.get(sent.headers["location"]).text
    with EventStore(server.db) as store:
        (event,) = store.read_all(from_seq=seq, limit=1)
    assert event.type == "SubmissionReceived" and event.payload["text"] == "H8: VARZA"
    receipt = page[page.index('id="receipt"') : page.index('id="slips"')]
    assert f'data-field="seq">{seq}<' in receipt and event.hash in receipt
    assert "H8: VARZA" in receipt and event.meta["received_at"] in receipt
    slips = page[page.index('id="slips"') : page.index('id="results"')]
    assert re.search(r'class="superseded">\s*<span class="slip">H8: ARTE', slips)
    assert re.search(r'class="standing">\s*<span class="slip">H8: VARZA', slips)


def test_a_form_without_the_token_is_refused(site) -> None:
    ana = signed_in(site, "ana")
    forged = ana.post("/games/pp/play", data={"round": "1", "text": "H8: VARZA"})
    assert forged.status_code == 403 and forged.headers["content-type"].startswith("text/html")


def test_a_refused_slip_is_said_on_the_page_with_the_text_kept(site) -> None:
    ana = signed_in(site, "ana")
    token = form_token(ana, "/games/pp/play")
    refused = ana.post(
        "/games/pp/play", data={"form_token": token, "round": "7", "text": "H8: A"}
    )  # round 7 is not drawn
    assert refused.status_code == 409 and 'value="H8: A"' in refused.text
    assert 'role="alert" id="send-problem">' in refused.text
    assert reason_text("round_not_drawn", "ro") in refused.text  # the reason, in Romanian


def engine_score(board: list[str], move: str, rack: str, tmp_path) -> dict:
    """`arbitru engine score --json` on the round's board and rack (the game's word list)."""
    path = tmp_path / "board.txt"
    path.write_text("\n".join(board) + "\n")
    done = subprocess.run(
        [*arbitru_command(), "engine", "score", "--board", str(path), "--move", move,
         "--rack", rack, "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return json.loads(done.stdout)


def test_the_preview_places_and_scores_as_the_engine_does(site, server, tmp_path) -> None:
    ana = signed_in(site, "ana")
    answer = preview(ana, "H8: VARZA")
    assert answer.status_code == 200, answer.text
    shown = answer.json()
    board = server.client("ana").get("/games/pp").json()["round"]["board"]
    engine = engine_score(board, "H8: VARZA", RACK, tmp_path)
    assert engine["valid"] and shown["problems"] == []
    assert shown["score"] == engine["score"] > 0
    assert [t["square"] for t in shown["tiles"]] == [t["square"] for t in engine["tiles"]]
    assert [(t["row"], t["col"], t["letter"]) for t in shown["tiles"]] == [
        (7, 7 + i, letter) for i, letter in enumerate("VARZA")
    ]
    assert [(w["word"], w["score"], w["word_factor"]) for w in shown["words"]] == [
        (w["word"], w["score"], w["word_factor"]) for w in engine["words"]
    ]
    assert shown["move"] == engine["move"] and shown["bonus"] == engine["bonus"] == 0


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("H8 VARZA ?!", "unreadable"),
        ("A1: VARZA", "not_on_centre"),
        ("H12: VARZA", "off_board"),
        ("H8: VARZO", "tile_not_on_rack"),
    ],
)
def test_an_unplaceable_slip_previews_with_its_reason(site, text, code) -> None:
    shown = preview(signed_in(site, "bob"), text).json()
    assert code in [p["code"] for p in shown["problems"]] and shown["score"] == 0


def test_a_word_not_in_the_word_list_previews_exactly_like_one_in_it(site, tmp_path) -> None:
    ana = signed_in(site, "ana")
    listed, unlisted = preview(ana, "H8: VARE").json(), preview(ana, "H8: RAVE").json()
    empty = ["." * 15] * 15
    assert engine_score(empty, "H8: RAVE", RACK, tmp_path)["valid"] is False  # not in the list
    assert engine_score(empty, "H8: VARE", RACK, tmp_path)["valid"] is True  # in it
    assert listed.keys() == unlisted.keys()
    assert "valid" not in listed and unlisted["problems"] == listed["problems"] == []
    assert unlisted["score"] == listed["score"] > 0 and unlisted["notes"] == []


def test_the_preview_is_refused_to_the_public_and_to_other_players(site) -> None:
    assert preview(httpx.Client(base_url=site), "H8: VARZA").status_code == 401
    assert preview(signed_in(site, "cid"), "H8: VARZA").status_code == 403
    assert preview(signed_in(site, "bob"), "H8: VARZA", player="ana").status_code == 403


@pytest.mark.parametrize(
    ("variant", "rack", "replacement", "slip"),
    [
        ("completiv", "UCATOR", None, "H4: [J]UCATOR"),
        ("anticipation", "ABEIRST", "-B+Bo", "H8: SERBoATI"),
        ("eliptic", "JUCATORI", None, "H4: JUCATOR"),
    ],
)
def test_each_variant_previews_the_score_its_round_then_gives(
    site, server, variant, rack, replacement, slip
) -> None:
    """The preview judges as the variant does: completiv's letter from the stock, anticipation's
    replacement (sent with the page's plain form) and own board, eliptic's rack of 8."""
    game = f"v-{variant}"
    chief = server.client("chief")
    made = chief.post("/games", json={"game_id": game, "variant": variant, "players": ["ana"]})
    assert made.status_code == 201, made.text
    assert chief.post(f"/games/{game}/rounds/1/draw", json={"tiles": rack}).status_code == 201
    ana = signed_in(site, "ana")
    if replacement is not None:
        page = ana.get(f"/games/{game}/play")
        assert 'id="replacement"' in page.text
        assert '<span class="rack" id="stock">??</span>' in page.text  # the two jokers
        token = form_token(ana, f"/games/{game}/play")
        fields = {"form_token": token, "round": "1", "kind": "replacement", "text": replacement}
        declared = ana.post(f"/games/{game}/play", data=fields)
        assert declared.status_code == 303, declared.text
        assert "-B+Bo" in ana.get(declared.headers["location"]).text
    shown = ana.post(f"/api/v1/games/{game}/rounds/1/preview", json={"text": slip}).json()
    assert shown["problems"] == [] and shown["score"] > 0
    sent = ana.post(f"/api/v1/games/{game}/rounds/1/submissions", json={"text": slip})
    assert sent.status_code == 201, sent.text
    assert chief.post(f"/games/{game}/rounds/1/close", json={}).status_code == 201
    results = chief.get(f"/games/{game}/rounds/1/results").json()
    assert results["players"][0]["score"] == shown["score"]
