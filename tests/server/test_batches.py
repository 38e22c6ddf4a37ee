"""Group commit (`pipelines.server.batches`), on SQLite and PostgreSQL: the writes waiting
together are appended in one transaction, each judged on its own; one refused does not sink
the others; a batch whose commit fails fails every write in it, records none of them, and
leaves what the process keeps as the ledger holds it."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest
import sqlalchemy as sa

from engine.games.commands import CreateGame, DrawRack, Player, Submit
from ledger import EventStore
from ledger.errors import DatabaseError
from ledger.integrity import check_recent
from pipelines.games.errors import CommandRefused
from pipelines.server.batches import Write
from pipelines.server.held import Server
from pipelines.server.problems import Problem
from pipelines.server.writes import ids_for
from tests.ledger.conftest import db_url, pg_url, sqlite_url  # noqa: F401 (the ledger backends)

pytestmark = pytest.mark.usefixtures("_arbitru_home")


@pytest.fixture
def server(db_url: str):  # noqa: F811 (the fixture imported above)
    """A server process's state on a ledger holding game b1 (ana, bob, cy), round 1 drawn."""
    with EventStore(db_url) as store:
        held = Server(store)
        players = tuple(Player(p, p.title()) for p in ("ana", "bob", "cy"))
        opened = [CreateGame(game_id="b1", players=players), DrawRack(round=1, tiles="AERTSIO")]
        for command in opened:
            held.batches.run(Write("b1", [command]))
        yield held


def slip(player: str, text: str = "H8: SERAT", key: str | None = None) -> Write:
    keyed = None if key is None else (player, key, f"digest of {player}'s {text}")
    ids = None if key is None else ids_for(player, key)
    return Write("b1", [Submit(round=1, player_id=player, text=text)], ids=ids, key=keyed)


def slips(store: EventStore) -> list[str]:
    return [e.payload["player_id"] for e in store.read_stream("game/b1")
            if e.type == "SubmissionReceived"]  # fmt: skip


def test_a_batch_appends_each_write_with_its_own_events_in_one_transaction(server) -> None:
    batch = [slip("ana"), slip("bob"), slip("cy")]
    commits: list[object] = []

    def committed(connection: object) -> None:
        commits.append(connection)

    sa.event.listen(server.store.engine, "commit", committed)
    try:
        server.batches._commit(batch)
    finally:
        sa.event.remove(server.store.engine, "commit", committed)
    assert len(commits) == 1  # the three writes, one transaction
    recorded = [w.outcome.recorded for w in batch]
    assert [len(r) for r in recorded] == [1, 1, 1]
    assert [r[0].version for r in recorded] == [6, 7, 8]
    seqs = [r[0].seq for r in recorded]
    assert seqs == list(range(seqs[0], seqs[0] + 3))
    assert recorded[1][0].prev_hash == recorded[0][0].hash  # each its own link of the chain
    assert slips(server.store) == ["ana", "bob", "cy"]
    check_recent(server.store)
    kept = server.games.current(server.store, "b1")  # kept as the batch left it
    assert kept.version == 8 and len(kept.stored) == 8


def test_a_write_the_rules_refuse_does_not_sink_the_others(server) -> None:
    batch = [slip("ana"), slip("zoe"), slip("ana", "H8: RATES"), slip("bob")]
    server.batches._commit(batch)
    assert [w.error is None for w in batch] == [True, False, True, True]
    assert isinstance(batch[1].error, CommandRefused)  # zoe is not in the game
    assert slips(server.store) == ["ana", "ana", "bob"]  # ana's second decided on her first
    assert [w.outcome.recorded[0].version for w in (batch[0], batch[2], batch[3])] == [6, 7, 8]
    check_recent(server.store)


