"""The accounts' secrets: password hashes, API tokens, sessions and idempotency keys.

Accounts and their roles are events (`account/<id>` streams); what proves a request comes from
an account is not. These are plain tables beside the chain: no hash, no append-only trigger (a
password changes, a token is revoked, a session ends), never exported, verified or
checkpointed. Tokens and session ids are stored as their SHA-256 only. Times are UTC text as
`recorded_at` is written. The definitions are restated here (not imported from
`ledger.schema`) so that this migration never changes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def _account(primary: bool = False) -> sa.Column:
    return sa.Column("account_id", sa.String(64), nullable=False, primary_key=primary)


def _time(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.String(27), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "account_passwords",
        _account(primary=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        _time("updated_at"),
    )
    op.create_table(
        "api_tokens",
        sa.Column("token_sha256", sa.String(64), primary_key=True),
        _account(),
        _time("created_at"),
        _time("revoked_at", nullable=True),
    )
    op.create_index("ix_api_tokens_account_id", "api_tokens", ["account_id"])
    op.create_table(
        "sessions",
        sa.Column("session_sha256", sa.String(64), primary_key=True),
        _account(),
        _time("created_at"),
        _time("expires_at"),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    op.create_table(
        "idempotency_keys",
        _account(primary=True),
        sa.Column("idempotency_key", sa.String(255), primary_key=True),
        sa.Column("request_sha256", sa.String(64), nullable=False),
        _time("created_at"),
    )


def downgrade() -> None:
    op.drop_table("idempotency_keys")
    op.drop_index("ix_sessions_expires_at", table_name="sessions")
    op.drop_index("ix_sessions_account_id", table_name="sessions")
    op.drop_table("sessions")
    op.drop_index("ix_api_tokens_account_id", table_name="api_tokens")
    op.drop_table("api_tokens")
    op.drop_table("account_passwords")
