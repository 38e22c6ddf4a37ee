"""The read model of game standings counts each player's warnings (`WarningGiven`).

`read_game_standings` gains `warnings`, the standing warnings of the player in the game. The
rows already there were computed before a warning could be recorded, so 0 is their true count
(the column's default); every recompute after this writes it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column(
        "read_game_standings",
        sa.Column("warnings", sa.BigInteger, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    with op.batch_alter_table("read_game_standings") as batch:
        batch.drop_column("warnings")
