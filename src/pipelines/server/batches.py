"""Group commit: the game writes a server process is asked for at the same moment, appended
in one transaction.

Every append holds the ledger's one write lock (`ledger.database`) from its first read to its
commit. A rush of slips was a queue of such transactions, each with its own round trips, its
own idempotency key remembered and committed apart, its own commit (a flush to disk), while
every other request thread of the process waited for the lock. Here a request hands its write
to the process's `Batches` and waits; one thread at a time (the request's that found no batch
being committed, or for a slip a thread started for it: it drains the queue, a batch after
another, until it is empty) appends every write waiting by then, in the order they came, in
one transaction: the ledger's incremental
check once (`Server.check_in`), the batch's idempotency keys looked up in one query and
remembered in one insert, each write decided on its game as the writes before it in the batch
left it (the game read from the ledger once a batch, under the lock), each with its own
events, chain links and receipt, and one commit.

- Each write is judged on its own: one refused (by the rules, by If-Match, a key reused for
  another request) is answered so and the others go on; nothing of it was appended
  (`appended_in` raises before it appends).
- A write is answered only once the batch committed. A commit that fails (or a statement of
  the batch: the transaction is then lost) fails every write of the batch with 503, refusals
  included (they were decided on writes that are not recorded): none was acknowledged,
  nothing of them is in the ledger, and a retry with the same Idempotency-Key is recorded
  once. What was acknowledged was committed first, which is what keeps the kill -9 guarantee.
- A key is remembered in the transaction that appends its write, so a key is never kept
  without its write's events (the key of a write the rules refused is kept, as before: a
  retry is decided again and refused again).
- Once committed, the games as the batch left them are kept (`KeptGames.keep`): the next
  request reads from the ledger only what other processes wrote since.
- A request may wait for its batch without holding a thread (`settled`, from the event loop:
  the slips' routes): the batches then hold every slip that came while the one before was
  committed, not only as many as the process has request threads, and one commit (one flush
  to disk) answers dozens of slips in a rush.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import sqlalchemy as sa

from ledger import Head
from ledger.database import read_transaction
from ledger.errors import DatabaseError
from pipelines.accounts.credentials import remember_keys, remembered_keys
from pipelines.games.service import (
    Commands,
    EventIds,
    Outcome,
    appended_in,
    extended,
    loaded_for,
    makers,
    stream_of,
)
from pipelines.server.problems import Problem, log

if TYPE_CHECKING:
    from ledger import EventStore, RecordedEvent
    from ledger.store import _Writer as Writer
    from pipelines.games.kept import KeptGames
    from pipelines.games.service import Game

MOST_EVENTS = 4096
"""More events than any one command appends (a game created with its hundred players)."""

Pair = tuple[str, str]
"""An account and one of its idempotency keys."""


@dataclass
class Write:
    """One request's write, as handed to a batch, and what came of it: its `outcome`, or
    the events a first try with the same key recorded (`earlier`), or its `error`."""

    game: str
    commands: Commands
    ids: EventIds | None = None
    expected: int | None = None
    key: tuple[str, str, str] | None = None
    """The caller's account, Idempotency-Key and the digest of the request."""
    outcome: Outcome | None = None
    earlier: list[RecordedEvent] | None = None
    error: Exception | None = None
    done: bool = False
    answered: Callable[[], None] | None = None
    """Called (from the committing thread) once the write's batch is committed or failed."""


def key_reused() -> Problem:
    return Problem(
        422,
        "this Idempotency-Key was already used for another request: use a new key "
        "for a new write (the same key only to send the same request again)",
        "idempotency_key_reused",
    )


def recorded_by(store: EventStore, ids: EventIds) -> list[RecordedEvent]:
    """The events a first try with these ids recorded, in order (none if it recorded none)."""
    found: list[RecordedEvent] = []
    batch = 64
    while len(found) < MOST_EVENTS:
        wanted = [ids(n) for n in range(len(found), len(found) + batch)]
        stored = store.find_events(wanted)
        found.extend(stored[i] for i in wanted if i in stored)
        if len(stored) < batch:
            break
    return found


class Holding(Protocol):
    """What a batch needs of the server process it writes for (`pipelines.server.held.Server`,
    which holds the batches: named here by what it does, so that neither imports the other)."""

    store: EventStore
    games: KeptGames

    def check_in(self, start: Head) -> None: ...

    def wrote(self, head: Head) -> None: ...


