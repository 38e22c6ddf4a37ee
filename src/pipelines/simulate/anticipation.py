"""A whole anticipation game played by simulated players, recorded through the service layer.

Every player plays their own board, so each simulated player searches their own moves: they
read their board and stock off the game (as a player reads their own slip), decide whether to
replace a letter of the group (a joker for a letter that balances the group, or a stock letter
for an awkward one), search the moves of the group they believe they hold, and write one as a
player of their habits would (`pipelines.simulate.players`: strength, slips, late and absent
players).
Some write a replacement in error (a letter the group lacks, or one their stock lacks) and play
as if it had applied; the game then judges them against the group drawn (rule 10). In the last
round a player first lays their stock's two tiles, then the group. Jokers are searched as the
letter they were taken for, so that a search never has a free joker in a group of 7.

The game is driven as `pipelines.simulate.duplicate` drives a duplicate one (same creation, clock,
roster and end), with the rounds of this variant. Draws are seeded or by hand from the 98
letters. `Scenario.incidents` asks for the arbiter's acts and players' mishaps in given
rounds: `annul` (a submission whose player replaced a letter, rule 9), `annul_revoked` (any
counted submission, the annulment revoked on appeal), `penalty`, `late`, `resubmit` (a
weaker move handed in first, then the one meant), `correct` (an unreadable slip, read by
the arbiter) and `late_replacement` (a replacement handed in after the deadline: no
replacement, rule 10). A joker may be taken for O, written `(O)` by players who write jokers
in brackets. The same scenario and seed always record the same events.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from engine.board import Board
from engine.games.anticipation_rules import sheet_of
from engine.games.commands import (
    Annul,
    CloseRound,
    Command,
    Correct,
    DeclareReplacement,
    Submit,
)
from engine.movegen import ScoredMove
from engine.notation import Move, format_move
from engine.rack import RackError
from engine.tiles import JOKER
from engine.verdict import check_move
from pipelines.simulate.duplicate import ANNUL_REASONS, CORRECTION_REASON, Played, Scenario, _Game
from pipelines.simulate.players import SimulatedPlayer

if TYPE_CHECKING:
    from ledger import EventStore

BALANCE_VOWELS = "AEIO"
BALANCE_CONSONANTS = "RSTNC"
"""The letters a simulated player asks a joker to stand for (the commonest of each kind)."""


@dataclass(frozen=True)
class _Plan:
    """What a player means to do in a round: the replacement written (if any), the group and
    stock they believe they hold, and the letter their joker stands for."""

    text: str | None
    group: str
    stock: str
    joker_for: str | None


class _AnticipationGame(_Game):
    def run(self) -> Played:
        self._create()
        context = self._state().context
        assert context is not None
        self.ruleset = context.ruleset
        self.dictionary = context.dictionary
        self.sim = self.players_class(self.players, context.ruleset, context.dictionary, self.rng)
        number = 0
        while self._state().bag:
            number += 1
            self._play_round(number)
        return self._end(number, f"all {number} groups played")

    def _play_round(self, number: int) -> None:
        s = self.scenario
        drawn_at, deadline = self._draw(
            number, lambda: ("".join(self.rng.sample(self._state().bag.tiles(), 7)), ())
        )
        state = self._state()
        rnd = state.current
        assert rnd is not None
        wanted = list(s.incidents.get(number, ()))
        commands: list[Command] = []
        to_correct: list[Correct] = []
        for i, player in enumerate(self.players):
            sheet = sheet_of(state, player.player_id)
            plan = self._plan(player, rnd.drawn, sheet.stock, number)
            slip = f"bilet {number}-{player.player_id}"
            window = s.think_time.total_seconds()
            arrival = drawn_at + timedelta(seconds=round(self.rng.uniform(0.3, 0.9) * window))
            if plan.text is not None:
                declared_at = arrival
                if "late_replacement" in wanted:  # handed in after the deadline: no replacement
                    wanted.remove("late_replacement")
                    declared_at = deadline + timedelta(seconds=self.rng.randint(5, 60))
                    self._note("late_replacement", number)
                commands.append(DeclareReplacement(
                    number, player.player_id, plan.text, actor=s.arbiter, source=slip,
                    received_at=declared_at,
                ))  # fmt: skip
            if self.rng.random() < player.habits.absent:
                continue
            late = self.rng.random() < player.habits.late or ("late" in wanted and i == 2)
            if late:
                arrival = deadline + timedelta(seconds=self.rng.randint(5, 90))
                self._note("late", number)
            written = self._texts(player, sheet.board, plan, rnd.last)
            if written and not late and not rnd.last:
                ((part, text, move),) = written
                if "resubmit" in wanted:
                    wanted.remove("resubmit")
                    early = self._weaker(player, sheet.board, plan)
                    commands.append(Submit(
                        number, player.player_id, early, part, actor=s.arbiter, source=slip,
                        received_at=drawn_at + (arrival - drawn_at) / 2,
                    ))  # fmt: skip
                    self._note("superseded", number)
                elif "correct" in wanted:
                    wanted.remove("correct")
                    written = [(part, self.sim.scrawl(move), move)]
                    to_correct.append(Correct(
                        number, player.player_id, text, CORRECTION_REASON, part,
                        actor=s.arbiter, received_at=deadline + timedelta(seconds=30),
                    ))  # fmt: skip
                    self._note("correction", number)
            commands += [
                Submit(number, player.player_id, text, part, actor=s.arbiter, source=slip,
                       received_at=arrival + timedelta(seconds=part))
                for part, text, _ in written
            ]  # fmt: skip
            if rnd.last and len(written) == 2:
                self._note("two_parts", number)
        self._do(commands)
        after = deadline + timedelta(seconds=30)
        if to_correct:
            self._do(to_correct)
        self._decisions(tuple(wanted), number, after)
        self._do([CloseRound(number, actor=s.arbiter, received_at=after + timedelta(seconds=60))])

    def _plan(self, player: SimulatedPlayer, group: str, stock: str, number: int) -> _Plan:
        """The replacement a player writes (or none), and what they then believe they hold."""
        rng = self.rng
        if rng.random() < player.habits.slip * 1.5:
            self._note("replacement_in_error", number)
            absent = sorted(set("ABCDEFGHIJLMNOPRSTUVXZ") - set(group) - set(stock))
            if JOKER in stock or rng.random() < 0.5:
                give, take = rng.choice(absent), rng.choice(BALANCE_CONSONANTS)
                text = f"-{give}+{take}o" if JOKER in stock else f"-{give}+{stock[0]}"
            else:
                give, take = rng.choice(group), rng.choice(absent)
                text = f"-{give}+{take}"
            believed = group.replace(give, take, 1) if give in group else group[:-1] + take
            return _Plan(text, believed, stock, None)
        vowels = sum(1 for t in group if t in self.ruleset.vowels)
        if JOKER in stock and rng.random() < 0.25 + player.habits.skill / 2:
            give = max(group, key=lambda t: (self.ruleset.tile_values.get(t, 0), group.count(t), t))
            pool = BALANCE_VOWELS if vowels - (give in self.ruleset.vowels) < 2 else (
                BALANCE_CONSONANTS)  # fmt: skip
            take = rng.choice(pool)
            written = f"-{give}+{take}o" if player.style != "plain" else f"-{give}+({take})"
            new_stock = stock.replace(JOKER, "", 1) + give
            return _Plan(written, group.replace(give, take, 1), new_stock, take)
        real = [t for t in stock if t != JOKER]
        if real and rng.random() < 0.3:
            take = rng.choice(real)
            give = min(group, key=lambda t: (-group.count(t), t))
            new_stock = stock.replace(take, "", 1) + give
            return _Plan(f"-{give}+{take}", group.replace(give, take, 1), new_stock, None)
        return _Plan(None, group, stock, None)

    def _texts(
        self, player: SimulatedPlayer, board: Board, plan: _Plan, last: bool
    ) -> list[tuple[int, str, Move]]:
        """(part, text, move) of a player's submissions: in the last round, the stock first."""
        texts = []
        if last:
            found = self._moves(board, plan.stock)
            if found and self.rng.random() < 0.8:
                chosen = self.sim._choose(player.habits, found)
                texts.append((1, self._write(player, chosen.move), chosen.move))
                board = board.with_tiles(
                    (t.row, t.col, t.cell)
                    for t in check_move(board, chosen.move, self.ruleset, self.dictionary).tiles
                )
        found = self._moves(board, plan.group)
        if found:
            chosen = self.sim._choose(player.habits, found)
            written = self._write_group(player, chosen.move, plan, board)
            texts.append((2 if last else 1, written, chosen.move))
        return texts

    def _weaker(self, player: SimulatedPlayer, board: Board, plan: _Plan) -> str:
        """A weaker move of the group, handed in first by a player who then changes their mind."""
        first = self._weaker_of(self._moves(board, plan.group))
        return self._write_group(player, first.move, plan, board)

    def _write_group(self, player: SimulatedPlayer, move: Move, plan: _Plan, board: Board) -> str:
        real = plan.group.count(plan.joker_for) - 1 if plan.joker_for else 0
        return self._write(player, move, plan.joker_for, board, real)

    def _moves(self, board: Board, tiles: str) -> list[ScoredMove]:
        """Every move of the tiles on the board, best first; none when the tiles a player
        believes they hold are more copies of a letter than the game has."""
        try:
            return self.sim.generator.moves(board, tiles) if tiles else []
        except RackError:
            return []

    def _write(
        self,
        player: SimulatedPlayer,
        move: Move,
        joker_for: str | None = None,
        board: Board | None = None,
        real: int = 0,
    ) -> str:
        """The move as the player writes it; a joker taken for a letter marks one laid copy of
        that letter when the move lays more of it than the group's real ones."""
        if joker_for is not None and board is not None:
            laid = [
                i for i, (r, c) in enumerate(move.squares())
                if move.word[i] == joker_for and not board.occupied(r, c)
            ]  # fmt: skip
            if len(laid) > real:
                move = replace(move, jokers=tuple(sorted({*move.jokers, laid[-1]})))
        text = format_move(move)
        if player.style in ("lower", "online") and move.jokers:
            for i in move.jokers:
                text = text.replace(f"({move.word[i]})", f"{move.word[i]}o", 1)
        return text

    def _decisions(self, wanted: tuple[str, ...], number: int, at: datetime) -> None:
        """`annul` hits a player who replaced a letter (the replacement stands, rule 9); the
        other decisions are taken as in a duplicate game."""
        if "annul" in wanted:
            rnd = self._state().current
            assert rnd is not None
            replaced = sorted(
                p for p, pr in rnd.players.items()
                if pr.score > 0 and pr.replacement is not None and pr.replacement.applied
            )  # fmt: skip
            if replaced:
                player = replaced[self.rng.randrange(len(replaced))]
                arbiter = self.scenario.arbiter
                self._do([Annul(number, player, ANNUL_REASONS[0], actor=arbiter, received_at=at)])
                self._note("annul", number)
        super()._decisions(tuple(k for k in wanted if k != "annul"), number, at)


def play(store: EventStore, scenario: Scenario) -> Played:
    """Record a whole simulated anticipation game in `store` (which must not hold it yet)."""
    return _AnticipationGame(store, replace(scenario, variant="anticipation")).run()


__all__ = ["Scenario", "play"]
