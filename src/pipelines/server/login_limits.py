"""How often a sign-in may fail: at most `FAILURES` failed passwords in `WINDOW` seconds per
account and per client address, then 429 with `Retry-After` until the oldest failure of the
window ages out.

Both counts matter: one per account stops guessing one account's password from many
addresses; one per address stops one address trying a password on many accounts. An
attempt is refused before its password is checked, so a refused attempt costs no Argon2
round and teaches nothing.

The counts are kept in memory, per server process: with `--workers N` each process counts
its own, so an address may fail up to N times as often, and a restart forgets. That bounds
guessing to a handful a minute per account, which is what the limit is for; a count shared
across processes would need a table written on every failure.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

FAILURES = 5
WINDOW = 60.0
_KEPT = 10_000
"""The most accounts and addresses counted at once: the oldest are forgotten past it, so
that a flood of made-up names cannot fill the memory."""


class LoginLimits:
    """Failed sign-ins per key (`account:ID`, `address:IP`) in the last `window` seconds."""

    def __init__(
        self,
        failures: int = FAILURES,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = failures
        self.window = window
        self._clock = clock
        self._failed: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait(self, keys: list[str]) -> int | None:
        """Seconds to wait before trying again under any of `keys`, or None: may try now."""
        now = self._clock()
        longest = None
        with self._lock:
            for key in keys:
                times = self._recent(key, now)
                if len(times) >= self.failures:
                    left = math.ceil(times[0] + self.window - now)
                    longest = max(longest or 1, left, 1)
        return longest

    def failed(self, keys: list[str]) -> None:
        """Count a failed sign-in under each key."""
        now = self._clock()
        with self._lock:
            for key in keys:
                times = self._recent(key, now)
                times.append(now)
                self._failed.pop(key, None)
                self._failed[key] = times  # the most recently failed last
            while len(self._failed) > _KEPT:
                del self._failed[next(iter(self._failed))]

    def succeeded(self, key: str) -> None:
        """Forget the failures under `key` (the account, once its password was given)."""
        with self._lock:
            self._failed.pop(key, None)

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._failed.get(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times
