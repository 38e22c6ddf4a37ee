"""The accounts' routes: accounts created and listed by admins, tokens issued, roles granted,
the signed-in caller's own account, and signing in and out (`pipelines.server.sessions`).

Each write is the accounts' service call `arbitru accounts` makes (`pipelines.accounts`),
recorded as a ledger event with `meta.actor` the signed-in account, and answered with a
receipt as the games' writes are (`pipelines.server.writes`). An admin grants any role; a
chief arbiter grants arbiter roles on their own game (held on it or on its tournament) or
on their own tournament, and nothing else. With an `Idempotency-Key`, a retry of a recorded
write answers the receipt of what the first try recorded (an account is created once, a
grant held once, so what it recorded is found by what it asked); tokens are secrets shown
once, so a retry of `POST /accounts/{id}/tokens` issues another.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from pipelines.accounts.roster import ARBITER_ROLES, Roster
from pipelines.games.service import GameNotFound, stream_of
from pipelines.server import bodies, sessions
from pipelines.server.access import Access, Relation
from pipelines.server.callers import access, server_of
from pipelines.server.problems import Problem
from pipelines.server.writes import receipt, sent_before

router = APIRouter(tags=["accounts"])
router.include_router(sessions.router)

AccountPath = Annotated[
    str, Path(pattern=bodies.ID_PATTERN, max_length=64, description="An account id.")
]


class NewAccount(bodies.Body):
    account: bodies.AccountId
    name: Annotated[str, Field(min_length=1, max_length=200)]


class NewGrant(bodies.Body):
    """A role: ledger-wide (admin, auditor), or an arbiter role on one game or tournament."""

    role: Annotated[str, Field(min_length=1, max_length=32)]
    game: bodies.AccountId | None = None
    tournament: bodies.AccountId | None = None


@router.post("/accounts", status_code=201, summary="Create an account")
def create_account(request: Request, body: NewAccount) -> JSONResponse:
    """`{"account","name"}` → 201 `{"account","name"}` with the receipt of `AccountCreated`."""
    from pipelines.accounts.service import create_account as create

    at = access(request, "create_account")
    asked = {"account_id": body.account}
    earlier = _retried(request, at, body, body.account, "AccountCreated", asked)
    if earlier is not None:
        return receipt(earlier, account=body.account, name=body.name)
    recorded = create(server_of(request).store, body.account, body.name, _who(at))
    return receipt(recorded, account=body.account, name=body.name)


@router.get("/accounts", summary="Every account and its roles")
def list_accounts(request: Request) -> JSONResponse:
    """As `arbitru accounts list --json`: ids, names, roles; never a secret."""
    access(request, "list_accounts")
    roster = server_of(request).roster()
    listed = [roster.account_json(a) for a in sorted(roster.accounts)]
    return JSONResponse({"accounts": listed})


@router.get("/me", summary="The signed-in account")
def me(request: Request) -> JSONResponse:
    """The caller's account, name and roles."""
    at = access(request, "me")
    roster = server_of(request).roster()
    account = _who(at)
    if not roster.exists(account):
        raise Problem(404, f"account {account} is not in this ledger's roster", "not_found")
    shown = roster.account_json(account)
    return JSONResponse({"account": account, "name": shown["name"], "roles": shown["roles"]})


@router.post("/accounts/{account}/tokens", status_code=201, summary="Issue an API token")
def issue_token(request: Request, account: AccountPath) -> JSONResponse:
    """→ 201 `{"account","token"}`: the token is shown this once (only its digest is kept)."""
    from pipelines.accounts.credentials import issue_token as issue

    access(request, "issue_token", account_in_path=account)
    _existing(server_of(request).roster(), account)
    token = issue(server_of(request).store, account)
    return JSONResponse(
        {"account": account, "token": token},
        status_code=201,
        headers={"Cache-Control": "no-store"},
    )


@router.post("/accounts/{account}/roles", status_code=201, summary="Grant a role")
def grant_role(request: Request, account: AccountPath, body: NewGrant) -> JSONResponse:
    """`{"role": R, "game": G}` or `{"role": R, "tournament": T}` (neither for admin and
    auditor) → 201 with the receipt of `RoleGranted`; 200 with the grant's own receipt when
    the account holds it already (nothing recorded)."""
    from pipelines.accounts.service import grant_role as grant

    at = _granting(request, account, body)
    _existing(server_of(request).roster(), account)
    asked = {"role": body.role, "game_id": body.game, "tournament_id": body.tournament}
    earlier = _retried(request, at, body, account, "RoleGranted", asked)
    if earlier is not None:
        return receipt(earlier)
    store = server_of(request).store
    recorded = grant(
        store,
        account,
        body.role,
        game_id=body.game,
        tournament_id=body.tournament,
        actor=_who(at),
    )
    if not recorded:
        held = _found(store, account, "RoleGranted", asked, actor=None)
        return receipt(held, status=200)
    return receipt(recorded)


def _granting(request: Request, account: str, body: NewGrant) -> Access:
    """The caller's access to grant `body`'s role on its scope: an admin any role; a chief
    arbiter of the game (or of its tournament), or of the tournament, an arbiter role there."""
    if body.game is not None:
        try:
            held = server_of(request).games.current(server_of(request).store, stream_of(body.game))
            at = access(request, "grant_role", game=held, account_in_path=account)
        except GameNotFound:
            at = access(request, "grant_role", game_id=body.game, account_in_path=account)
    else:
        at = access(request, "grant_role", tournament=body.tournament, account_in_path=account)
    if Relation.ADMIN not in at.relations and body.role not in ARBITER_ROLES:
        raise Problem(
            403,
            f"a chief arbiter grants arbiter roles ({', '.join(sorted(ARBITER_ROLES))}) on "
            f"their own game or tournament; only an admin grants {body.role}",
            "forbidden",
        )
    return at


def _retried(
    request: Request,
    at: Access,
    body: bodies.Body,
    account: str,
    type_name: str,
    asked: dict[str, Any],
) -> list[Any] | None:
    """With an Idempotency-Key already used for this very request: the event its first try
    recorded (None when there is no key, a new one, or the first try recorded nothing)."""
    keyed = sent_before(request, _who(at), body)
    if keyed is None or not keyed[1]:
        return None
    found = _found(server_of(request).store, account, type_name, asked, actor=_who(at))
    return found or None


def _found(
    store: Any, account: str, type_name: str, asked: dict[str, Any], actor: str | None
) -> list[Any]:
    """The latest event of `type_name` in the account's stream whose payload holds `asked`
    (and recorded by `actor`, when given), as a one-event list; empty when there is none."""
    from pipelines.accounts.service import stream_of as account_stream

    for event in reversed(store.read_stream(account_stream(account))):
        if event.type != type_name or (actor is not None and event.meta.get("actor") != actor):
            continue
        if all(event.payload.get(k) == v for k, v in asked.items()):
            return [event]
    return []


def _existing(roster: Roster, account: str) -> None:
    if not roster.exists(account):
        raise Problem(404, f"no account {account} in this ledger: create it first", "not_found")


def _who(at: Access) -> str:
    assert at.account is not None  # every route here but sign-in is for signed-in callers
    return at.account
