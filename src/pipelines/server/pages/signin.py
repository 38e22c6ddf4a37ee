"""Signing in and out from a browser without a script: the sign-in page (`GET /signin`), its
form (`POST /signin`: the session cookie, then back to the page the reader came from) and the
sign-out button every page has (`POST /signout`). The checks are the API's own
(`pipelines.server.sessions`): the same limits on failed sign-ins, the same cookie."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from pipelines.pictures.catalogues import N_
from pipelines.server.pages.forms import posted_form
from pipelines.server.pages.rendering import language, render, translated
from pipelines.server.problems import Problem
from pipelines.server.sessions import end_session, keep_session, signed_in

router = APIRouter()

_REFUSALS = {
    401: N_("The account or the password is wrong."),
    429: N_("Too many failed sign-ins: wait a little and try again."),
}


@router.get("/signin", response_class=HTMLResponse)
def signin_page(request: Request, next: str = "/") -> HTMLResponse:
    return render(request, "signin.html", next=back_to(next), given="", problem=None)


@router.post("/signin")
async def signin(request: Request) -> Response:
    fields = await posted_form(request)
    given = fields.get("account", "")[:64]
    back = back_to(fields.get("next", "/"))
    try:
        from anyio import to_thread

        _, _, session = await to_thread.run_sync(
            signed_in, request, given, fields.get("password", "")[:1024]
        )
    except Problem as refused:
        if refused.status not in _REFUSALS:
            raise
        problem = translated(language(request), _REFUSALS[refused.status])
        return render(
            request,
            "signin.html",
            status=refused.status,
            headers={k: v for k, v in refused.headers.items() if k == "Retry-After"},
            next=back,
            given=given,
            problem=problem,
        )
    answer = RedirectResponse(back, status_code=303)
    keep_session(request, answer, session)
    return answer


@router.post("/signout")
async def signout(request: Request) -> Response:
    from anyio import to_thread

    await posted_form(request)
    answer = RedirectResponse("/", status_code=303)
    await to_thread.run_sync(end_session, request, answer)  # a write: not in the event loop
    return answer


def to_sign_in(request: Request) -> Response:
    """Send the public to the sign-in page, and back to this page once signed in."""
    return RedirectResponse(f"/signin?next={quote(request.url.path)}", status_code=303)


def back_to(path: str) -> str:
    """Where to go after signing in: a path of this site, never another site (`//host`,
    `https://…`, `/\\host` would send the reader away)."""
    if not path.startswith("/") or path.startswith(("//", "/\\")) or "\\" in path:
        return "/"
    return path[:1000]
