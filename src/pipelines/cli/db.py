"""`arbitru db upgrade`: the ledger's database brought to the newest schema (Alembic)."""

from __future__ import annotations

import typer

from ledger.default_url import DEFAULT_URL
from ledger.errors import LedgerError
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.ledger import _out, _safe_url

db_app = typer.Typer(help="The ledger's database.", no_args_is_help=True)


@db_app.command("upgrade")
def upgrade_command(db: DbOption = DEFAULT_URL, as_json: JsonOption = False) -> None:
    """Create or migrate the ledger's tables to the newest schema."""
    from ledger.database import create_db_engine, upgrade  # the database layer: not for --help

    try:
        engine = create_db_engine(db)
        try:
            before, after = upgrade(engine)
        finally:
            engine.dispose()
    except LedgerError as exc:
        fail(str(exc))
    if as_json:
        emit_json({"database": _safe_url(db), "from": before, "to": after})
    elif before == after:
        _out.print(f"{_safe_url(db)} is already at the newest schema ({after})")
    else:
        _out.print(f"upgraded {_safe_url(db)} from {before or 'an empty database'} to {after}")
