"""Small builders shared by the ledger tests (imported as a plain module: pytest puts this
folder on sys.path)."""

from __future__ import annotations

import hashlib
from typing import Any

import sqlalchemy as sa
from alembic import command

from ledger import EventStore, Head, NewEvent
from ledger.database import migrations_config, write_transaction
from ledger.jsonl import row_line


def game_created(game_id: str = "g1", **extra: Any) -> NewEvent:
    """The opening event of a game stream."""
    return NewEvent("GameCreated", {"game_id": game_id, "variant": "duplicate", **extra})


def rack(round_no: int, drawn: str = "AEIR?", **kwargs: Any) -> NewEvent:
    """A `RackDrawn` event."""
    return NewEvent("RackDrawn", {"round": round_no, "drawn": drawn}, **kwargs)


def tournament_created(tournament_id: str = "t1") -> NewEvent:
    """The opening event of a tournament stream."""
    return NewEvent(
        "TournamentCreated", {"tournament_id": tournament_id, "name": "Cupa", "season": "2026"}
    )


def event_line(store: EventStore, seq: int) -> str:
    """The event at `seq` as `ledger export` writes it, without the newline."""
    return row_line(next(store.iter_rows(from_seq=seq, page_size=1))).decode().rstrip("\n")


def rfc_mth(entries: list[bytes]) -> bytes:
    """MTH(D[n]) of RFC 9162 2.1.1 straight from its definition, entries being the leaf inputs
    (the event hash bytes): what the ledger's Merkle code is checked against."""
    if len(entries) == 1:
        return hashlib.sha256(b"\x00" + entries[0]).digest()
    k = 1
    while k * 2 < len(entries):
        k *= 2
    return hashlib.sha256(b"\x01" + rfc_mth(entries[:k]) + rfc_mth(entries[k:])).digest()


def ledger_at(url: str, engine: sa.Engine, revision: str, *events: NewEvent) -> Head:
    """A ledger as an older Arbitru left it: its schema migrated up to `revision` only, and
    `events` appended to game/g1 by a store that does not upgrade it. Its head."""
    with write_transaction(engine) as connection:
        command.upgrade(migrations_config(connection), revision)
    with EventStore(url, upgrade=False) as store:
        if events:
            store.append("game/g1", list(events))
        return store.head()
