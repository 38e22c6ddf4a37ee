"""A folded game as the season's rows: one per player per round, one per round, one per place.

    game_rows(state, season=None, tournament_id=None) -> GameRows
        The rows of a game state (`player_rounds`, `rounds`, `standings`), read through the
        engine's projections (`round_results`, `standings`), so that every number is the one
        `arbitru game` shows and no variant's internals are read here.

These rows are the single source of the read models (`pipelines.season.readmodels`, filled by
`arbitru recompute`) and of the Parquet export: each row class's fields, in order, are the
columns; `COLUMNS` gives their names and types. A row is a named tuple, so that it is already
the tuple of values a table or a worker's message takes (a frozen dataclass of 20 fields cost
several times as much to build, and as much again to turn into a tuple). The season is not
in a game's stream (it is in its tournament's `TournamentCreated`), so the caller passes it;
the tournament defaults to the one `GameCreated` names.

Choices:
- A player's round is one row even in a last round played in several parts: the texts of the
  parts that stand are joined with "; ", as a top of several parts is written.
- `submission` is the standing text as the player wrote it; `move` is the move it was judged as,
  in canonical notation (after the arbiter's correction, if any); None when unreadable or absent.
- A standing's `warnings` counts the player's warnings of the game that stand; what they cost
  (when the game's settings turn them into a penalty) is already in `penalty` and `total`.
- `points` is what the move earns; `score` is the round's total for the player
  (points + solo bonus - penalty), the figure standings add up; `cumulative` its running sum.
- `computer_top_score` is the top's score when the computer's top was recorded (a game with
  `top_source: computer`); it is not searched for here, which would cost a move generation per
  round and make a recompute depend on more than the records.
- `seq` is the ledger seq of the latest standing submission (or correction) of the player's
  round, None without one.
- Open rounds are included (`closed` False) with their provisional top, as `game standings`
  counts them; a game that cannot be judged (no GameCreated, a variant not supported) has no
  rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, get_type_hints

from engine.games.projections import (
    PlayerResult,
    RoundResults,
    pct_of,
    round_results,
    standings,
)
from engine.games.state import GameState
from engine.notation import format_placement


class PlayerRoundRow(NamedTuple):
    """A player's round: what they wrote, how it was judged and what it scored."""

    season: str | None
    tournament_id: str | None
    game_id: str
    variant: str
    round: int
    player_id: str
    submission: str | None
    move: str | None
    valid: bool
    reason: str | None
    points: int
    top_score: int | None
    solo: bool
    bonus: int
    penalty: int
    score: int
    pct_of_top: float | None
    cumulative: int
    closed: bool
    seq: int | None


class RoundRow(NamedTuple):
    """A round: the rack, the top placed (or provisional), and how many players found it."""

    season: str | None
    tournament_id: str | None
    game_id: str
    variant: str
    round: int
    rack: str
    top_move: str | None
    top_score: int | None
    top_source: str | None
    computer_top_score: int | None
    found_top: int
    solo_player_id: str | None
    closed: bool


class StandingRow(NamedTuple):
    """A player's place in a game (ties share the rank)."""

    season: str | None
    tournament_id: str | None
    game_id: str
    variant: str
    rank: int
    player_id: str
    name: str | None
    total: int
    pct_of_top: float | None
    solos: int
    rounds: int
    warnings: int


@dataclass(frozen=True)
class GameRows:
    player_rounds: tuple[PlayerRoundRow, ...]
    rounds: tuple[RoundRow, ...]
    standings: tuple[StandingRow, ...]


TABLES: dict[str, type] = {
    "player_rounds": PlayerRoundRow,
    "rounds": RoundRow,
    "standings": StandingRow,
}
"""The row class of each table, by table name."""


def _columns(row_class: type) -> tuple[tuple[str, type, bool], ...]:
    hints = get_type_hints(row_class)
    out = []
    for name in row_class._fields:
        args = [a for a in getattr(hints[name], "__args__", (hints[name],)) if a is not None]
        base = next(a for a in args if a is not type(None))
        out.append((name, base, type(None) in args))
    return tuple(out)


COLUMNS: dict[str, tuple[tuple[str, type, bool], ...]] = {
    name: _columns(cls) for name, cls in TABLES.items()
}
"""Each table's columns in order: (name, Python type among str/int/float/bool, nullable)."""


def _player_row(
    key: tuple, results: RoundResults, player: PlayerResult, cumulative: int
) -> PlayerRoundRow:
    standing = [p for p in player.parts if p.code is None] or list(player.parts)
    written = "; ".join(p.entry.text for p in standing) if standing else None
    moves = [format_placement(p.judgement.move) for p in standing if p.judgement.move is not None]
    seqs = [
        r.seq
        for p in standing
        for r in (p.entry, p.correction)
        if r is not None and r.seq is not None
    ]
    top_score = results.top.score if results.top is not None else None
    return PlayerRoundRow(
        *key, results.round, player.player_id, written, "; ".join(moves) or None,
        player.code is None, player.code, player.score, top_score, player.solo, player.bonus,
        player.penalty, player.total, pct_of(player.total, top_score), cumulative,
        results.closed, max(seqs, default=None),
    )  # fmt: skip


def _round_row(key: tuple, results: RoundResults) -> RoundRow:
    top = results.top
    return RoundRow(
        *key, results.round, results.rack,
        "; ".join(top.moves) if top is not None else None,
        top.score if top is not None else None,
        top.source if top is not None else None,
        top.score if top is not None and top.source == "computer" else None,
        len(top.reached_by) if top is not None else 0,
        top.solo if top is not None else None,
        results.closed,
    )  # fmt: skip


def game_rows(
    state: GameState, season: str | None = None, tournament_id: str | None = None
) -> GameRows:
    """The rows of a folded game (empty when it cannot be judged)."""
    created = state.created
    if created is None or state.context is None:
        return GameRows((), (), ())
    key = (season, tournament_id or created.tournament_id, created.game_id, created.variant)
    player_rows: list[PlayerRoundRow] = []
    round_rows: list[RoundRow] = []
    running = dict.fromkeys(state.players, 0)
    every = [round_results(state, rnd.number, submissions=False) for rnd in state.rounds]
    for results in every:
        round_rows.append(_round_row(key, results))
        for player in results.players:
            running[player.player_id] = running.get(player.player_id, 0) + player.total
            player_rows.append(_player_row(key, results, player, running[player.player_id]))
    standing_rows = tuple(
        StandingRow(
            *key, s.rank, s.player_id, s.name, s.total, s.pct, s.solos, len(s.rounds), s.warnings
        )
        for s in standings(state, every)
    )
    return GameRows(tuple(player_rows), tuple(round_rows), standing_rows)


__all__ = [
    "COLUMNS",
    "TABLES",
    "GameRows",
    "PlayerRoundRow",
    "RoundRow",
    "StandingRow",
    "game_rows",
]
