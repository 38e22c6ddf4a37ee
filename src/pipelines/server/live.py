"""The live streams' broker: one per server process, it keeps each watched game's notices
caught up from the ledger and wakes the streams that follow it.

- **Feeds.** A game's feed is its notices (`live_events`) from its first event on, derived
  from the game's events as the ledger holds them: each look reads what was recorded after the
  version the feed holds (through `Server.games`, the games kept folded) and folds it on,
  event by event, telling each one. A stream replays the feed's notices after the seq it
  resumes from, then follows. Games nobody watches any more are kept a while (a reconnecting
  client finds them), then dropped and folded again from the ledger when watched.
- **Waking.** `wake()` is called from any thread (writes run in FastAPI's thread pool) after
  a write was committed: it hands the look to the event loop (`call_soon_threadsafe`), where
  one task looks at every watched game and tells their streams. Other processes' writes come
  as PostgreSQL notifications (`live_postgres`), which wake the same task. The task also looks
  every heartbeat, woken or not: a notification lost (a dropped connection, a failed NOTIFY)
  delays a notice by a heartbeat at most, never loses it.
- **Ending.** When the server is asked to stop (SIGTERM, SIGINT), every stream ends at once,
  so that its client reconnects (with `Last-Event-ID`) to a server still running instead of
  holding this one up until uvicorn's graceful-shutdown timeout.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import os
import signal
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import TYPE_CHECKING, Any

from anyio import to_thread

from engine.games.replay import evolve, initial_state
from pipelines.games.contexts import resolve_context
from pipelines.games.service import stream_of
from pipelines.server.live_events import Notice, notice_of

if TYPE_CHECKING:
    from engine.games.state import GameState
    from pipelines.server.held import Server

log = logging.getLogger("arbitru.server.live")

HEARTBEAT = 15.0
"""Seconds between heartbeats (and looks at the ledger) when nothing happens, unless
ARBITRU_LIVE_HEARTBEAT says otherwise."""

IDLE_FEEDS = 64
"""Feeds of games nobody watches kept for clients that reconnect."""


def heartbeat_from_environment() -> float:
    """ARBITRU_LIVE_HEARTBEAT (seconds, 0.05 to 3600), else `HEARTBEAT`."""
    given = os.environ.get("ARBITRU_LIVE_HEARTBEAT")
    if not given:
        return HEARTBEAT
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0.05 <= seconds <= 3600:
        log.warning(
            "ARBITRU_LIVE_HEARTBEAT=%r: give seconds from 0.05 to 3600; using %s",
            given,
            HEARTBEAT,
        )
        return HEARTBEAT
    return seconds


class Feed:
    """A game's notices so far, caught up from the ledger by `look` (in a worker thread) and
    read by its streams (on the event loop)."""

    def __init__(self, stream: str) -> None:
        self.stream = stream
        self.version = 0
        self._state: GameState = initial_state(resolve_context)
        self._notices: list[Notice] = []
        self._seqs: list[int] = []
        self._data = threading.Lock()  # held briefly: the notices, read and appended
        self._turn = threading.Lock()  # one look at a time
        self.news = asyncio.Event()

    def look(self, server: Server) -> bool:
        """Fold on what the ledger recorded after this feed's version; whether any notice
        came of it. Blocking (reads the ledger): run in a worker thread."""
        with self._turn:
            game = server.games.current(server.store, self.stream)
            start = bisect.bisect_right([e.version for e in game.stored], self.version)
            if start >= len(game.stored):
                return False
            state, told = self._state, []
            game_id = game.game_id
            for recorded in game.history[start:]:
                after = evolve(state, recorded)
                notice = notice_of(game_id, state, after, recorded)
                if notice is not None:
                    told.append(notice)
                state = after
            with self._data:
                self._state, self.version = state, game.stored[-1].version
                self._notices.extend(told)
                self._seqs.extend(n.seq for n in told)
            return bool(told)

    def after(self, seq: int) -> list[Notice]:
        """The notices of events after ledger seq `seq`, in order."""
        with self._data:
            return self._notices[bisect.bisect_right(self._seqs, seq) :]

    def announce(self) -> None:
        """Wake the streams waiting on this feed (on the event loop)."""
        news, self.news = self.news, asyncio.Event()
        news.set()


class Broker:
    """The process's feeds, what watches them, and the task that looks for news."""

    def __init__(self, server: Server, heartbeat: float = HEARTBEAT) -> None:
        self.server = server
        self.heartbeat = heartbeat
        self._feeds: OrderedDict[str, Feed] = OrderedDict()
        self._watchers: dict[str, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._moved = asyncio.Event()
        self.ending = asyncio.Event()
        self._woken: list[Callable[[], None]] = []
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._looking(), name="arbitru-live")

    async def stop(self) -> None:
        self.end()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._loop = None

    def on_wake(self, callback: Callable[[], None]) -> None:
        """Also call `callback` (on the event loop) on each wake of this process's writes (the
        cross-process notifier)."""
        self._woken.append(callback)

    def wake(self) -> None:
        """A write was committed: look for news (from any thread; cheap, never raises)."""
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._written)
        except RuntimeError:  # the loop closed meanwhile: the server is stopping
            return

    def moved(self) -> None:
        """The ledger moved (another process's write): look for news (on the event loop)."""
        self._moved.set()

    def end_soon(self) -> None:
        """`end`, from a signal handler or any thread."""
        loop = self._loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self.end)
            except RuntimeError:  # the loop closed: nothing streams any more
                return

    def end(self) -> None:
        """End every stream (on the event loop): the server is stopping."""
        self.ending.set()
        for feed in self._feeds.values():
            feed.announce()

    def _written(self) -> None:
        self._moved.set()
        for callback in self._woken:
            callback()

    async def look(self, feed: Feed) -> None:
        """Catch `feed` up from the ledger and wake its streams if it told anything."""
        if await to_thread.run_sync(feed.look, self.server):
            feed.announce()

    async def _looking(self) -> None:
        """Look at every watched game when woken, and at each heartbeat anyway."""
        while True:
            with suppress(TimeoutError):
                await asyncio.wait_for(self._moved.wait(), self.heartbeat)
            self._moved.clear()
            for stream in [s for s, n in self._watchers.items() if n > 0]:
                feed = self._feeds.get(stream)
                if feed is None:
                    continue
                try:
                    await self.look(feed)
                except Exception:  # one game's failure must not stop the others
                    log.exception("live: could not look at %s in the ledger", stream)

    @contextmanager
    def watching(self, game: str) -> Iterator[Feed]:
        """The game's feed, watched while the block runs."""
        stream = stream_of(game)
        feed = self._feeds.get(stream)
        if feed is None:
            feed = self._feeds[stream] = Feed(stream)
        self._feeds.move_to_end(stream)
        self._watchers[stream] = self._watchers.get(stream, 0) + 1
        try:
            yield feed
        finally:
            self._watchers[stream] -= 1
            if not self._watchers[stream]:
                del self._watchers[stream]
            self._drop_idle()

    def _drop_idle(self) -> None:
        idle = [s for s in self._feeds if s not in self._watchers]
        for stream in idle[: max(0, len(idle) - IDLE_FEEDS)]:
            del self._feeds[stream]


