"""The accounts' service and secrets, on SQLite and PostgreSQL: appends at the version read,
decided again after another process wrote first; passwords, tokens, sessions and idempotency
keys kept beside the chain."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from ledger import EventStore
from pipelines.accounts import credentials
from pipelines.accounts.service import AccountRefused, create_account, grant_role, revoke_role


@pytest.fixture
def store(db_url: str) -> Iterator[EventStore]:
    with EventStore(db_url) as opened:
        create_account(opened, "ana", "Ana Pop", actor="root")
        yield opened


def test_a_create_beaten_by_another_process_is_decided_again_and_told_the_account_exists(
    store: EventStore, db_url: str
) -> None:
    real = store.append

    def append_after_another(stream, events, expected_version=None):  # type: ignore[no-untyped-def]
        with EventStore(db_url) as other:
            create_account(other, "bob", "Bob of the other terminal", actor="other")
        return real(stream, events, expected_version)

    store.append = append_after_another  # type: ignore[method-assign]
    with pytest.raises(AccountRefused) as refused:
        create_account(store, "bob", "Bob", actor="root")
    assert refused.value.code == "account_exists" and refused.value.conflicts == 1
    assert "another process wrote to account/bob first" in str(refused.value)


def test_a_grant_beaten_by_another_write_is_recorded_after_it(
    store: EventStore, db_url: str
) -> None:
    real = store.append

    def append_after_another(stream, events, expected_version=None):  # type: ignore[no-untyped-def]
        store.append = real  # type: ignore[method-assign]
        with EventStore(db_url) as other:
            grant_role(other, "ana", "auditor", actor="other")
        return real(stream, events, expected_version)

    store.append = append_after_another  # type: ignore[method-assign]
    [recorded] = grant_role(store, "ana", "chief", game_id="g1", actor="root")
    assert (recorded.type, recorded.version) == ("RoleGranted", 3)


def test_revoking_records_the_grants_own_fields(store: EventStore) -> None:
    grant_role(store, "ana", "data-entry", tournament_id="t1", actor="root")
    [revoked] = revoke_role(store, "ana", "data-entry", tournament_id="t1", actor="root")
    assert revoked.payload == {"account_id": "ana", "role": "data-entry", "tournament_id": "t1"}
    with pytest.raises(AccountRefused, match="does not hold data-entry on tournament t1"):
        revoke_role(store, "ana", "data-entry", tournament_id="t1", actor="root")


def test_a_wrong_password_is_false_and_so_is_an_account_without_one(store: EventStore) -> None:
    credentials.set_password(store, "ana", "first password")
    credentials.set_password(store, "ana", "second password")
    assert credentials.check_password(store, "ana", "second password")
    assert not credentials.check_password(store, "ana", "first password")
    assert not credentials.check_password(store, "ana", "")
    assert not credentials.check_password(store, "zed", "second password")


def test_a_session_is_the_accounts_until_it_expires_or_is_closed(store: EventStore) -> None:
    live = credentials.open_session(store, "ana")
    expired = credentials.open_session(store, "ana", lifetime=timedelta(seconds=-1))
    closed = credentials.open_session(store, "ana", lifetime=timedelta(minutes=5))
    credentials.close_session(store, closed)
    assert credentials.account_for_session(store, live) == "ana"
    assert credentials.account_for_session(store, expired) is None
    assert credentials.account_for_session(store, closed) is None
    assert credentials.account_for_session(store, "not a session") is None


def test_sessions_and_tokens_are_stored_as_their_sha256_only(store: EventStore) -> None:
    session = credentials.open_session(store, "ana")
    token = credentials.issue_token(store, "ana")
    with store.engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT session_sha256 FROM sessions UNION ALL SELECT token_sha256 FROM api_tokens"
        ).scalars()
        stored = set(rows)
    assert stored == {credentials.digest(session), credentials.digest(token)}


def test_an_idempotency_key_returns_the_digest_it_was_first_used_for(store: EventStore) -> None:
    first, other = "a" * 64, "b" * 64
    assert credentials.remember_request(store, "ana", "key-1", first) is None
    assert credentials.remember_request(store, "ana", "key-1", first) == first
    assert credentials.remember_request(store, "ana", "key-1", other) == first
    assert credentials.remember_request(store, "bob", "key-1", other) is None
    with pytest.raises(ValueError, match="1 to 255"):
        credentials.remember_request(store, "ana", "k" * 256, first)


def test_the_chain_is_untouched_by_secrets(store: EventStore) -> None:
    head = store.head()
    credentials.issue_token(store, "ana")
    credentials.set_password(store, "ana", "a password")
    credentials.open_session(store, "ana")
    credentials.remember_request(store, "ana", "k", "c" * 64)
    assert store.head() == head
