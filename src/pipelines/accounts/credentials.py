"""How an account proves who it is: passwords, API tokens, sessions, and the idempotency keys
of its requests, kept beside the chain and never in it.

A role is a fact of the record (`pipelines.accounts.events`); a secret is not. These live in
plain tables of the ledger's database (`ledger.account_secrets`: `account_passwords`, `api_tokens`,
`sessions`, `idempotency_keys`), which no export, verification or checkpoint reads, and no
function here logs or returns a stored secret. Passwords are kept as Argon2id hashes (slow on
purpose; `argon2` is imported only by the functions that hash). Tokens and session ids are
long random strings handed out once and stored only as their SHA-256: a request's check is one
primary-key lookup of a digest, microseconds, and a copy of the database opens nothing.

Whether the account exists, or may do what it asks, is the roster's and the server's
question, not this module's.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ledger.account_secrets import account_passwords, api_tokens, idempotency_keys, sessions
from ledger.database import read_transaction, single_read, write_transaction

if TYPE_CHECKING:
    from ledger import EventStore

SESSION_LIFETIME = timedelta(hours=12)
"""How long a session lasts unless told otherwise: a tournament day."""

TOKEN_BYTES = 32
"""Random bytes in a token or a session id (43 URL-safe characters)."""

KEY_LONGEST = 255
"""The longest idempotency key kept (its column's width)."""

_KEYS_AT_ONCE = 200
"""(account, key) pairs, or tokens, looked up by one query."""


def digest(secret: str) -> str:
    """The SHA-256 of a token or session id, in hex: what is stored and looked up."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    """A time as the secrets' tables hold it: `recorded_at`'s text, which sorts as it compares."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _writing(store: EventStore) -> Any:
    """A write transaction on the secrets' tables: no append waits for it on PostgreSQL."""
    return write_transaction(store.engine, lock_key=None)


# --- passwords ---------------------------------------------------------------------------


@functools.cache
def _hasher() -> Any:
    """Argon2id with argon2-cffi's defaults (RFC 9106's second recommended set, lowered)."""
    from argon2 import PasswordHasher

    return PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """A hash of nothing anyone knows, verified against for an account without a password, so
    that such an answer takes as long as a wrong password's."""
    return _hasher().hash(secrets.token_urlsafe(TOKEN_BYTES))


def set_password(store: EventStore, account: str, password: str) -> None:
    """Set (or replace) the account's password, kept as its Argon2id hash."""
    hashed = _hasher().hash(password)
    row = {"account_id": account, "password_hash": hashed, "updated_at": _stamp(_now())}
    with _writing(store) as connection:
        connection.execute(
            sa.delete(account_passwords).where(account_passwords.c.account_id == account)
        )
        connection.execute(sa.insert(account_passwords).values(**row))


def check_password(store: EventStore, account: str, password: str) -> bool:
    """Whether `password` is the account's. An account without a password (or unknown) costs
    a verification too, against a dummy hash, and is False."""
    from argon2.exceptions import InvalidHashError, VerificationError

    query = sa.select(account_passwords.c.password_hash).where(
        account_passwords.c.account_id == account
    )
    with read_transaction(store.engine) as connection:
        stored = connection.execute(query).scalar_one_or_none()
    try:
        verified = _hasher().verify(stored or _dummy_hash(), password)
    except (VerificationError, InvalidHashError):
        return False
    return bool(verified and stored is not None)


# --- API tokens --------------------------------------------------------------------------


def issue_token(store: EventStore, account: str) -> str:
    """A new API token for the account, returned this once: only its SHA-256 is kept."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    row = {"token_sha256": digest(token), "account_id": account, "created_at": _stamp(_now())}
    with _writing(store) as connection:
        connection.execute(sa.insert(api_tokens).values(**row))
    return token


def accounts_for_tokens(store: EventStore, tokens: Iterable[str]) -> dict[str, str]:
    """The account each of `tokens` was issued to, for those valid (known, not revoked): a
    primary-key lookup of each one's SHA-256, the tokens of a rush's requests in one query
    (`pipelines.server.shared_reads`)."""
    by_digest = {digest(token): token for token in tokens}
    found: dict[str, str] = {}
    listed = list(by_digest)
    if not listed:
        return found
    with single_read(store.engine) as connection:
        for start in range(0, len(listed), _KEYS_AT_ONCE):
            chunk = listed[start : start + _KEYS_AT_ONCE]
            for row in connection.execute(_VALID_TOKENS, {"digests": chunk}):
                found[by_digest[row.token_sha256]] = row.account_id
    return found


_VALID_TOKENS = sa.select(api_tokens.c.token_sha256, api_tokens.c.account_id).where(
    api_tokens.c.token_sha256.in_(sa.bindparam("digests", expanding=True)),
    api_tokens.c.revoked_at.is_(None),
)
"""`accounts_for_tokens`' query, made once (a server runs it on every signed request)."""


def revoke_tokens(store: EventStore, account: str) -> int:
    """Revoke every live token of the account; how many were."""
    query = (
        sa.update(api_tokens)
        .where(api_tokens.c.account_id == account, api_tokens.c.revoked_at.is_(None))
        .values(revoked_at=_stamp(_now()))
    )
    with _writing(store) as connection:
        return connection.execute(query).rowcount


# --- sessions ----------------------------------------------------------------------------


def open_session(store: EventStore, account: str, lifetime: timedelta = SESSION_LIFETIME) -> str:
    """A new session id for the account, valid for `lifetime`, returned this once. Sessions
    already expired are removed on the way, so the table holds live sessions only."""
    session_id = secrets.token_urlsafe(TOKEN_BYTES)
    now = _now()
    row = {
        "session_sha256": digest(session_id),
        "account_id": account,
        "created_at": _stamp(now),
        "expires_at": _stamp(now + lifetime),
    }
    with _writing(store) as connection:
        connection.execute(sa.delete(sessions).where(sessions.c.expires_at <= _stamp(now)))
        connection.execute(sa.insert(sessions).values(**row))
    return session_id


def account_for_session(store: EventStore, session_id: str) -> str | None:
    """The account of a live session, or None (unknown, closed or expired)."""
    query = sa.select(sessions.c.account_id).where(
        sessions.c.session_sha256 == digest(session_id),
        sessions.c.expires_at > _stamp(_now()),
    )
    with read_transaction(store.engine) as connection:
        return connection.execute(query).scalar_one_or_none()


def close_session(store: EventStore, session_id: str) -> None:
    """End a session (signing out); an unknown one is already ended."""
    query = sa.delete(sessions).where(sessions.c.session_sha256 == digest(session_id))
    with _writing(store) as connection:
        connection.execute(query)


# --- idempotency keys --------------------------------------------------------------------


def remember_request(store: EventStore, account: str, key: str, request_sha256: str) -> str | None:
    """Remember that the account's idempotency `key` was used for the request of digest
    `request_sha256`: None when the key is new (now remembered), else the digest it was first
    used for (the same digest: a retry; another: the key reused for another request)."""
    if not 1 <= len(key) <= KEY_LONGEST:
        raise ValueError(f"an idempotency key has 1 to {KEY_LONGEST} characters, not {len(key)}")
    found = _remembered(store, account, key)
    if found is not None:
        return found
    row = {
        "account_id": account,
        "idempotency_key": key,
        "request_sha256": request_sha256,
        "created_at": _stamp(_now()),
    }
    try:
        with _writing(store) as connection:
            connection.execute(sa.insert(idempotency_keys).values(**row))
    except sa.exc.IntegrityError:  # the same key, at the same moment, from another request
        return _remembered(store, account, key)
    return None


def _remembered(store: EventStore, account: str, key: str) -> str | None:
    query = sa.select(idempotency_keys.c.request_sha256).where(
        idempotency_keys.c.account_id == account, idempotency_keys.c.idempotency_key == key
    )
    with read_transaction(store.engine) as connection:
        return connection.execute(query).scalar_one_or_none()


def remembered_keys(
    connection: Connection, keys: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """The request digests the (account, key) pairs among `keys` were first used for, read
    through `connection` (a server's batch of writes reads them all at once, under the
    append lock, in the transaction that appends them)."""
    wanted = sorted(set(keys))
    found: dict[tuple[str, str], str] = {}
    for start in range(0, len(wanted), _KEYS_AT_ONCE):
        chunk = wanted[start : start + _KEYS_AT_ONCE]
        found.update(((a, k), d) for a, k, d in connection.execute(_REMEMBERED, {"pairs": chunk}))
    return found


def remember_keys(connection: Connection, keys: dict[tuple[str, str], str]) -> set[tuple[str, str]]:
    """Remember each (account, key) not remembered yet with the digest of its request,
    through `connection`, in the transaction that appends what those requests record: the
    key and the write then commit together or not at all. The pairs it remembered now (the
    others were remembered before: `remembered_keys` tells for what). Where the database
    returns the rows it inserted, that is one statement for the whole batch, under the
    append lock, instead of a look-up and an insert."""
    if not keys:
        return set()
    at = _stamp(_now())
    rows = [(a, k, d, at) for (a, k), d in keys.items()]
    marker = _MARKERS[connection.dialect.paramstyle]
    if not connection.dialect.insert_returning:  # an old SQLite: looked up first
        before = remembered_keys(connection, keys)
        rows = [r for r in rows if r[:2] not in before]
        if rows:
            connection.exec_driver_sql(_remember(marker, 1, returning=False), rows)
        return {r[:2] for r in rows}
    remembered: set[tuple[str, str]] = set()
    for start in range(0, len(rows), _KEYS_AT_ONCE):
        chunk = rows[start : start + _KEYS_AT_ONCE]
        flat = tuple(value for row in chunk for value in row)
        inserted = connection.exec_driver_sql(_remember(marker, len(chunk)), flat)
        remembered.update((a, k) for a, k in inserted)
    return remembered


_KEYS = idempotency_keys.c
_REMEMBERED = sa.select(_KEYS.account_id, _KEYS.idempotency_key, _KEYS.request_sha256).where(
    sa.tuple_(_KEYS.account_id, _KEYS.idempotency_key).in_(sa.bindparam("pairs", expanding=True))
)
"""Built once, so that each batch's look-up is compiled from SQLAlchemy's cache."""

_MARKERS = {"qmark": "?", "format": "%s", "pyformat": "%s"}
"""The driver's placeholder, by its paramstyle (sqlite3's, psycopg's)."""


@functools.lru_cache(maxsize=2 * _KEYS_AT_ONCE)
def _remember(marker: str, rows: int, *, returning: bool = True) -> str:
    """The insert of `rows` keys that leaves a key already remembered as it is, written for
    the driver: SQLAlchemy's insert of many rows built each row's parameters in Python, a
    third of the time a batch of slips held the append lock."""
    row = "(" + ", ".join([marker] * 4) + ")"
    return (
        "INSERT INTO idempotency_keys (account_id, idempotency_key, request_sha256, created_at)"
        f" VALUES {', '.join([row] * rows)} ON CONFLICT DO NOTHING"
        + (" RETURNING account_id, idempotency_key" if returning else "")
    )
