"""The store contract, run against every backend (SQLite file in WAL mode, PostgreSQL)."""

from __future__ import annotations

import io
import itertools
import re

import pytest
import sqlalchemy as sa
from ledger_helpers import game_created, rack, tournament_created

from ledger import (
    GENESIS_HASH,
    EnvelopeError,
    EventIdConflict,
    EventStore,
    NewEvent,
    StreamStructureError,
    VersionConflict,
    import_events,
    verify_chain,
    verify_store,
    write_export,
)
from ledger.canonical import canonical_bytes, chain_hash


def test_appends_get_gapless_seq_stream_versions_and_a_hash_chain(store: EventStore) -> None:
    first = store.append("game/g1", [game_created(), rack(1)], expected_version=0)
    second = store.append("tournament/t1", [tournament_created()], expected_version=0)
    third = store.append("game/g1", [rack(2)], expected_version=2)
    recorded = first + second + third
    assert [e.seq for e in recorded] == [1, 2, 3, 4]
    assert [(e.stream, e.version) for e in recorded] == [
        ("game/g1", 1),
        ("game/g1", 2),
        ("tournament/t1", 1),
        ("game/g1", 3),
    ]
    assert recorded[0].prev_hash == GENESIS_HASH
    for previous, event in itertools.pairwise(recorded):
        assert event.prev_hash == previous.hash
    for event in recorded:
        assert event.hash == chain_hash(event.prev_hash, canonical_bytes(event.to_dict()))
    assert store.read_all() == recorded


def test_append_without_expected_version_goes_wherever_the_stream_is(store: EventStore) -> None:
    store.append("game/g1", [game_created()])
    (event,) = store.append("game/g1", [rack(1)])
    assert event.version == 2


def test_stale_expected_version_raises_conflict_naming_stream_and_versions(
    store: EventStore,
) -> None:
    store.append("game/g1", [game_created(), rack(1)], expected_version=0)
    with pytest.raises(VersionConflict) as caught:
        store.append("game/g1", [rack(2)], expected_version=1)
    assert (caught.value.stream, caught.value.expected, caught.value.actual) == ("game/g1", 1, 2)
    assert "game/g1" in str(caught.value)
    assert "expected it at version 1" in str(caught.value)
    assert "at version 2" in str(caught.value)
    assert store.stream_version("game/g1") == 2


def test_a_new_stream_is_expected_at_version_zero(store: EventStore) -> None:
    with pytest.raises(VersionConflict):
        store.append("game/g1", [game_created()], expected_version=1)
    store.append("game/g1", [game_created()], expected_version=0)


def test_a_batch_is_stored_whole_or_not_at_all(store: EventStore) -> None:
    store.append("game/g1", [game_created()], expected_version=0)
    with pytest.raises(StreamStructureError):
        store.append("game/g1", [rack(1), rack(2), game_created()], expected_version=1)
    assert store.stream_version("game/g1") == 1
    assert store.head().seq == 1


def test_the_same_event_id_appended_again_is_stored_once(store: EventStore) -> None:
    batch = [game_created(), rack(1)]
    first = store.append("game/g1", batch, expected_version=0)
    retry = store.append("game/g1", batch, expected_version=0)
    assert retry == first
    assert store.head().seq == 2


def test_a_retried_event_in_a_mixed_batch_is_not_stored_twice(store: EventStore) -> None:
    opening = game_created()
    store.append("game/g1", [opening], expected_version=0)
    recorded = store.append("game/g1", [opening, rack(1)])
    assert [e.version for e in recorded] == [1, 2]
    assert store.head().seq == 2


def test_an_event_id_reused_for_a_different_event_is_refused(store: EventStore) -> None:
    opening = game_created()
    store.append("game/g1", [opening], expected_version=0)
    impostor = NewEvent(
        "GameCreated", {"game_id": "other", "variant": "completiv"}, event_id=opening.event_id
    )
    with pytest.raises(EventIdConflict, match="payload"):
        store.append("game/g2", [impostor], expected_version=0)
    assert store.head().seq == 1


def test_a_game_stream_must_start_with_game_created(store: EventStore) -> None:
    with pytest.raises(StreamStructureError, match="must start with GameCreated"):
        store.append("game/g1", [rack(1)], expected_version=0)
    assert store.head().seq == 0


def test_game_created_appears_only_at_version_one(store: EventStore) -> None:
    store.append("game/g1", [game_created()], expected_version=0)
    with pytest.raises(StreamStructureError, match="must be version 1"):
        store.append("game/g1", [game_created()], expected_version=1)


def test_a_tournament_stream_must_start_with_tournament_created(store: EventStore) -> None:
    player = NewEvent("PlayerRegistered", {"player_id": "p1", "name": "Ana"})
    with pytest.raises(StreamStructureError, match="TournamentCreated"):
        store.append("tournament/t1", [player], expected_version=0)


def test_an_event_type_of_another_stream_kind_is_refused(store: EventStore) -> None:
    with pytest.raises(EnvelopeError, match="belongs on game streams"):
        store.append("tournament/t1", [game_created()], expected_version=0)


