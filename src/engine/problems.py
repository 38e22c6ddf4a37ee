"""Why a move or a submission does not count: a stable code and a message in English.

Projections, exports and translations rely on the code; the message is for people. Codes are
part of the public contract: add new ones, never rename or reuse one.
"""

from __future__ import annotations

from typing import NamedTuple


class Problem(NamedTuple):
    code: str
    message: str

    def __str__(self) -> str:
        return self.message


CODES: dict[str, str] = {
    # the move's geometry and tiles (engine.placement)
    "off_board": "the move starts or runs off the board",
    "square_mismatch": "a square already holds another letter than the word writes there",
    "word_incomplete": "the word continues on tiles before or after it",
    "no_new_tile": "the move lays no tile",
    "not_on_centre": "the first move does not cover the centre",
    "not_touching": "the move touches no tile already on the board",
    "no_tile_for_letter": "a letter without tiles (K, Q, W, Y) written as a real tile",
    "too_many_tiles": "more tiles than a rack holds",
    "more_than_the_game_has": "more copies of a tile than the game has",
    "completiv_letter_no_tile": "the completiv letter has no tile",
    "completiv_letter_on_board": "the completiv letter marks a square already on the board",
    "tile_not_on_rack": "the move lays a tile the rack does not hold",
    # the words (engine.verdict)
    "wrong_board_size": "the board is not the ruleset's size",
    "no_word": "the move forms no word of two letters or more",
    "not_in_dictionary": "a word formed is not in the game's dictionary",
    # a submission in a game (engine.games)
    "unreadable": "the text does not parse as a move",
    "late": "received after the round's deadline",
    "annulled": "annulled by the arbiter",
    "superseded": "replaced by a later submission of the same player before the deadline",
    "corrected": "replaced by the arbiter's correction",
    "previous_part_missing": "a later part of a last-round sequence without the part before it",
}
"""Every problem code with a one-line meaning (for documentation and translations)."""
