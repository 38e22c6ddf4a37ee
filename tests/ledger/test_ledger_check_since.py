"""The incremental check from a verified watermark (`ledger.integrity.check_since`), on SQLite
and PostgreSQL, with the triggers dropped as a forger with the database's password would:
an edit after the watermark, a truncation through it, and a tail rewritten with fresh hashes
are each caught; an edit below the watermark with its hashes recomputed is left to
`check_recent` (what the server runs periodically and before a checkpoint)."""

from __future__ import annotations

import pytest
from ledger_helpers import game_created, rack
from test_ledger_integrity import drop_triggers, fill, raw

from ledger import GENESIS_HASH, EventStore, Head, check_since
from ledger.errors import LedgerAltered


def watermark(store: EventStore, events: int) -> Head:
    """`events` events appended, and the head they end at, verified from the start."""
    fill(store, events)
    head = check_since(store, 0, GENESIS_HASH)
    assert head == store.head()
    return head


def test_the_head_after_the_watermark_is_returned_and_becomes_the_next_watermark(
    store: EventStore,
) -> None:
    assert check_since(store, 0, GENESIS_HASH) == Head(0, GENESIS_HASH)
    mark = watermark(store, 10)
    assert check_since(store, mark.seq, mark.hash) == mark  # nothing new: the row alone
    fill(store, 3)
    assert check_since(store, mark.seq, mark.hash) == store.head() == Head(13, store.head().hash)


def test_an_event_edited_after_the_watermark_is_caught(store: EventStore) -> None:
    mark = watermark(store, 10)
    fill(store, 5)
    drop_triggers(store)
    cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
    raw(store, f"""UPDATE events SET payload = '{{"drawn":"ZZZZZ","round":12}}'{cast}
                   WHERE seq = 13""")  # fmt: skip
    with pytest.raises(LedgerAltered, match="seq 13: its content no longer gives"):
        check_since(store, mark.seq, mark.hash)


def test_an_event_after_the_watermark_unlinked_from_the_one_before_is_caught(
    store: EventStore,
) -> None:
    mark = watermark(store, 10)
    fill(store, 5)
    drop_triggers(store)
    raw(store, f"UPDATE events SET prev_hash = '{'0' * 64}' WHERE seq = 12")
    with pytest.raises(LedgerAltered, match="seq 12 does not link"):
        check_since(store, mark.seq, mark.hash)


@pytest.mark.parametrize("cut", [6, 10, 12])
def test_a_truncation_is_caught(store: EventStore, cut: int) -> None:
    mark = watermark(store, 10)
    fill(store, 4)
    drop_triggers(store)
    raw(store, f"DELETE FROM events WHERE seq > {cut}")
    if cut >= mark.seq:  # what came after the watermark and was never verified: a head
        assert check_since(store, mark.seq, mark.hash).seq == cut
        return
    with pytest.raises(LedgerAltered, match=f"seq {mark.seq} is missing"):
        check_since(store, mark.seq, mark.hash)


def test_a_gap_after_the_watermark_is_caught(store: EventStore) -> None:
    mark = watermark(store, 10)
    fill(store, 4)
    drop_triggers(store)
    raw(store, "DELETE FROM events WHERE seq = 12")
    with pytest.raises(LedgerAltered, match="seq 12 is missing"):
        check_since(store, mark.seq, mark.hash)


def test_a_tail_rewritten_with_fresh_hashes_is_caught_by_the_watermark_rows_hash(
    store: EventStore,
) -> None:
    mark = watermark(store, 10)
    drop_triggers(store)
    raw(store, "DELETE FROM events WHERE seq > 5")
    fill(store, 5)  # seqs 6 to 10 again, chained afresh: every link and hash consistent
    rewritten = store.head()
    assert rewritten.seq == mark.seq and rewritten.hash != mark.hash
    with pytest.raises(LedgerAltered, match=f"seq {mark.seq} no longer holds the hash"):
        check_since(store, mark.seq, mark.hash)


def test_an_edit_below_the_watermark_with_hashes_recomputed_is_left_to_check_recent(
    store: EventStore,
) -> None:
    """The trade-off: only the watermark row's hash and what follows are read. Seq 10's hash
    kept, seq 5 edited and chained to it afresh (a forger who also forges seq 10's content
    would need a SHA-256 preimage): check_since passes; the full check's own reading of the
    tail catches the broken link."""
    from ledger import check_recent

    mark = watermark(store, 10)
    drop_triggers(store)
    cast = "::jsonb" if store.engine.dialect.name == "postgresql" else ""
    raw(store, f"""UPDATE events SET payload = '{{"drawn":"ZZZZZ","round":4}}'{cast}
                   WHERE seq = 5""")  # fmt: skip
    assert check_since(store, mark.seq, mark.hash) == mark
    with pytest.raises(LedgerAltered, match="seq 5: its content no longer gives"):
        check_recent(store)


def test_a_watermark_on_a_ledger_of_other_streams_reads_them_all(store: EventStore) -> None:
    store.append("game/g2", [game_created("g2"), rack(1)])
    mark = check_since(store, 0, GENESIS_HASH)
    fill(store, 3)
    assert check_since(store, mark.seq, mark.hash) == store.head()
