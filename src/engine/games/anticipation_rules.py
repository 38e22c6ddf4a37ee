"""Anticipation with metagrams (RULES 4): a player's replacement, group, stock and own board.

Every player plays their own board with the common groups of 7 letters and keeps a stock of
two tiles, the two jokers at the start. Before a round's submission a player may replace one
letter of the group by one of the stock (`-A+B`; `-C+Do` or `-C+(D)` takes a joker standing
for D): the replaced letter goes into the stock, which always holds two tiles. The letters of
the (modified) group that the submission does not lay are eliminated; in the last round the
player may first lay the stock's two tiles (part 1), then the group (part 2).

Decisions where the federation's text is silent (restated in docs/anticipation.md):
- a replacement is read against the group drawn and the stock the player had at the start of
  the round; one that cannot be applied (unreadable, the letter replaced not in the group, the
  letter taken not in the stock) or that arrived after the deadline counts as none, and the
  round is judged against the group as drawn (rule 10); the first replacement recorded for a
  player and round is the one: a second is refused (rule 9);
- a joker taken from the stock stands for the letter named when it was taken: a submission
  that lays it as another letter is invalid (`joker_not_as_declared`); the stock's jokers are
  free in the last round's stock submission;
- a player's submission is judged on their own board; a later submission before the deadline
  replaces an earlier one and a late one scores 0, as in the duplicate game;
- in a submission's word, a lowercase `o` right after a capital marks that capital as a joker
  (`SERBoATI` is `SER(B)ATI`, the seed's own notation); a joker standing for O is `(O)`.
"""

from __future__ import annotations

import re

from engine.board import Board
from engine.games.anticipation_state import EMPTY_SHEET, Sheet
from engine.games.context import GameContext, Judgement
from engine.games.rounds import part_result, standing_parts
from engine.games.state import (
    GameState,
    PlayerRound,
    RoundState,
    changed,
)
from engine.notation import NotationError, format_replacement, parse_replacement
from engine.placement import Tile
from engine.problems import Problem
from engine.tiles import JOKER, fold


def show_tiles(tiles: str, joker_for: str | None = None) -> str:
    """Tiles for people: a joker taken for D as `(D)`, a free joker as `?`."""
    return "".join(f"({joker_for})" if t == JOKER and joker_for else t for t in tiles)


def read_replacement(
    text: str, group: str, stock: str, late: bool
) -> tuple[str | None, str, str, str, str | None]:
    """(code, message, group, stock, joker_for) of a replacement written against `group` and
    `stock`; code None when it applies, else the group and stock are left as they were."""
    parsed = parse_replacement(text)
    if isinstance(parsed, NotationError):
        return "replacement_unreadable", f"unreadable ({parsed.message})", group, stock, None
    written = format_replacement(parsed)
    taken = JOKER if parsed.joker else parsed.take
    if late:
        return "late", f"{written} arrived after the deadline", group, stock, None
    if parsed.give not in group:
        return (
            "replaced_letter_not_in_group",
            f"{written}: the group {group} has no {parsed.give}",
            group, stock, None,
        )  # fmt: skip
    if taken not in stock:
        what = "joker" if parsed.joker else parsed.take
        return (
            "taken_letter_not_in_stock",
            f"{written}: the stock {show_tiles(stock) or '(empty)'} has no {what}",
            group, stock, None,
        )  # fmt: skip
    at = group.index(parsed.give)
    new_group = group[:at] + taken + group[at + 1 :]
    at = stock.index(taken)
    new_stock = stock[:at] + stock[at + 1 :] + parsed.give
    joker_for = parsed.take if parsed.joker else None
    message = (
        f"{written}: {parsed.give} goes to the stock, "
        + (f"a joker standing for {parsed.take}" if parsed.joker else parsed.take)
        + f" comes into the group ({show_tiles(new_group, joker_for)}, stock {new_stock})"
    )
    return None, message, new_group, new_stock, joker_for


_WORD = re.compile(r"[A-Za-z()\[\]]{2,}")
_MARKED = re.compile(r"([A-Z])o")


