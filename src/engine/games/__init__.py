"""Games as event-sourced state machines: typed events, arbiter commands, variants, replay.

A game is a stream of recorded events (`events`). Each variant module (`duplicate`, `completiv`,
`anticipation`) exposes `decide(state, command)`,
which validates an arbiter's command against the state and returns the events to record or
raises `GameRuleError`, and `evolve(state, recorded)`, which folds one recorded event into the
state and never raises. `replay` folds a whole stream; `projections` read results and standings
off a state. Nothing here does I/O: the pipelines load and append the events.
"""
