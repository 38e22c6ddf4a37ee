"""The duplicate variant (RULES 2): every player plays the same board and the same rack.

Public API (names stable; G2 and G3 build on them):

    decide(state: GameState, command: Command) -> list[Event]
        The events a command records, in order; raises `GameRuleError` (`.code`, a message
        saying why and what to do) and records nothing when the rules refuse it.
    evolve(state: GameState, recorded: Recorded) -> GameState
        Pure fold step; never raises on a recorded event: an inconsistent one (imported from a
        file) is kept in `state.ignored` with its reason code and message.

Implementation in progress.
"""