@contextmanager
def ending_on_signals(broker: Broker) -> Iterator[None]:
    """End the broker's streams as soon as the process is asked to stop, then let the
    handler installed before (uvicorn's) do its part. Only where signals can be handled (the
    main thread); elsewhere the streams end when the app shuts down."""
    chained: dict[int, Any] = {}

    def stopping(sig: int, frame: Any) -> None:
        broker.end_soon()
        previous = chained.get(sig)
        if callable(previous):
            previous(sig, frame)

    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            chained[sig] = signal.getsignal(sig)
            signal.signal(sig, stopping)
    except ValueError:  # not the main thread
        chained.clear()
    try:
        yield
    finally:
        for sig, previous in chained.items():
            if signal.getsignal(sig) is stopping:
                signal.signal(sig, previous)


@asynccontextmanager
async def broadcasting(server: Server) -> AsyncIterator[None]:
    """The live part of a server process while it runs: its broker (`server.live`, woken by
    `Server.wake`), on PostgreSQL its notifier and listener (`live_postgres`), its streams
    ended when the process is asked to stop."""
    from pipelines.server.live_postgres import Crossing, conninfo_of

    broker = Broker(server, heartbeat_from_environment())
    await broker.start()
    server.live = broker
    conninfo = conninfo_of(server.store)
    crossing = Crossing(conninfo, broker) if conninfo is not None else None
    if crossing is not None:
        crossing.start()
    try:
        with ending_on_signals(broker):
            yield
    finally:
        server.live = None
        if crossing is not None:
            await crossing.stop()
        await broker.stop()
