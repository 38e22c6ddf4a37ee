"""What the public is told of a game as it happens: each recorded event turned into a small
notice (or none), from the game's state just before and just after it.

A notice says that something happened and what anyone may know of it; a client then reads the
resource again (`GET /games/{game}`, a round's results) for the rest: the server stays the one
source of truth, and a notice never carries more than the public may see.

| event | notice | data (besides `game_id`, `version`) |
| --- | --- | --- |
| RackDrawn | `round_opened` | round, rack, deadline |
| SubmissionReceived | `slip_received` | round, slips (how many so far; never what, nor who) |
| RoundClosed | `round_closed` | round, top (move, score, found_by), solos |
| annulment, penalty, warning, correction, top choice, revocation | `decision` | kind, round |
| GameEnded | `game_ended` | reason |

Nothing else is told: the game's creation and its players are read from the game itself, an
anticipation replacement is a player's own until the round closes, an event the game ignored
(`Note`) changed nothing to tell. A decision names only its kind and round, whether the round
is open or closed: a top chosen in an open round would show its move, an annulment its player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.games.events import (
    DecisionRevoked,
    GameEnded,
    RackDrawn,
    RoundClosed,
    SubmissionReceived,
)
from engine.games.projections import round_results
from pipelines.games.shapes import time_text

if TYPE_CHECKING:
    from engine.games.events import Recorded
    from engine.games.state import GameState, RoundState

DECISIONS = {
    "SubmissionAnnulled": "annulment",
    "PenaltyGiven": "penalty",
    "WarningGiven": "warning",
    "SubmissionCorrected": "correction",
    "TopChosen": "top_choice",
    "DecisionRevoked": "revocation",
}
"""The arbiter's decisions, by event type, as a `decision` notice names their kind."""


@dataclass(frozen=True)
class Notice:
    """One notice: the ledger seq of the event it reports (its SSE `id`), its kind (the SSE
    `event`), and its data (the SSE `data`, as JSON)."""

    seq: int
    kind: str
    data: dict[str, Any]


def notice_of(
    game_id: str, before: GameState, after: GameState, recorded: Recorded
) -> Notice | None:
    """The notice of `recorded`, folded from `before` into `after` (None: nothing to tell)."""
    if recorded.seq is None or _ignored(before, after, recorded):
        return None
    found = _told(before, after, recorded)
    if found is None:
        return None
    kind, data = found
    return Notice(recorded.seq, kind, {"game_id": game_id, "version": recorded.version, **data})


def _ignored(before: GameState, after: GameState, recorded: Recorded) -> bool:
    """Whether the fold kept `recorded` as ignored (refused by the rules, undecodable)."""
    return any(
        n.ignored and n.event_id == recorded.event_id for n in after.notes[len(before.notes) :]
    )


def _told(
    before: GameState, after: GameState, recorded: Recorded
) -> tuple[str, dict[str, Any]] | None:
    event = recorded.event
    if isinstance(event, RackDrawn):
        drawn = after.round(event.round)
        if drawn is None:
            return None
        return "round_opened", {
            "round": drawn.number,
            "rack": drawn.rack,
            "deadline": time_text(drawn.deadline),
        }
    if isinstance(event, SubmissionReceived):
        rnd = after.round(event.round)
        if rnd is None:
            return None
        return "slip_received", {"round": rnd.number, "slips": slips(rnd)}
    if isinstance(event, RoundClosed):
        return "round_closed", _closed(after, event.round)
    if isinstance(event, GameEnded):
        return "game_ended", {"reason": event.reason}
    kind = DECISIONS.get(type(event).__name__)
    if kind is None:
        return None
    number = _revoked_round(before, event) if isinstance(event, DecisionRevoked) else None
    return "decision", {"kind": kind, "round": number or getattr(event, "round", None)}


def slips(rnd: RoundState) -> int:
    """How many slips a round has received so far (the arbiter's readings of them not
    counted): what the public may know of an open round's slips."""
    return sum(1 for p in rnd.players.values() for r in p.received if not r.correction)


def _closed(state: GameState, number: int) -> dict[str, Any]:
    """A closed round's summary: its top (move, score, who found it) and its solos."""
    rnd = state.round(number)
    if rnd is None:
        return {"round": number, "top": None, "solos": []}
    results = round_results(state, number, submissions=False)
    top = rnd.top
    return {
        "round": number,
        "top": None
        if top is None
        else {"move": "; ".join(top.moves), "score": top.score, "found_by": list(top.reached_by)},
        "solos": [p.player_id for p in results.players if p.solo],
    }


def _revoked_round(state: GameState, event: DecisionRevoked) -> int | None:
    """The round of the decision a revocation revokes (as the game stood before it)."""
    for rnd in state.rounds:
        for decision in rnd.decisions:
            if decision.event_id == event.event_id:
                return rnd.number
    return None
