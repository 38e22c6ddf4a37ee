"""Reads of the ledger that the requests asking at the same moment share.

Before answering, a request asks the ledger who its token is and what the accounts and grants
are now (`Server.caller`): a token revoked, an account disabled or a role
taken away by another process a moment ago counts at once. In a rush, that was two
transactions for each of hundreds of requests, each of them waiting for the one before it
(the roster is caught up one thread at a time), most of them reading nothing new. Now the
requests asking at the same moment share one read of their tokens and of the roster.

A `SharedRead` makes one read serve every request waiting for it: a request's key is read by
a read that began after the request asked (never by one already under way, which might have
missed what was written just before the request came), so its answer is as fresh as the
request's own read would have been. While one read runs, the requests arriving queue; when it
ends, one of them reads for all of them, their keys in one query.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Ticket(Generic[K, V]):
    """One request's key, and what the read it was in gave for it."""

    __slots__ = ("done", "error", "key", "value")

    def __init__(self, key: K) -> None:
        self.key = key
        self.value: V | None = None
        self.error: Exception | None = None
        self.done = False


class SharedRead(Generic[K, V]):
    """`read(keys)` (a mapping of the keys it found to their values) shared by the threads
    asking at the same moment: see the module docstring."""

    def __init__(self, read: Callable[[frozenset[K]], Mapping[K, V]]) -> None:
        self._read = read
        self._changed = threading.Condition()
        self._waiting: list[_Ticket[K, V]] = []
        self._reading = False

    def __call__(self, key: K) -> V | None:
        """The value of `key` (None if the read found none), read after this call began;
        raises what the read raised."""
        ticket: _Ticket[K, V] = _Ticket(key)
        with self._changed:
            self._waiting.append(ticket)
            while not ticket.done and self._reading:
                self._changed.wait()
            if ticket.done:
                return _answer(ticket)
            self._reading = True  # this thread reads for every ticket waiting
            tickets, self._waiting = self._waiting, []
        try:
            found = self._read(frozenset(t.key for t in tickets))
            for each in tickets:
                each.value = found.get(each.key)
        except Exception as exc:
            for each in tickets:
                each.error = exc
        finally:
            with self._changed:
                for each in tickets:
                    each.done = True
                self._reading = False
                self._changed.notify_all()
        return _answer(ticket)


def _answer(ticket: _Ticket[K, V]) -> V | None:
    if ticket.error is not None:
        raise ticket.error
    return ticket.value
