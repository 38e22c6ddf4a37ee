"""The accounts' routes through the real server: accounts and grants recorded as ledger
events by the signed-in account, tokens issued to the account itself, a chief arbiter
granting arbiter roles on their own game only, sign-in with a session cookie, and failed
sign-ins limited per account and per address."""

from __future__ import annotations

import json

import httpx
import pytest

from ledger import EventStore
from pipelines.accounts.credentials import set_password

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def people(server):
    server.account("boss", "Boss", "admin")
    server.account("ana", "Ana")
    server.account("carol", "Carol")
    server.account("chief", "Chief")
    with EventStore(server.db) as store:
        for account in ("ana", "carol"):
            set_password(store, account, PASSWORD)
    made = server.client("chief").post("/games", json={"game_id": "c1", "players": ["ana"]})
    assert made.status_code == 403  # not an arbiter of any tournament, not an admin
    admin = server.client("boss")
    assert admin.post("/games", json={"game_id": "c1", "players": ["ana"]}).status_code == 201
    assert admin.post("/games", json={"game_id": "c2", "players": ["ana"]}).status_code == 201
    granted = admin.post("/accounts/chief/roles", json={"role": "chief", "game": "c1"})
    assert granted.status_code == 201, granted.text
    return server


def _recorded(server, stream: str) -> list[dict]:
    lines = server.client("boss").get("/ledger/events", params={"stream": stream}).content
    return [json.loads(line) for line in lines.splitlines()]


def test_an_admin_creates_an_account_recorded_with_the_admin_as_actor(people) -> None:
    answer = people.client("boss").post("/accounts", json={"account": "dora", "name": "Dora"})
    assert answer.status_code == 201, answer.text
    receipt = answer.json()
    assert (receipt["account"], receipt["name"], receipt["stream"]) == (
        "dora",
        "Dora",
        "account/dora",
    )
    [event] = _recorded(people, "account/dora")
    assert (event["type"], event["meta"]["actor"], event["event_id"]) == (
        "AccountCreated",
        "boss",
        receipt["event_id"],
    )
    again = people.client("boss").post("/accounts", json={"account": "dora", "name": "Dora"})
    assert (again.status_code, again.json()["code"]) == (409, "account_exists")


def test_an_idempotency_key_answers_the_first_receipt_and_refuses_another_body(people) -> None:
    admin = people.client("boss", **{"Idempotency-Key": "make-erin-1"})
    first = admin.post("/accounts", json={"account": "erin", "name": "Erin"})
    retry = admin.post("/accounts", json={"account": "erin", "name": "Erin"})
    other = admin.post("/accounts", json={"account": "fred", "name": "Fred"})
    assert (first.status_code, retry.status_code, other.status_code) == (201, 201, 422)
    assert retry.json()["event_id"] == first.json()["event_id"]
    assert len(_recorded(people, "account/erin")) == 1
    grant = people.client("boss", **{"Idempotency-Key": "erin-reads"})
    body = {"role": "read-only", "game": "c2"}
    once, twice = (grant.post("/accounts/erin/roles", json=body) for _ in range(2))
    assert (once.status_code, twice.status_code) == (201, 201)
    assert once.json()["event_id"] == twice.json()["event_id"]


def test_a_chief_grants_arbiter_roles_on_their_own_game_only(people) -> None:
    chief = people.client("chief")
    granted = chief.post("/accounts/carol/roles", json={"role": "deputy", "game": "c1"})
    assert granted.status_code == 201, granted.text
    assert granted.json()["events"][0]["meta"]["actor"] == "chief"
    assert granted.json()["events"][0]["payload"]["role"] == "deputy"
    elsewhere = chief.post("/accounts/carol/roles", json={"role": "deputy", "game": "c2"})
    ledger_wide = chief.post("/accounts/carol/roles", json={"role": "auditor"})
    tournament = chief.post("/accounts/carol/roles", json={"role": "chief", "tournament": "t9"})
    assert [a.status_code for a in (elsewhere, ledger_wide, tournament)] == [403, 403, 403]
    deputy = people.client("carol").post(
        "/accounts/ana/roles", json={"role": "read-only", "game": "c1"}
    )
    assert deputy.status_code == 403  # a deputy grants nothing
    repeated = chief.post("/accounts/carol/roles", json={"role": "deputy", "game": "c1"})
    assert (repeated.status_code, repeated.json()["event_id"]) == (200, granted.json()["event_id"])


