"""Games kept folded in a long-running process (the server), caught up from their version.

A command or a view needs the game's state now. The command line folds the game from its
first event on each run, which is what a fresh process must do; a server answering hundreds
of slips a minute keeps each game's state and, on each use, reads only the events recorded
after the version it holds (by this process or by another sharing the ledger) and folds them
on. The ledger stays the truth: nothing is answered from memory without asking the ledger
for what came after it. A game not kept yet is folded by one thread while the others asking
for it wait and then catch up from that fold: at a deadline, the first hundred slips reaching
a process would otherwise each fold the whole game.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from pipelines.games.service import Game, extended, load_game, stream_of

if TYPE_CHECKING:
    from ledger import EventStore


class KeptGames:
    """The last `size` games used, each as folded at some version."""

    def __init__(self, size: int = 256) -> None:
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}
        self.size = size

    def current(self, store: EventStore, game: str, *, must_exist: bool = True) -> Game:
        """The game as the ledger holds it now (`GameNotFound` if it has no events, unless
        `must_exist` is False)."""
        stream = stream_of(game)
        with self._lock:
            held = self._games.get(stream)
            loading = (
                None if held is not None else self._loading.setdefault(stream, threading.Lock())
            )
        if loading is not None:  # the first use: one thread folds it, the others wait for it
            with loading:
                with self._lock:
                    held = self._games.get(stream)
                if held is None:
                    try:
                        now = load_game(store, stream, must_exist=must_exist)
                        if now.version:
                            self.keep(now)
                    finally:
                        with self._lock:
                            self._loading.pop(stream, None)
                    return now
        assert held is not None
        now = extended(held, store.read_stream(stream, after_version=held.version))
        self.keep(now)
        return now

    def last(self, stream: str) -> Game | None:
        """The game as this process last read or wrote it, if kept, without asking the
        ledger what came after it: only for what a game that moved since would not change."""
        with self._lock:
            return self._games.get(stream)

    def keep(self, game: Game) -> None:
        """Keep `game` unless a later version of it is kept: what a server's batch of writes
        appended to it, once committed, so that the next request does not read back from
        the ledger what this process has just written (only what others wrote after it)."""
        with self._lock:
            held = self._games.get(game.stream)
            if held is None or held.version < game.version:
                self._games[game.stream] = game
            self._games.move_to_end(game.stream)
            while len(self._games) > self.size:
                self._games.popitem(last=False)
