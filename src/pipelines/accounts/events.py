"""The account events of the record format as typed values, and the check an account event's
payload passes before it is recorded or imported.

Who holds which role is part of the record, as a game's decisions are: `AccountCreated`,
`RoleGranted` and `RoleRevoked` on the account's stream `account/<id>`, with the account that
made them as `meta.actor`. These events are not a game's, so the engine does not know them:
they are read here, field by field, with every value held to the limits every command holds to
(`pipelines.games.limits`), and a grant's scope held to its role (`ROLES`). `check_payload` is
the import's payload check for every event type: an account event is checked here, any other
by the games' own check (`pipelines.games.records`), so that `ledger import` refuses a malformed
line of either, naming its field, and writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from engine.echo import echo
from ledger.catalogue import STREAM_KINDS
from pipelines.games import limits
from pipelines.games.records import check_payload as check_game_payload

ROLES: Mapping[str, bool] = MappingProxyType(
    {
        "admin": False,
        "auditor": False,
        "chief": True,
        "deputy": True,
        "data-entry": True,
        "read-only": True,
    }
)
"""Every role, and whether it is held on one game or one tournament (True) or on the whole
ledger (False). `admin`: the federation (accounts, tournaments, appointing arbiters);
`auditor`: reads the whole ledger; on a game or a tournament (then on all its games): `chief`
(every command, and alone closes rounds and ends the game), `deputy` (every command but
closing and ending), `data-entry` (enters paper slips for players, decides nothing),
`read-only` (sees all, writes nothing). What each role may do is the server's to enforce."""

ACCOUNT_TYPES: tuple[str, ...] = STREAM_KINDS["account"].types
"""The event types of an account's stream."""

CURRENT_SCHEMA = 1
"""The payload schema of the account events this code writes and reads."""


class AccountEventError(ValueError):
    """An account event's payload that does not fit its type; `field` names the field."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


@dataclass(frozen=True)
class Account:
    """An account: its id (its stream's, and the id it plays under when it joins a game) and
    the name shown for it."""

    account_id: str
    name: str


@dataclass(frozen=True)
class Grant:
    """A role an account holds: on the whole ledger (neither id: `admin`, `auditor`) or on one
    game or one tournament (the arbiter roles)."""

    account_id: str
    role: str
    game_id: str | None = None
    tournament_id: str | None = None


@dataclass(frozen=True)
class AccountCreated(Account):
    """The event that creates an account, with the account's fields."""


@dataclass(frozen=True)
class RoleGranted(Grant):
    """The event that gives an account a role, with the grant's fields."""


@dataclass(frozen=True)
class RoleRevoked(Grant):
    """The event that ends a grant, with the fields of the grant it ends."""


AccountEvent = AccountCreated | RoleGranted | RoleRevoked
"""Any account event."""

_CLASSES: Mapping[str, type] = MappingProxyType(
    {cls.__name__: cls for cls in (AccountCreated, RoleGranted, RoleRevoked)}
)
assert tuple(_CLASSES) == ACCOUNT_TYPES, "the account events and the catalogue differ"


def scope_problem(role: str, game_id: str | None, tournament_id: str | None) -> str | None:
    """Why a grant of `role` on this scope cannot be recorded, or None: an unknown role, a
    ledger-wide role given a game or tournament, an arbiter role given none or both."""
    if role not in ROLES:
        return f"role {echo(role)} is not a role: use one of {', '.join(ROLES)}"
    scopes = [s for s in (game_id, tournament_id) if s is not None]
    if not ROLES[role] and scopes:
        return f"role {role} is held on the whole ledger: give it no game and no tournament"
    if ROLES[role] and len(scopes) != 1:
        return (
            f"role {role} is held on one game or one tournament: give exactly one of them "
            f"(given {len(scopes)})"
        )
    return None


def decode(type_name: str, payload: Any) -> AccountEvent:
    """The typed event of an account event's payload, or `AccountEventError` naming the field.
    Fields the type does not know are ignored (the record format may add optional ones)."""
    if not isinstance(payload, dict):
        raise AccountEventError("payload", "expected a JSON object")
    account_id = _id(payload, "account_id", required=True)
    if type_name == "AccountCreated":
        name = payload.get("name")
        if not isinstance(name, str):
            raise AccountEventError("name", f"expected the account's name, got {name!r}")
        return AccountCreated(str(account_id), _recorded("name", name))
    role = payload.get("role")
    if not isinstance(role, str):
        raise AccountEventError("role", f"expected one of {', '.join(ROLES)}, got {role!r}")
    game_id = _id(payload, "game_id")
    tournament_id = _id(payload, "tournament_id")
    problem = scope_problem(role, game_id, tournament_id)
    if problem is not None:
        raise AccountEventError("role", problem)
    return _CLASSES[type_name](str(account_id), role, game_id, tournament_id)


def encode(event: AccountEvent) -> tuple[str, dict[str, Any]]:
    """(type, payload) of an account event, without the fields it leaves out."""
    fields = vars(event)
    return type(event).__name__, {k: v for k, v in fields.items() if v is not None}


def check_payload(
    type_name: str, schema: int, payload: dict[str, Any], meta: dict[str, Any] | None = None
) -> str | None:
    """The problem with an imported event's payload (and meta), or None: an account event
    decoded here and held to the limits, any other by the games' check
    (`pipelines.games.records.check_payload`). What `ledger import` asks of every line."""
    if type_name not in ACCOUNT_TYPES:
        return check_game_payload(type_name, schema, payload, meta)
    if schema != CURRENT_SCHEMA:
        return (
            f"schema: {type_name} has schema {CURRENT_SCHEMA} only, not {schema!r} (the "
            f"payload of {type_name} does not decode)"
        )
    problem = limits.event_problem(payload, meta or {}) if isinstance(payload, dict) else None
    if problem is not None:
        return f"{problem} (an event of {type_name})"
    try:
        decode(type_name, payload)
    except AccountEventError as exc:
        return f"payload.{exc.field}: {exc.problem} (the payload of {type_name} does not decode)"
    return None


def _id(payload: Mapping[str, Any], field: str, *, required: bool = False) -> str | None:
    value = payload.get(field)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise AccountEventError(field, f"expected an id, got {value!r}")
    try:
        return limits.check_id("account", value, field)
    except limits.LimitError as exc:
        raise AccountEventError(field, str(exc).split(": ", 1)[1]) from None


def _recorded(field: str, value: str) -> str:
    """A text as recorded: within its limits and already as they would record it (NFC)."""
    try:
        checked = limits.check_text(field, value, field)
    except limits.LimitError as exc:
        raise AccountEventError(field, str(exc).split(": ", 1)[1]) from None
    if checked != value:
        raise AccountEventError(field, f"{echo(value)} is not in Unicode NFC form; normalise it")
    return value
