"""Signed checkpoints and the Merkle subtrees behind their proofs, both append-only.

`checkpoints` holds one signed tree head per tree size (docs/proofs.md). `merkle_subtrees`
holds the hash of every complete subtree of at least 256 leaves, aligned on its size, of
the trees checkpointed so far: such a subtree never changes in an append-only log, and with
them an inclusion or consistency proof reads a few hundred event hashes instead of all of
them. Like the events, neither table accepts UPDATE or DELETE (nor TRUNCATE on PostgreSQL),
and on SQLite an insert may not replace a stored row (INSERT OR REPLACE deletes without
firing DELETE triggers).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

_TABLES = {
    "checkpoints": "tree_size = NEW.tree_size",
    "merkle_subtrees": ("level = NEW.level AND position = NEW.position"),
}


def _sqlite_triggers(table: str, same_key: str) -> list[str]:
    refused = f"arbitru ledger: {table} rows are never changed"
    return [
        f"""
        CREATE TRIGGER {table}_refuse_{action.lower()} BEFORE {action} ON {table}
        BEGIN
            SELECT RAISE(ABORT, '{refused}, {action} is refused');
        END
        """
        for action in ("UPDATE", "DELETE")
    ] + [
        f"""
        CREATE TRIGGER {table}_refuse_replace BEFORE INSERT ON {table}
        WHEN EXISTS (SELECT 1 FROM {table} WHERE {same_key})
        BEGIN
            SELECT RAISE(ABORT, '{refused}, a stored row may not be replaced');
        END
        """
    ]


_POSTGRES_FUNCTION = """
CREATE FUNCTION arbitru_checkpoints_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'arbitru ledger: % rows are never changed, % is refused',
        TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END
$$
"""


def _postgres_triggers(table: str) -> list[str]:
    return [
        f"""
        CREATE TRIGGER {table}_refuse_update_delete BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION arbitru_checkpoints_refuse_change()
        """,
        f"""
        CREATE TRIGGER {table}_refuse_truncate BEFORE TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION arbitru_checkpoints_refuse_change()
        """,
    ]


def upgrade() -> None:
    is_postgres = op.get_bind().dialect.name == "postgresql"
    big = sa.BigInteger() if is_postgres else sa.Integer()
    op.create_table(
        "checkpoints",
        sa.Column("tree_size", big, primary_key=True, autoincrement=False),
        sa.Column("root", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(27), nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(88), nullable=False),
        sa.CheckConstraint("tree_size > 0", name="ck_checkpoints_tree_size_positive"),
    )
    op.create_table(
        "merkle_subtrees",
        sa.Column("level", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("position", big, primary_key=True, autoincrement=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )
    if is_postgres:
        op.execute(_POSTGRES_FUNCTION)
    for table, same_key in _TABLES.items():
        statements = _postgres_triggers(table) if is_postgres else _sqlite_triggers(table, same_key)
        for statement in statements:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().execute(sa.text("SELECT count(*) FROM checkpoints")).scalar():
        raise RuntimeError(
            "the checkpoints cannot be removed: they are signed records others may hold. "
            "To start afresh, create a new database."
        )
    op.drop_table("merkle_subtrees")
    op.drop_table("checkpoints")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION arbitru_checkpoints_refuse_change()")
