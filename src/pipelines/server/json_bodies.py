"""A game route's request body is JSON: said so by its Content-Type, encoded in UTF-8, and
nested no deeper than a parser's stack allows. A body that is not is refused here, as problem
details saying what to send instead, before a route sees it (FastAPI would otherwise read a
form as an empty body, or answer a bare 400 naming nothing).

Only the games' writes are held to it (`/api/v1/games...`): they take JSON alone, while other
rooms may take a browser's form. A request without a body, or with an empty one, passes
whatever it says it is (`POST .../close` needs none). The body, at most `BODY_LARGEST` bytes
(`pipelines.server.limits` refuses a larger one first), is read whole once, checked, and handed
on unchanged.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipelines.server.problems import Problem, problem_response

_JSON_TYPES = ("application/json", "application/problem+json")
_WRITES = frozenset({"POST", "PUT", "PATCH"})


class JsonBodies:
    """Refuse a game route's body that is not JSON (415) or cannot be read as JSON text (422)."""

    def __init__(self, app: ASGIApp, prefix: str = "/api/v1/games") -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or scope.get("method") not in _WRITES
            or not path.startswith(self.prefix)
        ):
            await self.app(scope, receive, send)
            return
        body = await _whole(receive)
        problem = _problem(_content_type(scope), body) if body.strip() else None
        if problem is not None:
            await problem_response(problem, path)(scope, receive, send)
            return
        await self.app(scope, _replayed(body, receive), send)


async def _whole(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replayed(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # what follows the body: a disconnect

    return replay


def _content_type(scope: Scope) -> str | None:
    for name, value in scope.get("headers") or []:
        if name == b"content-type":
            return value.decode("latin-1").split(";", 1)[0].strip().lower()
    return None


def _problem(content_type: str | None, body: bytes) -> Problem | None:
    """What is wrong with `body` as JSON, or None (malformed JSON is left to the route's own
    validation, which says where it breaks)."""
    if content_type is not None and content_type not in _JSON_TYPES:
        return Problem(
            415,
            f"Content-Type: the body is sent as {content_type[:60]}, but Arbitru's game routes "
            "take JSON: send it as application/json",
            "unsupported_media_type",
        )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(
            422, f"the body: byte {exc.start} is not UTF-8: send the JSON as UTF-8", "invalid"
        )
    try:
        json.loads(text)
    except RecursionError:
        return Problem(
            422, "the body: its JSON nests too deeply (objects within objects)", "invalid"
        )
    except ValueError:
        return None
    return None
