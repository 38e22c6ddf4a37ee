"""Arbitru's event ledger: an append-only, hash-chained store of event envelopes on SQLite or
PostgreSQL. It knows envelopes (streams, versions, types, hashes), never game rules.

    store = open_store("sqlite:///arbitru.db")
    store.append("game/g1", [NewEvent("GameCreated", {...})], expected_version=0)
    store.read_stream("game/g1"); store.read_all(from_seq=1); store.head()
    verify_chain(store.iter_all())
    check_recent(store)  # the quick check against the latest checkpoint
"""

# Each name is imported from its module on first use, so that importing one part of the ledger
# loads no other: the command line's root (`ledger.input_files`) none of the envelope and
# export code, and code reading only export files (`ledger.jsonl`, the engine commands'
# batches) no SQLAlchemy, which the store, its importer and verifier need.
_LAZY = {
    "GENESIS_HASH": "ledger.canonical",
    "NewEvent": "ledger.envelope",
    "RecordedEvent": "ledger.envelope",
    "DatabaseError": "ledger.errors",
    "EnvelopeError": "ledger.errors",
    "EventIdConflict": "ledger.errors",
    "LedgerError": "ledger.errors",
    "NoLedger": "ledger.errors",
    "StreamStructureError": "ledger.errors",
    "LedgerAltered": "ledger.errors",
    "VersionConflict": "ledger.errors",
    "JsonlError": "ledger.jsonl",
    "PayloadCheck": "ledger.jsonl",
    "write_export": "ledger.jsonl",
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
    "check_events": "ledger.integrity",
    "check_recent": "ledger.integrity",
    "check_since": "ledger.integrity",
}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'ledger' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_LAZY[name]), name)


__all__ = list(_LAZY)
