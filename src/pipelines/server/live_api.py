"""Live: `GET /games/{game}/live`, what the public may see of a game as it happens, as
Server-Sent Events.

Each event is a small notice (`live_events`): `round_opened`, `slip_received`,
`round_closed`, `decision`, `game_ended`, its `id:` the ledger seq of the event it reports,
its data JSON. A client follows a notice by reading the resource again (the game, a round's
results): the stream tells that something happened, the server's resources say what.

- **Where it starts.** With `Last-Event-ID: SEQ` (a browser's `EventSource` sends it when it
  reconnects) or `?after=SEQ` (for clients that cannot set headers; the header wins, since a
  reconnecting browser keeps the first URL), the stream first sends every notice of an event
  after that seq, then follows: a client that reconnects misses nothing and sees nothing
  twice. Without either, it follows from the game's last event when the request came: open
  the stream, then read the game, and nothing in between is lost (the starting point is fixed
  before the answer's headers are sent).
- **Heartbeat.** A comment (`: heartbeat`) every 15 seconds when nothing happens
  (`ARBITRU_LIVE_HEARTBEAT`, in seconds, says otherwise), keeping proxies from closing an idle
  stream; the first lines are a comment saying where the stream starts and a `retry:` of 2
  seconds (how long a browser waits before reconnecting).
- **Truth.** Notices are derived from the game's events as the ledger holds them (`live`):
  a write in any process of the server reaches every stream, at once (waking, across
  processes by PostgreSQL's notifications) or at the next heartbeat at the latest.
- **Who.** Anyone: nothing here is more than the public may see (an open round's slips are
  counted, never shown).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterable
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.sse import EventSourceResponse, ServerSentEvent

from pipelines.server.callers import access, server_of
from pipelines.server.games_api import GameId
from pipelines.server.problems import Problem

router = APIRouter(tags=["live"])

RETRY_MS = 2000
"""How long a browser waits before reconnecting a dropped stream."""

_SEQ = re.compile(r"^\s*(\d{1,18})\s*$")


@dataclass(frozen=True)
class Following:
    """A stream about to start: the game's stream and the seq it follows from."""

    stream: str
    after: int


def _following(
    request: Request,
    game: GameId,
    after: Annotated[
        int | None,
        Query(ge=0, le=10**18, description="Resume after this ledger seq (as Last-Event-ID)."),
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(alias="Last-Event-ID", description="The id of the last notice received."),
    ] = None,
) -> Following:
    """Where the stream starts, checked before the stream's headers are sent (a game that
    does not exist is a 404, a bad resume point a 422)."""
    server = server_of(request)
    now = server.games.current(server.store, game)
    access(request, "live", game=now)
    if last_event_id is not None:
        matched = _SEQ.match(last_event_id)
        if matched is None:
            raise Problem(
                422,
                "Last-Event-ID: give the id of the last notice received (a ledger seq, e.g. 42)",
                "invalid",
            )
        return Following(now.stream, int(matched[1]))
    if after is not None:
        return Following(now.stream, after)
    return Following(now.stream, now.stored[-1].seq)


@router.get(
    "/games/{game}/live",
    response_class=EventSourceResponse,
    summary="Follow a game as it happens (Server-Sent Events)",
)
async def live(
    request: Request, following: Annotated[Following, Depends(_following)]
) -> AsyncIterable[ServerSentEvent]:
    """Notices of what the public may see: `round_opened` (round, rack, deadline),
    `slip_received` (round, slips so far), `round_closed` (round, top, solos), `decision`
    (kind, round), `game_ended` (reason); `id` = the ledger seq of the event reported.
    Resume with `Last-Event-ID` or `?after=SEQ`. A `: heartbeat` comment when idle."""
    broker = server_of(request).live
    assert broker is not None  # started with the app (`live.broadcasting`)
    last = following.after
    with broker.watching(following.stream) as feed:
        await broker.look(feed)
        yield ServerSentEvent(
            comment=f"following {following.stream} after seq {last}", retry=RETRY_MS
        )
        while not broker.ending.is_set():
            news = feed.news
            for notice in feed.after(last):
                yield ServerSentEvent(event=notice.kind, id=str(notice.seq), data=notice.data)
                last = notice.seq
            try:
                await asyncio.wait_for(news.wait(), broker.heartbeat)
            except TimeoutError:
                yield ServerSentEvent(comment="heartbeat")
