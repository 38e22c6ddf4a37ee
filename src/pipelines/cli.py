"""The `arbitru` command: one Typer app, one sub-app per area (engine, ledger, db, lexicon).

`main` is where every command ends: output that cannot be written exits 3 with one line on
stderr, and an unexpected exception is one "internal error" line with exit code 4 (the
traceback with ARBITRU_DEBUG=1), so that no Python traceback reaches a user.

Sub-apps are imported only when their command runs: `arbitru engine score` never imports the
ledger's SQLAlchemy and Alembic, and `arbitru --help` lists the sub-apps from `SUB_APPS`
without importing any. Adding a sub-app is one line there.
"""

from __future__ import annotations

import os
import sys
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:  # Typer brings its own click (vendored or as a dependency): never import it
    import click

from engine.echo import echo
from pipelines.exits import (
    ExitCode,
    OutputNotWritten,
    done_before_failure,
    guarded_output,
    tell,
)

SUB_APPS: dict[str, tuple[str, str]] = {
    "engine": ("pipelines.engine_cli:engine_app", "The rules engine: score moves, find the top."),
    "ledger": ("pipelines.ledger_cli:ledger_app", "The event ledger."),
    "db": ("pipelines.ledger_cli:db_app", "The ledger's database."),
    "lexicon": ("pipelines.lexicon_cli:lexicon_app", "Word lists."),
}
"""Sub-app name: (`module:attribute` of its Typer app, the one-line help `arbitru --help`
shows, which is the app's own help: a test keeps the two equal)."""


def load_sub_app(name: str) -> TyperGroup:
    """The command group of sub-app `name`, importing its module."""
    where, _ = SUB_APPS[name]
    module, attribute = where.split(":")
    group = typer.main.get_group(getattr(import_module(module), attribute))
    group.name = name
    return group


class _SubApps(TyperGroup):
    """The root group: sub-apps are loaded on first use; listing them in the help loads none."""

    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in SUB_APPS if n not in self.commands)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
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


app = typer.Typer(
    name="arbitru",
    help="Record-keeping and arbitration for duplicate Scrabble tournaments.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=_SubApps,
)


def _show_version(wanted: bool) -> None:
    if wanted:
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
    """Options of `arbitru` itself, before any command (only --version)."""


def main() -> None:
    with guarded_output():
        code = _run()
    sys.exit(code)


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
    except OutputNotWritten as exc:
        done = "".join(f"; {note}" for note in done_before_failure())
        tell(f"error: could not write the output: {exc}{done}")
        return ExitCode.UNWRITTEN
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
