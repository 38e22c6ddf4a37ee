"""Read models of a game state: round results, standings, the position at a moment.

    round_results(state, n, submissions=True) -> RoundResults
        Every player's submissions as written (received and corrected, each with a status:
        `counted`, `superseded`, `late`, `corrected`, `revoked`, or why it scores 0 as a
        problem code such as `annulled`, `unreadable`, `not_in_dictionary`), the judgement of
        each (parsed move, words and points with premiums, bingo bonus), the solo bonus,
        penalty and round score; the top (provisional while the round is open); the notes.
        With `submissions=False` the texts as written are left out (`submissions` is None):
        the standing parts and the scores are all that standings and the season's rows read,
        and listing every text was most of what explaining a round cost them.
    standings(state, results=None) -> tuple[Standing, ...]
        Ranked players (ties share the place), total, solos, warnings, percentage of the top total;
        from the results of every round when the caller already has them.
    position(state, player_id=None) -> Position
        The board, rack and bag at the moment folded (a player's own board in a last round).

All are pure functions of the state: every number shown is recomputed from the events.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from engine.bag import Bag
from engine.board import Board
from engine.games import rounds
from engine.games.context import Judgement
from engine.games.state import GameState, Note, PartResult, PlayerRound, RoundState, RoundTop
from engine.placement import Tile

if TYPE_CHECKING:
    from engine.games.anticipation_state import Replacing

# Anticipation's own rules and views are imported by the functions that read an anticipation
# game: the views of the other variants' games never load them.


@dataclass(frozen=True)
class SubmissionView:
    """One text as received (or as the arbiter corrected it), judged, with its status."""

    event_id: str
    seq: int | None
    part: int
    text: str
    received_at: datetime | None
    source: str | None
    correction: bool
    reason: str | None
    status: str
    judgement: Judgement
    score: int


@dataclass(frozen=True)
class PlayerResult:
    """A player's round: what they sent, each part as judged, bonus, penalty, round score.

    `code` says why the round scores nothing (`no_submission`, `late`, `annulled`, a move
    problem), None when some part counts. `submissions` is None when the round's results were
    asked for without them.
    """

    player_id: str
    name: str | None
    submissions: tuple[SubmissionView, ...] | None
    parts: tuple[PartResult, ...]
    score: int
    solo: bool
    bonus: int
    penalty: int
    total: int
    code: str | None
    replacement: Replacing | None = None
    """Anticipation: the player's replacement for the round, as written and as read."""
    warnings: int = 0
    """The player's standing warnings of the round (what they cost is in `penalty`)."""


@dataclass(frozen=True)
class RoundResults:
    """A round explained: board and rack as drawn, top, every player's result, notes."""

    round: int
    board: Board
    rack: str
    drawn: str
    rejected: tuple[str, ...]
    deadline: datetime | None
    last: bool
    closed: bool
    top: RoundTop | None
    players: tuple[PlayerResult, ...]
    notes: tuple[Note, ...]


@dataclass(frozen=True)
class Standing:
    """A player's place (ties share it), total, solos, percentage of the top total."""

    rank: int
    player_id: str
    name: str | None
    total: int
    solos: int
    pct: float | None
    rounds: tuple[int, ...]
    warnings: int = 0
    """The player's standing warnings of the game."""


@dataclass(frozen=True)
class Position:
    """The board, rack and bag at a moment; `last_move` is the last top placed."""

    round: int | None
    board: Board
    rack: str
    bag: Bag
    last_move: tuple[Tile, ...]
    over: str | None
    ended: str | None


def round_top(state: GameState, rnd: RoundState) -> RoundTop | None:
    """The round's top: final once closed, else what closing now would place (none in
    anticipation, where every player plays their own board)."""
    if rnd.closed:
        return rnd.top
    if state.created is not None and state.created.variant == "anticipation":
        return None
    return rounds.round_top(state, rnd)


def _views(state: GameState, rnd: RoundState, player: PlayerRound) -> tuple[SubmissionView, ...]:
    context = state.context
    assert context is not None
    standing = {p.entry.event_id: p for p in player.parts}
    corrections = {p.correction.event_id: p for p in player.parts if p.correction is not None}
    revoked = {d.event_id for d in rnd.decisions if not d.standing}
    judged_on = {p.part: (p.board, p.rack) for p in player.parts}
    judge = context.judge
    if state.created is not None and state.created.variant == "anticipation":
        from engine.games import anticipation_rules

        judge = functools.partial(anticipation_rules.judge, context, joker_for=None)
    views = []
    for entry in player.received:
        board, rack = judged_on.get(entry.part, (rnd.board, rnd.rack))
        part = corrections.get(entry.event_id) if entry.correction else standing.get(entry.event_id)
        if part is not None:
            status = "corrected" if not entry.correction and part.correction else part.code
            views.append(
                SubmissionView(
                    entry.event_id, entry.seq, entry.part, entry.text, entry.received_at,
                    entry.source, entry.correction, entry.reason, status or "counted",
                    part.judgement if status != "corrected" else
                    judge(board, rack, entry.text),
                    part.score if status != "corrected" else 0,
                )
            )  # fmt: skip
            continue
        if entry.correction:
            status = "revoked" if entry.event_id in revoked else "superseded"
        else:
            status = "late" if rounds.is_late(entry.received_at, rnd.deadline) else "superseded"
        views.append(
            SubmissionView(
                entry.event_id, entry.seq, entry.part, entry.text, entry.received_at,
                entry.source, entry.correction, entry.reason, status,
                judge(board, rack, entry.text), 0,
            )
        )  # fmt: skip
    return tuple(views)


