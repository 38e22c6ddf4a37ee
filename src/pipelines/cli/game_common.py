"""What the `arbitru game` commands share: their options, opening the ledger, handing
commands to the service, and turning every failure into a message and an exit code (1 refused
by the rules or by the ledger's integrity check, 2 unusable input; nothing written either way).

Every command checks the chain before it acts (`games.service.ledger_altered`, and the game's
own events as they are read): an append onto an altered ledger is refused; a view of one is
still shown, after one line saying so, and exits 1 (`view_of`)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, fields
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer
from rich.markup import escape

from ledger.default_url import DEFAULT_URL
from ledger.errors import LedgerAltered, LedgerError, NoLedger
from pipelines.cli import views
from pipelines.cli.exits import ExitCode
from pipelines.cli.inputs import DbOption, JsonOption, fail
from pipelines.files.errors import system_refused
from pipelines.games import limits
from pipelines.games.service import (
    CommandRefused,
    Game,
    ServiceError,
    execute,
    load_game,
    vouched,
)

if TYPE_CHECKING:
    from engine.games import commands as cmd
    from ledger import EventStore
    from pipelines.games.service import Commands

GameArg = Annotated[str, typer.Argument(help="The game: its id (hd1) or its stream (game/hd1).")]
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Show the events it would append and how results and standings would change; "
        "write nothing.",
    ),
]
ActorOption = Annotated[
    str | None,
    typer.Option(
        "--actor", envvar="ARBITRU_ACTOR", help="Who records it (default: your user name)."
    ),
]


def _source_option(value: str | None) -> str | None:
    return None if value is None else checked("source", value, "--source")


SourceOption = Annotated[
    str | None,
    typer.Option(
        "--source",
        help="Where it comes from: a slip number, a forum comment id.",
        callback=_source_option,
    ),
]
RoundOption = Annotated[
    int | None, typer.Option("--round", min=1, help="The round (default: the current one).")
]


def player_id(value: str, option: str = "--player") -> str:
    """A player id as typed: within the id's limits (`pipelines.games.limits`), or an error naming
    the option (a mistyped id of a million letters is not echoed whole)."""
    try:
        return limits.check_id("id", value, option)
    except limits.LimitError as exc:
        fail(str(exc))


def _player_option(value: str) -> str:
    return player_id(value)


PlayerOption = Annotated[
    str, typer.Option("--player", help="The player's id.", callback=_player_option)
]
PartOption = Annotated[
    int, typer.Option("--part", min=1, help="Which submission of a last round (1, 2, ...).")
]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why (recorded with the decision).")]
LateOption = Annotated[
    bool,
    typer.Option(
        "--late",
        help="Record a slip given no --received-at as arriving now, after the round's deadline "
        "(late: it scores 0); without it such a slip is refused.",
    ),
]
_HINTS = {
    "unknown_player": "add the player with `arbitru game join GAME --player ID[:Name]`, or "
    "check the id",
    "top_not_chosen": 'choose it with `arbitru game choose-top GAME --round N --move "..."`',
    "round_not_drawn": "draw the round first with `arbitru game draw`",
    "unknown_event": "give the event id of an annulment, penalty, warning, top choice or "
    "correction (`arbitru game results GAME [--round N]` lists them with their ids)",
    "draw_breaks_vowel_rule": "give the draw that keeps the rule with --tiles and each draw put "
    "back with --rejected, in the order drawn",
    "game_exists": "choose another game id",
    "no_game": "create the game first with `arbitru game create`",
    "account_exists": "choose another id (`arbitru accounts list` lists the accounts)",
    "no_account": "create it with `arbitru accounts add ID --name NAME`, or check the id "
    "(`arbitru accounts list`)",
    "not_granted": "`arbitru accounts list` shows the roles each account holds",
}
"""What to do after a refusal, by the engine's reason code, where the rule's message does not
already say it in terms of this command line."""

_UNUSABLE = frozenset({"unknown_ruleset", "bad_setting"})
"""Refusals that are about the input, not the rules (exit 2), besides every `bad_FIELD`: a value
no event of the game could hold."""

_OPTIONS = {
    "drawn": "--tiles",
    "rejected": "--rejected",
    "text": "--text",
    "player_id": "--player",
    "name": "--player's name",
    "reason": "--reason",
    "move": "--move",
    "points": "--points",
    "title": "--title",
    "tournament_id": "--tournament",
    "deadline": "--deadline",
    "seed": "--seed-file",
}
"""The option that gave each payload field, to name it in a refusal instead of the event."""

_PAYLOAD_FIELD = re.compile(r"[A-Z][A-Za-z]+\.([a-z_]+): ")


def _in_options(message: str) -> str:
    """A refusal's message with `EventType.field:` said as the option that gave the field, and
    every other event type's name in the arbiter's words."""
    message = _PAYLOAD_FIELD.sub(lambda m: f"{_OPTIONS.get(m[1], m[1])}: ", message, count=1)
    return views.in_words(re.sub(r"\bsettings\.(\w+): ", r"--set \1: ", message))


def no_ledger(db: str) -> bool:
    """Whether the database holds no ledger yet (a `create --dry-run` then runs on none)."""
    # The database layer is imported by the commands that open a ledger, not by their help.
    import sqlalchemy as sa

    from ledger import EventStore

    try:
        EventStore(db, upgrade=False).close()
    except NoLedger:
        return True
    except (LedgerError, sa.exc.SQLAlchemyError):
        return False
    return False


@contextmanager
def store(db: str, *, create: bool = False) -> Iterator[EventStore]:
    """The ledger, with every failure reported (`reported`). Only `create` creates a ledger:
    other commands on a mistyped path say so instead."""
    from ledger import EventStore
    from pipelines.cli.new_ledger import removed_if_unwritten

    with (
        removed_if_unwritten(db) if create else nullcontext(),
        reported(),
        EventStore(db, upgrade=create) as opened,
    ):
        yield opened


@contextmanager
def reported() -> Iterator[None]:
    """Every failure of the service or the ledger as a message on stderr and an exit code."""
    import sqlalchemy as sa

    try:
        yield
    except CommandRefused as exc:
        hint = _HINTS.get(exc.code)
        message = _in_options(str(exc))
        unusable = exc.code in _UNUSABLE or exc.code.startswith("bad_")
        fail(f"{message}; {hint}" if hint else message, 2 if unusable else exc.exit_code)
    except LedgerAltered as exc:
        message = f"refused, nothing was written: the ledger fails its integrity check: {exc}"
        fail(message, ExitCode.NEGATIVE)
    except ServiceError as exc:
        fail(str(exc), exc.exit_code)
    except (LedgerError, sa.exc.SQLAlchemyError) as exc:
        if (why := system_refused(exc)) is not None:  # not the URL's fault: exit 3
            fail(f"the ledger could not be written: {why}; nothing was recorded", 3)
        if isinstance(exc, LedgerError):
            fail(str(exc))
        fail(f"the database failed: {str(getattr(exc, 'orig', exc)).strip()}")


@contextmanager
def unless_altered(not_done: str, anyway: str) -> Iterator[None]:
    """A command that refuses an altered ledger (`LedgerAltered`, exit 1): says what was not
    done and what `--skip-verify` does instead."""
    try:
        yield
    except LedgerAltered as exc:
        fail(
            f"the ledger fails its integrity check, so {not_done}: {exc} (`--skip-verify` "
            f"{anyway}, for forensic work)",
            ExitCode.NEGATIVE,
        )


def loaded(db: str, game: str) -> Game:
    """A game read from the ledger at `db` and checked (`Game.altered`), every failure
    reported."""
    with store(db) as opened:
        return vouched(opened, load_game(opened, game))


@contextmanager
def view_of(altered: str | None) -> Iterator[None]:
    """A view of what the ledger holds. When it failed its check (`altered`), one line on
    stderr says so before the view, and the command exits 1 after it: the view is shown for
    the arbiter to see what is there, not vouched for."""
    if altered is not None:
        views.err.print(
            f"[bold red]error:[/] the ledger fails its integrity check, so this view is not "
            f"vouched for: {escape(altered)}",
            soft_wrap=True,
        )
    yield
    if altered is not None:
        raise typer.Exit(ExitCode.NEGATIVE)


def actor_of(actor: str | None) -> str:
    """Who records the events: --actor (or ARBITRU_ACTOR), else the user's login name."""
    if actor:
        return checked("actor", actor, "--actor")
    import getpass  # only the commands that record events ask who records them

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "arbiter"