def test_an_account_issues_its_own_token_and_no_one_elses(people) -> None:
    people.account("gus", "Gus")
    gus = people.client("gus")
    own = gus.post("/accounts/gus/tokens")
    assert own.status_code == 201, own.text
    assert own.json()["account"] == "gus"
    with httpx.Client(
        base_url=people.base, headers={"Authorization": f"Bearer {own.json()['token']}"}
    ) as fresh:
        assert fresh.get("/me").json()["account"] == "gus"
    assert gus.post("/accounts/ana/tokens").status_code == 403
    assert people.client().post("/accounts/gus/tokens").status_code == 401
    assert people.client("boss").post("/accounts/nobody/tokens").status_code == 404


def test_the_list_of_accounts_shows_roles_and_never_a_secret(people) -> None:
    listed = people.client("boss").get("/accounts")
    assert listed.status_code == 200
    accounts = {a["account_id"]: a for a in listed.json()["accounts"]}
    assert {"role": "chief", "game_id": "c1", "tournament_id": None} in accounts["chief"]["roles"]
    for token in people.tokens.values():
        assert token not in listed.text
    assert "password" not in listed.text and "argon2" not in listed.text
    me = people.client("chief").get("/me").json()
    assert (me["account"], me["name"]) == ("chief", "Chief")
    assert {"role": "chief", "game_id": "c1", "tournament_id": None} in me["roles"]


def test_signing_in_sets_a_session_cookie_that_signing_out_ends(people) -> None:
    with httpx.Client(base_url=people.base) as browser:
        answer = browser.post("/sessions", json={"account": "ana", "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        cookie = answer.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
        assert browser.get("/me").json()["account"] == "ana"
        assert browser.delete("/sessions").status_code == 204
        assert browser.get("/me").status_code == 401
    with httpx.Client(base_url=people.base, headers={"X-Forwarded-Proto": "https"}) as proxied:
        answer = proxied.post("/sessions", json={"account": "ana", "password": PASSWORD})
        assert "secure" in answer.headers["set-cookie"].lower()


def _sign_in(people, account: str, password: str, address: str) -> httpx.Response:
    return httpx.post(
        f"{people.base}/sessions",
        json={"account": account, "password": password},
        headers={"X-Forwarded-For": address},
    )


def test_a_wrong_password_and_an_unknown_account_answer_alike(people) -> None:
    wrong = _sign_in(people, "carol", "not it", "203.0.113.1")
    unknown = _sign_in(people, "nobody-at-all", "not it", "203.0.113.2")
    assert wrong.status_code == unknown.status_code == 401
    assert {k: v for k, v in wrong.json().items() if k != "instance"} == {
        k: v for k, v in unknown.json().items() if k != "instance"
    }


def test_five_failures_for_an_account_refuse_it_from_any_address(people) -> None:
    for n in range(5):
        assert _sign_in(people, "ana", "not it", f"198.51.100.{n + 1}").status_code == 401
    refused = _sign_in(people, "ana", PASSWORD, "198.51.100.99")
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 60


def test_five_failures_from_an_address_refuse_it_for_any_account(people) -> None:
    for n in range(5):
        assert _sign_in(people, f"guess-{n}", "not it", "192.0.2.7").status_code == 401
    refused = _sign_in(people, "carol", PASSWORD, "192.0.2.7")
    assert refused.status_code == 429
    assert _sign_in(people, "carol", PASSWORD, "192.0.2.8").status_code == 201
