"""`arbitru accounts`: the operator's commands for accounts and roles, on the tournament
server's ledger.

An account and each role given or taken are events (`pipelines.accounts.service`), recorded
by `--actor` as the game commands' are; a password, an API token and a revocation of tokens
are secrets kept beside the chain (`pipelines.accounts.credentials`), and a token is printed
once, when it is issued. The database layer and Argon2 are imported only by the commands that
use them, so that a help loads neither.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.markup import escape
from rich.table import Table

from engine.echo import echo
from ledger.default_url import DEFAULT_URL
from pipelines.accounts.events import ROLES
from pipelines.accounts.service import stream_of
from pipelines.cli.game_common import ActorOption, actor_of, checked, store
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.inputs import console as out
from pipelines.cli.inputs import err_console as err
from pipelines.games import limits
from pipelines.games.limits import shown
from pipelines.games.shapes import event_json

if TYPE_CHECKING:
    from ledger import EventStore, RecordedEvent

T = TypeVar("T")

accounts_app = typer.Typer(help="Accounts and their roles on the server.", no_args_is_help=True)

PASSWORD_SHORTEST = 8
"""The fewest characters a password set here may have."""

PASSWORD_LONGEST = 1_000
"""The most: Argon2 hashes any length, but a megabyte pasted by mistake is not a password."""

LEDGER_WIDE = tuple(role for role, scoped in ROLES.items() if not scoped)


def _account_arg(value: str) -> str:
    try:
        return limits.check_id("account", value, "ID")
    except limits.LimitError as exc:
        fail(str(exc))


AccountArg = Annotated[
    str,
    typer.Argument(
        help="The account's id: lowercase letters, digits and '-' (a player's id when it plays).",
        callback=_account_arg,
    ),
]
RoleOption = Annotated[
    str, typer.Option("--role", help=f"The role: {', '.join(ROLES)}.", metavar="ROLE")
]
GameOption = Annotated[
    str | None, typer.Option("--game", help="The game an arbiter role is held on.")
]
TournamentOption = Annotated[
    str | None,
    typer.Option("--tournament", help="The tournament an arbiter role is held on (all its games)."),
]


@accounts_app.command("add")
def add_command(
    account: AccountArg,
    name: Annotated[str, typer.Option("--name", help="The account's name, as it is shown.")],
    role: Annotated[
        str | None,
        typer.Option(
            "--role",
            help=f"A role on the whole ledger: {' or '.join(LEDGER_WIDE)}.",
            metavar="ROLE",
        ),
    ] = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
) -> None:
    """Create an account (the ledger too, when there is none), with a ledger-wide role."""
    checked("name", name, "--name")
    if role is not None and role not in LEDGER_WIDE:
        fail(
            f"--role: {echo(role)} is not {' or '.join(LEDGER_WIDE)}: give an arbiter's "
            f"role on a game or a tournament with `arbitru accounts grant {account} --role "
            f"ROLE --game G` (or --tournament T)"
        )
    who = actor_of(actor)
    from pipelines.accounts.service import create_account, grant_role

    with store(db, create=True) as opened:
        recorded = create_account(opened, account, name, who)
        if role is not None:
            recorded += grant_role(opened, account, role, actor=who)
    _show_recorded(account, recorded, as_json)


def _role_command(change: str) -> Callable[..., None]:
    """The command that grants (`change` "grant") or revokes ("revoke") a role: the same
    options, one service function or the other."""

    def command(
        account: AccountArg,
        role: RoleOption,
        game: GameOption = None,
        tournament: TournamentOption = None,
        db: DbOption = DEFAULT_URL,
        as_json: JsonOption = False,
        actor: ActorOption = None,
    ) -> None:
        from pipelines.accounts import service

        changed = service.grant_role if change == "grant" else service.revoke_role
        who = actor_of(actor)
        with store(db) as opened:
            recorded = changed(
                opened, account, role, game_id=game, tournament_id=tournament, actor=who
            )
        _show_recorded(account, recorded, as_json)

    return command


accounts_app.command(
    "grant",
    help="Give an account a role: admin or auditor, or an arbiter's role on one game or "
    "tournament.",
)(_role_command("grant"))
accounts_app.command(
    "revoke",
    help="Take back a role the account holds (the same --game or --tournament it was given on).",
)(_role_command("revoke"))


@accounts_app.command("token")
def token_command(
    account: AccountArg, db: DbOption = DEFAULT_URL, as_json: JsonOption = False
) -> None:
    """Issue a new API token for the account, printed this once (only its SHA-256 is kept)."""
    from pipelines.accounts.credentials import issue_token

    token = _on_secrets(db, account, issue_token)
    if as_json:
        emit_json({"account": account, "token": token})
        return
    err.print(
        f"a new API token for {escape(account)}: keep it now, it is never shown again",
        soft_wrap=True,
    )
    typer.echo(token)


@accounts_app.command("revoke-token")
def revoke_token_command(
    account: AccountArg, db: DbOption = DEFAULT_URL, as_json: JsonOption = False
) -> None:
    """Revoke every API token of the account."""
    from pipelines.accounts.credentials import revoke_tokens

    revoked = _on_secrets(db, account, revoke_tokens)
    if as_json:
        emit_json({"account": account, "revoked": revoked})
    else:
        out.print(f"revoked {revoked} API token(s) of {escape(account)}")


@accounts_app.command("password")
def password_command(account: AccountArg, db: DbOption = DEFAULT_URL) -> None:
    """Set the account's password, read from standard input (one line; at least 8 characters)."""
    password = _read_password()
    from pipelines.accounts.credentials import set_password

    _on_secrets(db, account, lambda opened, named: set_password(opened, named, password))
    out.print(f"the password of {escape(account)} is set")


