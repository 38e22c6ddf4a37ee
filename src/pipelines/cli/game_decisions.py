"""`arbitru game choose-top|annul|penalise|warn|correct|revoke`: the arbiter's decisions about a
round, each a new event (nothing recorded is ever edited)."""

from __future__ import annotations

from functools import partial
from typing import Annotated

import typer

from engine.games import commands as cmd
from pipelines.cli.game_common import (
    Append,
    GameArg,
    PartOption,
    PlayerOption,
    ReasonOption,
    RoundOption,
    appends,
    checked,
    checked_number,
    run,
    run_in_round,
)
from pipelines.cli.inputs import fail
from pipelines.games.decisions import decision_named
from pipelines.games.service import Game


@appends
def choose_top_command(
    game: GameArg,
    move: Annotated[
        str, typer.Option("--move", help='The top chosen among equal tops, e.g. "H4: JUCATOR".')
    ],
    round_number: RoundOption = None,
    *,
    to: Append,
) -> None:
    """Choose the top among different moves of equal top score."""
    command = partial(cmd.ChooseTop, move=checked("slip", move, "--move"), actor=to.who())
    run_in_round(to, game, command, round_number=round_number)


@appends
def annul_command(
    game: GameArg,
    player: PlayerOption,
    reason: ReasonOption,
    part: PartOption = 1,
    round_number: RoundOption = None,
    *,
    to: Append,
) -> None:
    """Annul a player's submission (it scores 0; the submission stays recorded)."""
    reason = checked("reason", reason, "--reason")
    command = partial(cmd.Annul, player_id=player, reason=reason, part=part, actor=to.who())
    run_in_round(to, game, command, round_number=round_number)


@appends
def penalise_command(
    game: GameArg,
    player: PlayerOption,
    points: Annotated[
        int,
        typer.Option("--points", help="Points subtracted (1 to 1,000: `pipelines.games.limits`)."),
    ],
    reason: ReasonOption,
    round_number: RoundOption = None,
    *,
    to: Append,
) -> None:
    """Give a player a penalty in a round."""
    points = checked_number("points", points, "--points")
    reason = checked("reason", reason, "--reason")
    command = partial(cmd.Penalise, player_id=player, points=points, reason=reason, actor=to.who())
    run_in_round(to, game, command, round_number=round_number)


@appends
def warn_command(
    game: GameArg,
    player: PlayerOption,
    reason: ReasonOption,
    round_number: RoundOption = None,
    *,
    to: Append,
) -> None:
    """Give a player a warning (avertisment) in a round.

    Counted in the standings and tables; it costs points only when the game sets
    warnings_penalty_after and warnings_penalty_points."""
    reason = checked("reason", reason, "--reason")
    command = partial(cmd.Warn, player_id=player, reason=reason, actor=to.who())
    run_in_round(to, game, command, round_number=round_number)


@appends
def correct_command(
    game: GameArg,
    player: PlayerOption,
    text: Annotated[str, typer.Option("--text", help="The arbiter's reading of the slip.")],
    reason: ReasonOption,
    part: PartOption = 1,
    round_number: RoundOption = None,
    *,
    to: Append,
) -> None:
    """Record the arbiter's reading of a submission.

    For an illegible slip or a typing error: the original stays, and the reading is judged as
    if received with it."""
    text, reason = checked("slip", text, "--text"), checked("reason", reason, "--reason")
    command = partial(
        cmd.Correct, player_id=player, text=text, reason=reason, part=part, actor=to.who()
    )
    run_in_round(to, game, command, round_number=round_number)


@appends
def revoke_command(
    game: GameArg,
    event_id: Annotated[
        str,
        typer.Option(
            "--event",
            help="The event id of the annulment, penalty, warning, top choice or correction, "
            "or enough of its start to name one.",
        ),
    ],
    reason: ReasonOption,
    *,
    to: Append,
) -> None:
    """Revoke a decision on appeal (it stays recorded, marked revoked)."""
    reason = checked("reason", reason, "--reason")
    given = event_id.strip().lower()
    if not given:
        fail("--event is empty: give the event id of the decision (`arbitru game results GAME`)")

    def revoke(now: Game) -> list[cmd.Command]:
        """Made on the game as the service reads it: the decision the id or prefix names."""
        return [cmd.Revoke(event_id=decision_named(now, given), reason=reason, actor=to.who())]

    run(to, game, revoke)
