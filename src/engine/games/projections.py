"""Read models of a game state: round results, standings, the position at a moment.

Public API (names stable, pure functions of a `GameState`):

    round_results(state, n: int) -> RoundResults
        Every player's submissions as written (received and corrected, each with its status
        code: counted, superseded, late, unreadable, annulled, or the move's first problem
        code), the parsed move, words and points, premiums (in `WordScore.squares`), bingo
        bonus, solo bonus, penalty, round score; the top; the round's ignored events.
    standings(state) -> tuple[Standing, ...]
        Ranked players (ties share the place): rank, player_id, name, total, solos, pct of
        the top total (sum of the rounds' top scores).
    position(state) -> Position
        The board, rack, bag and round at the moment folded.

Implementation in progress.
"""
