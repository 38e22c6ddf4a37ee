"""Folding a game's recorded events into its state, at the end or at any event.

    GameContext(ruleset, settings, dictionary)
        What a game is judged with (`engine.games.context`).
    context_for(created: GameCreated, dictionary: Dictionary) -> GameContext
        The context a GameCreated asks for (ruleset by name, settings applied); the pipelines'
        `resolve` finds the dictionary by GameCreated.dictionary.sha256 and calls this.
    initial_state(resolve: Callable[[GameCreated], GameContext]) -> GameState
        The state before any event (what `decide(state, CreateGame(...))` starts from).
    evolve(state, recorded: Recorded) -> GameState
        One step of the fold, by the game's variant (`VARIANTS`); never raises on a recorded
        event.
    decide(state, command) -> list[Event]
        The events a command records, by the game's variant (`GameRuleError` when refused).
    replay(events: Iterable[Recorded], resolve) -> GameState
        fold(evolve, events, initial_state(resolve)); the state at any event is the fold of
        the prefix.
    replay_states(events, resolve) -> Iterator[GameState]
        The state after each event, in order (for `--at SEQ`).

Only `resolve` may raise (a game whose ruleset or dictionary cannot be found cannot be
judged); everything about the events themselves is kept in the state.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType, ModuleType

from engine.games import anticipation, completiv, duplicate
from engine.games.commands import Command
from engine.games.context import GameContext, Judgement, context_for
from engine.games.events import Event, Recorded
from engine.games.state import GameRuleError, GameState, Resolve

__all__ = [
    "VARIANTS",
    "GameContext",
    "GameRuleError",
    "GameState",
    "Judgement",
    "context_for",
    "decide",
    "evolve",
    "initial_state",
    "replay",
    "replay_states",
]


def initial_state(resolve: Resolve) -> GameState:
    """A game before its first event; `resolve` gives the context its GameCreated asks for."""
    return GameState(resolve=resolve)


VARIANTS: Mapping[str, ModuleType] = MappingProxyType(
    {
        "duplicate": duplicate,
        "completiv": completiv,
        "eliptic": duplicate,
        "anticipation": anticipation,
    }
)
"""The variant modules, by GameCreated.variant: each has `decide` and `evolve`. A game of a
variant not listed is kept as ignored from its GameCreated on (`variant_not_supported`).
Duplicat eliptic is duplicate played with other numbers (`settings.VARIANT_SETTINGS`)."""


def _variant(state: GameState, opening: object) -> ModuleType:
    """The game's variant module; before GameCreated, the one the opening event or command
    (GameCreated, CreateGame) names."""
    created = state.created
    variant = created.variant if created is not None else getattr(opening, "variant", None)
    return VARIANTS.get(variant or "duplicate", duplicate)


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """One recorded event folded in by the game's variant (never raises on the event)."""
    return _variant(state, recorded.event).evolve(state, recorded)


def decide(state: GameState, command: Command) -> list[Event]:
    """The events a command records, decided by the game's variant."""
    return _variant(state, command).decide(state, command)


def replay_states(events: Iterable[Recorded], resolve: Resolve) -> Iterator[GameState]:
    state = initial_state(resolve)
    for recorded in events:
        state = evolve(state, recorded)
        yield state


def replay(events: Iterable[Recorded], resolve: Resolve) -> GameState:
    state = initial_state(resolve)
    for recorded in events:
        state = evolve(state, recorded)
    return state