def test_a_malformed_envelope_is_refused_with_every_problem(store: EventStore) -> None:
    bad = NewEvent(
        "Nonsense",
        {"points": 1.5},
        meta=[],
        event_id="not-a-uuid",
        schema=0,  # type: ignore[arg-type]
    )
    with pytest.raises(EnvelopeError) as caught:
        store.append("Game/G1", [bad])
    problems = " | ".join(caught.value.problems)
    for expected in (
        "stream 'Game/G1'",
        "Nonsense",
        "meta must be a JSON object",
        "event_id",
        "schema",
    ):
        assert expected in problems
    assert store.head().seq == 0


def test_payload_and_meta_come_back_exactly_as_written(store: EventStore) -> None:
    payload = {
        "game_id": "g1",
        "variant": "duplicate",
        "title": "Cupa României — ȘĂÎȚÂ 🎲",
        "settings": {"solo_bonus": 10, "nested": [1, -2, True, None, "x", {"z": [], "a": {}}]},
        "limits": [2**53 - 1, -(2**53 - 1)],
        "escapes": 'quote " backslash \\ tab \t newline \n \u2028 \x7f',
    }
    meta = {"actor": "arbitru-ion", "source": "forum#42", "received_at": "2026-11-30T08:00:00Z"}
    store.append("game/g1", [NewEvent("GameCreated", payload, meta)], expected_version=0)
    (event,) = store.read_stream("game/g1")
    assert event.payload == payload
    assert event.meta == meta
    assert store.read_streams(["game/g1"]) == {"game/g1": [event]}
    assert verify_store(store).ok


def test_recorded_at_is_utc_text_with_microseconds(store: EventStore) -> None:
    (event,) = store.append("game/g1", [game_created()])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", event.recorded_at)


def test_read_stream_stops_at_a_version_or_a_seq(store: EventStore) -> None:
    store.append("game/g1", [game_created(), rack(1)], expected_version=0)
    store.append("game/g2", [game_created("g2")], expected_version=0)
    store.append("game/g1", [rack(2), rack(3)], expected_version=2)
    assert [e.version for e in store.read_stream("game/g1")] == [1, 2, 3, 4]
    assert [e.version for e in store.read_stream("game/g1", up_to_version=2)] == [1, 2]
    assert [e.version for e in store.read_stream("game/g1", up_to_seq=4)] == [1, 2, 3]
    assert store.read_stream("game/none") == []


def test_read_streams_reads_several_streams_as_read_stream_reads_each(store: EventStore) -> None:
    store.append("game/g1", [game_created(), rack(1)], expected_version=0)
    store.append("game/g2", [game_created("g2")], expected_version=0)
    store.append("game/g1", [rack(2), rack(3)], expected_version=2)
    store.append("game/g2", [rack(1)], expected_version=1)
    wanted = ["game/g2", "game/none", "game/g1"]
    assert store.read_streams(wanted) == {
        "game/g1": store.read_stream("game/g1"),
        "game/g2": store.read_stream("game/g2"),
    }
    upto = store.read_streams(wanted, up_to_seq=4)
    assert {s: [e.version for e in events] for s, events in upto.items()} == {
        "game/g1": [1, 2, 3],
        "game/g2": [1],
    }
    assert store.read_streams([]) == {}


def test_read_streams_reads_json_text_as_json_loads_does(tmp_path) -> None:
    """Text that another writer stored with spaces around the value reads the same; text that
    is not JSON raises as it always did, whichever way the batch reader parses it."""
    with EventStore(f"sqlite:///{tmp_path / 'spaced.db'}") as store:
        (event,) = store.append("game/g1", [game_created()], expected_version=0)
        with store.engine.begin() as connection:
            connection.exec_driver_sql(
                "INSERT INTO events SELECT 2, 'spaced', 'game/g2', 1, type, schema,"
                " ' ' || payload || '\n', meta || '  ', recorded_at, hash, hash FROM events"
            )
            connection.exec_driver_sql(
                "INSERT INTO events SELECT 3, 'broken', 'game/g3', 1, type, schema,"
                " payload || '}', meta, recorded_at, hash, hash FROM events WHERE seq = 1"
            )
        (spaced,) = store.read_streams(["game/g2"])["game/g2"]
        assert (spaced.payload, spaced.meta) == (event.payload, event.meta)
        with pytest.raises(ValueError, match="Extra data"):
            store.read_streams(["game/g3"])


def test_read_all_follows_the_log_from_a_seq(store: EventStore) -> None:
    store.append("game/g1", [game_created(), *[rack(i) for i in range(1, 6)]])
    assert [e.seq for e in store.read_all(from_seq=3)] == [3, 4, 5, 6]
    assert [e.seq for e in store.read_all(from_seq=2, limit=2)] == [2, 3]
    assert store.read_all(from_seq=7) == []
    assert [e.seq for e in store.iter_all(from_seq=2, page_size=2)] == [2, 3, 4, 5, 6]


