"""The per-round table of a game (`arbitru game table`): every player's score round by round
with the top and solo marks, sub-total, solos, penalties, warnings, total, negative,
percentage of the top and rank, the master row first; as stable JSON and as CSV rows.

Every number is read off the projections `game standings` reads (`round_results`,
`standings`, `pct_of`), never worked out a second way. In duplicate and completiv the master
row is the rounds' tops and the negative is a total less the top total; anticipation has no
common top (every player plays their own board, RULES.md §4), so it has no master row, no
percentage (as in `game standings`), and its negative is a total less the winner's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.games.projections import (
    PlayerResult,
    RoundResults,
    Standing,
    round_results,
    standings,
)
from engine.games.state import GameState
from engine.notation import format_placement
from pipelines.files.spreadsheet import inert, spreadsheet_lines
from pipelines.games.shapes import attributes, dictionary_json, reason_message


@dataclass(frozen=True)
class Cell:
    """One round of one row: its move score, the solo bonus and penalty, the round total, the
    mark (`top`, `solo`, None), and what a reader hovering it is told (rack, move, why 0,
    the warnings given)."""

    round: int
    score: int
    mark: str | None
    solo_bonus: int
    penalty: int
    total: int
    rack: str
    move: str | None
    code: str | None
    message: str | None
    warnings: int = 0


@dataclass(frozen=True)
class Row:
    """A player's line (or the master's, `standing` None): cells, sums, negative, % of top."""

    player_id: str | None
    name: str | None
    rank: int | None
    cells: tuple[Cell, ...]
    subtotal: int
    solos: int
    solo_bonus: int
    penalties: int
    total: int
    negative: int
    pct_of_top: float | None
    warnings: int = 0


@dataclass(frozen=True)
class GameTable:
    game_id: str
    variant: str
    rounds: int
    closed_rounds: int
    top_total: int
    negative_from: str
    """`top`: the negative is measured from the top total; `winner` (anticipation): from the
    first-ranked total."""
    master: Row | None
    players: tuple[Row, ...]
    ended: str | None


def _move(result: PlayerResult) -> str | None:
    moves = [format_placement(p.judgement.move) for p in result.parts if p.judgement.move]
    return "; ".join(moves) or None


def _player_cell(results: RoundResults, result: PlayerResult) -> Cell:
    top = results.top
    mark = None
    if result.solo:
        mark = "solo"
    elif top is not None and result.player_id in top.reached_by:
        mark = "top"
    racks = [p.rack for p in result.parts if p.rack]
    return Cell(
        results.round, result.score, mark, result.bonus, result.penalty, result.total,
        racks[0] if racks else results.rack, _move(result), result.code,
        reason_message(result.code, result), result.warnings,
    )  # fmt: skip


def _master_cell(results: RoundResults) -> Cell:
    top = results.top
    assert top is not None
    move = "; ".join(top.moves) or None
    return Cell(
        results.round, top.score, "top", 0, 0, top.score, results.rack, move, None, None
    )  # fmt: skip


def _row(standing: Standing, cells: list[Cell], best: int) -> Row:
    return Row(
        standing.player_id, standing.name, standing.rank, tuple(cells),
        sum(c.score for c in cells), standing.solos, sum(c.solo_bonus for c in cells),
        sum(c.penalty for c in cells), standing.total, standing.total - best, standing.pct,
        standing.warnings,
    )  # fmt: skip


def game_table(game_id: str, state: GameState) -> GameTable:
    """The table of a game that can be judged (`state.context` set), open rounds included
    as closing them now would score them (as `game standings` shows them)."""
    assert state.context is not None and state.created is not None
    results = [round_results(state, rnd.number, submissions=False) for rnd in state.rounds]
    ranked = standings(state, results)
    tops = [r.top for r in results]
    anticipation = state.created.variant == "anticipation"
    top_total = sum(top.score for top in tops if top is not None)
    master = None
    if not anticipation:
        cells = tuple(_master_cell(r) for r in results if r.top is not None)
        master = Row(
            None, None, None, cells, top_total, 0, 0, 0, top_total, 0, 100.0 if top_total else None
        )
    best = ranked[0].total if anticipation and ranked else top_total
    by_player: dict[str, list[Cell]] = {p: [] for p in state.players}
    for result in results:
        for player in result.players:
            by_player[player.player_id].append(_player_cell(result, player))
    return GameTable(
        game_id, state.created.variant, len(state.rounds),
        sum(1 for r in state.rounds if r.closed), top_total,
        "winner" if anticipation else "top", master,
        tuple(_row(s, by_player[s.player_id], best) for s in ranked), state.ended,
    )  # fmt: skip


def _cell_json(cell: Cell) -> dict[str, Any]:
    return attributes(
        cell, "round score mark solo_bonus penalty warnings total rack move code message"
    )


def _row_json(row: Row) -> dict[str, Any]:
    return {
        **attributes(row, "rank player_id name"),
        "rounds": [_cell_json(c) for c in row.cells],
        **attributes(row, "subtotal solos solo_bonus penalties warnings total negative pct_of_top"),
    }


def table_json(table: GameTable, state: GameState) -> dict[str, Any]:
    """`game table --json`: the keys docs/tables.md lists (added, never renamed)."""
    return {
        **attributes(table, "game_id variant rounds closed_rounds top_total negative_from"),
        "master": _row_json(table.master) if table.master is not None else None,
        "players": [_row_json(r) for r in table.players],
        "dictionary": dictionary_json(state),
        "ended": table.ended,
    }


CSV_SUMS = (
    "subtotal",
    "solos",
    "solo_bonus",
    "penalties",
    "warnings",
    "total",
    "negative",
    "pct_of_top",
)


def csv_header(table: GameTable) -> list[str]:
    rounds = [f"round_{n}" for n in range(1, table.rounds + 1)]
    return ["row", "rank", "player_id", "name", *rounds, *CSV_SUMS, "top_rounds", "solo_rounds"]


def _csv_row(row: Row, rounds: int) -> list[object]:
    scores: list[object] = [""] * rounds
    for cell in row.cells:
        scores[cell.round - 1] = cell.score
    marked = {m: " ".join(str(c.round) for c in row.cells if c.mark == m) for m in ("top", "solo")}
    pct = "" if row.pct_of_top is None else f"{row.pct_of_top:.2f}"
    master = row.player_id is None
    return [
        "master" if master else "player",
        "" if row.rank is None else row.rank,
        "" if master else row.player_id,
        "" if master else inert(row.name or ""),
        *scores,
        row.subtotal, row.solos, row.solo_bonus, row.penalties, row.warnings, row.total,
        row.negative, pct, "" if master else marked["top"], marked["solo"],
    ]  # fmt: skip


def csv_lines(table: GameTable) -> Iterator[bytes]:
    """The table as CSV for a spreadsheet (`pipelines.files.spreadsheet`): a header line, then
    the master row (if any, `row` = `master`) and the players by rank (`row` = `player`)."""
    rows = [table.master] if table.master is not None else []
    lines = (_csv_row(r, table.rounds) for r in [*rows, *table.players])
    return spreadsheet_lines(csv_header(table), lines)
