"""Arbitru's event ledger: an append-only, hash-chained store of event envelopes on SQLite or
PostgreSQL. It knows envelopes (streams, versions, types, hashes), never game rules.

    store = open_store("sqlite:///arbitru.db")
    store.append("game/g1", [NewEvent("GameCreated", {...})], expected_version=0)
    store.read_stream("game/g1"); store.read_all(from_seq=1); store.head()
    verify_chain(store.iter_all())
    check_recent(store)  # the quick check against the latest checkpoint
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
from ledger.jsonl import JsonlError, PayloadCheck, write_export

# The store, its importer and verifier need SQLAlchemy: imported on first use, so that code
# reading only export files (`ledger.jsonl`, the engine commands' batches) never loads it.
_LAZY = {
    "EventStore": "ledger.store",
    "Head": "ledger.store",
    "open_store": "ledger.store",
    "ImportReport": "ledger.importer",
    "import_events": "ledger.importer",
    "VerifyProblem": "ledger.verify",
    "VerifyResult": "ledger.verify",
    "verify_chain": "ledger.verify",
    "verify_file": "ledger.verify",
    "verify_rows": "ledger.verify",
    "verify_store": "ledger.verify",
    "LedgerAltered": "ledger.checkpoints",
    "check_events": "ledger.integrity",
    "check_recent": "ledger.integrity",
}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'ledger' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_LAZY[name]), name)


__all__ = [
    "GENESIS_HASH",
    "DatabaseError",
    "EnvelopeError",
    "EventIdConflict",
    "EventStore",
    "Head",
    "ImportReport",
    "JsonlError",
    "LedgerAltered",
    "LedgerError",
    "NewEvent",
    "NoLedger",
    "PayloadCheck",
    "RecordedEvent",
    "StreamStructureError",
    "VerifyProblem",
    "VerifyResult",
    "VersionConflict",
    "check_events",
    "check_recent",
    "import_events",
    "open_store",
    "verify_chain",
    "verify_file",
    "verify_rows",
    "verify_store",
    "write_export",
]
