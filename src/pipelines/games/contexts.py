"""What each game is judged with: the ruleset, settings and word list its `GameCreated` names,
resolved once per game and process (the word list found by its SHA-256 among the lists
registered on this machine, `pipelines.lexicons.registry`, and loaded once per process)."""

from __future__ import annotations

import functools
import json

from engine.dictionary import Dictionary
from engine.games.context import GameContext, context_for
from engine.games.events import DictionaryRef, GameCreated
from engine.ruleset import RulesetError
from pipelines.games.errors import ServiceError, UnusableGame
from pipelines.lexicons.cache import load_dictionary
from pipelines.lexicons.registry import LexiconSpecError
from pipelines.lexicons.registry import resolve as resolve_list


@functools.lru_cache(maxsize=8)
def _dictionary(sha256: str | None) -> Dictionary:
    """A dictionary by hash (None: the default list), loaded once per process."""
    return load_dictionary(sha256)


_contexts: dict[tuple[str, ...], GameContext] = {}
CONTEXTS_KEPT = 16
"""How many games' contexts (with what they judged) a process keeps: a recompute folds
thousands of games in one process, and keeping every game's judgements would fill memory."""


def forget_contexts() -> None:
    """Drop every game's context and what it judged: the next fold judges from scratch (what a
    fresh worker does; benchmarks use it to time a fold as a recompute does it)."""
    _contexts.clear()


def dictionary_ref(spec: str | None) -> DictionaryRef:
    """What GameCreated records of the word list a spec names (`pipelines.lexicons.registry`: a
    file, registered on first use, a registered list's SHA-256, or the default list)."""
    try:
        dictionary = _dictionary(resolve_list(spec).sha256)
    except (ValueError, OSError) as exc:
        raise ServiceError(str(exc)) from exc
    return DictionaryRef(dictionary.name, dictionary.sha256, len(dictionary.words))


def resolve_context(created: GameCreated) -> GameContext:
    """The ruleset, settings and dictionary a game was created with; one context per game and
    process, so that what it has judged is judged once (a simulation reads the game again after
    each command it records)."""
    ref = created.dictionary
    key = (
        created.game_id,
        created.ruleset,
        json.dumps(created.settings, sort_keys=True, default=str),
        str(ref.sha256 if ref else None),
    )
    if key not in _contexts:
        if len(_contexts) >= CONTEXTS_KEPT:
            del _contexts[next(iter(_contexts))]
        _contexts[key] = _context(created)
    return _contexts[key]


def _context(created: GameCreated) -> GameContext:
    ref = created.dictionary
    sha256 = ref.sha256 if ref is not None else None
    try:
        dictionary = _dictionary(sha256)
    except LexiconSpecError as exc:
        name = f" {ref.name!r}" if ref is not None and ref.name else ""
        raise UnusableGame(
            f"game {created.game_id} is judged with the word list{name} of SHA-256 {sha256}, "
            "which is not registered on this machine: register the same file with "
            "`arbitru lexicon add PATH` and run the command again"
        ) from exc
    except (ValueError, OSError) as exc:
        raise UnusableGame(f"game {created.game_id}: cannot load its word list: {exc}") from exc
    try:
        return context_for(created, dictionary)
    except RulesetError as exc:
        raise UnusableGame(f"game {created.game_id}: {exc}") from exc