class Batches:
    """The game writes of one server process, committed a batch at a time (see the module
    docstring)."""

    def __init__(self, server: Holding) -> None:
        self._server = server
        self._waiting: list[Write] = []
        self._lock = threading.Lock()
        self._draining = False

    def run(self, write: Write) -> Write:
        """Append `write` with whatever else is waiting, once committed (its `outcome` or
        `earlier` set); raises its error, or the batch's. Blocks its thread until then."""
        finished = threading.Event()
        write.answered = finished.set
        if self._queued(write):
            self._drain()
        finished.wait()
        if write.error is not None:
            raise write.error
        return write

    async def settled(self, write: Write) -> Write:
        """`run` from the event loop, holding no thread while the write waits for its batch
        (a thread drains the queue when none is: see the module docstring). The write's
        `error` is set, not raised."""
        loop = asyncio.get_running_loop()
        finished = loop.create_future()

        def answered() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
                loop.call_soon_threadsafe(lambda: finished.done() or finished.set_result(None))

        write.answered = answered
        if self._queued(write):  # a thread of its own: not queued behind the request threads
            threading.Thread(target=self._drain, name="arbitru-batches", daemon=True).start()
        await finished
        return write

    def _queued(self, write: Write) -> bool:
        """Queue `write`; whether its caller drains the queue (no thread was)."""
        with self._lock:
            self._waiting.append(write)
            if self._draining:
                return False
            self._draining = True
            return True

    def _drain(self) -> None:
        """Commit what is waiting, a batch after another, until nothing is."""
        batch: list[Write] = []
        try:
            while True:
                with self._lock:
                    batch, self._waiting = self._waiting, []
                    if not batch:
                        self._draining = False
                        return
                self._commit(batch)
        except BaseException as exc:  # the thread is stopped: no write is left waiting
            with self._lock:
                left, self._waiting, self._draining = self._waiting, [], False
            for write in [*batch, *left]:
                if not write.done:
                    write.error = DatabaseError(f"the server stopped committing ({exc!r})")
                    write.done = True
                    if write.answered is not None:
                        write.answered()
            raise

    def _commit(self, batch: list[Write]) -> None:
        try:
            try:
                head, games = self._appended(batch)
            except sa.exc.IntegrityError:
                # an event id taken that no remembered key accounted for: a retry of a write
                # recorded before the keys were (a ledger restored from an export, which
                # carries no keys). Decided again, each keyed write's ids looked up first.
                for write in batch:
                    write.outcome, write.earlier, write.error = None, None, None
                head, games = self._appended(batch, fresh_ids=False)
        except Exception as exc:
            if isinstance(exc, sa.exc.SQLAlchemyError | DatabaseError):
                log.warning("a batch of %d writes was not committed: %s", len(batch), exc)
                exc = DatabaseError(
                    f"the batch this write was in could not be committed ({type(exc).__name__}); "
                    "nothing of it was recorded: send it again (with the same Idempotency-Key, "
                    "it is recorded once)"
                )
            for write in batch:
                write.outcome, write.earlier, write.error = None, None, exc
        else:
            self._after_commit(head, games)
        finally:
            for write in batch:
                write.done = True
                if write.answered is not None:
                    write.answered()

    def _after_commit(self, head: Head, games: dict[str, Game]) -> None:
        """What the process keeps of a committed batch: the point of the chain it verified,
        the games as the batch left them. Never a reason to say the batch failed (it is
        recorded): a failure here only costs the next request a read of the ledger."""
        try:
            self._server.wrote(head)
            for game in games.values():
                if game.version:
                    self._server.games.keep(game)
        except Exception:
            log.exception("a committed batch could not be kept; the next request reads it")

    def _appended(
        self, batch: list[Write], *, fresh_ids: bool = True
    ) -> tuple[Head, dict[str, Game]]:
        """Decide and append the batch in one transaction, committed on return: the head it
        left and the games as it left them. `fresh_ids`: a key not remembered before is taken
        for one never used, its write's ids for ones the ledger does not hold (else each
        keyed write's are looked up)."""
        server = self._server
        store = server.store
        games: dict[str, Game] = {}
        with store.writer() as writer:
            server.check_in(Head(writer.last_seq, writer.last_hash))
            with read_transaction(store.engine) as connection:  # the writer's own
                asked: dict[Pair, str] = {}  # each key with the digest of its first request
                for write in batch:
                    if write.key is not None:
                        asked.setdefault(write.key[:2], write.key[2])
                new = remember_keys(connection, asked)
                before = remembered_keys(connection, [p for p in asked if p not in new])
            keys, remembered = {**asked, **before}, set(before)
            writer.fresh_ids = fresh_ids  # random ids, or ids of keys unused (see `_one`)
            firsts: dict[Pair, Write] = {}
            for write in batch:
                try:
                    self._one(writer, write, games, keys, remembered, firsts)
                except (sa.exc.SQLAlchemyError, DatabaseError):
                    raise  # the transaction is lost: the whole batch fails
                except Exception as exc:
                    write.error = exc
        return Head(writer.last_seq, writer.last_hash), games

    def _one(
        self,
        writer: Writer,
        write: Write,
        games: dict[str, Game],
        keys: dict[Pair, str],
        remembered: set[Pair],
        firsts: dict[Pair, Write],
    ) -> None:
        """One write of the batch: answered from its first try, or decided and appended.
        `keys`: the digest each of the batch's keys was first used for; `remembered`, the
        keys remembered before this batch."""
        store = self._server.store
        if write.key is not None and write.ids is not None:
            pair, digest = write.key[:2], write.key[2]
            if keys[pair] != digest:
                raise key_reused()
            first = firsts.setdefault(pair, write)
            if first is not write:  # the same request twice in this batch
                recorded = first.earlier or (first.outcome.recorded if first.outcome else ())
                if recorded:
                    write.earlier = list(recorded)
                    return
            elif (pair in remembered or not writer.fresh_ids) and (
                found := recorded_by(store, write.ids)
            ):  # a retry
                write.earlier = found
                return
        making, creating = makers(write.commands)
        stream = stream_of(write.game)
        loaded = games.get(stream)
        if loaded is None:
            loaded = loaded_for(store, write.game, creating, self._server.games)
            games[stream] = loaded
        write.outcome = appended_in(writer, store, loaded, making, write.ids, write.expected)
        recorded = write.outcome.recorded
        if recorded and recorded[-1].version > loaded.version:
            games[stream] = extended(loaded, recorded)
