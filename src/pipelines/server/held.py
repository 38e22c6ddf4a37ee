"""What one server process holds while it runs: the ledger it serves, the games it keeps
folded (`pipelines.games.kept`: caught up from their version on each use), the roster of
accounts and grants (caught up from the last seq it folded), the last point of the ledger it
verified, and the live streams' broker. Every route reaches it through
`pipelines.server.callers.server_of(request)`; the ledger stays the truth, and nothing here
is answered without asking it what came after.

Before each write the ledger is checked, as every command of the command line checks it, but
incrementally: the process keeps the last (seq, hash) it verified, and a batch of game writes
(`pipelines.server.batches`) checks, inside its write transaction, only the events after it
and that the row at it still holds that hash (`check_in`, by `ledger.integrity.check_since`),
instead of re-reading and re-hashing every event since the latest checkpoint on each of
hundreds of slips a minute; the events the batch appends move the point on without being read
back. Other writes check the same way before they write (`check_ledger`), one at a time, each
from the point the one before it verified. The full quick check
(`check_recent`) runs on the process's first write, again once `FULL_CHECK_S` have passed
since the last one, and before a round is closed or a game ended (when a checkpoint is
signed): an event below the watermark edited with its hashes recomputed up to it is caught
there (or by `arbitru ledger verify`), not on the next slip."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pipelines.games.kept import KeptGames
from pipelines.server.batches import Batches
from pipelines.server.shared_reads import SharedRead

if TYPE_CHECKING:
    from ledger import EventStore, Head
    from pipelines.accounts.roster import Roster

API = "/api/v1"
"""Where the API's routes are (its OpenAPI document at API/openapi.json)."""

_NO_TOKEN = ""
"""What `roster` reads the roster with: no token (an empty one is never given, nor looked up)."""

FULL_CHECK_S = 30.0
"""At most this long between two full quick checks of the ledger by one server process."""


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
    live: Waking | None = None
    _verified: Head | None = None
    _full_at: float = 0.0
    _verified_lock: threading.Lock = field(default_factory=threading.Lock)
    _full_lock: threading.Lock = field(default_factory=threading.Lock)
    _since_lock: threading.Lock = field(default_factory=threading.Lock)
    batches: Batches = field(init=False)
    _callers_read: SharedRead[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.batches = Batches(self)
        self._callers_read = SharedRead(self._tokens_and_roster)

    def wake(self) -> None:
        """Called after every write this process committed (from any thread): the live
        streams look again, in this process at once and, on PostgreSQL, in the others by a
        notification sent after the answer (`pipelines.server.live`). Never raises."""
        broker = self.live
        if broker is not None:
            broker.wake()

    def roster(self) -> Roster:
        """Accounts and grants as the ledger holds them now: caught up from the last seq
        folded, by a read that began after this call (shared by the requests asking at the
        same moment, the signed ones' tokens read with it: `caller`)."""
        return self.caller(_NO_TOKEN)[1]

    def caller(self, token: str) -> tuple[str | None, Roster]:
        """The account an API token is valid for now (None: unknown or revoked) and the
        roster, both read after this call began, in one read shared by the requests asking
        at the same moment (`pipelines.server.shared_reads`)."""
        account = self._callers_read(token)
        roster = self._roster
        assert roster is not None  # caught up by the read that answered
        return account, roster

    def _tokens_and_roster(self, tokens: frozenset[str]) -> dict[str, str]:
        """The roster caught up from where the read before got (reads run one at a time),
        and the account of each of `tokens` that is valid."""
        from pipelines.accounts.credentials import accounts_for_tokens
        from pipelines.accounts.roster import load_roster

        held = self._roster
        self._roster = load_roster(self.store) if held is None else held.caught_up(self.store)
        return accounts_for_tokens(self.store, tokens - {_NO_TOKEN})

    def check_ledger(self, *, full: bool = False) -> None:
        """Raise `LedgerAltered` unless the ledger passes the check a write runs first: the
        full quick check (`check_recent`) when `full`, on the first call, or when the last
        one is `FULL_CHECK_S` old; else the events after the last seq this process verified
        (`check_since`). The verified point only moves forward."""
        from ledger.integrity import check_recent, check_since

        if full or self.full_check_due():
            with self._full_lock:  # one full check at a time; the others wait for its verdict
                if full or self.full_check_due():
                    head = self.store.head()
                    check_recent(self.store)
                    self._full_at = time.monotonic()
                    self._advance(head)
                    return
        with self._since_lock:  # one at a time, each from where the one before it got
            with self._verified_lock:
                held = self._verified
            assert held is not None
            self._advance(check_since(self.store, held.seq, held.hash))

    def full_check_due(self) -> bool:
        """Whether the next write runs the full quick check first (`check_ledger`): the
        process's first, or `FULL_CHECK_S` after the last one."""
        return self._verified is None or time.monotonic() - self._full_at >= FULL_CHECK_S

    def check_in(self, start: Head) -> None:
        """The incremental check a batch of writes (`pipelines.server.batches`) runs first,
        inside its write transaction, whose reads go through its connection: the events from
        the last point verified to `start`, the head the transaction starts on. None to read
        when this process wrote the last events; else the ones the other processes wrote
        since (`check_since`), read under the append lock once for the whole batch instead
        of once for each request before it."""
        from ledger.integrity import check_recent, check_since

        with self._verified_lock:
            held = self._verified
        if held == start:
            return
        if held is None:
            check_recent(self.store)
            self._full_at = time.monotonic()
        else:
            start = check_since(self.store, held.seq, held.hash)
        self._advance(start)

    def wrote(self, head: Head) -> None:
        """A batch checked from the last point verified (`check_in`) committed its events up
        to `head`: this process hashed them itself, so the next batch starts from there."""
        self._advance(head)

    def _advance(self, head: Head) -> None:
        with self._verified_lock:
            if self._verified is None or self._verified.seq < head.seq:
                self._verified = head