@pytest.mark.parametrize("returning", [True, False], ids=["returning", "looked-up-first"])
def test_keys_in_a_batch_a_retry_answers_the_first_receipt_a_reused_key_is_refused(
    server, monkeypatch, returning: bool
) -> None:
    """Also where the database does not return the rows it inserted (SQLite before 3.35):
    the keys are then looked up before they are inserted."""
    monkeypatch.setattr(server.store.engine.dialect, "insert_returning", returning)
    first, again = slip("ana", key="k1"), slip("ana", key="k1")
    reused = Write("b1", [Submit(round=1, player_id="ana", text="H8: TARES")],
                   ids=ids_for("ana", "k1"), key=("ana", "k1", "another digest"))  # fmt: skip
    server.batches._commit([first, again, reused])
    assert again.earlier == list(first.outcome.recorded)
    assert isinstance(reused.error, Problem) and reused.error.status == 422
    later, again = slip("ana", key="k1"), slip("ana", key="k1")  # retried in a later batch
    server.batches._commit([later, again])
    assert later.earlier == again.earlier == list(first.outcome.recorded)
    assert slips(server.store) == ["ana"]


def test_a_batch_of_more_keys_than_one_statement_takes_remembers_each_once(server) -> None:
    players = [f"p{n:03d}" for n in range(250)]  # the keys take two statements
    created = CreateGame(game_id="b2", players=tuple(Player(p, p.title()) for p in players))
    server.batches.run(Write("b2", [created, DrawRack(round=1, tiles="AERTSIO")]))

    def keyed(player: str) -> Write:
        command = Submit(round=1, player_id=player, text="H8: SERAT")
        return Write("b2", [command], ids=ids_for(player, "k"), key=(player, "k", "d"))

    batch = [keyed(p) for p in players]
    server.batches._commit(batch)
    assert all(w.error is None and w.earlier is None for w in batch)
    retried = [keyed(p) for p in players[::50]]
    server.batches._commit(retried)
    assert [w.earlier for w in retried] == [list(w.outcome.recorded) for w in batch[::50]]
    count = sa.select(sa.func.count()).select_from(sa.table("idempotency_keys"))
    with server.store.engine.connect() as connection:
        assert connection.execute(count).scalar() == 250


def test_a_retry_whose_key_the_ledger_lost_is_answered_its_receipt_and_sinks_no_other(
    server,
) -> None:
    """A ledger restored from an export holds the events but not the keys (secrets are not
    exported): a client retrying across the restore sends a key the server does not know,
    whose write's ids are taken. Its batch is decided again with every id looked up: the
    retry answers its first receipt, the slip beside it is recorded, nothing fails."""
    first = slip("ana", key="before-the-restore")
    server.batches._commit([first])
    with server.store.engine.begin() as connection:
        connection.execute(sa.text("DELETE FROM idempotency_keys"))
    retried, other = slip("ana", key="before-the-restore"), slip("bob")
    server.batches._commit([retried, other])
    assert retried.error is None and other.error is None
    assert retried.earlier == list(first.outcome.recorded)
    assert slips(server.store) == ["ana", "bob"]
    check_recent(server.store)


def test_a_commit_that_fails_fails_the_whole_batch_and_records_none(server) -> None:
    store = server.store
    before = store.head()
    failing = True

    def refuse_commit(connection) -> None:
        if failing:
            raise sa.exc.OperationalError("COMMIT", {}, Exception("the disk is full"))

    sa.event.listen(store.engine, "commit", refuse_commit)
    batch = [slip("ana", key=str(uuid.uuid4())), slip("zoe"), slip("bob")]
    try:
        server.batches._commit(batch)
    finally:
        failing = False
        sa.event.remove(store.engine, "commit", refuse_commit)
    assert all(isinstance(w.error, DatabaseError) for w in batch)  # 503, refusal included
    assert all(w.outcome is None and w.earlier is None for w in batch)
    assert store.head() == before and slips(store) == []
    retried = [slip("ana", key=batch[0].key[1]), slip("bob")]  # kept state was not moved
    server.batches._commit(retried)
    assert [w.outcome.recorded[0].version for w in retried] == [6, 7]
    assert slips(store) == ["ana", "bob"]
    check_recent(store)


