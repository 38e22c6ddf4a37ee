"""`arbitru game results|standings|replay`: a round explained, the standings, and the game
at any moment, read from the ledger (nothing is written). Each view of a ledger that fails its
integrity check says so first and exits 1 (`game_common.view_of`); its `--json` has the
reason in `ledger_altered` (null when the check passes)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from engine.games.projections import position
from engine.ruleset import Ruleset
from ledger.database import DEFAULT_URL
from pipelines import game_json
from pipelines import game_views as views
from pipelines.game_common import GameArg, loaded, store, view_of
from pipelines.game_service import Game, replay_to, vouched
from pipelines.inputs import DbOption, JsonOption, emit_json, fail


def _ruleset(game: Game) -> Ruleset:
    context = game.state.context
    if context is None:
        fail(f"{game.stream} cannot be read: its first event is not a usable GameCreated")
    return context.ruleset


def results_command(
    game: GameArg,
    round_number: Annotated[int, typer.Option("--round", min=1, help="The round.")],
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """A round explained, submission by submission.

    Every submission as written, the parsed move, words and points, premiums, bonus, penalty,
    score and reason, and the top."""
    read = loaded(db, game)
    ruleset = _ruleset(read)
    if read.state.round(round_number) is None:
        drawn = len(read.state.rounds)
        fail(f"round {round_number} of {read.stream} has not been drawn ({drawn} round(s) so far)")
    with view_of(read.altered):
        if as_json:
            document = game_json.results_json(read.game_id, read.state, round_number)
            emit_json({**document, "ledger_altered": read.altered})
        else:
            views.show_results(read.state, round_number, ruleset)


def standings_command(
    game: GameArg, db: DbOption = DEFAULT_URL, as_json: JsonOption = False
) -> None:
    """Players ranked by game score.

    Ties share the place; with solos and the percentage of the top total."""
    read = loaded(db, game)
    _ruleset(read)
    with view_of(read.altered):
        if as_json:
            document = game_json.standings_json(read.game_id, read.state)
            emit_json({**document, "ledger_altered": read.altered})
        else:
            views.show_standings(read.game_id, read.state)


def replay_command(
    game: GameArg,
    at: Annotated[
        int | None, typer.Option("--at", min=1, help="The state right after this global seq.")
    ] = None,
    round_number: Annotated[
        int | None,
        typer.Option("--round", min=1, help="The state when this round closed (or now)."),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", help="That player's own board (in a last round; in anticipation, always)."
        ),
    ] = None,
    svg: Annotated[
        Path | None, typer.Option("--svg", help="Also write the board as an SVG picture.")
    ] = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """The game at a moment: board, rack, bag and scores.

    The last move is highlighted on the board."""
    if at is not None and round_number is not None:
        fail("--at and --round exclude each other: give one")
    with store(db) as opened:
        read = vouched(opened, replay_to(opened, game, at=at, round_number=round_number))
    ruleset = _ruleset(read)
    state = read.state
    if player is not None and player not in state.players:
        fail(f"{player} is not a player of {read.stream} (players: {', '.join(state.players)})")
    spot = position(state, player)
    with view_of(read.altered):
        if svg is not None:
            title = f"{read.game_id}, " + (f"round {spot.round}" if spot.round else "start")
            views.write_svg(svg, spot, ruleset, title)
        if as_json:
            document = game_json.position_json(read.game_id, state, spot, player)
            emit_json({**document, "ledger_altered": read.altered})
        elif svg is not None:
            views.out.print(f"wrote {svg}")
        else:
            views.show_position(read.game_id, state, spot, ruleset, player)