def seed_notation(text: str) -> str:
    """A submission with the seed's joker marks (`SERBoATI`) in the common notation
    (`SER(B)ATI`): inside a word with capitals, a lowercase `o` after a capital makes it a
    joker."""

    def mark(word: re.Match[str]) -> str:
        token = word.group(0)
        if sum(ch.isupper() for ch in token) < 2:
            return token
        return _MARKED.sub(r"(\1)", token)

    folded = fold(text)
    return _WORD.sub(mark, folded) if "o" in folded else text


def judge(
    context: GameContext, board: Board, rack: str, text: str, joker_for: str | None
) -> Judgement:
    """A submission judged on the player's board with their tiles; a joker taken from the
    stock must stand for the letter it was taken for."""
    common = seed_notation(text)
    judgement = context.judge(board, rack, common)
    if common != text:
        judgement = judgement._replace(text=text)
    if joker_for is None or not judgement.valid:
        return judgement
    wrong = [t.letter for t in judgement.tiles if t.joker and t.letter != joker_for]
    if not wrong:
        return judgement
    problem = Problem(
        "joker_not_as_declared",
        f"the joker was taken from the stock for {joker_for}; it cannot stand for {wrong[0]}",
    )
    return judgement._replace(problems=(problem,), score=0)


def sheet_of(state: GameState, player_id: str) -> Sheet:
    """The player's sheet at the start of the current round."""
    return state.sheets.get(player_id, EMPTY_SHEET)


def holdings(rnd: RoundState, sheet: Sheet, player: PlayerRound) -> tuple[str, str, str | None]:
    """(group, stock, joker_for) the player plays the round with, after their replacement."""
    replacing = player.replacement
    if replacing is not None and replacing.applied:
        return replacing.group, replacing.stock, replacing.joker_for
    return rnd.drawn, sheet.stock, None


def settle(state: GameState, rnd: RoundState, player: PlayerRound) -> RoundState:
    """The round with the player's parts judged again on their own board, with their group
    (and, in the last round's part 1, their stock), after any change to what they sent or a
    decision."""
    context = state.context
    assert context is not None
    sheet = sheet_of(state, player.player_id)
    group, stock, joker_for = holdings(rnd, sheet, player)
    board, laid = sheet.board, ()
    parts = []
    for part, entry, correction, late, annulled in standing_parts(rnd, player):
        if laid:  # a later part is judged on the board the counted one before it left
            board, laid = board.with_tiles((t.row, t.col, t.cell) for t in laid), ()
        from_stock = rnd.last and part == 1
        rack = stock if from_stock else group
        text = correction.text if correction is not None else entry.text
        judgement = judge(context, board, rack, text, None if from_stock else joker_for)
        result = part_result(part, entry, correction, judgement, late, annulled, board, rack)
        parts.append(result)
        if result.code is None:
            laid = judgement.tiles
    player = changed(player, parts=tuple(parts))
    return changed(rnd, players={**rnd.players, player.player_id: player})


def _left(tiles: str, laid: tuple[Tile, ...]) -> str:
    """The tiles not laid, in their order."""
    left = list(tiles)
    for tile in laid:
        key = JOKER if tile.joker else tile.letter
        if key in left:
            left.remove(key)
    return "".join(left)


def closed_sheet(sheet: Sheet, rnd: RoundState, player: PlayerRound | None) -> Sheet:
    """A player's sheet once the round closes: the counted parts laid on their board, the
    stock after the replacement (less what the last round's part 1 laid), and the group's
    letters not laid eliminated (rule 6; a replacement stands even when what it took is not
    laid, rule 7, and an annulment does not undo it, rule 9)."""
    player = player or PlayerRound("")
    group, stock, _ = holdings(rnd, sheet, player)
    board, last_move = sheet.board, sheet.last_move
    group_laid: tuple[Tile, ...] = ()
    for part in player.parts:
        if part.code is not None:
            continue
        board = board.with_tiles((t.row, t.col, t.cell) for t in part.tiles)
        last_move = part.tiles
        if rnd.last and part.part == 1:
            stock = _left(stock, part.tiles)
        else:
            group_laid += part.tiles
    eliminated = sheet.eliminated + _left(group, group_laid)
    return Sheet(board, stock, eliminated, last_move)
