"""The read models: the season's rows (`pipelines.season.rows`) kept as tables beside the ledger.

They live in the ledger's database, but are not the ledger: every row is derived from the
events and can be dropped and rebuilt from them at any time (`arbitru recompute --rebuild`).
Unlike the events they are replaced, a game at a time, by each recompute. They are created by
the Alembic migration 0005, which restates these definitions (a migration must not change when
this module does).

    read_player_rounds, read_rounds, read_game_standings
        One row per `PlayerRoundRow`, `RoundRow`, `StandingRow`: the columns are those rows'
        fields (`rows.COLUMNS`).
    read_games
        One row per game recomputed: where its rows came from (its stream's last `seq` and
        event count, the season and tournament it was filed under) and, when it could not be
        judged, why (`problem`).
    read_models
        One row (`name` = "season"): the ledger `seq` and hash the last recompute read up to,
        and when it ran.
"""

from __future__ import annotations

import sqlalchemy as sa

from pipelines.season.rows import COLUMNS

metadata = sa.MetaData()

_SQL_TYPES: dict[type, type[sa.types.TypeEngine]] = {
    str: sa.Text,
    int: sa.BigInteger,
    float: sa.Float,
    bool: sa.Boolean,
}

_KEYS = {
    "player_rounds": ("game_id", "round", "player_id"),
    "rounds": ("game_id", "round"),
    "standings": ("game_id", "player_id"),
}

TABLE_NAMES = {
    "player_rounds": "read_player_rounds",
    "rounds": "read_rounds",
    "standings": "read_game_standings",
}
"""The read-model table of each of `rows.TABLES`."""


def _row_table(name: str) -> sa.Table:
    keys = _KEYS[name]
    columns = [
        sa.Column(
            column,
            _SQL_TYPES[kind](),
            nullable=nullable and column not in keys,
            primary_key=column in keys,
            autoincrement=False,
        )
        for column, kind, nullable in COLUMNS[name]
    ]
    table = sa.Table(TABLE_NAMES[name], metadata, *columns)
    sa.Index(f"ix_{TABLE_NAMES[name]}_season", table.c.season, table.c.tournament_id)
    return table


player_rounds = _row_table("player_rounds")
rounds = _row_table("rounds")
game_standings = _row_table("standings")

ROW_TABLES: dict[str, sa.Table] = {
    "player_rounds": player_rounds,
    "rounds": rounds,
    "standings": game_standings,
}

games = sa.Table(
    "read_games",
    metadata,
    sa.Column("game_id", sa.Text, primary_key=True, autoincrement=False),
    sa.Column("stream", sa.Text, nullable=False),
    sa.Column("season", sa.Text),
    sa.Column("tournament_id", sa.Text),
    sa.Column("variant", sa.Text),
    sa.Column("last_seq", sa.BigInteger, nullable=False),
    sa.Column("events", sa.BigInteger, nullable=False),
    sa.Column("problem", sa.Text),
)

state = sa.Table(
    "read_models",
    metadata,
    sa.Column("name", sa.Text, primary_key=True, autoincrement=False),
    sa.Column("seq", sa.BigInteger, nullable=False),
    sa.Column("hash", sa.Text, nullable=False),
    sa.Column("recomputed_at", sa.Text, nullable=False),
)

STATE_NAME = "season"

__all__ = [
    "ROW_TABLES",
    "STATE_NAME",
    "TABLE_NAMES",
    "game_standings",
    "games",
    "metadata",
    "player_rounds",
    "rounds",
    "state",
]
