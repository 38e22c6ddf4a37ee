"""The accounts' secrets: plain tables of the ledger's database beside the chain.

Who an account is and which roles it holds are events (account/<id> streams). How it proves
it is that account is not: password hashes, API tokens and sessions live in these plain
tables, outside the chain (no hash, no append-only trigger: a password changes, a token is
revoked, a session expires), and no export, verification or checkpoint reads them. Tokens and
session ids are stored only as their SHA-256, so a copy of the database lets no one in.
`pipelines.accounts.credentials` reads and writes them; migration 0007 creates them. Times are
UTC text as `recorded_at` writes them (`YYYY-MM-DDTHH:MM:SS.ffffffZ`), which sorts as it
compares on every backend. Apart from `ledger.schema` so that the commands that read games
do not build them.
"""

from __future__ import annotations

import sqlalchemy as sa

from ledger.schema import metadata


def _account_id(primary: bool = False) -> sa.Column[str]:
    return sa.Column(
        "account_id", sa.String(64), nullable=False, primary_key=primary, index=not primary
    )


def _time(name: str, nullable: bool = False, index: bool = False) -> sa.Column[str]:
    return sa.Column(name, sa.String(27), nullable=nullable, index=index)


def _digest(name: str) -> sa.Column[str]:
    return sa.Column(name, sa.String(64), primary_key=True, autoincrement=False)


account_passwords = sa.Table(
    "account_passwords",
    metadata,
    _account_id(primary=True),
    sa.Column("password_hash", sa.Text, nullable=False),
    _time("updated_at"),
)
"""An account's password, as its Argon2id hash (salt and parameters included)."""

api_tokens = sa.Table(
    "api_tokens", metadata, _digest("token_sha256"), _account_id(), _time("created_at"),
    _time("revoked_at", nullable=True),
)  # fmt: skip
"""An account's API tokens by their SHA-256: a request's token is found by one primary-key
lookup. A revoked token stays, marked, so that a leaked one can be told from a mistyped one."""

sessions = sa.Table(
    "sessions", metadata, _digest("session_sha256"), _account_id(), _time("created_at"),
    _time("expires_at", index=True),
)  # fmt: skip
"""A signed-in browser's session by the SHA-256 of its id, until it expires or is closed."""

idempotency_keys = sa.Table(
    "idempotency_keys",
    metadata,
    _account_id(primary=True),
    sa.Column("idempotency_key", sa.String(255), primary_key=True, autoincrement=False),
    sa.Column("request_sha256", sa.String(64), nullable=False),
    _time("created_at"),
)
"""The request each account's idempotency key was first used for (its SHA-256): the server
tells a retry (same key, same request) from a key reused for another request."""
