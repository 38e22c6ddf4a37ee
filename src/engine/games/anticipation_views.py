"""Read model of one player in an anticipation game: their own board, group, stock,
eliminated letters and score at the moment folded, and every round explained (which
replacement was applied or counted as none and why, what each submission laid or why it
scores 0, which letters were eliminated).

    player_sheet(state, player_id) -> PlayerSheet
    own_position(state, player_id) -> (board, rack, last_move)
        What `projections.position` shows for a player of an anticipation game.

Pure functions of a folded state, like `projections`: an arbiter settles a dispute by replaying
the player's own history to any event.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import Board
from engine.games.anticipation_rules import (
    closed_sheet,
    holdings,
    sheet_of,
    show_tiles,
)
from engine.games.anticipation_state import EMPTY_SHEET, Sheet
from engine.games.state import GameState, PartResult, PlayerRound, RoundState
from engine.notation import format_move
from engine.placement import Tile
from engine.problems import CODES


@dataclass(frozen=True)
class RoundLine:
    """One round of a player, explained: the group drawn, the replacement as read, the group
    and stock played with, the round's score and penalty, and the letters eliminated (to be
    eliminated while the round is open)."""

    number: int
    drawn: str
    replacement: str | None
    replacement_code: str | None
    group: str
    stock: str
    score: int
    penalty: int
    eliminated: str
    closed: bool
    explanations: tuple[str, ...]


@dataclass(frozen=True)
class PlayerSheet:
    """A player's side of the game now: `group` is what they play the open round with (empty
    between rounds), `stock` their two stock tiles, `total` their score so far."""

    player_id: str
    round: int | None
    board: Board
    group: str
    stock: str
    eliminated: str
    total: int
    last_move: tuple[Tile, ...]
    rounds: tuple[RoundLine, ...]


def _part_text(rnd: RoundState, part: PartResult, joker_for: str | None) -> str:
    stock = rnd.last and part.part == 1
    tiles = f"{'stock' if stock else 'group'} {show_tiles(part.rack, None if stock else joker_for)}"
    label = f"part {part.part} ({tiles})" if rnd.last else tiles
    move = part.judgement.move
    text = format_move(move) if move is not None else part.judgement.text
    if part.code is None:
        return f"{label}: {text} scores {part.score}"
    why = next((p.message for p in part.judgement.problems if p.code == part.code), None)
    return f"{label}: {text} scores 0 ({why or CODES.get(part.code, part.code)})"


def _line(state: GameState, rnd: RoundState, sheet: Sheet, player: PlayerRound) -> RoundLine:
    group, _, joker_for = holdings(rnd, sheet, player)
    after = closed_sheet(sheet, rnd, player)
    eliminated = after.eliminated[len(sheet.eliminated) :]
    lines = [f"group drawn {rnd.drawn}; stock {show_tiles(sheet.stock)}"]
    replacing = player.replacement
    if replacing is None:
        lines.append("no replacement")
    else:
        verdict = "applied" if replacing.applied else "counts as none"
        lines.append(f"replacement {replacing.text!r} {verdict}: {replacing.message}")
    if not player.parts:
        lines.append("no submission")
    lines += [_part_text(rnd, part, joker_for) for part in player.parts]
    annulled = any(p.code == "annulled" for p in player.parts)
    if annulled and replacing is not None and replacing.applied:
        lines.append("the annulment does not undo the round's replacement (rule 9)")
    verb = "eliminated" if rnd.closed else "would be eliminated at the close"
    shown = ", ".join("joker" if t == "?" else t for t in eliminated)
    lines.append(f"{verb}: {shown}" if eliminated else "nothing eliminated")
    warnings = rnd.warnings(player.player_id)
    if warnings:
        lines.append(f"warnings {warnings}")
    penalty = state.penalty(rnd, player.player_id)
    if penalty:
        lines.append(f"penalty {penalty}")
    return RoundLine(
        rnd.number, rnd.drawn, replacing.text if replacing else None,
        replacing.code if replacing else None, show_tiles(group, joker_for),
        after.stock, player.score, penalty, eliminated, rnd.closed, tuple(lines),
    )  # fmt: skip


def player_sheet(state: GameState, player_id: str) -> PlayerSheet:
    """The player's side of the game at the moment folded, with every round explained."""
    sheet = EMPTY_SHEET
    lines = []
    total = 0
    for rnd in state.rounds:
        player = rnd.player(player_id)
        line = _line(state, rnd, sheet, player)
        lines.append(line)
        total += line.score - line.penalty
        if rnd.closed:
            sheet = closed_sheet(sheet, rnd, player)
    board, group, last_move = own_position(state, player_id)
    current = state.current
    open_round = current is not None and not current.closed
    stock = lines[-1].stock if open_round and lines else sheet_of(state, player_id).stock
    return PlayerSheet(
        player_id, current.number if current is not None else None, board,
        group, stock, sheet_of(state, player_id).eliminated, total, last_move, tuple(lines),
    )  # fmt: skip


def own_position(state: GameState, player_id: str) -> tuple[Board, str, tuple[Tile, ...]]:
    """The player's own board (with what their open round's counted parts laid), the group
    they play the open round with ('?' a joker; empty between rounds), their last move."""
    sheet = sheet_of(state, player_id)
    current = state.current
    if current is None or current.closed:
        return sheet.board, "", sheet.last_move
    player = current.player(player_id)
    group, _, _ = holdings(current, sheet, player)
    board, last_move = sheet.board, sheet.last_move
    for part in player.parts:
        if part.code is None:
            board = board.with_tiles((t.row, t.col, t.cell) for t in part.tiles)
            last_move = part.tiles
    return board, group, last_move