def test_iter_all_of_one_stream_pages_through_it(store: EventStore) -> None:
    store.append("game/g1", [game_created()])
    store.append("game/g2", [game_created("g2"), rack(1), rack(2)])
    store.append("game/g1", [rack(1)])
    assert [e.seq for e in store.iter_all(stream="game/g2", page_size=2)] == [2, 3, 4]


def test_the_head_of_an_empty_ledger_is_the_genesis_hash(store: EventStore) -> None:
    head = store.head()
    assert (head.seq, head.hash) == (0, GENESIS_HASH)
    recorded = store.append("game/g1", [game_created()])
    assert store.head().hash == recorded[0].hash


def test_a_writer_transaction_commits_several_streams_together(store: EventStore) -> None:
    with pytest.raises(VersionConflict), store.writer() as writer:
        writer.append("game/g1", [game_created()], 0)
        writer.append("game/g2", [game_created("g2")], 0)
        writer.append("game/g1", [rack(1)], 0)
    assert store.head().seq == 0
    with store.writer() as writer:
        writer.append("game/g1", [game_created()], 0)
        writer.append("game/g1", [rack(1)], 1)
    assert store.head().seq == 2


def _raw(store: EventStore, sql: str) -> None:
    with store.engine.begin() as connection:
        connection.exec_driver_sql(sql)


def test_raw_sql_update_is_refused_by_the_database(store: EventStore) -> None:
    store.append("game/g1", [game_created()])
    with pytest.raises(sa.exc.DatabaseError, match="append-only"):
        _raw(store, "UPDATE events SET type = 'GameEnded' WHERE seq = 1")
    assert store.read_all()[0].type == "GameCreated"


def test_raw_sql_delete_is_refused_by_the_database(store: EventStore) -> None:
    store.append("game/g1", [game_created()])
    with pytest.raises(sa.exc.DatabaseError, match="append-only"):
        _raw(store, "DELETE FROM events")
    assert store.head().seq == 1


def test_truncate_is_refused_on_postgresql(pg_url: str) -> None:
    with EventStore(pg_url) as store:
        store.append("game/g1", [game_created()])
        with pytest.raises(sa.exc.DatabaseError, match="append-only"):
            _raw(store, "TRUNCATE events")
        assert store.head().seq == 1


def _drop_triggers(store: EventStore) -> None:
    if store.engine.dialect.name == "postgresql":
        _raw(store, "DROP TRIGGER events_refuse_update_delete ON events")
    else:
        _raw(store, "DROP TRIGGER events_refuse_update")
        _raw(store, "DROP TRIGGER events_refuse_delete")


def test_verify_names_the_seq_of_a_row_altered_after_dropping_the_triggers(
    store: EventStore,
) -> None:
    store.append("game/g1", [game_created(), rack(1), rack(2), rack(3)])
    assert verify_store(store).ok
    _drop_triggers(store)
    if store.engine.dialect.name == "postgresql":
        _raw(
            store,
            "UPDATE events SET payload = jsonb_set(payload, '{drawn}', '\"ZZZZ\"') WHERE seq = 3",
        )
    else:
        _raw(store, 'UPDATE events SET payload = \'{"drawn":"ZZZZ","round":2}\' WHERE seq = 3')
    result = verify_store(store)
    assert not result.ok
    assert result.problem is not None and result.problem.seq == 3
    assert "altered" in result.problem.reason
    assert (result.checked, result.last_seq) == (2, 2)


def test_verify_names_the_seq_after_a_deleted_row(store: EventStore) -> None:
    store.append("game/g1", [game_created(), rack(1), rack(2)])
    _drop_triggers(store)
    _raw(store, "DELETE FROM events WHERE seq = 2")
    result = verify_store(store)
    assert result.problem is not None and result.problem.seq == 3
    assert "missing" in result.problem.reason


def test_verify_names_the_seq_whose_hash_was_rewritten(store: EventStore) -> None:
    store.append("game/g1", [game_created(), rack(1), rack(2)])
    _drop_triggers(store)
    _raw(store, f"UPDATE events SET hash = '{'a' * 64}' WHERE seq = 2")
    result = verify_store(store)
    assert result.problem is not None and result.problem.seq == 2


def test_reimporting_an_export_into_an_empty_ledger_reproduces_every_hash(
    store: EventStore, tmp_path
) -> None:
    store.append("tournament/t1", [tournament_created()])
    store.append("game/g1", [game_created(tournament_id="t1"), rack(1, meta={"actor": "a"})])
    store.append("game/g2", [game_created("g2")])
    export = io.BytesIO()
    write_export(store.iter_all(), export)
    with EventStore(f"sqlite:///{tmp_path / 'copy.db'}") as copy:
        export.seek(0)
        report = import_events(copy, export, require_same_hashes=True)
        assert report.ok, report.errors
        assert report.hash_mismatches == []
        assert copy.read_all() == store.read_all()
        assert copy.head() == store.head()
        assert verify_chain(copy.iter_all()).ok


def test_reopening_a_current_database_keeps_its_events(db_url: str) -> None:
    with EventStore(db_url) as first:
        first.append("game/g1", [game_created()])
    with EventStore(db_url) as second:
        assert second.head().seq == 1
