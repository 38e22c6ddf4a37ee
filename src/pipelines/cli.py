"""The `arbitru` command: one Typer app, one sub-app per area (engine, game, ledger, db, ...)."""

from __future__ import annotations

import typer

from pipelines.engine_cli import engine_app
from pipelines.game_cli import game_app
from pipelines.ledger_cli import db_app, ledger_app
from pipelines.lexicon_cli import lexicon_app

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


def main() -> None:
    app()
