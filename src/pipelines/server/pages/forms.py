"""What a page's form posts, and the proof that the form is ours.

A form is sent as `application/x-www-form-urlencoded` (the browser's default; nothing to
upload, so no multipart parser) and read here with the standard library. Every form carries
the form token, a random value the server also set as a cookie (`arbitru_form`: HttpOnly,
SameSite=Strict): another site can make a browser post a form, but can neither read that
cookie nor put it in its form, so a post whose field and cookie differ is refused. This
"double submit" needs nothing kept on the server, works across server processes, and
protects the sign-in form as well (a site signing a browser into its own account). A post
whose `Origin` names another site is refused too, whatever its token.

A page's script that writes through the API (`/api/v1`, JSON) is covered differently: its
session cookie is SameSite=Lax, a JSON body cannot be sent by another site without the
browser asking first (which the server never allows), and `pipelines.server.callers` refuses
a cookie-signed write whose `Origin` is another site.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import parse_qsl

from fastapi import Request
from fastapi.responses import Response

from pipelines.server.callers import same_origin
from pipelines.server.problems import Problem

FORM_COOKIE = "arbitru_form"
FORM_FIELD = "form_token"
_FIELDS_MOST = 64
_TOKEN_LONGEST = 128


def form_token(request: Request) -> str:
    """The form token for this browser: its cookie's, or a new one (set on the answer by
    `keep_form_token`)."""
    kept = request.cookies.get(FORM_COOKIE, "")
    if 16 <= len(kept) <= _TOKEN_LONGEST:
        return kept
    made = getattr(request.state, "new_form_token", None)
    if made is None:
        made = request.state.new_form_token = secrets.token_urlsafe(32)
    return made


def keep_form_token(request: Request, answer: Response) -> None:
    """Set the cookie of a form token made for this request."""
    made = getattr(request.state, "new_form_token", None)
    if made is not None:
        answer.set_cookie(FORM_COOKIE, made, path="/", httponly=True, samesite="strict")


async def posted_form(request: Request) -> dict[str, str]:
    """The fields of a form this server's page posted (the last value of a field given
    twice); a Problem (403) for a post from another site or without the right token, (415)
    for another kind of body."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Problem(415, "send the page's form as it is (application/x-www-form-urlencoded)")
    if not same_origin(request):
        raise Problem(403, "this form was sent from another site", "forbidden")
    body = await request.body()
    try:
        pairs = parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=False,
            max_num_fields=_FIELDS_MOST,
        )
    except (UnicodeDecodeError, ValueError) as exc:
        raise Problem(422, "the form could not be read: send it again from the page") from exc
    fields = dict(pairs)
    sent = fields.pop(FORM_FIELD, "")
    kept = request.cookies.get(FORM_COOKIE, "")
    if not kept or not hmac.compare_digest(sent.encode(), kept.encode()):
        raise Problem(
            403,
            "this form is out of date or was not sent from this site's page: reload the page "
            "and send it again",
            "forbidden",
        )
    return fields
