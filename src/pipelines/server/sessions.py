"""Signing in and out with a password, for pages (and programs that prefer a session to a
token): `POST /sessions` sets the session cookie, `DELETE /sessions` ends it.

The cookie is HttpOnly (no script reads it), SameSite=Lax (no other site's form posts with
it), and Secure when the request came over HTTPS, as the reverse proxy that ends TLS says
with `X-Forwarded-Proto` (`arbitru serve` behind it). A wrong password and an unknown
account answer alike, in the same time (the credentials' dummy hash), so that signing in
tells nobody which accounts exist. Failed sign-ins are limited per account and per client
address (`pipelines.server.login_limits`, in memory per process).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field

from pipelines.accounts.credentials import SESSION_LIFETIME
from pipelines.server import bodies
from pipelines.server.callers import SESSION_COOKIE, access, server_of
from pipelines.server.login_limits import LoginLimits
from pipelines.server.problems import Problem

router = APIRouter(tags=["accounts"])

LIMITS = LoginLimits()
"""This process's count of failed sign-ins."""


class SignIn(bodies.Body):
    account: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]


@router.post("/sessions", status_code=201, summary="Sign in (sets the session cookie)")
def sign_in(request: Request, body: SignIn) -> JSONResponse:
    """`{"account","password"}` → 201 `{"account","name"}` and the session cookie; 401 for
    a wrong account or password (alike), 429 with `Retry-After` after too many failures."""
    access(request, "sign_in")
    account, name, session = signed_in(request, body.account, body.password)
    answer = JSONResponse({"account": account, "name": name}, status_code=201)
    keep_session(request, answer, session)
    return answer


def signed_in(request: Request, account: str, password: str) -> tuple[str, str, str]:
    """The account, its name and a new session, for the right password (the API's sign-in
    and the sign-in page's alike); a Problem otherwise: 401 for a wrong account or password,
    429 with `Retry-After` after too many failures."""
    from pipelines.accounts.credentials import check_password, open_session

    account = account.strip().lower()
    keys = [f"account:{account}", f"address:{_address(request)}"]
    wait = LIMITS.wait(keys)
    if wait is not None:
        raise Problem(
            429,
            f"too many failed sign-ins: try again in {wait} s",
            "too_many_requests",
            headers={"Retry-After": str(wait)},
        )
    store = server_of(request).store
    roster = server_of(request).roster()
    if not check_password(store, account, password) or not roster.exists(account):
        LIMITS.failed(keys)
        raise Problem(
            401,
            "the account or the password is wrong",
            "unauthenticated",
            headers={"WWW-Authenticate": "Bearer"},
        )
    LIMITS.succeeded(keys[0])
    return account, roster.accounts[account].name, open_session(store, account)


def keep_session(request: Request, answer: Response, session: str) -> None:
    """Set the session cookie on `answer`."""
    answer.set_cookie(
        SESSION_COOKIE,
        session,
        max_age=int(SESSION_LIFETIME.total_seconds()),
        path="/",
        secure=_over_https(request),
        httponly=True,
        samesite="lax",
    )


@router.delete("/sessions", status_code=204, summary="Sign out (ends the session)")
def sign_out(request: Request) -> Response:
    """Ends the session of the cookie sent (if any) and clears the cookie."""
    access(request, "sign_out")
    answer = Response(status_code=204)
    end_session(request, answer)
    return answer


def end_session(request: Request, answer: Response) -> None:
    """End the session of the cookie sent (if any) and clear the cookie on `answer`."""
    from pipelines.accounts.credentials import close_session

    session = request.cookies.get(SESSION_COOKIE)
    if session:
        close_session(server_of(request).store, session)
    answer.delete_cookie(
        SESSION_COOKIE, path="/", secure=_over_https(request), httponly=True, samesite="lax"
    )


def _over_https(request: Request) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def _address(request: Request) -> str:
    """The client's address (the proxy's `X-Forwarded-For` as uvicorn trusts it)."""
    return request.client.host if request.client is not None else "-"
