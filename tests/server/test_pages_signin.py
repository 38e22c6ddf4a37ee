"""The pages every reader meets first, through the real server: the games' list, signing in
and out with a plain form (no script), the form token that keeps other sites' forms out, the
language (Romanian unless asked otherwise), and refusals shown as pages, not JSON."""

from __future__ import annotations

import httpx
import pytest

from tests.server.pages_helpers import PASSWORD, form_token, signed_in_client, with_password


@pytest.fixture(scope="module")
def site(server) -> str:
    """ana (a player of `p1`) with a password; chief (admin) made `p1` and drew round 1."""
    server.account("chief", "Chief", "admin")
    server.account("ana", "Ana Pop")
    with_password(server, "ana")
    chief = server.client("chief")
    assert chief.post("/games", json={"game_id": "p1", "players": ["ana"]}).is_success
    assert chief.post("/games/p1/rounds/1/draw", json={"tiles": "AERTSIO"}).is_success
    return f"http://127.0.0.1:{server.port}"


def reader_at(site: str, **headers: str) -> httpx.Client:
    return httpx.Client(base_url=site, headers=headers, timeout=30, follow_redirects=False)


def signed_in(site: str) -> httpx.Client:
    return signed_in_client(site, "ana")


def test_the_home_page_lists_the_games_in_romanian_by_default(site) -> None:
    page = reader_at(site).get("/")
    assert page.status_code == 200
    assert '<html lang="ro">' in page.text
    assert "Jocuri" in page.text and "p1" in page.text and "Rundă deschisă" in page.text
    assert 'href="/games/p1/display"' in page.text


def test_the_language_is_the_one_asked_then_kept_else_the_browsers(site) -> None:
    client = reader_at(site)
    english = client.get("/?lang=en")
    assert '<html lang="en">' in english.text and "Round open" in english.text
    assert english.cookies.get("arbitru_lang") == "en"
    assert '<html lang="en">' in client.get("/").text  # the cookie keeps it
    preferred = reader_at(site, **{"Accept-Language": "fr-FR, en;q=0.8, ro;q=0.5"}).get("/")
    assert '<html lang="en">' in preferred.text
    weighed = reader_at(site, **{"Accept-Language": "en;q=0.3, ro-RO;q=0.9"}).get("/")
    assert '<html lang="ro">' in weighed.text


def test_a_player_signs_in_with_the_form_and_is_sent_back_where_they_were(site) -> None:
    client = reader_at(site)
    token = form_token(client, "/signin?next=/games/p1/replay")
    answer = client.post(
        "/signin",
        data={"form_token": token, "account": " Ana ", "password": PASSWORD,
              "next": "/games/p1/replay"},
    )  # fmt: skip
    assert answer.status_code == 303 and answer.headers["location"] == "/games/p1/replay"
    cookie = answer.headers["set-cookie"]
    assert "arbitru_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    home = client.get("/")
    assert "Autentificat ca ana" in home.text
    assert 'href="/games/p1/play"' in home.text  # ana plays p1


@pytest.mark.parametrize("away", ["//evil.example/", "https://evil.example/", "/\\evil.example"])
def test_signing_in_never_sends_the_reader_to_another_site(site, away) -> None:
    client = reader_at(site)
    token = form_token(client)
    answer = client.post(
        "/signin", data={"form_token": token, "account": "ana", "password": PASSWORD, "next": away}
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/"


def test_a_wrong_password_is_told_on_the_page_in_the_readers_language(site) -> None:
    client = reader_at(site)
    token = form_token(client)
    answer = client.post("/signin", data={"form_token": token, "account": "ana", "password": "x"})
    assert answer.status_code == 401
    assert "Contul sau parola sunt greșite." in answer.text
    assert 'value="ana"' in answer.text  # the account stays typed
    assert "arbitru_session" not in answer.headers.get("set-cookie", "")


def test_a_form_without_this_sites_token_is_refused_as_a_page(site) -> None:
    client = reader_at(site)
    form_token(client)  # the browser holds a token cookie, the other site's form has none
    forged = client.post("/signin", data={"account": "ana", "password": PASSWORD})
    assert forged.status_code == 403
    assert forged.headers["content-type"].startswith("text/html")
    assert "Nu aveți acces" in forged.text and "reload the page" in forged.text
    token = form_token(client)
    other_site = client.post(
        "/signin",
        data={"form_token": token, "account": "ana", "password": PASSWORD},
        headers={"Origin": "https://evil.example"},
    )
    assert other_site.status_code == 403


def test_signing_out_ends_the_session(site) -> None:
    client = signed_in(site)
    session = client.cookies.get("arbitru_session")
    token = form_token(client, "/")
    out = client.post("/signout", data={"form_token": token})
    assert out.status_code == 303 and out.headers["location"] == "/"
    assert "Autentificat" not in client.get("/").text
    stolen = reader_at(site)
    stolen.cookies.set("arbitru_session", session)
    assert "Autentificat" not in stolen.get("/").text  # the session is gone, not just the cookie


def test_a_browsers_session_writes_to_the_api_only_from_this_sites_pages(site) -> None:
    client = signed_in(site)
    slip = {"text": "8B: AIESTOR"}
    path = "/api/v1/games/p1/rounds/1/submissions"
    refused = client.post(path, json=slip, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    accepted = client.post(path, json=slip, headers={"Origin": site})
    assert accepted.status_code == 201, accepted.text


def test_refusals_are_pages_outside_the_api_and_problem_details_inside(site) -> None:
    page = reader_at(site).get("/games/nosuch/replay?lang=en")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "Not found" in page.text and "nosuch" in page.text
    api = reader_at(site).get("/api/v1/games/nosuch")
    assert api.status_code == 404 and api.headers["content-type"] == "application/problem+json"
