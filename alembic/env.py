"""Alembic environment of the ledger.

Arbitru runs migrations itself (`arbitru db upgrade`, or automatically before first use) and
hands Alembic an open connection inside its write transaction, in `config.attributes`. A
developer running the `alembic` command with a URL (`-x db=URL` or `sqlalchemy.url`) gets
the same migrations on a connection of their own.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

config = context.config


def _run_on(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=None, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def _run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run_on(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("db") or config.get_main_option(
        "sqlalchemy.url"
    )
    if context.is_offline_mode():
        context.configure(url=url, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(url)
    with engine.connect() as connection:
        _run_on(connection)
        connection.commit()
    engine.dispose()


_run()
