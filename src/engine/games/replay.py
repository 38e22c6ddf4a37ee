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

A variant's module is imported when a game of that variant is first folded or decided, not
with this module: folding a game imports only its variant's fold (a duplicate game's standings
never load the commands, nor the other variants' rules).
    replay(events: Iterable[Recorded], resolve) -> GameState
        fold(evolve, events, initial_state(resolve)); the state at any event is the fold of
        the prefix.
    replay_states(events, resolve) -> Iterator[GameState]
        The state after each event, in order (for `--at SEQ`).

Only `resolve` may raise (a game whose ruleset or dictionary cannot be found cannot be
judged); everything about the events themselves is kept in the state.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from engine.games.context import GameContext, Judgement, context_for
from engine.games.events import Recorded
from engine.games.state import GameRuleError, GameState, Resolve

if TYPE_CHECKING:
    # Imported on first use (`_Modules`); named here for the type checkers and for the import
    # graph (import-linter's layers contract, tests/test_import_circles.py).
    from engine.games import (  # noqa: F401
        anticipation,
        anticipation_evolve,
        completiv,
        duplicate,
        duplicate_evolve,
    )
    from engine.games.commands import Command
    from engine.games.events import Event

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


class _Modules(Mapping[str, ModuleType]):
    """A read-only mapping of names to modules, each imported on first lookup (by its dotted
    path); its keys, their order and its length are known without importing any."""

    __slots__ = ("_loaded", "_paths")

    def __init__(self, paths: dict[str, str]) -> None:
        self._paths = paths
        self._loaded: dict[str, ModuleType] = {}

    def __getitem__(self, name: str) -> ModuleType:
        module = self._loaded.get(name)
        if module is None:
            module = self._loaded[name] = importlib.import_module(self._paths[name])
        return module

    def __contains__(self, name: object) -> bool:
        return name in self._paths  # without importing the module (Mapping's would)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._paths!r})"


VARIANTS: Mapping[str, ModuleType] = _Modules(
    {
        "duplicate": "engine.games.duplicate",
        "completiv": "engine.games.completiv",
        "eliptic": "engine.games.duplicate",
        "anticipation": "engine.games.anticipation",
    }
)
"""The variant modules, by GameCreated.variant: each has `decide` and `evolve` (imported when
first looked up). A game of a variant not listed is kept as ignored from its GameCreated on
(`variant_not_supported`). Duplicat eliptic is duplicate played with other numbers
(`settings.VARIANT_SETTINGS`)."""

_FOLDS: Mapping[str, ModuleType] = _Modules(
    {
        "duplicate": "engine.games.duplicate_evolve",
        "completiv": "engine.games.completiv",
        "eliptic": "engine.games.duplicate_evolve",
        "anticipation": "engine.games.anticipation_evolve",
    }
)
"""The module of each variant's `evolve` (the very function `VARIANTS[variant].evolve` is,
without importing what only its `decide` needs: the commands, the draws' checks)."""


def _name(state: GameState, opening: object) -> str:
    """The game's variant as `VARIANTS` names it; before GameCreated, the one the opening
    event or command (GameCreated, CreateGame) names; duplicate for any other."""
    created = state.created
    variant = created.variant if created is not None else getattr(opening, "variant", None)
    variant = variant or "duplicate"
    return variant if variant in VARIANTS else "duplicate"


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """One recorded event folded in by the game's variant (never raises on the event)."""
    return _FOLDS[_name(state, recorded.event)].evolve(state, recorded)


def decide(state: GameState, command: Command) -> list[Event]:
    """The events a command records, decided by the game's variant."""
    return VARIANTS[_name(state, command)].decide(state, command)


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
