"""Live streams across server processes on one PostgreSQL ledger: LISTEN/NOTIFY.

After a write this process committed, a notifier sends `NOTIFY arbitru_ledger` (payload: this
process's id, for the logs) on a connection of its own, on the event loop: the write has been
answered already, so a slow or failing notification never slows or fails it (a failure is
logged; the other processes see the write at their next heartbeat). Writes that come quicker
than the notifications go make one notification.

Each process LISTENs on another connection of its own and wakes its broker on every
notification but its own (its notifier's backend pid). When that connection drops, it connects
again with a growing pause (0.1 s to 5 s) and looks once connected: what was notified
meanwhile is not lost. The SQLite ledger is served by one process: nothing of this runs there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import psycopg

    from ledger import EventStore

log = logging.getLogger("arbitru.server.live")

CHANNEL = "arbitru_ledger"
"""The PostgreSQL notification channel every server process of a ledger listens on."""

APPLICATION = "arbitru-live"
"""The application_name of the listening and notifying connections (seen in pg_stat_activity)."""

_FIRST_PAUSE, _LONGEST_PAUSE = 0.1, 5.0


def conninfo_of(store: EventStore) -> str | None:
    """The ledger's connection string for psycopg, or None when it is not PostgreSQL."""
    url = store.engine.url
    if store.engine.dialect.name != "postgresql":
        return None
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


class Woken(Protocol):
    """What the notifier and listener need of this process's broker (`live.Broker`): to be
    told of its own writes, and to tell it the ledger moved elsewhere."""

    def on_wake(self, callback: Callable[[], None]) -> None: ...

    def moved(self) -> None: ...


class Crossing:
    """This process's notifier and listener on the ledger's PostgreSQL database."""

    def __init__(self, conninfo: str, broker: Woken) -> None:
        self.conninfo = conninfo
        self.broker = broker
        self._pending = asyncio.Event()
        self._own_pid: int | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self.broker.on_wake(self._pending.set)
        self._tasks = [
            asyncio.create_task(self._notifying(), name="arbitru-live-notify"),
            asyncio.create_task(self._listening(), name="arbitru-live-listen"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _connect(self, role: str) -> psycopg.AsyncConnection:
        import psycopg

        return await psycopg.AsyncConnection.connect(
            self.conninfo, autocommit=True, application_name=f"{APPLICATION}-{role}"
        )

    async def _notifying(self) -> None:
        """Send one NOTIFY for the writes committed since the last one."""
        import psycopg

        connection: psycopg.AsyncConnection | None = None
        try:
            while True:
                await self._pending.wait()
                self._pending.clear()
                try:
                    if connection is None or connection.closed:
                        connection = await self._connect("notify")
                        self._own_pid = connection.info.backend_pid
                    await connection.execute(
                        "SELECT pg_notify(%s, %s)", (CHANNEL, str(os.getpid()))
                    )
                except psycopg.Error as exc:
                    log.warning(
                        "live: could not notify the other server processes (%s): their "
                        "streams see the write at their next heartbeat",
                        exc,
                    )
                    if connection is not None:
                        await connection.close()
                    connection = None
        finally:
            if connection is not None:
                await connection.close()

    async def _listening(self) -> None:
        """LISTEN, waking the broker on others' notifications; connect again when dropped."""
        import psycopg

        pause = _FIRST_PAUSE
        while True:
            try:
                async with self._listener() as connection:
                    pause = _FIRST_PAUSE
                    self.broker.moved()  # what was notified while not listening
                    async for notification in connection.notifies():
                        if notification.pid != self._own_pid:
                            self.broker.moved()
            except psycopg.Error as exc:
                log.warning(
                    "live: listening for other processes' writes: %s; again in %.1f s", exc, pause
                )
            await asyncio.sleep(pause)
            pause = min(pause * 2, _LONGEST_PAUSE)

    @contextlib.asynccontextmanager
    async def _listener(self) -> AsyncIterator[psycopg.AsyncConnection]:
        connection = await self._connect("listen")
        try:
            await connection.execute(f"LISTEN {CHANNEL}")
            yield connection
        finally:
            await connection.close()
