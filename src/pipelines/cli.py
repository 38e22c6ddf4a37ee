"""The `arbitru` command: one Typer app, one sub-app per area (engine, game, ledger, db, lexicon).

`main` is where every command ends: output that cannot be written exits 3 with one line on
stderr, and an unexpected exception is one "internal error" line with exit code 4 (the
traceback with ARBITRU_DEBUG=1), so that no Python traceback reaches a user.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from engine.echo import echo
from pipelines.demo import demo_command
from pipelines.engine_cli import engine_app
from pipelines.exits import (
    ExitCode,
    OutputNotWritten,
    done_before_failure,
    guarded_output,
    tell,
)
from pipelines.export_cli import register as register_export_command
from pipelines.game_cli import game_app
from pipelines.ledger_cli import db_app, ledger_app
from pipelines.lexicon_cli import lexicon_app
from pipelines.proofs_cli import register as register_proof_commands
from pipelines.season_cli import register as register_season_commands
from pipelines.tournament_cli import register as register_tournament_commands

app = typer.Typer(
    name="arbitru",
    help="Record-keeping and arbitration for duplicate Scrabble tournaments.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(engine_app, name="engine")
app.add_typer(game_app, name="game")
app.add_typer(ledger_app, name="ledger")
app.add_typer(db_app, name="db")
app.add_typer(lexicon_app, name="lexicon")
register_proof_commands(app, ledger_app)
register_season_commands(app)
register_tournament_commands(app)
register_export_command(app)
app.command("demo")(demo_command)


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
