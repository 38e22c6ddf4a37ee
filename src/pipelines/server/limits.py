"""The limits of a request as a whole: how large a body may be. Each value in it is held to
the limits of what may be recorded (`pipelines.games.limits`), the same as the command line's,
by the request bodies (`pipelines.server.bodies`) and again by the service layer."""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

BODY_LARGEST = 64 * 1024
"""The largest request body taken: a slip is at most 500 characters, and the largest write
(a game created with a hundred players and its settings) fits many times over."""


class BodyLimit:
    """Refuse a body over `BODY_LARGEST` bytes with 413 before it is read whole, whether it
    says its length or streams in chunks."""

    def __init__(self, app: ASGIApp, largest: int = BODY_LARGEST) -> None:
        self.app = app
        self.largest = largest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.largest):
            await _too_large(send, self.largest)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.largest:
                    raise _TooLarge(413, _too_large_detail(self.largest))
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _TooLarge:
            if not started:
                await _too_large(send, self.largest)


class _TooLarge(HTTPException):
    """A body that grew past the limit as it streamed in (answered 413 by the app's handler,
    or here if it escapes the app)."""


def _too_large_detail(largest: int) -> str:
    return (
        f"the request body is over {largest:,} bytes: a write to Arbitru is a slip or a "
        "decision, far smaller"
    )


async def _too_large(send: Send, largest: int) -> None:
    body = json.dumps(
        {
            "type": "about:blank",
            "title": "Too large",
            "status": 413,
            "detail": _too_large_detail(largest),
            "code": "too_large",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
