"""A whole anticipation game played by simulated players, recorded through the service layer.

Every player plays their own board, so each simulated player searches their own moves: they
read their board and stock off the game (as a player reads their own slip), decide whether to
replace a letter of the group (a joker for a letter that balances the group, or a stock letter
for an awkward one), search the moves of the group they believe they hold, and write one as a
player of their habits would (`pipelines.simulate`: strength, slips, late and absent players).
Some write a replacement in error (a letter the group lacks, or one their stock lacks) and play
as if it had applied; the game then judges them against the group drawn (rule 10). In the last
round a player first lays their stock's two tiles, then the group. Jokers are searched as the
letter they were taken for, so that a search never has a free joker in a group of 7.

Draws are seeded or by hand from the 98 letters. `Scenario.incidents` asks for the arbiter's
acts in given rounds: `annul` (a submission whose player replaced a letter, rule 9), `penalty`,
`late`. The same scenario and seed always record the same events.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta

from engine.board import Board
from engine.games import draws
from engine.games.anticipation_rules import sheet_of
from engine.games.commands import (
    Annul,
    CloseRound,
    Command,
    CreateGame,
    DeclareReplacement,
    DrawRack,
    EndGame,
    Penalise,
    Player,
    RevealSeed,
    Submit,
)
from engine.games.state import GameState
from engine.movegen import MoveGenerator, ScoredMove
from engine.notation import Move, format_move
from engine.rack import RackError
from engine.tiles import JOKER
from engine.verdict import check_move
from ledger import EventStore
from pipelines.game_service import dictionary_ref, execute, load_game, resolve_context
from pipelines.simulate import Players, SimulatedPlayer, make_players
from pipelines.simulate_game import ANNUL_REASONS, PENALTY_REASON, Played, Scenario

BALANCE_VOWELS = "AEI"
BALANCE_CONSONANTS = "RSTNC"
"""The letters a simulated player asks a joker to stand for (the commonest of each kind)."""


class _Plan:
    """What a player means to do in a round: the replacement written (if any), the group and
    stock they believe they hold, and the letter their joker stands for."""

    def __init__(self, text: str | None, group: str, stock: str, joker_for: str | None) -> None:
        self.text = text
        self.group = group
        self.stock = stock
        self.joker_for = joker_for


class _Game:
    def __init__(self, store: EventStore, scenario: Scenario) -> None:
        self.store = store
        self.scenario = scenario
        self.rng = random.Random(scenario.seed)
        self.players = make_players(scenario.players, self.rng)
        self.secret = f"{scenario.game_id}-{scenario.seed}-{self.rng.getrandbits(64):016x}"
        self.happened: dict[str, list[int]] = {}

    def run(self) -> Played:
        s = self.scenario
        seeded = s.draw == "seeded"
        self._do([
            CreateGame(
                game_id=s.game_id, variant="anticipation",
                players=tuple(Player(p.player_id, p.name) for p in self.players),
                tournament_id=s.tournament_id, title=s.title, dictionary=dictionary_ref(None),
                draw=s.draw, seed_commitment=draws.seed_commitment(self.secret) if seeded else None,
                actor=s.arbiter, received_at=s.start - timedelta(minutes=30),
            )
        ])  # fmt: skip
        state = self._state()
        assert state.created is not None
        context = resolve_context(state.created)
        self.ruleset = context.ruleset
        self.dictionary = context.dictionary
        self.sim = Players(self.players, context.ruleset, context.dictionary, self.rng)
        self.generator = MoveGenerator(context.ruleset, context.dictionary)
        number = 0
        while self._state().bag:
            number += 1
            self._round(number)
        at = s.start + number * s.round_gap
        end: list[Command] = [RevealSeed(self.secret, actor=s.arbiter, received_at=at)]
        end = end if seeded else []
        end.append(EndGame(f"all {number} groups played", actor=s.arbiter, received_at=at))
        self._do(end)
        return Played(
            self.players, number, {k: tuple(sorted(set(v))) for k, v in self.happened.items()}
        )

    def _state(self) -> GameState:
        return load_game(self.store, self.scenario.game_id).state

    def _do(self, commands: list[Command]) -> None:
        execute(self.store, self.scenario.game_id, commands)

    def _note(self, kind: str, number: int) -> None:
        self.happened.setdefault(kind, []).append(number)

    def _round(self, number: int) -> None:
        s = self.scenario
        drawn_at = s.start + (number - 1) * s.round_gap
        deadline = drawn_at + s.think_time
        if s.draw == "seeded":
            draw = DrawRack(number, seed=self.secret, deadline=deadline)
        else:
            tiles = "".join(self.rng.sample(self._state().bag.tiles(), 7))
            draw = DrawRack(number, tiles=tiles, deadline=deadline)
        self._do([replace(draw, actor=s.arbiter, received_at=drawn_at)])
        state = self._state()
        rnd = state.current
        assert rnd is not None
        wanted = s.incidents.get(number, ())
        commands: list[Command] = []
        for i, player in enumerate(self.players):
            sheet = sheet_of(state, player.player_id)
            plan = self._plan(player, rnd.drawn, sheet.stock, number)
            slip = f"bilet {number}-{player.player_id}"
            window = s.think_time.total_seconds()
            arrival = drawn_at + timedelta(seconds=round(self.rng.uniform(0.3, 0.9) * window))
            if plan.text is not None:
                commands.append(DeclareReplacement(
                    number, player.player_id, plan.text, actor=s.arbiter, source=slip,
                    received_at=arrival,
                ))  # fmt: skip
            if self.rng.random() < player.habits.absent:
                continue
            late = self.rng.random() < player.habits.late or ("late" in wanted and i == 2)
            if late:
                arrival = deadline + timedelta(seconds=self.rng.randint(5, 90))
                self._note("late", number)
            texts = self._texts(player, sheet.board, plan, rnd.last)
            commands += [
                Submit(number, player.player_id, text, part, actor=s.arbiter, source=slip,
                       received_at=arrival + timedelta(seconds=part))
                for part, text in texts
            ]  # fmt: skip
            if rnd.last and len(texts) == 2:
                self._note("two_parts", number)
        self._do(commands)
        after = deadline + timedelta(seconds=30)
        self._decisions(wanted, number, after)
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
    ) -> list[tuple[int, str]]:
        """(part, text) of a player's submissions: in the last round, the stock first."""
        texts = []
        if last:
            found = self._moves(board, plan.stock)
            if found and self.rng.random() < 0.8:
                chosen = self.sim._choose(player.habits, found)
                texts.append((1, self._write(player, chosen.move)))
                board = board.with_tiles(
                    (t.row, t.col, t.cell)
                    for t in check_move(board, chosen.move, self.ruleset, self.dictionary).tiles
                )
        found = self._moves(board, plan.group)
        if found:
            chosen = self.sim._choose(player.habits, found)
            real = plan.group.count(plan.joker_for) - 1 if plan.joker_for else 0
            written = self._write(player, chosen.move, plan.joker_for, board, real)
            texts.append((2 if last else 1, written))
        return texts

    def _moves(self, board: Board, tiles: str) -> list[ScoredMove]:
        """Every move of the tiles on the board, best first; none when the tiles a player
        believes they hold are more copies of a letter than the game has."""
        try:
            return self.generator.moves(board, tiles) if tiles else []
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
        arbiter = self.scenario.arbiter
        rnd = self._state().current
        assert rnd is not None
        replaced = sorted(
            p for p, pr in rnd.players.items()
            if pr.score > 0 and pr.replacement is not None and pr.replacement.applied
        )  # fmt: skip
        if "annul" in wanted and replaced:
            player = replaced[self.rng.randrange(len(replaced))]
            self._do([Annul(number, player, ANNUL_REASONS[0], actor=arbiter, received_at=at)])
            self._note("annul", number)
        if "penalty" in wanted:
            player = self.rng.choice(sorted(rnd.players))
            self._do([Penalise(number, player, 10, PENALTY_REASON, actor=arbiter,
                               received_at=at)])  # fmt: skip
            self._note("penalty", number)


def play(store: EventStore, scenario: Scenario) -> Played:
    """Record a whole simulated anticipation game in `store` (which must not hold it yet)."""
    return _Game(store, scenario).run()


__all__ = ["Scenario", "play"]
