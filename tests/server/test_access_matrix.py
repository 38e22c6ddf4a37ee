"""Who may do what, as a matrix: every route of the app (read from its OpenAPI document, so
that a route added without an entry here fails the test) against every kind of caller, each
answered as the contract's table says: allowed (2xx), 401 for the public when signing in
could help, 403 for a signed-in caller it does not concern.

The expectations are written here from the contract (SERVER.md "Who may do what"), not read
from `pipelines.server.access.ACCESS`: a test that derived them from the table it checks
could not fail. Writes go with `?dry_run=true`, so that one game in one state serves the
whole matrix: the game `g` of tournament `t1`, its round 1 closed (a checkpoint signed), its
round 2 open.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from pipelines.accounts.credentials import set_password
from tests.server.conftest import API, Server
from tests.server.signing import signing_server

ANON = "anonymous"
PLAYER = "ana"  # a player of g, whose slips the proofs and submissions are about
TEAMMATE = "bob"  # another player of g
OTHER_PLAYER = "cid"  # a player of h only
CHIEF = "chief"  # chief of tournament t1 (so of g, which it created)
DEPUTY = "deputy"  # deputy of tournament t1
DATA_ENTRY = "entry"  # data-entry on g
READ_ONLY = "reader"  # read-only on g
OTHER_CHIEF = "chief-h"  # chief of tournament t2 and its game h
AUDITOR = "audrey"
ADMIN = "boss"
CALLERS = (
    ANON,
    PLAYER,
    TEAMMATE,
    OTHER_PLAYER,
    CHIEF,
    DEPUTY,
    DATA_ENTRY,
    READ_ONLY,
    OTHER_CHIEF,
    AUDITOR,
    ADMIN,
)
SIGNED_IN = frozenset(CALLERS) - {ANON}
ARBITERS = frozenset({CHIEF, DEPUTY, DATA_ENTRY, READ_ONLY})
DECIDING = frozenset({CHIEF, DEPUTY})
EVERYONE = frozenset(CALLERS)

OK = "2xx"
RULED = "ruled"
"""Allowed, then refused by the game's rules (409/422): the rule is not this test's."""


@dataclass(frozen=True)
class Case:
    """One request, and who may make it: `allowed` get `outcome`, the public 401 (unless
    allowed), everyone else 403."""

    method: str
    route: str  # as the OpenAPI document names it, under /api/v1
    path: str
    allowed: frozenset[str]
    body: Any = None
    outcome: str = OK
    params: dict[str, str] = field(default_factory=dict)


def _cases(ids: dict[str, str]) -> list[Case]:
    dry = {"dry_run": "true"}
    penalty = ids["penalty"]
    slip = ids["slip"]
    round_ = "/games/{game}/rounds/{round}"
    return [
        Case("POST", "/games", "/games", frozenset({ADMIN}) | DECIDING,
             {"game_id": "g9", "players": [PLAYER], "tournament_id": "t1"}, params=dry),
        Case("GET", "/games/{game}", "/games/g", EVERYONE),
        Case("POST", "/games/{game}/players", "/games/g/players", DECIDING,
             {"players": ["dan"]}, params=dry),
        Case("POST", f"{round_}/draw", "/games/g/rounds/3/draw", DECIDING,
             {"tiles": "AEIOU"}, outcome=RULED, params=dry),
        Case("POST", f"{round_}/submissions", "/games/g/rounds/2/submissions",
             frozenset({PLAYER, CHIEF, DEPUTY, DATA_ENTRY}),
             {"text": "H4: ZAR", "player": PLAYER}, params=dry),
        Case("GET", f"{round_}/submissions", "/games/g/rounds/2/submissions",
             frozenset({PLAYER, TEAMMATE, AUDITOR, ADMIN}) | ARBITERS),
        Case("GET", f"{round_}/submissions", "/games/g/rounds/1/submissions", EVERYONE),
        Case("POST", f"{round_}/replacements", "/games/g/rounds/2/replacements",
             frozenset({PLAYER, CHIEF, DEPUTY, DATA_ENTRY}),
             {"text": "-B+Bo", "player": PLAYER}, outcome=RULED, params=dry),
        # placed and scored, never checked against the word list: its player, the arbiters
        Case("POST", f"{round_}/preview", "/games/g/rounds/2/preview",
             frozenset({PLAYER}) | ARBITERS, {"text": "H4: ZAR", "player": PLAYER}),
        Case("POST", f"{round_}/close", "/games/g/rounds/2/close", frozenset({CHIEF}), {},
             params=dry),
        Case("POST", f"{round_}/top", "/games/g/rounds/2/top", DECIDING,
             {"move": "H4: ZAR"}, outcome=RULED, params=dry),
        Case("POST", f"{round_}/annulments", "/games/g/rounds/2/annulments", DECIDING,
             {"player": PLAYER, "reason": "illegible"}, params=dry),
        Case("POST", f"{round_}/penalties", "/games/g/rounds/2/penalties", DECIDING,
             {"player": PLAYER, "points": 5, "reason": "late slip"}, params=dry),
        Case("POST", f"{round_}/warnings", "/games/g/rounds/2/warnings", DECIDING,
             {"player": PLAYER, "reason": "talking"}, params=dry),
        Case("POST", f"{round_}/corrections", "/games/g/rounds/2/corrections", DECIDING,
             {"player": PLAYER, "text": "H4: ZAR", "reason": "as read"}, params=dry),
        Case("POST", "/games/{game}/revocations", "/games/g/revocations", DECIDING,
             {"event_id": penalty, "reason": "on appeal"}, params=dry),
        Case("POST", "/games/{game}/end", "/games/g/end", frozenset({CHIEF}), {},
             outcome=RULED, params=dry),  # not while round 2 is open
        Case("POST", "/games/{game}/seed", "/games/gs/seed", DECIDING, {}, params=dry),
        Case("GET", f"{round_}/results", "/games/g/rounds/1/results", EVERYONE),
        # an open round's results: its players each see their own row only
        Case("GET", f"{round_}/results", "/games/g/rounds/2/results",
             frozenset({PLAYER, TEAMMATE, AUDITOR, ADMIN}) | ARBITERS),
        Case("GET", "/games/{game}/standings", "/games/g/standings", EVERYONE),
        Case("GET", "/games/{game}/replay", "/games/g/replay", EVERYONE, params={"round": "1"}),
        Case("GET", "/games/{game}/replay", "/games/g/replay",
             frozenset({AUDITOR, ADMIN}) | ARBITERS),
        Case("GET", "/games/{game}/live", "/games/g/live", EVERYONE),
        Case("GET", "/ledger/head", "/ledger/head", EVERYONE),
        Case("GET", "/checkpoints", "/checkpoints", EVERYONE),
        Case("GET", "/ledger/events", "/ledger/events", frozenset({AUDITOR, ADMIN}),
             params={"stream": "game/g"}),
        Case("GET", "/proofs/{event_id}", f"/proofs/{slip}",
             frozenset({PLAYER, AUDITOR, ADMIN}) | ARBITERS),
        Case("POST", "/accounts", "/accounts", frozenset({ADMIN}),
             {"account": "newbie", "name": "Newbie"}),
        Case("GET", "/accounts", "/accounts", frozenset({ADMIN})),
        Case("GET", "/me", "/me", SIGNED_IN),
        Case("POST", "/accounts/{account}/tokens", f"/accounts/{PLAYER}/tokens",
             frozenset({PLAYER, ADMIN})),
        Case("POST", "/accounts/{account}/roles", "/accounts/eve/roles",
             frozenset({CHIEF, ADMIN}), {"role": "read-only", "game": "g"}),
        Case("POST", "/accounts/{account}/roles", "/accounts/eve/roles",
             frozenset({ADMIN}), {"role": "auditor"}),
        Case("POST", "/sessions", "/sessions", EVERYONE,
             {"account": "sam", "password": "correct horse"}),
        Case("DELETE", "/sessions", "/sessions", EVERYONE),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory, _arbitru_home) -> Iterator[tuple[Server, dict[str, str]]]:
    """The server, its accounts and roles, game g (round 1 closed and signed, round 2 open
    with a slip of ana's and a penalty given), the seeded game gs of t1 and game h of t2;
    the ids the cases name."""
    with signing_server(tmp_path_factory.mktemp("matrix")) as (server, _public):
        yield server, _set_up(server)


def _set_up(server: Server) -> dict[str, str]:
    server.account(ADMIN, "Boss", "admin")
    server.account(AUDITOR, "Audrey", "auditor")
    for player in (PLAYER, TEAMMATE, OTHER_PLAYER, "dan", "eve", "sam"):
        server.account(player)
    server.account(CHIEF, "Chief", "chief", tournament="t1")
    server.account(DEPUTY, "Deputy", "deputy", tournament="t1")
    server.account(DATA_ENTRY, "Entry", "data-entry", game="g")
    server.account(READ_ONLY, "Reader", "read-only", game="g")
    server.account(OTHER_CHIEF, "Chief H", "chief", tournament="t2")
    from ledger import EventStore

    with EventStore(server.db) as store:
        set_password(store, "sam", "correct horse")
    chief = server.client(CHIEF)
    made = chief.post(
        "/games", json={"game_id": "g", "players": [PLAYER, TEAMMATE], "tournament_id": "t1"}
    )
    assert made.status_code == 201, made.text
    other = server.client(OTHER_CHIEF).post(
        "/games", json={"game_id": "h", "players": [OTHER_PLAYER], "tournament_id": "t2"}
    )
    assert other.status_code == 201, other.text
    seeded = {"game_id": "gs", "players": [PLAYER], "tournament_id": "t1", "draw": "seeded"}
    _ok(chief.post("/games", json=seeded))
    _ok(chief.post("/games/g/rounds/1/draw", json={"tiles": "CARTEAM"}))
    player = server.client(PLAYER)
    slip = _ok(player.post("/games/g/rounds/1/submissions", json={"text": "H4: CARTE"}))
    _ok(chief.post("/games/g/rounds/1/close", json={}))
    _ok(chief.post("/games/g/rounds/2/draw", json={"tiles": "ZOBUI"}))
    _ok(player.post("/games/g/rounds/2/submissions", json={"text": "H4: ZAR"}))
    penalty = _ok(
        chief.post(
            "/games/g/rounds/2/penalties",
            json={"player": TEAMMATE, "points": 5, "reason": "talking"},
        )
    )
    return {"slip": slip["event_id"], "penalty": penalty["event_id"]}


def _ok(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 201, answer.text
    return answer.json()


def _status(server: Server, clients: dict[str, httpx.Client], caller: str, case: Case) -> int:
    client = clients[caller]
    if case.route.endswith("/live"):  # an event stream: its status, then hang up
        with client.stream("GET", case.path, params=case.params) as answer:
            return answer.status_code
    answer = client.request(case.method, case.path, params=case.params, json=case.body)
    if answer.status_code >= 500:
        return answer.status_code * 1000  # never an expectation: shown with its case
    return answer.status_code


def _expected(case: Case, caller: str) -> str:
    if caller in case.allowed:
        return case.outcome
    return "401" if caller == ANON else "403"


def _seen(case: Case, status: int) -> str:
    if 200 <= status < 300:
        return OK
    if case.outcome == RULED and status in (409, 422):
        return RULED
    return str(status)


def _served(server: Server) -> set[tuple[str, str]]:
    """Every (method, route) the server's OpenAPI document names, under /api/v1."""
    document = httpx.get(f"{server.base}/openapi.json").json()
    return {
        (method.upper(), path.removeprefix(API))
        for path, operations in document["paths"].items()
        for method in operations
    }


def test_every_route_of_the_openapi_document_is_in_the_matrix(world) -> None:
    server, ids = world
    routes = _served(server)
    covered = {(c.method, c.route) for c in _cases(ids)}
    assert routes - covered == set(), "routes with no row in the access matrix"


def test_each_caller_gets_what_the_contract_says_on_every_route(world) -> None:
    server, ids = world
    served = _served(server)
    clients = {caller: server.client(None if caller == ANON else caller) for caller in CALLERS}
    wrong = []
    for case in _cases(ids):
        if (case.method, case.route) not in served:
            continue  # a route of the contract this build does not serve yet (live)
        for caller in CALLERS:
            status = _status(server, clients, caller, case)
            if _seen(case, status) != _expected(case, caller):
                wrong.append(
                    f"{caller:>9} {case.method} {case.path}{case.params or ''}: {status}, "
                    f"expected {_expected(case, caller)}"
                )
    for client in clients.values():
        client.close()
    assert wrong == [], "\n".join(wrong)


def test_the_chief_of_a_game_in_a_tournament_creates_no_game_outside_it(world) -> None:
    server, _ids = world
    with server.client(OTHER_CHIEF) as client:
        elsewhere = client.post(
            "/games",
            params={"dry_run": "true"},
            json={"game_id": "g8", "players": [], "tournament_id": "t1"},
        )
        alone = client.post(
            "/games", params={"dry_run": "true"}, json={"game_id": "g7", "players": []}
        )
    assert (elsewhere.status_code, alone.status_code) == (403, 403)
