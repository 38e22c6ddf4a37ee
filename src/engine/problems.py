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
    "more_than_a_move_lays": "more tiles than a move may lay (duplicat eliptic: 7 of the 8)",
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
    "no_submission": "the player sent nothing this round",
    "superseded": "replaced by a later submission of the same player before the deadline",
    "corrected": "replaced by the arbiter's correction",
    "revoked": "a correction the arbiter revoked",
    # draws (engine.games.draws)
    "wrong_draw_size": "a draw has not the number of tiles the round draws",
    "tiles_not_in_bag": "a draw holds tiles the bag no longer has",
    "draw_breaks_vowel_rule": "the rack breaks the vowel/consonant rule: draw again",
    "rejected_draw_was_valid": "a draw recorded as rejected keeps the rule",
    "game_over": "the bag is empty and the rack played out, or no draw can keep the rule",
    "seeded_game": "a seeded game's draws come from its seed, not from tiles typed in",
    "tiles_missing": "a manual draw needs the tiles drawn",
    "seed_mismatch": "the seed does not hash to the game's commitment",
    "seed_revealed": "the seed was already revealed",
    "not_seeded": "the game's draws are manual: there is no seed",
    "draw_mismatch": "a recorded draw differs from the one the revealed seed derives",
    # a game's events and the arbiter's commands (engine.games.duplicate)
    "no_game": "the game has not been created",
    "game_exists": "the game was already created",
    "variant_not_supported": "the game's variant is not played yet",
    "unknown_ruleset": "the ruleset named is not shipped",
    "bad_setting": "a game setting is unknown or has a bad value",
    "seed_commitment_missing": "a seeded game needs the SHA-256 of its seed",
    "seed_commitment_unexpected": "a seed commitment is for seeded games",
    "player_exists": "the player has already joined",
    "unknown_player": "the player has not joined the game",
    "game_ended": "the game has ended",
    "wrong_round": "not the next round to draw",
    "round_not_closed": "the round before is still open",
    "round_not_drawn": "the round has not been drawn",
    "round_closed": "the round is closed: nothing about it is accepted",
    "part_not_allowed": "several submissions in one round only in the last round",
    "nothing_to_annul": "the player has no submission to annul",
    "nothing_to_correct": "the player has no submission to correct",
    "not_a_top": "the move chosen is not a top of the round",
    "top_not_chosen": "different moves share the top: the arbiter must choose",
    "top_interpreted": "a round closed without the choice it needed: the first top was placed",
    "not_a_decision": (
        "only annulments, penalties, warnings, top choices and corrections can be revoked"
    ),
    "unknown_event": "no such decision in this game",
    "already_revoked": "the decision was already revoked",
    "undecodable": "a recorded event whose payload cannot be read",
    "wrong_stream": "an event that does not belong to this kind of game",
    "unknown_command": "a command this variant does not know",
    # duplicat-completiv (engine.games.completiv)
    "completiv_mark_not_allowed": "a letter chosen from the stock, in a game that is not completiv",
    "completiv_letter_unmarked": "the move needs a letter from the stock and marks none",
    "completiv_letter_not_in_stock": "the letter chosen has left the stock and no joker is left",
    "completiv_joker_not_in_stock": "the stock's joker was chosen and none is left in the stock",
    # anticipation (engine.games.anticipation)
    "replacement_unreadable": "the replacement does not parse as -A+B or -C+Do",
    "replaced_letter_not_in_group": "the letter replaced is not in the round's group",
    "taken_letter_not_in_stock": "the letter taken is not in the player's stock",
    "replacement_declared": "the player's replacement for this round is already recorded",
    "joker_not_as_declared": "the joker taken from the stock stands for another letter",
    "no_top": "every player plays their own board: there is no top to choose",
}
"""Every code with a one-line meaning (for documentation, views and translations).

A `bad_<field>` code (for example `bad_points`) refuses a command whose value the record
format cannot hold; the message names the field.
"""
