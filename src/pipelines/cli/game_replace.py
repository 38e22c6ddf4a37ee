"""`arbitru game replace`: record an anticipation player's replacement (`-A+B`, `-C+Do`)
exactly as written on the slip. It is recorded whatever it says: one that cannot be applied
counts as no replacement (the round is judged against the group drawn), and a recorded
replacement is never changed, so a second one for the same player and round is refused."""

from __future__ import annotations

from functools import partial
from typing import Annotated

import typer

from engine.games import commands as cmd
from pipelines.cli.game_common import (
    Append,
    GameArg,
    LateOption,
    PlayerOption,
    RoundOption,
    SourceOption,
    appends,
    checked,
    run_in_round,
    time_option,
)


@appends
def replace_command(
    game: GameArg,
    player: PlayerOption,
    text: Annotated[
        str, typer.Option("--text", help='The replacement as written, e.g. "-B+Bo" or "-A+E".')
    ],
    received_at: Annotated[
        str | None,
        typer.Option(
            "--received-at",
            help="When the slip was handed in (ISO 8601; default: now, refused once the "
            "deadline has passed).",
        ),
    ] = None,
    late: LateOption = False,
    source: SourceOption = None,
    round_number: RoundOption = None,
    *,
    to: Append,
) -> None:
    """Anticipation: record a player's letter replacement for the round, as written."""
    command = partial(
        cmd.DeclareReplacement,
        player_id=player,
        text=checked("slip", text, "--text"),
        received_at=time_option(received_at, "--received-at"),
        source=source,
        actor=to.who(),
    )
    run_in_round(to, game, command, round_number=round_number, late=late)
