"""The `arbitru` command: one Typer app, one sub-app per area (engine, game, ledger, db, lexicon).

`main` is where every command ends: output that cannot be written (stdout, stderr or an
output file) exits 3 with one line on stderr, an output file whose writing a signal ended
exits 128 + the signal's number (both told by `pipelines.cli.exits.ended`), and an
unexpected exception is one "internal error" line with exit code 4 (the traceback with
ARBITRU_DEBUG=1), so that no Python traceback reaches a user.

Sub-apps are imported only when their command runs: `arbitru engine score` never imports the
ledger's SQLAlchemy and Alembic, and `arbitru --help` lists the sub-apps from `SUB_APPS`
without importing any. Adding a sub-app is one line there. Typer's help renderer loads
without the Markdown and traceback renderers it would import and never use here
(`pipelines.cli.help_renderer`).
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys
from importlib import import_module
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:  # Typer brings its own click (vendored or as a dependency): never import it
    import click

from engine.echo import echo
from ledger.input_files import forget_inputs
from pipelines.cli.exits import ExitCode, ended, guarded_output
from pipelines.cli.help_renderer import load_help_renderer_lightly
from pipelines.files.errors import (
    Interrupted,
    OutputNotWritten,
    OutputRefused,
    nothing_done_yet,
    tell,
)

load_help_renderer_lightly()

SUB_APPS: dict[str, tuple[str, str]] = {
    "engine": ("pipelines.cli.engine:engine_app", "The rules engine: score moves, find the top."),
    "game": (
        "pipelines.cli.arbitru:game_app",
        "Run a game (create, draw, submit, decide, close) and replay it.",
    ),
    # The ledger's app with the checkpoint and proof commands added (pipelines.cli.proofs).
    "ledger": ("pipelines.cli.proofs:ledger_app", "The event ledger."),
    "db": ("pipelines.cli.db:db_app", "The ledger's database."),
    "accounts": ("pipelines.cli.accounts:accounts_app", "Accounts and their roles on the server."),
    "lexicon": ("pipelines.cli.lexicon:lexicon_app", "Word lists."),
    "keys": ("pipelines.cli.proofs_offline:keys_app", "The federation's signing keys."),
    # Tournament and season apps with their tables added (pipelines.cli.ranking).
    "tournament": (
        "pipelines.cli.ranking:tournament_app",
        "Tournaments: standings across their games.",
    ),
    "season": (
        "pipelines.cli.ranking:season_app",
        "Seasons: ranking points over their tournaments.",
    ),
}
"""Sub-app name: (`module:attribute` of its Typer app, the one-line help `arbitru --help`
shows, which is the app's own help: a test keeps the two equal)."""


SUB_COMMANDS: dict[str, tuple[str, str]] = {
    "verify-proof": (
        "pipelines.cli.proofs_offline:verify_proof_command",
        "Check an inclusion or consistency proof offline, with the federation's public key.",
    ),
    "recompute": (
        "pipelines.cli.season:recompute_command",
        "Replay games from the ledger into the read models (results, rounds, standings).",
    ),
    "export": (
        "pipelines.cli.export:export_command",
        "Write every season as Parquet tables (player_rounds, rounds, standings, events).",
    ),
    "simulate": (
        "pipelines.cli.tournament:simulate_command",
        "Write a simulated season as a ledger export (JSON Lines).",
    ),
    "demo": (
        "pipelines.cli.demo:demo_command",
        "Show Arbitru at work on a simulated season, in a new folder.",
    ),
    "serve": (
        "pipelines.cli.serve:serve_command",
        "Serve the tournament server: players submit, arbiters decide, everyone watches.",
    ),
}
"""Top-level commands loaded on first use, like SUB_APPS: (`module:function`, its help)."""

GAME_COMMANDS: dict[str, str] = {
    "create": "pipelines.cli.game:create_command",
    "join": "pipelines.cli.game:join_command",
    "draw": "pipelines.cli.game:draw_command",
    "submit": "pipelines.cli.game:submit_command",
    "replace": "pipelines.cli.game_replace:replace_command",
    "choose-top": "pipelines.cli.game_decisions:choose_top_command",
    "annul": "pipelines.cli.game_decisions:annul_command",
    "penalise": "pipelines.cli.game_decisions:penalise_command",
    "warn": "pipelines.cli.game_decisions:warn_command",
    "correct": "pipelines.cli.game_decisions:correct_command",
    "revoke": "pipelines.cli.game_decisions:revoke_command",
    "close-round": "pipelines.cli.game:close_round_command",
    "reveal-seed": "pipelines.cli.game:reveal_seed_command",
    "end": "pipelines.cli.game:end_command",
    "results": "pipelines.cli.game_read:results_command",
    "standings": "pipelines.cli.game_read:standings_command",
    "table": "pipelines.cli.game_table:table_command",
    "replay": "pipelines.cli.game_read:replay_command",
    "list": "pipelines.cli.game_read:list_command",
}
"""`arbitru game`'s commands (`module:function`), in the order its help lists them. Each is
imported and turned into a command only when it runs: reading a game loads none of the
modules that write one (its help loads them all)."""


def _attribute(where: str) -> object:
    module, attribute = where.split(":")
    return getattr(import_module(module), attribute)


def _command(name: str, where: str, *, completion: bool = True) -> click.Command:
    """Command `name`, running the function at `where` (its module imported now)."""
    single = typer.Typer(add_completion=completion)
    single.command(name)(_attribute(where))
    return typer.main.get_command(single)


def load_sub_app(name: str) -> click.Command:
    """The command group of sub-app `name` (or the top-level command), importing its module."""
    if name in SUB_COMMANDS:
        command = _command(name, SUB_COMMANDS[name][0])
    else:
        command = typer.main.get_group(_attribute(SUB_APPS[name][0]))
    command.name = name
    return command


class _SubApps(TyperGroup):
    """The root group: sub-apps are loaded on first use; listing them in the help loads none.
    Output that could not be written, a signal that ended the writing of a file and Ctrl-C
    anywhere end the command here, with the same words and exit codes whoever runs the app
    (`main`, a test)."""

    _listing = False

    def invoke(self, ctx: click.Context) -> object:
        nothing_done_yet()
        forget_inputs()
        try:
            return super().invoke(ctx)
        except OutputRefused as exc:
            from pipelines.cli.inputs import fail  # Rich's console: `--version` needs none

            fail(str(exc))
        except (OutputNotWritten, Interrupted) as exc:
            raise typer.Exit(ended(exc)) from None
        except KeyboardInterrupt:  # Ctrl-C elsewhere; Click alone says "Aborted!" and exits 1
            raise typer.Exit(ended(Interrupted(signal.SIGINT))) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        lazy = [*SUB_APPS, *SUB_COMMANDS]
        return [*super().list_commands(ctx), *(n for n in lazy if n not in self.commands)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in SUB_COMMANDS and cmd_name not in self.commands:
            if self._listing:
                return TyperCommand(cmd_name, help=SUB_COMMANDS[cmd_name][1])
            self.commands[cmd_name] = load_sub_app(cmd_name)
        if cmd_name in SUB_APPS and cmd_name not in self.commands:
            if self._listing:
                return TyperGroup(name=cmd_name, help=SUB_APPS[cmd_name][1])
            self.commands[cmd_name] = load_sub_app(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


class _GameCommands(TyperGroup):
    """`arbitru game`: its commands from `GAME_COMMANDS`, each loaded when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(GAME_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in GAME_COMMANDS and cmd_name not in self.commands:
            where = GAME_COMMANDS[cmd_name]
            self.commands[cmd_name] = _command(cmd_name, where, completion=False)
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in GAME_COMMANDS:  # a typo: "did you mean" needs them all
            for name in GAME_COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)


game_app = typer.Typer(help=SUB_APPS["game"][1], no_args_is_help=True, cls=_GameCommands)

app = typer.Typer(
    name="arbitru",
    help="Record-keeping and arbitration for duplicate Scrabble tournaments.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=_SubApps,
)


def _show_version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import PackageNotFoundError, version  # slow to import

        try:
            typer.echo(f"arbitru {version('arbitru')}")
        except PackageNotFoundError:
            typer.echo("arbitru (version unknown: not installed as a package)")
        raise typer.Exit(ExitCode.OK)


@app.callback()
def _options(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Options of `arbitru` itself, before any command (only --version); and how a word list's
    first cache build shows, wherever it happens (on stderr, when it is a terminal)."""
    from pipelines.cli.lexicon_progress import on_stderr
    from pipelines.lexicons.report import show_unasked_with

    show_unasked_with(on_stderr())


def main() -> None:
    _collect_rarely()
    _no_collection_at_exit()
    with guarded_output():
        code = _run()
    sys.exit(code)


GC_EVERY = 10_000
"""New container objects between two passes of the cyclic garbage collector in a command
(Python's default: 700)."""


def _collect_rarely() -> None:
    """Let the cyclic garbage collector pass every `GC_EVERY` new objects, not every 700. A
    command makes most of its objects at start-up and while folding a game (modules, classes,
    events, states) and keeps them to its end: at the default rate the collector scans them
    over and over and frees nothing, about 15 ms of the 0.4 s that showing a game's standings
    takes. Garbage cycles are still freed, later; a long command (`serve`) still collects."""
    gc.set_threshold(GC_EVERY, *gc.get_threshold()[1:])


def _no_collection_at_exit() -> None:
    """Spare the process the cyclic garbage collector's passes as it exits. Python, ending,
    clears the modules and runs the collector over every object left, more than once: about
    50 ms of the 0.4 s that showing a game's standings takes, to free memory that the
    operating system takes back anyway. `gc.freeze`, an exit handler registered before the
    command runs (so it runs after those the command registers), puts every object out of
    those passes' reach.

    Nothing the command did is lost: it has flushed its output (`_run`; Python flushes the
    standard streams itself), closed the ledger's connections and written its files whole and
    closed them before it returns; objects freed by reference counting are still freed. What
    the exit no longer does is finalize objects held only in reference cycles, which Python
    never promised (`__del__` is not guaranteed to run at exit)."""
    atexit.register(gc.freeze)


def _run() -> int:
    """Run the command line; the exit code."""
    try:
        try:
            app()
        finally:
            sys.stdout.flush()
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or ExitCode.OK
        tell(str(exc.code))
        return ExitCode.UNUSABLE
    except OutputNotWritten as exc:  # stdout, flushed above once the command is done
        return ended(exc)
    except Exception as exc:
        if os.environ.get("ARBITRU_DEBUG") == "1":
            raise
        tell(
            f"error: internal error: {type(exc).__name__}: {echo(str(exc), quote=False)}. "
            "This is a bug in Arbitru: please report it with the command that caused it "
            "(ARBITRU_DEBUG=1 shows the traceback)."
        )
        return ExitCode.INTERNAL
    return ExitCode.OK
