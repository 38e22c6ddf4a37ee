"""The read models: the season's rows derived from the events, beside the ledger.

`read_player_rounds`, `read_rounds` and `read_game_standings` hold one row per player per
round, per round and per player of a game; `read_games` says which ledger events each game's
rows were computed from; `read_models` the ledger head the last recompute read up to. Unlike
the ledger's tables they are replaced by every recompute and may be dropped at any time: they
are rebuilt from the events (`arbitru recompute --rebuild`). The definitions are restated here
(not imported) so that this migration never changes.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def _game_key() -> list[sa.Column]:
    return [
        sa.Column("season", sa.Text),
        sa.Column("tournament_id", sa.Text),
        sa.Column("game_id", sa.Text, primary_key=True, autoincrement=False),
        sa.Column("variant", sa.Text, nullable=False),
    ]


def _text(name: str, nullable: bool = True) -> sa.Column:
    return sa.Column(name, sa.Text, nullable=nullable)


def _int(name: str, nullable: bool = False, key: bool = False) -> sa.Column:
    return sa.Column(name, sa.BigInteger, nullable=nullable, primary_key=key, autoincrement=False)


def _bool(name: str) -> sa.Column:
    return sa.Column(name, sa.Boolean, nullable=False)


def upgrade() -> None:
    op.create_table(
        "read_player_rounds",
        *_game_key(),
        _int("round", key=True),
        sa.Column("player_id", sa.Text, primary_key=True, autoincrement=False),
        _text("submission"),
        _text("move"),
        _bool("valid"),
        _text("reason"),
        _int("points"),
        _int("top_score", nullable=True),
        _bool("solo"),
        _int("bonus"),
        _int("penalty"),
        _int("score"),
        sa.Column("pct_of_top", sa.Float),
        _int("cumulative"),
        _bool("closed"),
        _int("seq", nullable=True),
    )
    op.create_table(
        "read_rounds",
        *_game_key(),
        _int("round", key=True),
        _text("rack", nullable=False),
        _text("top_move"),
        _int("top_score", nullable=True),
        _text("top_source"),
        _int("computer_top_score", nullable=True),
        _int("found_top"),
        _text("solo_player_id"),
        _bool("closed"),
    )
    op.create_table(
        "read_game_standings",
        *_game_key(),
        _int("rank"),
        sa.Column("player_id", sa.Text, primary_key=True, autoincrement=False),
        _text("name"),
        _int("total"),
        sa.Column("pct_of_top", sa.Float),
        _int("solos"),
        _int("rounds"),
    )
    for table in ("read_player_rounds", "read_rounds", "read_game_standings"):
        op.create_index(f"ix_{table}_season", table, ["season", "tournament_id"])
    op.create_table(
        "read_games",
        sa.Column("game_id", sa.Text, primary_key=True, autoincrement=False),
        _text("stream", nullable=False),
        _text("season"),
        _text("tournament_id"),
        _text("variant"),
        _int("last_seq"),
        _int("events"),
        _text("problem"),
    )
    op.create_table(
        "read_models",
        sa.Column("name", sa.Text, primary_key=True, autoincrement=False),
        _int("seq"),
        _text("hash", nullable=False),
        _text("recomputed_at", nullable=False),
    )


def downgrade() -> None:
    for table in ("read_player_rounds", "read_rounds", "read_game_standings"):
        op.drop_index(f"ix_{table}_season", table_name=table)
    for table in (
        "read_models",
        "read_games",
        "read_game_standings",
        "read_rounds",
        "read_player_rounds",
    ):
        op.drop_table(table)
