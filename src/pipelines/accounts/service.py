"""Accounts and roles recorded: the events that create an account, grant a role and revoke
one, appended to the account's stream at the version they were decided on.

As a game's commands are (`pipelines.games.service`): the stream is read and the command
decided without a lock, then appended at the version read; when another process wrote to the
account in between, the ledger refuses (`VersionConflict`) and the command is decided again
under the ledger's append lock, once, and recorded or refused with the reason (two processes
creating one account: one creates it, the other is told it exists). Nothing is appended onto
a ledger that fails its quick check or whose account stream no longer gives its hashes
(`LedgerAltered`). Who may create accounts or grant roles is the server's business: `actor`
is recorded as given, as `meta.actor`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ledger import NewEvent, RecordedEvent, VersionConflict
from ledger.errors import LedgerAltered
from pipelines.accounts.events import (
    ROLES,
    AccountCreated,
    AccountEvent,
    RoleGranted,
    RoleRevoked,
    encode,
    scope_problem,
)
from pipelines.accounts.roster import EMPTY_ROSTER, Account, Grant, Roster
from pipelines.games import limits
from pipelines.games.service import CommandRefused, events_altered, ledger_altered

if TYPE_CHECKING:
    from ledger import EventStore

__all__ = [
    "AccountRefused",
    "change_role",
    "create_account",
    "grant_role",
    "require_account",
    "revoke_role",
    "stream_of",
]


class AccountRefused(CommandRefused):
    """An account command that cannot be recorded; `code` says why (`bad_...` for unusable
    input, exit 2; `account_exists`, `no_account`, `not_granted` refused, exit 1). Nothing
    was written."""

    def __init__(self, message: str, code: str, conflicts: int = 0) -> None:
        super().__init__(message, code, conflicts)
        if code.startswith("bad_"):
            self.exit_code = 2


Decision = Callable[[Roster], list[AccountEvent]]
"""What a command decides on the account's own events folded: the events to record."""


def stream_of(account_id: str) -> str:
    """The stream of an account (its id checked: `AccountRefused` `bad_account_id`)."""
    return f"account/{_account_id(account_id)}"


def create_account(
    store: EventStore, account_id: str, name: str, actor: str
) -> list[RecordedEvent]:
    """Record a new account (`AccountCreated`); `account_exists` when the id is taken."""
    stream = stream_of(account_id)
    named = _checked("name", name, "bad_name", "name")

    def decide(roster: Roster) -> list[AccountEvent]:
        if roster.exists(account_id):
            raise AccountRefused(f"account {account_id} already exists", "account_exists")
        return [AccountCreated(account_id, named)]

    return _record(store, stream, decide, actor)


def change_role(
    change: type[RoleGranted | RoleRevoked],
    store: EventStore,
    account_id: str,
    role: str,
    *,
    game_id: str | None = None,
    tournament_id: str | None = None,
    actor: str,
) -> list[RecordedEvent]:
    """Record `change` of an existing account's role on its scope: `RoleGranted` gives it
    (nothing is recorded when the account holds it already: a grant repeated changes
    nothing); `RoleRevoked` ends a grant the account holds, with the grant's own fields
    (`not_granted` when it holds no such grant)."""
    grant = _grant(account_id, role, game_id, tournament_id)

    def decide(roster: Roster) -> list[AccountEvent]:
        _must_exist(roster, grant.account_id)
        held = grant in roster.grants
        if change is RoleRevoked and not held:
            raise AccountRefused(
                f"account {grant.account_id} does not hold {grant.role}{_on(grant)}: nothing "
                "to revoke",
                "not_granted",
            )
        if change is RoleGranted and held:
            return []
        return [change(**vars(grant))]

    return _record(store, stream_of(grant.account_id), decide, actor)


grant_role = partial(change_role, RoleGranted)
"""Record a role given to an existing account (`change_role` with `RoleGranted`)."""

revoke_role = partial(change_role, RoleRevoked)
"""Record the end of a grant the account holds (`change_role` with `RoleRevoked`)."""


def require_account(store: EventStore, account_id: str) -> Account:
    """The account as created, read from its own stream (`AccountRefused` `no_account` when
    there is none): what a command on an account's secrets checks first."""
    roster = EMPTY_ROSTER.folded(store.read_stream(stream_of(account_id)))
    _must_exist(roster, account_id)
    return roster.accounts[account_id]


def _record(store: EventStore, stream: str, decide: Decision, actor: str) -> list[RecordedEvent]:
    """Decide on the account's events and append at the version read; on a conflict, decide
    again and append under the append lock (the module docstring)."""
    who = _checked("actor", actor, "bad_actor", "actor")
    altered = ledger_altered(store)
    if altered is not None:
        raise LedgerAltered(altered)
    version, events = _decided(store, stream, decide, who)
    if not events:
        return []
    try:
        return store.append(stream, events, expected_version=version)
    except VersionConflict:
        with store.writer() as writer:  # the append lock: nobody writes until this commits
            try:
                version, events = _decided(store, stream, decide, who)
            except AccountRefused as exc:
                raise AccountRefused(
                    f"{exc} (another process wrote to {stream} first; the command was decided "
                    "again on what it recorded)",
                    exc.code,
                    1,
                ) from None
            return writer.append(stream, events, expected_version=version) if events else []


def _decided(
    store: EventStore, stream: str, decide: Decision, actor: str
) -> tuple[int, list[NewEvent]]:
    """The account stream's version and the events `decide` makes on its fold."""
    stored = store.read_stream(stream)
    altered = events_altered(stored)
    if altered is not None:
        raise LedgerAltered(altered)
    roster = EMPTY_ROSTER.folded(stored)
    made = []
    for event in decide(roster):
        type_name, payload = encode(event)
        made.append(NewEvent(type_name, payload, {"actor": actor}))
    return (stored[-1].version if stored else 0), made


def _must_exist(roster: Roster, account_id: str) -> None:
    if not roster.exists(account_id):
        raise AccountRefused(f"no account {account_id} in this ledger", "no_account")


def _grant(account_id: str, role: str, game_id: str | None, tournament_id: str | None) -> Grant:
    """The grant asked for, its role and scope checked (`bad_role`, `bad_scope`)."""
    if role not in ROLES:
        raise AccountRefused(str(scope_problem(role, None, None)), "bad_role")
    game = None if game_id is None else _scope_id(game_id, "game")
    tournament = None if tournament_id is None else _scope_id(tournament_id, "tournament")
    problem = scope_problem(role, game, tournament)
    if problem is not None:
        raise AccountRefused(problem, "bad_scope")
    return Grant(account_id, role, game, tournament)


def _on(grant: Grant) -> str:
    if grant.game_id is not None:
        return f" on game {grant.game_id}"
    if grant.tournament_id is not None:
        return f" on tournament {grant.tournament_id}"
    return ""


def _account_id(value: str) -> str:
    try:
        return limits.check_id("account", value, "account id")
    except limits.LimitError as exc:
        raise AccountRefused(str(exc), "bad_account_id") from None


def _scope_id(value: str, what: str) -> str:
    try:
        return limits.check_id("account", value, f"{what} id")
    except limits.LimitError as exc:
        message = str(exc).replace("an account id", f"a {what} id")
        raise AccountRefused(message, f"bad_{what}_id") from None


def _checked(kind: str, value: str, code: str, where: str) -> str:
    try:
        return limits.check_text(kind, value, where)
    except limits.LimitError as exc:
        raise AccountRefused(str(exc), code) from None
