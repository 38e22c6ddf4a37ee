"""Arbitru's event ledger: an append-only, hash-chained store of event envelopes on SQLite or
PostgreSQL. It knows envelopes (streams, versions, types, hashes), never game rules.

    store = open_store("sqlite:///arbitru.db")
    store.append("game/g1", [NewEvent("GameCreated", {...})], expected_version=0)
    store.read_stream("game/g1"); store.read_all(from_seq=1); store.head()
    verify_chain(store.iter_all())
"""

from ledger.canonical import GENESIS_HASH
from ledger.envelope import NewEvent, RecordedEvent
from ledger.errors import (
    DatabaseError,
    EnvelopeError,
    EventIdConflict,
    LedgerError,
    NoLedger,
    StreamStructureError,
    VersionConflict,
)
from ledger.importer import ImportReport, import_events
from ledger.jsonl import JsonlError, PayloadCheck, write_export
from ledger.store import EventStore, Head, open_store
from ledger.verify import (
    VerifyProblem,
    VerifyResult,
    verify_chain,
    verify_file,
    verify_rows,
    verify_store,
)

__all__ = [
    "GENESIS_HASH",
    "DatabaseError",
    "EnvelopeError",
    "EventIdConflict",
    "EventStore",
    "Head",
    "ImportReport",
    "JsonlError",
    "LedgerError",
    "NewEvent",
    "NoLedger",
    "PayloadCheck",
    "RecordedEvent",
    "StreamStructureError",
    "VerifyProblem",
    "VerifyResult",
    "VersionConflict",
    "import_events",
    "open_store",
    "verify_chain",
    "verify_file",
    "verify_rows",
    "verify_store",
    "write_export",
]
