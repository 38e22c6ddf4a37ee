"""SQLite: refuse an insert that would replace a stored event or not continue the chain.

SQLite's `INSERT OR REPLACE` deletes the clashing row without firing the DELETE trigger of
0001 (unless `recursive_triggers` is on), so it could rewrite history. This BEFORE INSERT
trigger refuses any insert whose `seq`, `event_id` or (`stream`, `version`) is already
stored, and any insert that does not continue the chain: `seq` must be the last seq + 1 and
`prev_hash` the last hash (the genesis hash for seq 1). PostgreSQL needs nothing: its
`ON CONFLICT DO UPDATE` fires the UPDATE trigger of 0001.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

_GENESIS = "0" * 64
_MESSAGE = (
    "arbitru ledger: events are append-only; an insert must continue the chain "
    "(seq = last seq + 1, prev_hash = last hash) with a new event_id and (stream, version)"
)

_SQLITE_TRIGGER = f"""
CREATE TRIGGER events_refuse_replace BEFORE INSERT ON events
WHEN EXISTS (
        SELECT 1 FROM events
        WHERE seq = NEW.seq
           OR event_id = NEW.event_id
           OR (stream = NEW.stream AND version = NEW.version)
    )
    OR NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM events)
    OR NEW.prev_hash IS NOT coalesce(
        (SELECT hash FROM events ORDER BY seq DESC LIMIT 1), '{_GENESIS}'
    )
BEGIN
    SELECT RAISE(ABORT, '{_MESSAGE}');
END
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(_SQLITE_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER events_refuse_replace")
