"""PostgreSQL: refuse an insert that does not continue the chain, as SQLite does since 0002;
both backends: refuse a `hash` that is not 64 lowercase hexadecimal digits.

A raw INSERT (a script, a psql session) could otherwise add a row with a zero `prev_hash`, a
`hash` of '0' or a `seq` far ahead: the ledger could never verify again, and later appends
would build on it. The PostgreSQL trigger takes the append lock of every writer (the
transaction-level advisory lock, which a writer already holds, so it costs an appender
nothing), then reads the last event through the primary key: the check sees the last
committed event even for an inserter that did not take the lock itself, and rows inserted
earlier in the same statement or transaction.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

_GENESIS = "0" * 64
_APPEND_LOCK_KEY = 4715939964875076913  # "Arbitru1", as in ledger.database
_MESSAGE = (
    "arbitru ledger: events are append-only; an insert must continue the chain "
    "(seq = last seq + 1, prev_hash = last hash, hash = 64 lowercase hexadecimal digits)"
)

_POSTGRES = (
    f"""
    CREATE FUNCTION arbitru_events_continue_chain() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        last_seq bigint;
        last_hash text;
    BEGIN
        PERFORM pg_advisory_xact_lock({_APPEND_LOCK_KEY});
        SELECT seq, hash INTO last_seq, last_hash FROM events ORDER BY seq DESC LIMIT 1;
        IF NEW.seq IS DISTINCT FROM coalesce(last_seq, 0) + 1
           OR NEW.prev_hash IS DISTINCT FROM coalesce(last_hash, '{_GENESIS}')
           OR NEW.hash !~ '^[0-9a-f]{{64}}$' THEN
            RAISE EXCEPTION '{_MESSAGE}' USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END
    $$
    """,
    """
    CREATE TRIGGER events_continue_chain BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION arbitru_events_continue_chain()
    """,
)

_SQLITE = f"""
CREATE TRIGGER events_refuse_bad_hash BEFORE INSERT ON events
WHEN length(NEW.hash) IS NOT 64 OR NEW.hash GLOB '*[^0-9a-f]*'
BEGIN
    SELECT RAISE(ABORT, '{_MESSAGE}');
END
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in _POSTGRES:
            op.execute(statement)
    else:
        op.execute(_SQLITE)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER events_continue_chain ON events")
        op.execute("DROP FUNCTION arbitru_events_continue_chain()")
    else:
        op.execute("DROP TRIGGER events_refuse_bad_hash")
