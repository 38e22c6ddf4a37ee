"""A thread holding the ledger's write transaction reads through it (`database.read_transaction`):
it takes no second connection, so that threads queued for the write lock, each holding a
connection of the pool, cannot starve the one holding the lock of the connection it needs to
finish (the server's rush: many slips to one game, each decided again under the lock)."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa
from ledger_helpers import game_created, rack

from ledger import EventStore


def test_a_read_inside_a_write_takes_no_second_connection_and_sees_the_ledger(store):
    store.append("game/g1", [game_created()])
    checkouts: list[object] = []
    sa.event.listen(store.engine, "checkout", lambda *args: checkouts.append(args))
    with store.writer() as writer:
        taken = len(checkouts)
        events = store.read_stream("game/g1")
        assert store.find_events([events[0].event_id])
        writer.append("game/g1", [rack(1)], expected_version=len(events))
        assert len(checkouts) == taken
    assert [e.type for e in store.read_stream("game/g1")] == ["GameCreated", "RackDrawn"]


def test_more_writers_than_the_pool_holds_each_reading_under_the_lock_all_finish(db_url):
    with EventStore(db_url) as store:
        store.append("game/g1", [game_created()])
        size = store.engine.pool.size() + store.engine.pool._max_overflow  # what it may lend
        failures: list[BaseException] = []

        def decide_again_under_the_lock() -> None:
            try:
                with store.writer() as writer:
                    version = len(store.read_stream("game/g1"))
                    writer.append("game/g1", [rack(version)], expected_version=version)
            except BaseException as exc:
                failures.append(exc)

        threads = [threading.Thread(target=decide_again_under_the_lock) for _ in range(size + 5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert len(store.read_stream("game/g1")) == size + 6


def test_on_sqlite_a_writer_queued_behind_another_takes_a_connection_only_once_it_is_done(
    tmp_path,
):
    """Threads of one process queue for the write lock on a lock of their own, each woken
    when the writer before it ends, rather than in SQLite's busy handler (up to 100 ms asleep
    between polls), each holding a connection of the pool."""
    with EventStore(f"sqlite:///{tmp_path / 'ledger.db'}") as store:
        store.append("game/g1", [game_created()])
        said: list[str] = []
        sa.event.listen(store.engine, "checkout", lambda *args: said.append("checkout"))
        holding, queued = threading.Event(), threading.Event()

        def second() -> None:
            holding.wait()
            queued.set()
            with store.writer() as writer:
                writer.append("game/g1", [rack(2)], expected_version=2)

        thread = threading.Thread(target=second)
        thread.start()
        with store.writer() as writer:
            writer.append("game/g1", [rack(1)], expected_version=1)
            said.clear()
            holding.set()
            queued.wait()
            thread.join(0.3)  # time for the second writer to reach the lock and wait there
            said.append("first done")
        thread.join()
        assert said == ["first done", "checkout"]
        assert [e.version for e in store.read_stream("game/g1")] == [1, 2, 3]


def test_a_version_the_writer_is_told_that_is_stale_still_writes_nothing_over_the_stream(store):
    """`_Writer.read_version` spares a round trip under the lock; told a version that is not
    the stream's, the append is still refused (by the unique stream and version) and the
    transaction writes nothing."""
    store.append("game/g1", [game_created(), rack(1)])
    with pytest.raises(sa.exc.IntegrityError), store.writer() as writer:
        writer.read_version("game/g1", 1)
        writer.append("game/g1", [rack(2)], expected_version=1)
    assert [e.type for e in store.read_stream("game/g1")] == ["GameCreated", "RackDrawn"]