def checked(kind: str, value: str, option: str) -> str:
    """A text option's value as it will be recorded, within its limits (`pipelines.games.limits`),
    or an error naming the option."""
    try:
        return limits.check_text(kind, value, option)
    except limits.LimitError as exc:
        fail(str(exc))


def checked_number(kind: str, value: int, option: str) -> int:
    """A number option's value within its limits, or an error naming the option."""
    try:
        return limits.check_number(kind, value, option)
    except limits.LimitError as exc:
        fail(str(exc))


def time_option(text: str | None, option: str) -> datetime | None:
    """A time option's value in UTC, or a clear error naming the option."""
    if text is None:
        return None
    # The input parsers are the writing commands' (a view of a game parses no time).
    from pipelines.games.inputs import InputError, parse_time

    try:
        return parse_time(text, option)
    except InputError as exc:
        fail(str(exc))


@dataclass(frozen=True)
class Append:
    """How a command that appends to a game was asked to run: on the ledger at `db` (--db),
    shown as JSON or not (--json), recorded by `actor` (--actor) or only shown (--dry-run).
    Its fields are the options, as `options_last` hands them to the command."""

    db: DbOption = DEFAULT_URL
    as_json: JsonOption = False
    actor: ActorOption = None
    dry_run: DryRunOption = False

    def who(self) -> str:
        """Who records the events (`actor_of`): asked when the command makes them, after its
        own options are checked, so that the first bad option is the one named."""
        return actor_of(self.actor)