def test_a_statement_that_fails_fails_the_batch(server, monkeypatch) -> None:
    def broken(*_args) -> None:
        raise sa.exc.OperationalError("INSERT", {}, Exception("the connection dropped"))

    monkeypatch.setattr("pipelines.server.batches.remember_keys", broken)
    before = server.store.head()
    batch = [slip("ana", key="k2"), slip("bob")]
    server.batches._commit(batch)
    assert all(isinstance(w.error, DatabaseError) for w in batch)
    assert server.store.head() == before


def counting(batches) -> list[int]:
    """The sizes of the batches `batches` commits from now on."""
    sizes: list[int] = []
    commit = batches._commit

    def counted(batch: list[Write]) -> None:
        sizes.append(len(batch))
        commit(batch)

    batches._commit = counted
    return sizes


def test_writes_waiting_while_a_batch_commits_are_committed_together_by_one_thread(
    server,
) -> None:
    """Three threads queue while a batch is being committed (the queue taken by a drainer);
    the drainer then commits all three in one batch, and none of them commits its own."""
    batches = server.batches
    writes = [slip("ana"), slip("bob"), slip("zoe")]
    answers: dict[str, object] = {}

    def send(write: Write) -> None:
        try:
            answers[write.commands[0].player_id] = batches.run(write)
        except CommandRefused as exc:
            answers[write.commands[0].player_id] = exc

    sizes = counting(batches)
    assert batches._queued(slip("cy"))  # this thread now drains: the others queue behind it
    threads = [threading.Thread(target=send, args=(w,)) for w in writes]
    for thread in threads:
        thread.start()
    for _ in range(3000):  # a minute at most for the three to queue
        if len(batches._waiting) == 4:
            break
        threading.Event().wait(0.02)
    assert len(batches._waiting) == 4, "the writes did not queue behind the drainer"
    batches._drain()
    for thread in threads:
        thread.join(60)
    assert sizes == [4]  # one thread committed all of them
    assert isinstance(answers["zoe"], CommandRefused)
    seqs = sorted(w.outcome.recorded[0].seq for w in writes[:2])
    assert seqs[1] == seqs[0] + 1
    assert slips(server.store)[0] == "cy"
    assert sorted(slips(server.store)[1:]) == ["ana", "bob"]
    assert not batches._draining and not batches._waiting


def test_slips_waiting_in_the_event_loop_share_batches_however_few_the_threads(server) -> None:
    """Forty slips sent at once from the event loop (`settled`, as the slips' routes wait):
    none holds a thread while it waits, so they are committed in a few batches, not one
    batch per request thread, and each is answered with its own outcome."""
    from anyio import to_thread

    players = [f"p{n:02d}" for n in range(40)]
    created = CreateGame(game_id="b2", players=tuple(Player(p, p.title()) for p in players))
    server.batches.run(Write("b2", [created, DrawRack(round=1, tiles="AERTSIO")]))
    sizes = counting(server.batches)

    def slip_of(player: str) -> Write:
        return Write("b2", [Submit(round=1, player_id=player, text="H8: SERAT")])

    async def rush() -> list[Write]:
        to_thread.current_default_thread_limiter().total_tokens = 2
        return await asyncio.gather(*(server.batches.settled(slip_of(p)) for p in players))

    done = asyncio.run(rush())
    assert all(w.error is None and len(w.outcome.recorded) == 1 for w in done)
    assert sum(sizes) == 40 and len(sizes) <= 3  # not 20 batches of the 2 threads
    recorded = [e.payload["player_id"] for e in server.store.read_stream("game/b2")
                if e.type == "SubmissionReceived"]  # fmt: skip
    assert sorted(recorded) == players
    check_recent(server.store)
