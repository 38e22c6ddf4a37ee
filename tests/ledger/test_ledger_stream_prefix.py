"""The events of the streams whose names start with a prefix (`ledger.stream_prefix`), on
SQLite and PostgreSQL: exactly those streams' events, in `seq` order, whichever streams sort
just before or after them, and the head they were read up to."""

from __future__ import annotations

import pytest
from ledger_helpers import game_created, rack

from ledger import EventStore
from ledger.stream_prefix import read_prefixed

GAMES = ["a", "az", "b", "b-1", "b0", "bz", "ba-9", "c", "ab"]


def test_only_the_streams_starting_with_the_prefix_are_read_in_seq_order(
    store: EventStore,
) -> None:
    for round_no in (1, 2):
        for game in GAMES:
            events = [game_created(game)] if round_no == 1 else []
            store.append(f"game/{game}", [*events, rack(round_no)])
    head, events = read_prefixed(store, "game/b")
    wanted = {f"game/{g}" for g in GAMES if g.startswith("b")}
    every = store.read_all()
    assert events == [e for e in every if e.stream in wanted]
    assert [e.seq for e in events] == sorted(e.seq for e in events)
    assert head == store.head()


def test_the_head_read_is_the_last_event_or_the_genesis_on_an_empty_ledger(
    store: EventStore,
) -> None:
    assert read_prefixed(store, "game/") == (store.head(), [])
    store.append("game/g1", [game_created("g1")])
    head, events = read_prefixed(store, "game/")
    assert head.seq == 1 and [e.seq for e in events] == [1]


def test_an_empty_prefix_is_refused(store: EventStore) -> None:
    with pytest.raises(ValueError, match="start of the streams"):
        read_prefixed(store, "")
