"""Anticipation with metagrams (RULES 4): every player plays their own board.

    decide(state: GameState, command: Command) -> list[Event]
        The events a command records, or `GameRuleError` saying why not. Like the duplicate's,
        decide folds the events it proposes and refuses them if the fold would ignore them.
    evolve(state: GameState, recorded: Recorded) -> GameState
        The fold (`anticipation_evolve`; the rules of a player's round in
        `anticipation_rules`); never raises on a recorded event.

The arbiter draws 14 groups of 7 from the 98 letters (by hand or from the game's committed
seed, as in the duplicate game, without the vowel/consonant rule); each player's stock starts
with the two jokers. A player's round is their replacement (`DeclareReplacement`, optional,
at most one, recorded as written and never changed: one that cannot be applied counts as none)
and their submission, judged on their own board; the last round takes two submissions, part 1
with the stock's two tiles and part 2 with the group. There is no top, no solo and no top
choice; closing a round moves every player's board, stock and eliminated letters on.
"""

from __future__ import annotations

from engine.bag import BagError
from engine.games import draws, duplicate
from engine.games.anticipation_evolve import NO_RULE, evolve
from engine.games.commands import (
    ChooseTop,
    CloseRound,
    Command,
    CreateGame,
    DeclareReplacement,
    DrawRack,
    EndGame,
    event_of,
)
from engine.games.events import (
    Event,
    RackDrawn,
    RoundClosed,
)
from engine.games.state import GameRuleError, GameState

__all__ = ["decide", "evolve"]


def _create(command: CreateGame) -> list[Event]:
    """The duplicate's events of a new game (ruleset, settings, seed, players checked there),
    once its settings ask for no top."""
    if "top_source" in command.settings:
        raise GameRuleError(
            "bad_setting",
            "settings.top_source: an anticipation round has no top (every player plays their"
            " own board): drop it",
        )
    return duplicate.created_events(command)


def _draw(state: GameState, command: DrawRack) -> list[Event]:
    created, context = state.created, state.context
    assert created is not None and context is not None
    if created.draw != "seeded":
        if command.tiles is None:
            raise GameRuleError("tiles_missing", "a manual draw needs the 7 letters drawn")
        return [RackDrawn(command.round, command.tiles, tuple(command.rejected), command.deadline)]
    if command.tiles is not None:
        raise GameRuleError(
            "seeded_game", "this game's draws are seeded: give the seed, not the tiles"
        )
    if command.seed is None or draws.seed_commitment(command.seed) != created.seed_commitment:
        raise GameRuleError(
            "seed_mismatch",
            "the seed given does not hash to the game's commitment: give the secret seed",
        )
    size, vowels = context.settings.draw_size, context.ruleset.vowels
    plan = draws.plan_draw("", state.bag, size, NO_RULE, vowels)
    if not isinstance(plan, draws.DrawPlan):
        raise GameRuleError(plan.code, plan.message)
    try:
        tiles, _ = draws.seeded_draw(command.seed, command.round, plan, "", state.bag, vowels)
    except BagError as exc:
        raise GameRuleError("game_over", str(exc)) from None
    return [RackDrawn(command.round, tiles, (), command.deadline)]


def _events(state: GameState, command: Command) -> list[Event]:
    match command:
        case DrawRack():
            return _draw(state, command)
        case DeclareReplacement():
            return [event_of(command)]
        case CloseRound():
            return [RoundClosed(command.round)]
        case EndGame():
            return duplicate.end_events(state, command)
        case ChooseTop():
            raise GameRuleError(
                "no_top", "every player plays their own board: an anticipation round has no top"
            )
    return duplicate.restated(command, "an anticipation")


def decide(state: GameState, command: Command) -> list[Event]:
    """The events that carry out an arbiter's command, or `GameRuleError` saying why not."""
    if isinstance(command, CreateGame):
        if state.created is not None:
            raise GameRuleError("game_exists", f"game {state.created.game_id} already exists")
        events = _create(command)
    elif state.created is None:
        raise GameRuleError("no_game", "the game does not exist: create it first")
    else:
        events = _events(state, command)
    return duplicate.checked(state, events, command, evolve)
