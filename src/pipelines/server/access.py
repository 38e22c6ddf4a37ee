"""Who may do what: the authorization table, as data, read by every route.

Each action (a route's name) lists the relations to it that allow it. A caller's relations
are found once per request (`relations_of`): signed in or not, admin or auditor (grants in
the ledger), the arbiter roles they hold on the game (on it or on its tournament), whether they
joined the game as a player, whether the account in the path is their own. A route checks
its action with `allowed`; what a player may touch is then narrowed to their own slips
(`Access.own_only`), and what the public sees of a game to its closed rounds, by the route's
own reading of the game, not by another table.

The table is the contract of SERVER.md ("Who may do what"), and `tests/server/` checks it as
a matrix: every route against every kind of caller.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


class Relation(StrEnum):
    """How a caller stands to what a request is about."""

    PUBLIC = "public"  # anyone, signed in or not
    SIGNED_IN = "signed-in"
    ADMIN = "admin"
    AUDITOR = "auditor"
    CHIEF = "chief"  # arbiter roles: of the game, or of its tournament
    DEPUTY = "deputy"
    DATA_ENTRY = "data-entry"
    READ_ONLY = "read-only"
    PLAYER = "player"  # the account joined the game
    SELF = "self"  # the account in the path is the caller's own


ARBITER_ROLES = (Relation.CHIEF, Relation.DEPUTY, Relation.DATA_ENTRY, Relation.READ_ONLY)
_ARBITERS = frozenset(ARBITER_ROLES)
_DECIDING = frozenset({Relation.CHIEF, Relation.DEPUTY})
_ENTERING = frozenset({Relation.CHIEF, Relation.DEPUTY, Relation.DATA_ENTRY})
_PUBLIC = frozenset({Relation.PUBLIC})

ACCESS: Mapping[str, frozenset[Relation]] = MappingProxyType(
    {
        # games
        # an arbiter of the tournament (chief or deputy: the roles that decide) creates its games
        "create_game": frozenset({Relation.ADMIN} | _DECIDING),
        "read_game": _PUBLIC,
        "join_players": _DECIDING,
        "draw": _DECIDING,
        "submit": _ENTERING | {Relation.PLAYER},
        "replace": _ENTERING | {Relation.PLAYER},
        # placed and scored, never checked against the word list: the player's own, arbiters'
        "preview": _ARBITERS | {Relation.PLAYER},
        "read_submissions": _PUBLIC,  # narrowed by the route: see the module docstring
        "close_round": frozenset({Relation.CHIEF}),
        "end_game": frozenset({Relation.CHIEF}),
        "decide": _DECIDING,  # top, annulments, penalties, warnings, corrections, revocations
        "reveal_seed": _DECIDING,
        "read_results": _PUBLIC,  # open rounds: the game's arbiters only (the route narrows)
        "live": _PUBLIC,
        # the ledger, for auditors
        "ledger_head": _PUBLIC,
        "checkpoints": _PUBLIC,
        "ledger_events": frozenset({Relation.AUDITOR, Relation.ADMIN}),
        # the event's own player (or, for an account's event, that account), the game's arbiters
        "proof": frozenset({Relation.AUDITOR, Relation.ADMIN, Relation.PLAYER, Relation.SELF})
        | _ARBITERS,
        # accounts
        "create_account": frozenset({Relation.ADMIN}),
        "list_accounts": frozenset({Relation.ADMIN}),
        "me": frozenset({Relation.SIGNED_IN}),
        "issue_token": frozenset({Relation.ADMIN, Relation.SELF}),
        "grant_role": frozenset({Relation.ADMIN, Relation.CHIEF}),  # a chief: arbiter roles
        # signing in and out (a session cookie for pages)
        "sign_in": _PUBLIC,
        "sign_out": _PUBLIC,
    }
)
"""Action: the relations that allow it. Arbiter relations count for the game (or tournament)
the request is about; `player` and `self` likewise."""

SEES_EVERY_SLIP = frozenset({Relation.AUDITOR, Relation.ADMIN} | _ARBITERS)
"""Who sees every slip of an open round and its results (nobody else: no copying)."""

PLAYERS_OWN = frozenset({Relation.PLAYER})
"""Relations that allow an action only on the caller's own slips."""


@dataclass(frozen=True)
class Access:
    """What the caller may do about one request: who they are and how they stand to it."""

    account: str | None
    relations: frozenset[Relation]

    def may(self, action: str) -> bool:
        return bool(ACCESS[action] & self.relations)

    def own_only(self, action: str) -> bool:
        """Whether `action` is allowed only because the caller plays the game (so only on
        their own slips)."""
        return not (ACCESS[action] & self.relations) - PLAYERS_OWN

    @property
    def sees_every_slip(self) -> bool:
        return bool(SEES_EVERY_SLIP & self.relations)


def relations_of(
    account: str | None,
    *,
    admin: bool = False,
    auditor: bool = False,
    arbiter_roles: frozenset[str] = frozenset(),
    player: bool = False,
    self_account: bool = False,
) -> frozenset[Relation]:
    """A caller's relations from the facts about them (found by `pipelines.server.callers`)."""
    found = {Relation.PUBLIC}
    if account is not None:
        found.add(Relation.SIGNED_IN)
        found.update(Relation(role) for role in arbiter_roles)
        if admin:
            found.add(Relation.ADMIN)
        if auditor:
            found.add(Relation.AUDITOR)
        if player:
            found.add(Relation.PLAYER)
        if self_account:
            found.add(Relation.SELF)
    return frozenset(found)
