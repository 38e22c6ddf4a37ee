"""Folding a game's recorded events into its state, at the end or at any event.

Public API (names stable):

    GameContext(ruleset, settings, dictionary, lexicon=None)
        What a game is judged with: the ruleset with the game's overrides, its `GameSettings`,
        its `Dictionary`, optionally a `Lexicon` for the computer's top.
    context_for(created: GameCreated, dictionary: Dictionary, lexicon=None) -> GameContext
        The context a GameCreated asks for (ruleset by name, settings applied); the pipelines'
        `resolve` finds the dictionary by GameCreated.dictionary.sha256 and calls this.
    initial_state(resolve: Callable[[GameCreated], GameContext]) -> GameState
        The state before any event (what `decide(state, CreateGame(...))` starts from).
    evolve(state, recorded: Recorded) -> GameState
        Dispatches to the game's variant module; never raises on a recorded event.
    replay(events: Iterable[Recorded], resolve) -> GameState
        fold(evolve, events, initial_state(resolve)); the state at any event is the fold of
        the prefix.
    replay_states(events, resolve) -> Iterator[GameState]
        The state after each event, in order (for `--at SEQ`).

Implementation in progress.
"""
