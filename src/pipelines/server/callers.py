"""Who is asking, and how they stand to what they ask about.

A program signs in with `Authorization: Bearer TOKEN` (an API token, checked by one indexed
look-up of its SHA-256: microseconds, not an Argon2 round; the tokens of the requests asking at
the same moment in one query, `pipelines.server.shared_reads`); a browser with the session cookie
its sign-in set. A request with neither is the public's. A token that is not valid is refused
(401) rather than taken as the public's, so that a client with a revoked token is told;
a stale session cookie is only forgotten.

`access` then finds the caller's relations to the game, account or ledger the request is
about (`pipelines.server.access`) and checks the route's action against the table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from fastapi import Request

from pipelines.server.access import ARBITER_ROLES, Access, relations_of
from pipelines.server.problems import Problem

if TYPE_CHECKING:
    from pipelines.accounts.roster import Roster
    from pipelines.games.service import Game
    from pipelines.server.held import Server

SESSION_COOKIE = "arbitru_session"
_TOKEN_LONGEST = 256
_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def server_of(request: Request) -> Server:
    return request.app.state.server


def account_of(request: Request) -> str | None:
    """The signed-in account, or None for the public; 401 for a token that is not valid."""
    cached = getattr(request.state, "account", False)
    if cached is not False:
        return cached
    from pipelines.accounts.credentials import account_for_session

    server = server_of(request)
    account: str | None = None
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > _TOKEN_LONGEST:
            raise _unauthenticated("give the API token as `Authorization: Bearer TOKEN`")
        account, request.state.roster = server.caller(token)
        if account is None:
            raise _unauthenticated(
                "this API token is not valid (mistyped, or revoked): ask for a new one "
                "(`arbitru accounts token ID`, or POST /api/v1/accounts/{id}/tokens)"
            )
    elif (session := request.cookies.get(SESSION_COOKIE)) and len(session) <= _TOKEN_LONGEST:
        account = account_for_session(server.store, session)
        if account is not None and request.method not in _SAFE and not same_origin(request):
            raise Problem(
                403,
                "a browser's session writes only from this site's pages (the request's Origin "
                "is another site's); a program signs in with an API token",
                "forbidden",
            )
    request.state.account = account
    return account


def _unauthenticated(detail: str) -> Problem:
    return Problem(401, detail, "unauthenticated", headers={"WWW-Authenticate": "Bearer"})


def access(
    request: Request,
    action: str,
    *,
    game: Game | None = None,
    game_id: str | None = None,
    tournament: str | None = None,
    account_in_path: str | None = None,
    player: str | None = None,
) -> Access:
    """The caller's access to what the request is about, checked against `action`: 401 when
    signing in would help, 403 when it would not.

    What the request is about: a game read from the ledger (`game`: its tournament's arbiters
    are its arbiters too, its joined players its players), or a game only named (`game_id`,
    one not created yet), a `tournament`, the account named in the path. `player` narrows
    the player relation to one player: the caller must be that player of the game (an
    event's own player, for its proof)."""
    account = account_of(request)
    facts: dict[str, object] = {}
    if account is not None:
        roster = getattr(request.state, "roster", None)  # read with the caller's token
        if roster is None:
            roster = server_of(request).roster()
        if game is not None:
            game_id = game.game_id
            if game.state.created is not None:
                tournament = game.state.created.tournament_id
        joined = game is not None and _joined(game, account)
        if player is not None:
            joined = joined and player.lower() == account.lower()
        facts = {
            "admin": roster.is_admin(account),
            "auditor": roster.is_auditor(account),
            "arbiter_roles": arbiter_roles(roster, account, game_id, tournament),
            "player": joined,
            "self_account": account_in_path is not None and account_in_path == account,
        }
    granted = Access(account, relations_of(account, **facts))  # type: ignore[arg-type]
    if not granted.may(action):
        if account is None:
            raise _unauthenticated("sign in: this is for the accounts it concerns only")
        raise Problem(403, _forbidden(action), "forbidden")
    return granted


def arbiter_roles(
    roster: Roster, account: str, game_id: str | None, tournament: str | None
) -> frozenset[str]:
    """The arbiter roles the account holds on the game `game_id` (on it, or on `tournament`,
    the tournament it belongs to), or on `tournament` alone when no game is named. Nothing
    when neither is named: a ledger-wide grant (admin, auditor) names neither, and is no
    arbiter role on anything."""
    if game_id is None and tournament is None:
        return frozenset()
    if game_id is not None:
        held = roster.game_roles(account, game_id, tournament)
        return frozenset(role for role in held if role in ARBITER_ROLES)
    return frozenset(
        g.role
        for g in roster.grants
        if g.account_id == account and g.tournament_id == tournament and g.game_id is None
    )


def _joined(game: Game, account: str) -> bool:
    return joined_as(game.state.players, account) is not None


def joined_as(players: Iterable[str], account: str) -> str | None:
    """The player id among `players` that `account` names (ids are one without case: an
    account is lower-cased, a player may have joined as `Ana`), or None."""
    wanted = account.lower()
    return next((p for p in players if p.lower() == wanted), None)


def _forbidden(action: str) -> str:
    said = {
        "close_round": "only the game's chief arbiter closes a round",
        "end_game": "only the game's chief arbiter ends the game",
        "submit": "only the game's players (each their own slip) and its arbiters submit",
        "replace": "only the game's players (each their own) and its arbiters record a replacement",
        "create_account": "only an admin creates accounts",
        "list_accounts": "only an admin lists accounts",
        "ledger_events": "only auditors read the whole ledger",
    }
    return said.get(action, "your account has no role that allows this here")


def same_origin(request: Request) -> bool:
    """Whether the request's `Origin`, when the browser sent one, is this server's own (its
    host as the request names it: behind a reverse proxy that ends TLS the schemes differ)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return origin.partition("://")[2] == request.headers.get("host", "")
