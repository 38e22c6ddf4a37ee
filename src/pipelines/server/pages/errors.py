"""A refusal shown to a browser's reader: the page's title in their language, what is wrong
and what to do (the API's own words: `detail`), a way to sign in where that would help, and
the same status and headers (`Retry-After`, `WWW-Authenticate`) the API would send."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from pipelines.pictures.catalogues import N_
from pipelines.server.pages.rendering import language, render, translated
from pipelines.server.problems import Problem

_TITLES = {
    400: N_("Bad request"),
    401: N_("Not signed in"),
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Not a way to ask for this page"),
    409: N_("Refused"),
    412: N_("The game moved"),
    413: N_("Too large"),
    415: N_("Not a form of this site"),
    422: N_("Not understood"),
    429: N_("Too many requests"),
    500: N_("Internal error"),
    503: N_("Unavailable"),
}


def problem_page(request: Request, problem: Problem) -> Response:
    """The page that says `problem` (its status, its headers)."""
    if problem.status == 503 and getattr(request.state, "account", False) is False:
        request.state.account = None  # the database did not answer: ask it nothing more
    title = translated(language(request), _TITLES.get(problem.status, N_("Error")))
    return render(
        request,
        "error.html",
        status=problem.status,
        headers=problem.headers,
        title=title,
        detail=problem.detail,
        status_code=problem.status,
    )
