"""Errors as RFC 9457 problem details (`application/problem+json`), one place for all.

Every refusal says what is wrong and what to do, with a stable `code`: the engine's reason
code for a command the rules refuse (`late`, `round_closed`, ...), else one of
`unauthenticated`, `forbidden`, `not_found`, `conflict`, `invalid`, `precondition_failed`,
`too_large`, `ledger_altered`, `unavailable`. Nothing unexpected reaches a client as a
traceback: it is a 500 naming no internals, and the server's log has the rest.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine.echo import echo
from ledger.errors import LedgerAltered, LedgerError
from pipelines.games.limits import LimitError
from pipelines.games.service import CommandRefused, GameNotFound, ServiceError

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("arbitru.server")

TITLES = {
    400: "Bad request",
    401: "Not signed in",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    409: "Refused",
    412: "The game moved",
    413: "Too large",
    415: "Unsupported media type",
    422: "Invalid request",
    428: "Precondition required",
    429: "Too many requests",
    500: "Internal error",
    503: "Unavailable",
}

_CODES = {
    400: "invalid",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "invalid",
    409: "conflict",
    412: "precondition_failed",
    413: "too_large",
    415: "invalid",
    422: "invalid",
    429: "too_many_requests",
    500: "internal",
    503: "unavailable",
}


class Problem(Exception):
    """A request the server refuses: HTTP status, stable code, and what to do (`detail`).
    `headers` go on the response (an ETag with a 412, WWW-Authenticate with a 401)."""

    def __init__(
        self,
        status: int,
        detail: str,
        code: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.code = code or _CODES.get(status, "invalid")
        self.headers = headers or {}
        self.extra = extra


def problem_response(problem: Problem, instance: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": TITLES.get(problem.status, "Error"),
        "status": problem.status,
        "detail": problem.detail,
        "code": problem.code,
    }
    if instance is not None:
        body["instance"] = instance
    body.update(problem.extra)
    return JSONResponse(
        body, status_code=problem.status, headers=problem.headers, media_type=PROBLEM_JSON
    )


def refusal(exc: Exception) -> Problem:
    """The problem a service-layer error is: the same refusal the command line gives, as HTTP."""
    if isinstance(exc, Problem):
        return exc
    if isinstance(exc, GameNotFound):
        return Problem(404, str(exc), "not_found")
    if isinstance(exc, CommandRefused):
        unusable = exc.code.startswith("bad_") or exc.code in ("unknown_ruleset", "bad_setting")
        return Problem(422 if unusable else 409, str(exc), exc.code)
    if isinstance(exc, LedgerAltered):
        return Problem(
            409,
            f"refused, nothing was written: the ledger fails its integrity check: {exc}",
            "ledger_altered",
        )
    if isinstance(exc, ServiceError | LimitError):
        return Problem(422, str(exc), "invalid")
    if isinstance(exc, LedgerError):
        return Problem(503, f"the ledger could not be used: {exc}", "unavailable", headers=_AGAIN)
    raise exc


_AGAIN = {"Retry-After": "1"}


def _busy() -> Problem:
    """The database did not answer in time (every pooled connection busy in a rush, or the
    server's connections refused): nothing was written by this try; the client sends the same
    request again, with the same Idempotency-Key, and it is recorded once."""
    return Problem(
        503,
        "the ledger is busy: send the same request again in a moment (with the same "
        "Idempotency-Key, it is recorded once)",
        "unavailable",
        headers=_AGAIN,
    )


def _where(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body",)]
    return ".".join(parts) or "the body"


def install(app: FastAPI, page: Callable[[Request, Problem], Response] | None = None) -> None:
    """Answer every error of `app` as problem details; outside the API (`/api/`), as the
    `page` that shows a problem to a browser's reader, when one is given."""

    def answer(request: Request, problem: Problem) -> Response:
        if page is not None and not request.url.path.startswith("/api/"):
            return page(request, problem)
        return problem_response(problem, request.url.path)

    @app.exception_handler(Problem)
    async def _problem(request: Request, exc: Problem) -> Response:
        return answer(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = _where(tuple(first.get("loc", ())))
        given = first.get("input")
        shown = f" (given {echo(given)})" if isinstance(given, str) else ""
        detail = f"{where}: {first.get('msg', 'invalid')}{shown}"
        fields = [
            {"field": _where(tuple(e.get("loc", ()))), "message": e.get("msg", "")}
            for e in errors[:20]
        ]
        return answer(request, Problem(422, detail, "invalid", errors=fields))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        detail = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "")
        problem = Problem(exc.status_code, detail, headers=dict(exc.headers or {}))
        return answer(request, problem)

    async def _refused(request: Request, exc: Exception) -> Response:
        return answer(request, refusal(exc))

    for refused in (ServiceError, LedgerError, LimitError):
        app.add_exception_handler(refused, _refused)

    async def _database(request: Request, exc: Exception) -> Response:
        log.warning("the database did not answer %s %s: %s", request.method, request.url.path, exc)
        return answer(request, _busy())

    from sqlalchemy.exc import OperationalError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    for busy in (PoolTimeout, OperationalError):
        app.add_exception_handler(busy, _database)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
        problem = Problem(
            500,
            "the server failed on this request: send it again with the same Idempotency-Key "
            "(it is then recorded once); the server's log says what failed",
            "internal",
        )
        return answer(request, problem)
