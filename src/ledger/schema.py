"""The ledger's tables: the events, and the signed checkpoints over them with the Merkle
subtrees their proofs read (`ledger.checkpoints`); beside them, the accounts' secrets.

The database enforces what must never be left to code: one row per `seq`, `event_id` and
(`stream`, `version`), positive numbers, and (through triggers created by the migrations)
no UPDATE, DELETE or TRUNCATE. `seq` is assigned by the writer inside a serialised
transaction, never by a sequence, so it has no gaps. `recorded_at` is stored as the exact text
that was hashed, so that no time-zone or precision conversion can change a hash.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

metadata = sa.MetaData()


class _Json(sa.TypeDecorator[Any]):
    """JSON, held as JSONB on PostgreSQL. The PostgreSQL type is looked up only on PostgreSQL:
    importing SQLAlchemy's PostgreSQL dialect would cost every command reading a SQLite ledger
    tens of milliseconds."""

    impl = sa.JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: sa.Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import JSONB

            return dialect.type_descriptor(JSONB())
        return dialect.type_descriptor(sa.JSON())


_json = _Json()
_uuid = sa.String(36).with_variant(sa.UUID(as_uuid=False), "postgresql")
_seq = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

events = sa.Table(
    "events",
    metadata,
    sa.Column("seq", _seq, primary_key=True, autoincrement=False),
    sa.Column("event_id", _uuid, nullable=False),
    sa.Column("stream", sa.String(80), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("type", sa.String(64), nullable=False),
    sa.Column("schema", sa.Integer, nullable=False),
    sa.Column("payload", _json, nullable=False),
    sa.Column("meta", _json, nullable=False),
    sa.Column("recorded_at", sa.String(27), nullable=False),
    sa.Column("prev_hash", sa.String(64), nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
    sa.UniqueConstraint("event_id", name="uq_events_event_id"),
    sa.UniqueConstraint("stream", "version", name="uq_events_stream_version"),
    sa.CheckConstraint("seq > 0", name="ck_events_seq_positive"),
    sa.CheckConstraint("version > 0", name="ck_events_version_positive"),
    sa.CheckConstraint("schema > 0", name="ck_events_schema_positive"),
)
"""One row per event, in `seq` order; the hash chain runs over `seq`."""

checkpoints = sa.Table(
    "checkpoints",
    metadata,
    sa.Column("tree_size", _seq, primary_key=True, autoincrement=False),
    sa.Column("root", sa.String(64), nullable=False),
    sa.Column("created_at", sa.String(27), nullable=False),
    sa.Column("key_id", sa.String(64), nullable=False),
    sa.Column("signature", sa.String(88), nullable=False),
    sa.CheckConstraint("tree_size > 0", name="ck_checkpoints_tree_size_positive"),
)
"""One signed Merkle tree head per tree size (`ledger.tree_head.Checkpoint`), never changed."""

merkle_subtrees = sa.Table(
    "merkle_subtrees",
    metadata,
    sa.Column("level", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("position", _seq, primary_key=True, autoincrement=False),
    sa.Column("hash", sa.String(64), nullable=False),
)
"""The hash of leaves `position * 2**level` to `(position + 1) * 2**level` (exclusive), for
every complete, aligned subtree of at least 256 leaves of a checkpointed tree."""