def round_results(state: GameState, n: int, *, submissions: bool = True) -> RoundResults:
    """Round `n` explained (without the texts as written when `submissions` is False);
    `KeyError` when the round was never drawn."""
    rnd = state.round(n)
    if rnd is None:
        raise KeyError(f"round {n} has not been drawn")
    context = state.context
    assert context is not None
    top = round_top(state, rnd)
    results = []
    for player_id, joined in state.players.items():
        player = rnd.player(player_id)
        solo = top is not None and top.solo == player_id
        bonus = context.settings.solo_bonus if solo else 0
        penalty = state.penalty(rnd, player_id)
        score = player.score
        if not player.parts:
            code = "no_submission"
        elif any(p.code is None for p in player.parts):
            code = None
        else:
            code = player.parts[0].code
        results.append(
            PlayerResult(
                player_id, joined.name, _views(state, rnd, player) if submissions else None,
                player.parts, score, solo, bonus, penalty, score + bonus - penalty, code,
                player.replacement, rnd.warnings(player_id),
            )
        )  # fmt: skip
    notes = tuple(note for note in state.notes if note.round == n)
    return RoundResults(
        n, rnd.board, rnd.rack, rnd.drawn, rnd.rejected, rnd.deadline, rnd.last, rnd.closed,
        top, tuple(results), notes,
    )  # fmt: skip


def pct_of(score: int, top: int | None) -> float | None:
    """A score as a percentage of the top (2 decimals; solo bonuses count, so it may pass
    100), none where there is no top: every table that shows it reads it from here."""
    return round(100 * score / top, 2) if top else None


def standings(
    state: GameState, results: Sequence[RoundResults] | None = None
) -> tuple[Standing, ...]:
    """Players ranked by total (ties share the place, listed in joining order); `results`,
    when given, are those of every round of the state in order (as `round_results` gives
    them), which spares explaining each round again."""
    if state.context is None:
        return ()
    if results is None:
        results = [round_results(state, r.number, submissions=False) for r in state.rounds]
    totals: dict[str, list[int]] = {p: [] for p in state.players}
    solos = dict.fromkeys(state.players, 0)
    warnings = dict.fromkeys(state.players, 0)
    top_total = 0
    for result in results:
        if result.top is not None:
            top_total += result.top.score
        for player in result.players:
            totals[player.player_id].append(player.total)
            solos[player.player_id] += player.solo
            warnings[player.player_id] += player.warnings
    order = sorted(state.players, key=lambda p: -sum(totals[p]))
    ranked = []
    for i, player_id in enumerate(order):
        total = sum(totals[player_id])
        rank = ranked[-1].rank if ranked and ranked[-1].total == total else i + 1
        pct = pct_of(total, top_total)
        name = state.players[player_id].name
        ranked.append(
            Standing(
                rank,
                player_id,
                name,
                total,
                solos[player_id],
                pct,
                tuple(totals[player_id]),
                warnings[player_id],
            )
        )
    return tuple(ranked)


def position(state: GameState, player_id: str | None = None) -> Position:
    """The board, rack and bag now; with a player, their own board in an open last round (in
    anticipation, their own board at any moment, and the group they play)."""
    current = state.current
    created = state.created
    if player_id is not None and created is not None and created.variant == "anticipation":
        from engine.games import anticipation_views

        board, rack, laid = anticipation_views.own_position(state, player_id)
        number = current.number if current is not None else None
        return Position(number, board, rack, state.bag, laid, state.over, state.ended)
    board, rack = state.board, state.rack
    last_move: tuple[Tile, ...] = ()
    closed = [r for r in state.rounds if r.closed and r.top is not None]
    if closed:
        top = closed[-1].top
        assert top is not None
        last_move = top.tiles
    if current is not None and not current.closed:
        board = current.board
        player = current.players.get(player_id) if player_id is not None else None
        if player is not None and current.last:
            for part in player.parts:
                if part.code is None:
                    board = board.with_tiles((t.row, t.col, t.cell) for t in part.tiles)
                    rack = rounds.rack_after(rack, part.judgement)
                    last_move = part.tiles
    number = current.number if current is not None else None
    return Position(number, board, rack, state.bag, last_move, state.over, state.ended)


__all__ = [
    "PlayerResult",
    "Position",
    "RoundResults",
    "Standing",
    "SubmissionView",
    "position",
    "round_results",
    "round_top",
    "standings",
]
