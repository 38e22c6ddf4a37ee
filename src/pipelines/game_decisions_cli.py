"""`arbitru game choose-top|annul|penalise|warn|correct|revoke`: the arbiter's decisions about a
round, each a new event (nothing recorded is ever edited)."""

from __future__ import annotations

from functools import partial
from typing import Annotated

import typer

from engine.games import commands as cmd
from ledger.database import DEFAULT_URL
from pipelines.game_common import (
    ActorOption,
    DryRunOption,
    GameArg,
    PartOption,
    PlayerOption,
    ReasonOption,
    RoundOption,
    actor_of,
    run,
    run_in_round,
)
from pipelines.inputs import DbOption, JsonOption


def choose_top_command(
    game: GameArg,
    move: Annotated[
        str, typer.Option("--move", help='The top chosen among equal tops, e.g. "H4: JUCATOR".')
    ],
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Choose the top among different moves of equal top score."""
    command = partial(cmd.ChooseTop, move=move, actor=actor_of(actor))
    run_in_round(db, game, command, round_number=round_number, dry_run=dry_run, as_json=as_json)


def annul_command(
    game: GameArg,
    player: PlayerOption,
    reason: ReasonOption,
    part: PartOption = 1,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Annul a player's submission (it scores 0; the submission stays recorded)."""
    command = partial(cmd.Annul, player_id=player, reason=reason, part=part, actor=actor_of(actor))
    run_in_round(db, game, command, round_number=round_number, dry_run=dry_run, as_json=as_json)


def penalise_command(
    game: GameArg,
    player: PlayerOption,
    points: Annotated[int, typer.Option("--points", min=1, help="Points subtracted.")],
    reason: ReasonOption,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Give a player a penalty in a round."""
    command = partial(
        cmd.Penalise, player_id=player, points=points, reason=reason, actor=actor_of(actor)
    )
    run_in_round(db, game, command, round_number=round_number, dry_run=dry_run, as_json=as_json)


def warn_command(
    game: GameArg,
    player: PlayerOption,
    reason: ReasonOption,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Give a player a warning (avertisment) in a round.

    Counted in the standings and tables; it costs points only when the game sets
    warnings_penalty_after and warnings_penalty_points."""
    command = partial(cmd.Warn, player_id=player, reason=reason, actor=actor_of(actor))
    run_in_round(db, game, command, round_number=round_number, dry_run=dry_run, as_json=as_json)


def correct_command(
    game: GameArg,
    player: PlayerOption,
    text: Annotated[str, typer.Option("--text", help="The arbiter's reading of the slip.")],
    reason: ReasonOption,
    part: PartOption = 1,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Record the arbiter's reading of a submission.

    For an illegible slip or a typing error: the original stays, and the reading is judged as
    if received with it."""
    command = partial(
        cmd.Correct, player_id=player, text=text, reason=reason, part=part, actor=actor_of(actor)
    )
    run_in_round(db, game, command, round_number=round_number, dry_run=dry_run, as_json=as_json)


def revoke_command(
    game: GameArg,
    event_id: Annotated[
        str,
        typer.Option(
            "--event",
            help="The event id of the annulment, penalty, warning, top choice or correction.",
        ),
    ],
    reason: ReasonOption,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Revoke a decision on appeal (it stays recorded, marked revoked)."""
    command = cmd.Revoke(event_id=event_id.strip().lower(), reason=reason, actor=actor_of(actor))
    run(db, game, [command], dry_run=dry_run, as_json=as_json)
