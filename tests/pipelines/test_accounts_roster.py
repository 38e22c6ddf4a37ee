"""The roster is the fold of the account streams: a grant repeated changes nothing, a revoke
ends the matching grant, an arbiter's role on a tournament holds on its games, and catching up
in chunks gives the roster folding everything at once gives."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import RecordedEvent
from pipelines.accounts.roster import EMPTY_ROSTER, ROLES, Account, Grant

ACCOUNTS = ["ana", "bob", "cri"]


def _event(seq: int, stream: str, type_name: str, payload: dict) -> RecordedEvent:
    return RecordedEvent(
        seq, f"00000000-0000-4000-8000-{seq:012d}", stream, seq, type_name, 1, payload,
        {"actor": "root"}, "2026-12-01T10:00:00.000000Z", "0" * 64, "0" * 64,
    )  # fmt: skip


def _created(seq: int, account: str) -> RecordedEvent:
    return _event(seq, f"account/{account}", "AccountCreated",
                  {"account_id": account, "name": account.title()})  # fmt: skip


def _grant(seq: int, type_name: str, account: str, role: str, **scope: str) -> RecordedEvent:
    payload = {"account_id": account, "role": role, **scope}
    return _event(seq, f"account/{account}", type_name, payload)


def test_a_grant_repeated_changes_nothing_and_a_revoke_ends_it() -> None:
    roster = EMPTY_ROSTER.folded(
        [
            _created(1, "ana"),
            _grant(2, "RoleGranted", "ana", "chief", game_id="g1"),
            _grant(3, "RoleGranted", "ana", "chief", game_id="g1"),
        ]
    )
    assert roster.grants == {Grant("ana", "chief", "g1")}
    assert roster.accounts == {"ana": Account("ana", "Ana")}
    after = roster.folded([_grant(4, "RoleRevoked", "ana", "chief", game_id="g1")])
    assert after.grants == frozenset() and after.seq == 4


def test_a_revoke_of_another_scope_ends_nothing() -> None:
    roster = EMPTY_ROSTER.folded(
        [
            _created(1, "ana"),
            _grant(2, "RoleGranted", "ana", "deputy", tournament_id="t1"),
            _grant(3, "RoleRevoked", "ana", "deputy", game_id="t1"),
        ]
    )
    assert roster.game_roles("ana", "g9", "t1") == {"deputy"}


def test_events_of_other_streams_move_seq_and_change_nothing() -> None:
    game = _event(1, "game/g1", "GameCreated", {"game_id": "g1", "variant": "duplicate"})
    roster = EMPTY_ROSTER.folded([game])
    assert roster.seq == 1 and not roster.accounts and not roster.grants


def test_a_grant_naming_another_account_than_its_stream_or_undecodable_changes_nothing() -> None:
    roster = EMPTY_ROSTER.folded(
        [
            _created(1, "ana"),
            _event(2, "account/ana", "RoleGranted", {"account_id": "bob", "role": "admin"}),
            _event(3, "account/ana", "RoleGranted", {"account_id": "ana", "role": "king"}),
        ]
    )
    assert roster.grants == frozenset() and roster.seq == 3


_scopes = st.sampled_from([{}, {"game_id": "g1"}, {"game_id": "g2"}, {"tournament_id": "t1"}])


@st.composite
def _histories(draw: st.DrawFn) -> list[RecordedEvent]:
    """Account streams as a ledger may hold them: created first, then grants and revokes
    (valid or not for their role), interleaved with game events."""
    events: list[RecordedEvent] = []
    created: list[str] = []
    for _ in range(draw(st.integers(0, 40))):
        seq = len(events) + 1
        kind = draw(st.sampled_from(["create", "grant", "revoke", "game"]))
        account = draw(st.sampled_from(ACCOUNTS))
        if kind == "create" and account not in created:
            created.append(account)
            events.append(_created(seq, account))
        elif kind in ("grant", "revoke") and created:
            owner = draw(st.sampled_from(created))
            type_name = "RoleGranted" if kind == "grant" else "RoleRevoked"
            role = draw(st.sampled_from(sorted(ROLES)))
            events.append(_grant(seq, type_name, owner, role, **draw(_scopes)))
        else:
            events.append(_event(seq, "game/g1", "PlayerJoined", {"player_id": "p1"}))
    return events


@settings(max_examples=200, deadline=None)
@given(history=_histories(), cuts=st.lists(st.integers(0, 40), max_size=5))
def test_catching_up_in_chunks_folds_the_same_as_replaying_in_one_go(
    history: list[RecordedEvent], cuts: list[int]
) -> None:
    whole = EMPTY_ROSTER.folded(history)
    roster = EMPTY_ROSTER
    edges = sorted({0, len(history), *(min(c, len(history)) for c in cuts)})
    for start, end in itertools.pairwise(edges):
        roster = roster.folded(history[start:end])
    assert roster == whole
    assert roster.seq == (history[-1].seq if history else 0)
    for grant in whole.grants:
        assert grant.account_id in whole.accounts
