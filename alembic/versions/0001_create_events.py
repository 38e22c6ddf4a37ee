"""Create the events table, append-only by trigger.

The table is written out here rather than imported from `ledger.schema`: a migration is a
fixed record of what the schema was at that revision. UPDATE and DELETE (and TRUNCATE on
PostgreSQL) are refused by triggers, so that even SQL typed by hand cannot rewrite history.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

_SQLITE_TRIGGERS = (
    """
    CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
    BEGIN
        SELECT RAISE(ABORT, 'arbitru ledger: events are append-only, UPDATE is refused');
    END
    """,
    """
    CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
    BEGIN
        SELECT RAISE(ABORT, 'arbitru ledger: events are append-only, DELETE is refused');
    END
    """,
)

_POSTGRES_TRIGGERS = (
    """
    CREATE FUNCTION arbitru_events_refuse_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'arbitru ledger: events are append-only, % is refused', TG_OP
            USING ERRCODE = 'restrict_violation';
    END
    $$
    """,
    """
    CREATE TRIGGER events_refuse_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION arbitru_events_refuse_change()
    """,
    """
    CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION arbitru_events_refuse_change()
    """,
)


def upgrade() -> None:
    is_postgres = op.get_bind().dialect.name == "postgresql"
    json = postgresql.JSONB() if is_postgres else sa.JSON()
    op.create_table(
        "events",
        sa.Column(
            "seq",
            sa.BigInteger() if is_postgres else sa.Integer(),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column(
            "event_id",
            postgresql.UUID(as_uuid=False) if is_postgres else sa.String(36),
            nullable=False,
        ),
        sa.Column("stream", sa.String(80), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("schema", sa.Integer(), nullable=False),
        sa.Column("payload", json, nullable=False),
        sa.Column("meta", json, nullable=False),
        sa.Column("recorded_at", sa.String(27), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("event_id", name="uq_events_event_id"),
        sa.UniqueConstraint("stream", "version", name="uq_events_stream_version"),
        sa.CheckConstraint("seq > 0", name="ck_events_seq_positive"),
        sa.CheckConstraint("version > 0", name="ck_events_version_positive"),
        sa.CheckConstraint("schema > 0", name="ck_events_schema_positive"),
    )
    for statement in _POSTGRES_TRIGGERS if is_postgres else _SQLITE_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    raise RuntimeError(
        "the ledger's first migration cannot be undone: it would destroy the records. "
        "To start afresh, create a new database."
    )
