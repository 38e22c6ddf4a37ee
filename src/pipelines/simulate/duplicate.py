"""A whole duplicate game played by simulated players, recorded through the service layer.

Every act goes through `pipelines.games.service.execute`, as the `arbitru game` commands do, so
the ledger ends up holding exactly what an arbiter's day would record: the game, its players,
each round's draw (by hand from the bag, or derived from a committed seed), every slip with its
arrival time and source, the arbiter's decisions and each round's close. `Scenario.incidents`
asks for the arbiter's acts a fixture needs in given rounds (an annulment, one revoked on
appeal, a penalty, a slip to correct, a late slip, a change of mind, a penalty, correction or
top choice revoked); equal tops are settled with a TopChosen whenever they happen, and now and
then two slips are entered out of arrival order. `Scenario.settings` are the game's settings
(the computer's top, FISF's draws, another solo bonus). `Scenario.roster` gives the players (a
season's, with their habits); without it they are made from the seed. The same scenario and
seed always record the same events.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from engine.bag import Bag
from engine.games import draws
from engine.games.commands import (
    Annul,
    ChooseTop,
    CloseRound,
    Command,
    Correct,
    CreateGame,
    DrawRack,
    EndGame,
    Penalise,
    Player,
    RevealSeed,
    Revoke,
    Submit,
)
from engine.games.duplicate import tied_moves
from engine.games.state import GameState, PlayerRound
from engine.movegen import ScoredMove
from engine.notation import Move, format_move, parse_move
from pipelines.games.contexts import dictionary_ref
from pipelines.games.service import execute, load_game
from pipelines.simulate.players import Players, SimulatedPlayer, Slip, Table, make_players

if TYPE_CHECKING:
    from ledger import EventStore

INCIDENTS = (
    "annul", "annul_revoked", "penalty", "correct", "late", "resubmit", "penalty_revoked",
    "correct_revoked", "top_revoked",
)  # fmt: skip
"""Arbiter's acts and player mishaps a scenario can ask for in a round (`X_revoked`: the
decision X taken, then revoked: an appeal admitted, a correction misread, a change of mind
over equal tops)."""

ANNUL_REASONS = (
    "a consultat o listă de cuvinte în timpul rundei",
    "biletul nu poartă numele jucătorului",
)
APPEAL_REASON = "contestație admisă: numele jucătorului era scris pe verso"
PENALTY_REASON = "telefon mobil care a sunat în sală"
CORRECTION_REASON = "bilet greu lizibil; citirea arbitrului, confirmată de jucător"
REVOKED_PENALTY = "telefonul era al unui spectator, nu al jucătorului"
REVOKED_CORRECTION = "citire greșită: jucătorul a scris altceva"
REVOKED_TOP = "arbitrul revine: cealaltă mutare oferă o dezvoltare mai promițătoare"


@dataclass(frozen=True)
class Scenario:
    """What to play: the game, how many players, the seed of every choice, the clock."""

    game_id: str
    players: int
    seed: int
    title: str | None = None
    tournament_id: str | None = None
    variant: str = "duplicate"
    roster: tuple[SimulatedPlayer, ...] = ()
    """The players (a season's, registered in a tournament); none: made from the seed."""
    draw: str = "manual"
    start: datetime = datetime(2026, 11, 28, 10, 0, tzinfo=UTC)
    think_time: timedelta = timedelta(minutes=3)
    round_gap: timedelta = timedelta(minutes=5)
    arbiter: str = "arbitru-principal"
    incidents: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The game's settings (`top_source`, `draw_minimums`, `solo_bonus`, ...)."""


@dataclass(frozen=True)
class Played:
    """What a simulation recorded: the players and, per kind of incident, the rounds it hit."""

    players: tuple[SimulatedPlayer, ...]
    rounds: int
    happened: Mapping[str, tuple[int, ...]]


class _Game:
    """One simulated game being recorded (`players_class`: how its simulated players search,
    the completiv ones with a letter from the stock, `pipelines.simulate.completiv`; the
    anticipation game keeps the creation, clock, decisions and end and plays its own rounds,
    `pipelines.simulate.anticipation`)."""

    players_class: type[Players] = Players

    def __init__(self, store: EventStore, scenario: Scenario) -> None:
        self.store = store
        self.scenario = scenario
        self.rng = random.Random(scenario.seed)
        self.players = scenario.roster or make_players(scenario.players, self.rng)
        self.secret = f"{scenario.game_id}-{scenario.seed}-{self.rng.getrandbits(64):016x}"
        self.happened: dict[str, list[int]] = {}
        self._known: GameState | None = None
        self._revoke_top = False
        """A top choice to revoke was asked for: at the next equal tops."""

    def run(self) -> Played:
        self._create()
        context = self._state().context  # the variant's own (completiv draws 6)
        assert context is not None
        self.sim = self.players_class(self.players, context.ruleset, context.dictionary, self.rng)
        number = 0
        while True:
            state = self._state()
            plan = draws.plan_draw(
                state.leftover,
                state.bag,
                context.settings.draw_size,
                context.settings.minimum(number + 1),
                context.ruleset.vowels,
            )
            if not isinstance(plan, draws.DrawPlan):
                return self._end(number, plan.message)
            number += 1
            if not self._round(number, plan, context.ruleset.vowels):
                return self._end(number, "no move can be made with the tiles left")
            if self._state().over is not None:
                return self._end(number, self._state().over or "")

    def _state(self) -> GameState:
        """The game as recorded, read again only after `_do` has recorded something."""
        if self._known is None:
            self._known = load_game(self.store, self.scenario.game_id).state
        return self._known

    def _do(self, commands: list[Command]) -> None:
        self._known = None
        execute(self.store, self.scenario.game_id, commands)

    def _note(self, kind: str, number: int) -> None:
        self.happened.setdefault(kind, []).append(number)

    def _create(self) -> None:
        s = self.scenario
        seeded = s.draw == "seeded"
        self._do(
            [
                CreateGame(
                    game_id=s.game_id,
                    variant=s.variant,
                    players=tuple(Player(p.player_id, p.name) for p in self.players),
                    tournament_id=s.tournament_id,
                    title=s.title,
                    settings=dict(s.settings),
                    dictionary=dictionary_ref(None),
                    draw=s.draw,
                    seed_commitment=draws.seed_commitment(self.secret) if seeded else None,
                    actor=s.arbiter,
                    received_at=s.start - timedelta(minutes=30),
                )
            ]
        )

    def _hand_draw(
        self, plan: draws.DrawPlan, state: GameState, vowels: frozenset[str]
    ) -> tuple[str, tuple[str, ...]]:
        """Tiles drawn by hand from the bag; draws breaking the rule go back and are redrawn."""
        bag: Bag = state.bag
        rejected: list[str] = []
        while True:
            tiles = "".join(self.rng.sample(bag.tiles(), plan.needed))
            if plan.minimum is None or draws.keeps_rule(
                state.leftover + tiles, plan.minimum, vowels
            ):
                return tiles, tuple(rejected)
            rejected.append(tiles)

    def _draw(
        self, number: int, by_hand: Callable[[], tuple[str, tuple[str, ...]]]
    ) -> tuple[datetime, datetime]:
        """Record round `number`'s draw, made by the arbiter when the round starts: from the
        seed in a seeded game, else the tiles and put-back draws `by_hand` gives. Returns when
        it was drawn and the round's deadline, which the slips' times count from."""
        s = self.scenario
        drawn_at = s.start + (number - 1) * s.round_gap
        deadline = drawn_at + s.think_time
        if s.draw == "seeded":
            draw = DrawRack(number, seed=self.secret, deadline=deadline)
        else:
            tiles, rejected = by_hand()
            draw = DrawRack(number, tiles=tiles, rejected=rejected, deadline=deadline)
            if rejected:
                self._note("rejected_draw", number)
        self._do([replace(draw, actor=s.arbiter, received_at=drawn_at)])
        return drawn_at, deadline

    def _round(self, number: int, plan: draws.DrawPlan, vowels: frozenset[str]) -> bool:
        """Play one round; False when nobody can move (the game is then over)."""
        s = self.scenario
        drawn_at, deadline = self._draw(
            number, lambda: self._hand_draw(plan, self._state(), vowels)
        )
        rnd = self._state().current
        assert rnd is not None
        table = Table(rnd.board, rnd.rack, number, "P1", s.think_time, rnd.last)
        slips = self.sim.round(table)
        if not slips and not self.sim.generator.moves(rnd.board, rnd.rack):
            return False
        if any(slip.part > 1 for slip in slips):
            self._note("parts", number)
        wanted = s.incidents.get(number, ())
        slips = self._mishaps(slips, wanted, number)
        submits: list[Command] = [
            Submit(
                number,
                slip.player_id,
                slip.text,
                slip.part,
                actor=s.arbiter,
                source=f"bilet {number}-{slip.player_id}-{i + 1}",
                received_at=drawn_at + slip.delay,
            )
            for i, slip in enumerate(sorted(slips, key=lambda x: (x.delay, x.player_id)))
        ]
        self._out_of_order(submits, number)
        self._do(submits)
        after = deadline + timedelta(seconds=30)
        self._corrections(slips, wanted, number, after)
        self._decisions(wanted, number, after + timedelta(seconds=30))
        self._revoke_top = self._revoke_top or "top_revoked" in wanted
        self._choose_top(number, after + timedelta(seconds=60))
        self._do([CloseRound(number, actor=s.arbiter, received_at=after + timedelta(seconds=90))])
        return True

    def _out_of_order(self, submits: list[Command], number: int) -> None:
        """Now and then two slips entered the wrong way round (the arbiter's pile is not in
        arrival order): the later one recorded first; the game goes by arrival time."""
        if len(submits) > 2 and self.rng.random() < 0.2:
            i = self.rng.randrange(len(submits) - 1)
            if submits[i].received_at != submits[i + 1].received_at:
                submits[i], submits[i + 1] = submits[i + 1], submits[i]
                self._note("out_of_order", number)

    def _revoke_last(self, type_name: str, reason: str, at: datetime) -> None:
        """Revoke the round's latest standing decision of a kind (`SubmissionAnnulled`, ...)."""
        rnd = self._state().current
        assert rnd is not None
        decision = rnd.standing(type_name)[-1]
        self._do([Revoke(decision.event_id, reason, actor=self.scenario.arbiter,
                         received_at=at)])  # fmt: skip

    def _mishaps(self, slips: list[Slip], wanted: tuple[str, ...], number: int) -> list[Slip]:
        """Forced late, resubmitted and unreadable slips, on players who handed in one slip."""
        singles = [
            s for s in slips if s.part == 1 and [t.player_id for t in slips].count(s.player_id) == 1
        ]
        singles = [s for s in singles if s.delay < self.scenario.think_time and s.meant is None]
        self.rng.shuffle(singles)
        for kind in wanted:
            if kind not in ("late", "resubmit", "correct", "correct_revoked") or not singles:
                continue
            slip = singles.pop()
            index = slips.index(slip)
            if kind == "late":
                delay = self.scenario.think_time + timedelta(seconds=self.rng.randint(10, 90))
                slips[index] = replace(slip, delay=delay)
            elif kind == "resubmit":
                rack = self._state().current
                assert rack is not None
                first = self._weaker_of(self.sim.generator.moves(rack.board, rack.rack))
                early = Slip(slip.player_id, format_move(first.move), slip.delay / 2)
                slips.insert(index, early)
            else:
                move = parse_move(slip.text)
                assert isinstance(move, Move)
                slips[index] = replace(slip, text=self.sim.scrawl(move), meant=slip.text)
        for slip in slips:
            if slip.delay > self.scenario.think_time:
                self._note("late", number)
        for player in {s.player_id for s in slips}:
            if sum(1 for s in slips if s.player_id == player and s.part == 1) > 1:
                self._note("superseded", number)
        return slips

    def _weaker_of(self, found: Sequence[ScoredMove]) -> ScoredMove:
        """A move some way below the top (moves best first), handed in first by a player who
        then changes their mind."""
        return found[min(len(found) - 1, self.rng.randint(3, 30))]

    def _corrections(
        self, slips: list[Slip], wanted: tuple[str, ...], number: int, at: datetime
    ) -> None:
        """The arbiter reads unreadable slips: always when asked, otherwise one in two."""
        for slip in slips:
            if slip.meant is None or slip.delay > self.scenario.think_time:
                continue
            if "correct" in wanted or "correct_revoked" in wanted or self.rng.random() < 0.5:
                self._do([
                    Correct(number, slip.player_id, slip.meant, CORRECTION_REASON, slip.part,
                            actor=self.scenario.arbiter, received_at=at)
                ])  # fmt: skip
                self._note("correction", number)
                if "correct_revoked" in wanted:
                    wanted = tuple(k for k in wanted if k != "correct_revoked")
                    later = at + timedelta(seconds=10)
                    self._revoke_last("SubmissionCorrected", REVOKED_CORRECTION, later)
                    self._note("correct_revoked", number)
            else:
                self._note("unreadable", number)

    def _decisions(self, wanted: tuple[str, ...], number: int, at: datetime) -> None:
        arbiter = self.scenario.arbiter
        rnd = self._state().current
        assert rnd is not None
        counted = sorted(p for p, pr in rnd.players.items() if pr.score > 0)
        for kind in wanted:
            if kind in ("annul", "annul_revoked") and counted:
                player = counted.pop(self.rng.randrange(len(counted)))
                reason = ANNUL_REASONS[kind == "annul_revoked"]
                self._do([Annul(number, player, reason, actor=arbiter, received_at=at)])
                self._note(kind, number)
                if kind == "annul_revoked":
                    annulled = self._state().current
                    assert annulled is not None
                    decision = annulled.standing("SubmissionAnnulled")[-1]
                    later = at + timedelta(seconds=20)
                    self._do([Revoke(decision.event_id, APPEAL_REASON, actor=arbiter,
                                     received_at=later)])  # fmt: skip
            elif kind in ("penalty", "penalty_revoked"):
                player = self.rng.choice(sorted(rnd.players))
                self._do([Penalise(number, player, 10, PENALTY_REASON, actor=arbiter,
                                   received_at=at)])  # fmt: skip
                self._note(kind, number)
                if kind == "penalty_revoked":
                    later = at + timedelta(seconds=20)
                    self._revoke_last("PenaltyGiven", REVOKED_PENALTY, later)

    def _choose_top(self, number: int, at: datetime) -> None:
        """Equal tops with different moves: the arbiter picks one (a TopChosen; when a
        revoked choice was asked for, picks one, revokes that choice and picks another). When
        no submission counts, the arbiter places the engine's best move, so the game goes on."""
        rnd = self._state().current
        assert rnd is not None
        context = self._state().context
        if context is not None and context.settings.top_source == "computer":
            return  # the close places the computer's top
        tied = tied_moves(rnd)
        if len(tied) > 1:
            first, second = self.rng.sample(tied, 2)
            move = _sequence_text(second)
            self._note("top_chosen", number)
            if self._revoke_top:
                self._revoke_top = False
                self._do([ChooseTop(number, _sequence_text(first), actor=self.scenario.arbiter,
                                    received_at=at - timedelta(seconds=20))])  # fmt: skip
                self._revoke_last("TopChosen", REVOKED_TOP, at - timedelta(seconds=10))
                self._note("top_revoked", number)
        elif not tied and (found := self.sim.generator.moves(rnd.board, rnd.rack)):
            move = format_move(found[0].move)
            self._note("top_placed_by_arbiter", number)
        else:
            return
        self._do([ChooseTop(number, move, actor=self.scenario.arbiter, received_at=at)])

    def _end(self, rounds: int, reason: str) -> Played:
        s = self.scenario
        at = s.start + rounds * s.round_gap
        commands: list[Command] = []
        if s.draw == "seeded":
            commands.append(RevealSeed(self.secret, actor=s.arbiter, received_at=at))
        commands.append(EndGame(reason, actor=s.arbiter, received_at=at))
        self._do(commands)
        state = self._state()
        for rnd in state.rounds:
            if rnd.top is not None and rnd.top.solo is not None:
                self._note("solo", rnd.number)
        return Played(
            self.players, rounds, {k: tuple(sorted(set(v))) for k, v in self.happened.items()}
        )


def _sequence_text(player: PlayerRound) -> str:
    """A player's counted parts as one top text (parts joined by `;`)."""
    return "; ".join(
        format_move(p.judgement.move)
        for p in player.parts
        if p.code is None and p.judgement.move is not None
    )


def players_of(scenario: Scenario) -> tuple[SimulatedPlayer, ...]:
    """The players a scenario's game will have (to register them in a tournament first)."""
    return scenario.roster or make_players(scenario.players, random.Random(scenario.seed))


def play(store: EventStore, scenario: Scenario) -> Played:
    """Record a whole simulated game in `store` (which must not hold this game yet)."""
    return _Game(store, scenario).run()


__all__ = ["INCIDENTS", "Played", "Scenario", "play", "players_of"]
