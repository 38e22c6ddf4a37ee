"""What one server process holds while it runs: the ledger it serves, the games it keeps
folded (`pipelines.games.kept`: caught up from their version on each use), the roster of
accounts and grants (caught up from the last seq it folded), and the live streams' broker.
Every route reaches it through `pipelines.server.callers.server_of(request)`; the ledger
stays the truth, and nothing here is answered without asking it what came after."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pipelines.games.kept import KeptGames

if TYPE_CHECKING:
    from ledger import EventStore
    from pipelines.accounts.roster import Roster

API = "/api/v1"
"""Where the API's routes are (its OpenAPI document at API/openapi.json)."""


class Waking(Protocol):
    """What a write needs of the live streams' broker (`pipelines.server.live.Broker`)."""

    def wake(self) -> None: ...


@dataclass
class Server:
    """What a server process holds: the ledger, the games kept folded, the roster, the
    live streams' broker (while the app runs)."""

    store: EventStore
    games: KeptGames = field(default_factory=KeptGames)
    _roster: Roster | None = None
    _roster_lock: threading.Lock = field(default_factory=threading.Lock)
    live: Waking | None = None

    def wake(self) -> None:
        """Called after every write this process committed (from any thread): the live
        streams look again, in this process at once and, on PostgreSQL, in the others by a
        notification sent after the answer (`pipelines.server.live`). Never raises."""
        broker = self.live
        if broker is not None:
            broker.wake()

    def roster(self) -> Roster:
        """Accounts and grants as the ledger holds them now (caught up from the last seq
        folded)."""
        from pipelines.accounts.roster import load_roster

        with self._roster_lock:
            held = self._roster
        now = load_roster(self.store) if held is None else held.caught_up(self.store)
        with self._roster_lock:
            if self._roster is None or self._roster.seq < now.seq:
                self._roster = now
        return now