@accounts_app.command("list")
def list_command(db: DbOption = DEFAULT_URL, as_json: JsonOption = False) -> None:
    """The accounts and the roles each holds (never a secret)."""
    from pipelines.accounts.roster import load_roster

    with store(db) as opened:
        roster = load_roster(opened)
    listed = [roster.account_json(a) for a in sorted(roster.accounts)]
    if as_json:
        emit_json({"accounts": listed})
        return
    table = Table(title=f"{len(listed)} account(s)", title_justify="left")
    for column in ("account", "name", "roles"):
        table.add_column(column, overflow="fold")
    for row in listed:
        roles = ", ".join(_role_text(r) for r in row["roles"]) or "-"
        table.add_row(escape(row["account_id"]), escape(shown(row["name"])), roles)
    out.print(table)


def _on_secrets(db: str, account: str, act: Callable[[EventStore, str], T]) -> T:
    """`act(ledger, account)` on an account's secrets, every failure reported: the account
    must exist, and a ledger of an older Arbitru gains the secrets' tables (its migration)
    first."""
    from ledger.database import ensure_schema
    from pipelines.accounts.service import require_account

    with store(db) as opened:
        ensure_schema(opened.engine)
        require_account(opened, account)
        return act(opened, account)


def _read_password() -> str:
    """One line of standard input (typed unseen on a terminal), within the password's limits."""
    if sys.stdin.isatty():
        import getpass

        line = getpass.getpass("new password: ")
    else:
        line = sys.stdin.readline(PASSWORD_LONGEST + 2)
    password = line.removesuffix("\n").removesuffix("\r")
    if not password.strip():
        fail("no password on standard input: give the new password on one line")
    if len(password) < PASSWORD_SHORTEST:
        fail(f"the password is too short: give at least {PASSWORD_SHORTEST} characters")
    if len(password) > PASSWORD_LONGEST:
        fail(f"the password is too long: give at most {PASSWORD_LONGEST:,} characters")
    return password


def _show_recorded(account: str, recorded: list[RecordedEvent], as_json: bool) -> None:
    events = [event_json(r, r) for r in recorded]
    if as_json:
        emit_json({"account": account, "stream": stream_of(account), "events": events})
        return
    if not recorded:
        out.print(f"{escape(account)} holds that role already: nothing was recorded")
        return
    for event in recorded:
        out.print(
            f"{event.stream} v{event.version}: {event.type} "
            f"{escape(shown(_payload_text(event.payload)))} (seq {event.seq})"
        )


def _payload_text(payload: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in payload.items() if k != "account_id")


def _role_text(role: dict[str, Any]) -> str:
    if role["game_id"]:
        return f"{role['role']} (game {role['game_id']})"
    if role["tournament_id"]:
        return f"{role['role']} (tournament {role['tournament_id']})"
    return str(role["role"])
