"""A slip previewed while its player writes it: where its tiles go on their board and the
score the rules give it, or why it cannot be placed.

The text is judged as the game judges a slip (the game's own context: its ruleset, its
variant's reading of the completiv letter, anticipation's group and joker), on the board and
tiles that player would play it with, but against a word list that takes every word. The
preview must not be a dictionary during play: a word missing from the game's list previews
exactly like one in it (no `not_in_dictionary`, no validity, the same keys and score), and
nothing is kept between previews (a per-keystroke cache would grow without end and answer
known texts faster).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from engine.board import Board, square_name
from engine.dictionary import Dictionary
from engine.games.anticipation_rules import holdings, judge, sheet_of
from engine.games.context import GameContext, Judgement
from engine.games.rounds import rack_after
from engine.games.state import GameState, RoundState
from engine.notation import format_move


class _EveryWord:
    """A word list holding every word."""

    def __contains__(self, word: object) -> bool:
        return True


EVERY_WORD = Dictionary(words=_EveryWord(), two_letter=_EveryWord(), name="")  # type: ignore[arg-type]
"""What a preview checks words against: nothing is refused, so nothing is told."""


def blind(context: GameContext) -> GameContext:
    """The game's context (its class: completiv's judging too) with `EVERY_WORD` and empty
    caches of its own."""
    kept = {
        f.name: getattr(context, f.name)
        for f in fields(context)
        if f.init and not f.name.startswith("_")
    }
    return type(context)(**{**kept, "dictionary": EVERY_WORD})


def where_played(
    state: GameState, rnd: RoundState, player_id: str, part: int = 1
) -> tuple[Board, str, str | None]:
    """The board, tiles and declared joker (anticipation: the letter a joker taken from the
    stock stands for) `player_id`'s slip `part` of `rnd` is judged with: the round's board and
    rack, or in anticipation their own board and group (their stock in the last round's part
    1); in a last round, after their earlier parts that count."""
    player = rnd.player(player_id)
    anticipation = state.created is not None and state.created.variant == "anticipation"
    joker_for = None
    if anticipation:
        sheet = sheet_of(state, player_id)
        group, stock, joker_for = holdings(rnd, sheet, player)
        board, rack = sheet.board, group
        if rnd.last and part == 1:
            rack, joker_for = stock, None
    else:
        board, rack = rnd.board, rnd.rack
    if rnd.last:
        for earlier in player.parts:
            if earlier.part < part and earlier.code is None:
                board = board.with_tiles((t.row, t.col, t.cell) for t in earlier.tiles)
                if not anticipation:
                    rack = rack_after(rack, earlier.judgement)
    return board, rack, joker_for


def previewed(state: GameState, rnd: RoundState, player_id: str, text: str, part: int) -> Judgement:
    """`text` judged as `player_id`'s slip `part` of `rnd`, every word taken."""
    assert state.context is not None
    context = blind(state.context)
    board, rack, joker_for = where_played(state, rnd, player_id, part)
    if state.created is not None and state.created.variant == "anticipation":
        return judge(context, board, rack, text, joker_for)
    return context.judge(board, rack, text)


def preview_json(
    state: GameState, rnd: RoundState, player_id: str, text: str, part: int = 1
) -> dict[str, Any]:
    """The preview's answer (the API's `POST .../preview`): always the same keys."""
    judged = previewed(state, rnd, player_id, text, part)
    verdict = judged.verdict
    return {
        "round": rnd.number,
        "player": player_id,
        "part": part,
        "text": text,
        "move": format_move(judged.move) if judged.move is not None else None,
        "tiles": [
            {
                "row": t.row,
                "col": t.col,
                "square": square_name(t.row, t.col),
                "letter": t.letter,
                "joker": t.joker,
            }
            for t in (verdict.tiles if verdict is not None else ())
        ],
        "words": [
            {
                "word": w.written,
                "score": w.score,
                "main": w.main,
                "word_factor": w.word_factor,
                "squares": [s._asdict() for s in w.squares],
            }
            for w in (verdict.words if verdict is not None else ())
        ],
        "bingo": verdict.bingo if verdict is not None else False,
        "bonus": verdict.bonus if verdict is not None else 0,
        "score": judged.score,
        "problems": [{"code": p.code, "message": p.message} for p in judged.problems],
        "notes": list(judged.notes),
    }
