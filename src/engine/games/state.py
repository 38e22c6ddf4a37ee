"""A game as folded from its events: players, rounds, board, rack, bag, decisions, notes.

Everything here is derived: `evolve` builds it from recorded events and projections read it.
States are immutable; each event gives a new state sharing what did not change, so that the
state at any event of a replay can be kept and compared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from engine.bag import Bag
from engine.board import Board
from engine.games.context import GameContext, Judgement
from engine.games.events import GameCreated, PlayerJoined
from engine.notation import format_placement
from engine.placement import Tile

if TYPE_CHECKING:  # anticipation's values are only named here: they are made by its rules
    from engine.games.anticipation_state import Replacing, Sheet
    from engine.games.draws import DrawPlan

T = TypeVar("T")


class GameRuleError(ValueError):
    """A command the rules refuse: `code` is stable, the message says why and what to do."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


Resolve = Callable[[GameCreated], GameContext]


def changed(value: T, **changes: object) -> T:
    """A copy of a state value with some fields changed: `dataclasses.replace` without its
    per-call introspection, which a replay calls several times per event. Only for the state
    classes here, which check nothing on construction."""
    copy = object.__new__(type(value))
    copy.__dict__.update(value.__dict__)
    copy.__dict__.update(changes)
    return copy


@dataclass(frozen=True)
class Note:
    """A recorded event the game ignored (`ignored`) or had to interpret, and why."""

    seq: int | None
    event_id: str
    type_name: str
    code: str
    message: str
    round: int | None = None
    ignored: bool = True


@dataclass(frozen=True)
class Received:
    """A submission's text as recorded: a player's own (`SubmissionReceived`) or the
    arbiter's reading of it (`SubmissionCorrected`, `correction`, with its `reason`)."""

    event_id: str
    seq: int | None
    player_id: str
    part: int
    text: str
    received_at: datetime | None
    source: str | None
    correction: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class Decision:
    """An arbiter's decision about a round (annulment, penalty, top choice, correction)."""

    event_id: str
    seq: int | None
    type_name: str
    round: int
    player_id: str | None = None
    part: int = 1
    reason: str | None = None
    points: int = 0
    move: str | None = None
    revoked_by: str | None = None

    @property
    def standing(self) -> bool:
        return self.revoked_by is None


@dataclass(frozen=True)
class PartResult:
    """One part of a player's round (part 1 outside last rounds): the submission that counts,
    the correction applied to it, its judgement, and why it scores 0 (`code`, None when it
    counts); `board` and `rack` are what it was judged on (the player's own, after the
    earlier parts, in a last round)."""

    part: int
    entry: Received
    correction: Received | None
    judgement: Judgement
    late: bool
    code: str | None
    score: int
    board: Board = field(repr=False, compare=False, default_factory=Board.empty)
    rack: str = ""

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return self.judgement.tiles if self.code is None else ()


@dataclass(frozen=True)
class PlayerRound:
    """A player's round: everything received (in order) and the parts as judged; in
    anticipation, the round's replacement as declared and read (`replacement`)."""

    player_id: str
    received: tuple[Received, ...] = ()
    parts: tuple[PartResult, ...] = ()
    replacement: Replacing | None = None

    @property
    def score(self) -> int:
        return sum(p.score for p in self.parts)

    @property
    def sequence(self) -> tuple[tuple[Tile, ...], ...]:
        """The tiles laid by each counted part: what makes two tops the same move."""
        return tuple(p.tiles for p in self.parts if p.code is None)


@dataclass(frozen=True)
class RoundTop:
    """The move placed on every board: its parts' texts as judged, its score, where it comes
    from (`players`, `arbiter` for a TopChosen, `computer`), and the solo player if any."""

    parts: tuple[Judgement, ...]
    score: int
    source: str
    reached_by: tuple[str, ...] = ()
    solo: str | None = None
    chosen_by: str | None = None

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return tuple(t for j in self.parts for t in j.tiles)

    @property
    def text(self) -> str:
        return "; ".join(j.text for j in self.parts)

    @property
    def moves(self) -> tuple[str, ...]:
        """Its parts in canonical notation, not as whoever found it wrote them (their round
        prefix and claimed score are theirs, not the top's)."""
        return tuple(format_placement(j.move) for j in self.parts if j.move is not None)


@dataclass(frozen=True)
class RoundState:
    """A round from its draw to its close."""

    number: int
    board: Board
    leftover: str
    bag_before: Bag
    plan: DrawPlan
    drawn: str
    rejected: tuple[str, ...]
    deadline: datetime | None
    draw_event_id: str
    players: Mapping[str, PlayerRound] = field(default_factory=dict)
    decisions: tuple[Decision, ...] = ()
    closed: bool = False
    top: RoundTop | None = None

    @property
    def rack(self) -> str:
        return self.leftover + self.drawn

    @property
    def last(self) -> bool:
        """The draw emptied the bag: players may submit several parts (RULES 2.8)."""
        return self.plan.last

    def player(self, player_id: str) -> PlayerRound:
        """The player's round so far (nothing received yet: an empty one)."""
        return self.players.get(player_id) or PlayerRound(player_id)

    def standing(self, type_name: str) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.type_name == type_name and d.standing)

    def penalty(self, player_id: str) -> int:
        return sum(d.points for d in self.standing("PenaltyGiven") if d.player_id == player_id)

    def warnings(self, player_id: str) -> int:
        """The player's standing warnings (avertismente) of this round."""
        return sum(1 for d in self.standing("WarningGiven") if d.player_id == player_id)


@dataclass(frozen=True)
class GameState:
    """A game at one moment. Before GameCreated, only `resolve` is set."""

    resolve: Resolve = field(compare=False, repr=False)
    created: GameCreated | None = None
    context: GameContext | None = field(default=None, compare=False, repr=False)
    players: Mapping[str, PlayerJoined] = field(default_factory=dict)
    rounds: tuple[RoundState, ...] = ()
    board: Board = field(default_factory=Board.empty)
    leftover: str = ""
    bag: Bag = field(default_factory=Bag)
    notes: tuple[Note, ...] = ()
    game_events: Mapping[str, str] = field(default_factory=dict)
    seed: str | None = None
    ended: str | None = None
    over: str | None = None
    events: int = 0
    last_seq: int | None = None
    sheets: Mapping[str, Sheet] = field(default_factory=dict)
    """Anticipation: each player's own board, stock and eliminated letters as the rounds
    closed so far left them (`engine.games.anticipation_state`)."""

    @property
    def ignored(self) -> tuple[Note, ...]:
        return tuple(n for n in self.notes if n.ignored)

    @property
    def current(self) -> RoundState | None:
        return self.rounds[-1] if self.rounds else None

    def round(self, number: int) -> RoundState | None:
        return self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None

    def penalty(self, rnd: RoundState, player_id: str) -> int:
        """The points a player loses in a round: its penalties, plus, when the game sets
        `warnings_penalty_after` N, `warnings_penalty_points` for each of the player's Nth,
        2Nth, ... standing warnings of the game that was given in this round."""
        points = rnd.penalty(player_id)
        context = self.context
        after = context.settings.warnings_after if context is not None else 0
        if not after:
            return points
        assert context is not None
        before = sum(r.warnings(player_id) for r in self.rounds[: rnd.number - 1])
        converted = (before + rnd.warnings(player_id)) // after - before // after
        return points + converted * context.settings.warnings_points

    @property
    def rack(self) -> str:
        """The rack at this moment: the open round's, else the leftover of the last top."""
        current = self.current
        return current.rack if current is not None and not current.closed else self.leftover