def appends(command: Callable[..., None]) -> Callable[..., None]:
    """`command`, which is handed an `Append` as `to`, as Typer is to see it: with --db,
    --json, --actor and --dry-run as its last options, in that order. Every command that
    appends to a game takes these four the same way, so they are declared here once."""
    return options_last(Append, "to")(command)


def options_last(gathered: type, into: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A decorator: the command, handed as `into` the dataclass `gathered` made of the
    options its fields declare (each annotated as a Typer option, with its default), as Typer
    is to see it: with those options last, in the fields' order. Commands that take the same
    options the same way declare them once."""
    kinds = get_type_hints(gathered, include_extras=True)
    last = [
        inspect.Parameter(
            field.name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=kinds[field.name],
            default=field.default,
        )
        for field in fields(gathered)
    ]

    def decorated(command: Callable[..., None]) -> Callable[..., None]:
        hints = get_type_hints(command, include_extras=True)
        own = [
            given.replace(annotation=hints[given.name])
            for given in inspect.signature(command).parameters.values()
            if given.name != into
        ]

        def typed(**given: Any) -> None:
            made = gathered(**{option.name: given.pop(option.name) for option in last})
            command(**given, **{into: made})

        shown = inspect.Signature([*own, *last], return_annotation=None)
        typed.__signature__ = shown  # type: ignore[attr-defined]
        typed.__annotations__ = {option.name: option.annotation for option in own + last}
        typed.__name__, typed.__qualname__ = command.__name__, command.__qualname__
        typed.__module__, typed.__doc__ = command.__module__, command.__doc__
        return typed

    return decorated


def run(to: Append, game: str, commands: Commands, *, create: bool = False) -> None:
    """Hand the commands to the service and show what happened. A dry run of `create` on a
    ledger that does not exist yet runs against none, and creates none."""
    if create and to.dry_run and no_ledger(to.db):
        with reported():
            outcome = execute(None, game, commands, dry_run=True)
    else:
        from ledger.integrity import check_recent

        with store(to.db, create=create and not to.dry_run) as opened:
            check_recent(opened)
            outcome = execute(opened, game, commands, dry_run=to.dry_run)
            if any(event.type in _SIGNED_AFTER for event in outcome.recorded):
                _checkpoint(opened)
    views.show_outcome(outcome, as_json=to.as_json)


_SIGNED_AFTER = frozenset({"RoundClosed", "GameEnded"})
"""Events after which the ledger is checkpointed when a federation key is configured."""


def _checkpoint(opened: EventStore) -> None:
    """Sign a checkpoint after a round or a game ends, when `ARBITRU_CHECKPOINT_KEY` names a
    key. The closing events are recorded whatever happens here: a checkpoint that cannot be
    made is a warning saying what to do, never a failure of the closing command. Imported
    here: signing loads `cryptography`, which no reading command needs."""
    from pipelines.games.checkpoints import checkpoint_if_configured

    try:
        made = checkpoint_if_configured(opened)
    except LedgerError as exc:
        views.err.print(
            f"[yellow]warning:[/] the round or game is closed, but no checkpoint was signed: "
            f"{escape(str(exc))} (sign one later with `arbitru ledger checkpoint --key FILE`)",
            soft_wrap=True,
        )
        return
    if made is not None:
        views.err.print(
            f"checkpoint signed: {made.tree_size} events, root {made.root}", soft_wrap=True
        )


def received_at_option(handed: str, more: str = "") -> Any:
    """The --received-at option of a command recording slips: when `handed` was handed in
    (`more` says what else it is for)."""
    return Annotated[
        str | None,
        typer.Option(
            "--received-at",
            help=f"When {handed} was handed in (ISO 8601; default: now, refused once the "
            f"deadline has passed).{more}",
        ),
    ]


@dataclass(frozen=True)
class Slip:
    """How a command recording slips was asked to: as late or not (--late), from which slip
    (--source), in which round (--round). Its fields are the options, as `options_last`
    hands them to the command (handed them last, before those of `appends`)."""

    late: LateOption = False
    source: SourceOption = None
    round_number: RoundOption = None


def run_in_round(
    to: Append,
    game: str,
    *commands: Callable[..., cmd.Command],
    round_number: int | None,
    late: bool | None = None,
) -> None:
    """`run` for commands about one round, each made given `round=`: round `round_number`,
    else the current round, found on the one read of the game that decides them (`execute`).
    For slips, `late` (--late) is given, and their received times are checked on that read
    (`pipelines.games.slip_times`)."""

    def about(number: int) -> list[cmd.Command]:
        return [make(round=number) for make in commands]

    made: Commands = (
        about(round_number) if round_number is not None else lambda now: about(round_of(now, None))
    )
    if late is not None:
        made = partial(_slips, made, late)
    run(to, game, made)


def _slips(made: Commands, late: bool, now: Game) -> list[cmd.Command]:
    from pipelines.games.slip_times import checked_arrivals  # a submitting command's only

    return checked_arrivals(now, made(now) if callable(made) else made, late=late)


def round_of(game: Game, given: int | None, *, drawing: bool = False) -> int:
    """The round given, else the current one (for a draw, the next one)."""
    if given is not None:
        return given
    current = game.state.current
    if drawing:
        return 1 if current is None else current.number + 1
    if current is None:
        raise CommandRefused(
            f"{game.stream} has no round yet: draw round 1 first (`arbitru game draw`)", "no_round"
        )
    return current.number
