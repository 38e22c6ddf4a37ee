"""The roster: every account and the roles it holds, folded from the account streams.

A projection, as a game's state is: nothing of it is stored, it is the fold of the
`account/<id>` events in `seq` order (`pipelines.accounts.events`). A grant repeated changes
nothing; a revoke ends the grant with the same role and scope. A server keeps one roster and
brings it up to date before each decision with `caught_up`, which reads only the events
recorded since the last `seq` it folded: the ledger is append-only, so what was folded stays
true and nothing is read twice.

`Account` and `Grant` are the fields of the events that make them (`pipelines.accounts.events`).
An arbiter's role on a game is held on the game itself or on its tournament (then on all the
tournament's games): `game_roles` takes both. A player of a game is not a role: it is the
account whose id joined the game (`PlayerJoined.player_id`), the game's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from pipelines.accounts.events import (
    ACCOUNT_TYPES,
    ROLES,
    Account,
    AccountCreated,
    AccountEventError,
    Grant,
    RoleRevoked,
    decode,
)

if TYPE_CHECKING:
    from ledger import EventStore

__all__ = ["EMPTY_ROSTER", "ROLES", "Account", "Grant", "Roster", "load_roster"]

ARBITER_ROLES = frozenset(role for role, scoped in ROLES.items() if scoped)
"""The roles held on one game or one tournament."""

ACCOUNT_PREFIX = "account/"
"""How the name of an account's stream starts (`account/<id>`)."""

_PAGE = 2000
"""Events read per query while catching up (`ledger.stream_prefix.follow_prefixed`'s pages)."""


class Folded(Protocol):
    """What a roster reads of an event: a `RecordedEvent`, or a row of `follow_prefixed`."""

    @property
    def seq(self) -> int: ...
    @property
    def stream(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def payload(self) -> Any: ...


@dataclass(frozen=True)
class Roster:
    """Every account and grant folded from the ledger up to `seq` (the last event read)."""

    seq: int = 0
    accounts: Mapping[str, Account] = field(default_factory=lambda: MappingProxyType({}))
    grants: frozenset[Grant] = frozenset()

    def exists(self, account: str) -> bool:
        """Whether the account was created."""
        return account in self.accounts

    def is_admin(self, account: str) -> bool:
        """Whether the account holds `admin` (the federation)."""
        return Grant(account, "admin") in self.grants

    def is_auditor(self, account: str) -> bool:
        """Whether the account holds `auditor` (reads the whole ledger)."""
        return Grant(account, "auditor") in self.grants

    def roles_of(self, account: str) -> list[Grant]:
        """The account's grants, ledger-wide roles first, then by game and tournament."""
        held = [g for g in self.grants if g.account_id == account]
        return sorted(held, key=lambda g: (g.role in ARBITER_ROLES, g.role, _scope_key(g)))

    def account_json(self, account: str) -> dict[str, Any]:
        """An account with its roles, never a secret: `arbitru accounts list --json` and the
        server's `GET /accounts` show each account so."""
        found = self.accounts[account]
        roles = [
            {"role": g.role, "game_id": g.game_id, "tournament_id": g.tournament_id}
            for g in self.roles_of(account)
        ]
        return {"account_id": found.account_id, "name": found.name, "roles": roles}

    def game_roles(
        self, account: str, game_id: str, tournament_id: str | None = None
    ) -> frozenset[str]:
        """The arbiter roles the account holds on a game: on the game itself, or on
        `tournament_id`, the tournament the game belongs to (None: it belongs to none)."""
        return frozenset(
            g.role
            for g in self.grants
            if g.account_id == account
            and (
                g.game_id == game_id
                or (tournament_id is not None and g.tournament_id == tournament_id)
            )
        )

    def folded(self, events: Iterable[Folded]) -> Roster:
        """A new roster with `events` (in `seq` order, after `seq`) folded: those of account
        streams change it, every event moves `seq`. The accounts and grants are copied only
        when an account event comes (a server folds every slip of a rush by here, where a
        copy of a thousand accounts each time cost more than the slip's own reading)."""
        accounts: dict[str, Account] | None = None
        grants: set[Grant] | None = None
        seq = self.seq
        for event in events:
            seq = event.seq
            if event.type in ACCOUNT_TYPES and event.stream.startswith(ACCOUNT_PREFIX):
                if accounts is None or grants is None:
                    accounts, grants = dict(self.accounts), set(self.grants)
                _fold(accounts, grants, event)
        if seq == self.seq:
            return self
        if accounts is None or grants is None:
            return replace(self, seq=seq)
        return replace(self, seq=seq, accounts=MappingProxyType(accounts), grants=frozenset(grants))

    def caught_up(self, store: EventStore) -> Roster:
        """A new roster with every event recorded after `seq` folded (this one when none was).
        The log after `seq` is followed a page at a time (`ledger.stream_prefix.follow_prefixed`):
        account events are few and scattered among a game's, so only theirs are read whole,
        the others' seqs alone; a server catches up before each decision, reading only what
        was recorded since the last one."""
        from ledger.stream_prefix import follow_prefixed

        roster = self
        while True:
            rows = follow_prefixed(store, ACCOUNT_PREFIX, roster.seq, _PAGE)
            roster = roster.folded(rows)
            if len(rows) < _PAGE:
                return roster


EMPTY_ROSTER = Roster()
"""The roster of an empty ledger."""


def load_roster(store: EventStore) -> Roster:
    """The roster of the whole ledger, up to its head: the `account/` streams only are read
    (`ledger.stream_prefix`), not every event before them, so that a server's first
    signed-in request costs the same on a ledger of ten thousand events as on one of a
    million. It then follows the log from the head with `caught_up`."""
    from ledger.stream_prefix import read_prefixed

    head, events = read_prefixed(store, ACCOUNT_PREFIX)
    return replace(EMPTY_ROSTER.folded(events), seq=head.seq)


def _fold(accounts: dict[str, Account], grants: set[Grant], event: Folded) -> None:
    """One account event applied. An event that does not decode (imported by an older or a
    lenient importer) or names another account than its stream's changes nothing: a roster
    never raises, as a game's fold never does."""
    try:
        decoded = decode(event.type, event.payload)
    except AccountEventError:
        return
    own = event.stream.split("/", 1)[1]
    if decoded.account_id != own:
        return
    if isinstance(decoded, AccountCreated):
        accounts.setdefault(own, Account(own, decoded.name))
        return
    grant = Grant(own, decoded.role, decoded.game_id, decoded.tournament_id)
    if isinstance(decoded, RoleRevoked):
        grants.discard(grant)
    elif own in accounts:
        grants.add(grant)


def _scope_key(grant: Grant) -> tuple[str, str]:
    return (grant.tournament_id or "", grant.game_id or "")
