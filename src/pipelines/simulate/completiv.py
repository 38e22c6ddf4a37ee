"""A whole duplicat-completiv game played by simulated players (`pipelines.simulate.duplicate`).

Each round the players see the 6 drawn tiles and the stock; they search the drawn tiles alone
and with a few letters of the stock (a different handful each round, the stock's joker
left out: searching a free joker for every player would be slow, and players rarely find
those moves), and write their move with the letter they took marked (`[X]`). Incidents of
`Scenario.incidents` for completiv: `unmarked` (a player forgets to mark the letter taken from
the stock: a notation error), `rule_a` (a player takes a letter the stock no longer holds while
a joker is still there: the letter counts as that joker, less its value), `rule_b` (a letter of
the drawn tiles marked as taken from a stock that holds neither it nor a joker: the mark is the
player's declaration, so the submission is annulled) and `stock_joker` (a player takes the
stock's joker, `[(X)]`). Players who write `+X` after the word (styles `claim` and `hand`) do
so where the word holds the letter once. The same scenario and seed always record the same
events.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from engine.bag import Bag
from engine.games.completiv_judge import marked, stock_of
from engine.movegen import ScoredMove
from engine.notation import Chosen, Move, format_move
from engine.rack import Rack
from engine.tiles import JOKER
from pipelines.simulate.duplicate import Played, Scenario, _Game
from pipelines.simulate.players import Players, Slip, Table

if TYPE_CHECKING:
    from ledger import EventStore

LETTERS_SEARCHED = 4
"""How many letters of the stock the players search besides the drawn tiles alone."""


class CompletivPlayers(Players):
    """Simulated players who complete the 6 drawn tiles with one letter of the stock."""

    incidents: tuple[str, ...] = ()

    def round(self, table: Table) -> list[Slip]:
        stock = stock_of(self.ruleset, table.board, table.rack)
        letters = sorted(t for t in stock.counts if t != JOKER)
        tried = ["", *self.rng.sample(letters, min(LETTERS_SEARCHED, len(letters)))]
        ranked: dict[tuple, ScoredMove] = {}
        for tile in tried:
            for scored in self.generator.moves(table.board, Rack(table.rack + tile))[:400]:
                move = marked(table.board, table.rack, scored.move)
                key = (move.row, move.col, move.across, move.word, move.jokers, move.chosen)
                ranked.setdefault(key, ScoredMove(move, scored.score))
        moves = sorted(ranked.values(), key=lambda m: -m.score)
        ease = self.rng.uniform(0.2, 1.2)
        slips: list[Slip] = []
        for player in self.players:
            slips.extend(self._slips(player, table, moves, ease))
        return self._incidents(table, slips, stock)

    def _incidents(self, table: Table, slips: list[Slip], stock: Bag) -> list[Slip]:
        """The completiv incidents asked for this round, on the first player they fit."""
        if "unmarked" in self.incidents:
            for i, slip in enumerate(slips):
                if "[" in slip.text and "=" not in slip.text and slip.part == 1:
                    slips[i] = replace(slip, text=slip.text.replace("[", "").replace("]", ""))
                    break
        if "rule_a" in self.incidents and stock.count(JOKER) and slips:
            move = self._exhausted_letter_move(table, stock)
            if move is not None:
                slips[0] = replace(slips[0], text=format_move(move), part=1)
        if "rule_b" in self.incidents and not stock.count(JOKER) and slips:
            move = self._declared_gone_move(table, stock)
            if move is not None:
                slips[0] = replace(slips[0], text=format_move(move), part=1)
        if "stock_joker" in self.incidents and stock.count(JOKER) and len(slips) > 1:
            move = self._joker_move(table)
            if move is not None:
                slips[1] = replace(slips[1], text=format_move(move), part=1)
        return slips

    def _joker_moves(self, table: Table) -> list[Move]:
        """The moves of the drawn tiles with the stock's joker, its letter marked (`[(X)]`)."""
        rack = table.rack + JOKER
        if rack.count(JOKER) > 1:
            return []
        return [
            marked(table.board, table.rack, scored.move)
            for scored in self.generator.moves(table.board, Rack(rack))
        ]

    def _joker_move(self, table: Table) -> Move | None:
        """The best move taking the stock's joker (`[(X)]`): a player who searched for it."""
        for move in self._joker_moves(table):
            if move.chosen is not None and move.chosen.joker:
                return move
        return None

    def _declared_gone_move(self, table: Table, stock: Bag) -> Move | None:
        """A move of the drawn tiles with one of its letters marked as taken from the stock,
        `[X]`, where the stock holds no X (nor a joker): the mark is the player's declaration,
        so rule b annuls it although the drawn tiles hold the X."""
        for scored in self.generator.moves(table.board, Rack(table.rack))[:200]:
            move = scored.move
            for i, (r, c) in enumerate(move.squares()):
                gone = not stock.count(move.word[i])
                if gone and i not in move.jokers and not table.board.occupied(r, c):
                    return replace(move, chosen=Chosen(move.word[i], False, i))
        return None

    def _exhausted_letter_move(self, table: Table, stock: Bag) -> Move | None:
        """A move whose letter from the stock is one the stock no longer holds, written as a
        real letter `[X]` (the player did not see that it was gone): rule a while the stock
        holds a joker, rule b once it holds none."""
        for move in self._joker_moves(table):
            chosen = move.chosen
            gone = chosen is not None and chosen.joker and not stock.count(chosen.letter)
            if gone and chosen.letter in self.ruleset.tile_counts:
                jokers = tuple(i for i in move.jokers if i != chosen.at)
                return replace(move, jokers=jokers, chosen=Chosen(chosen.letter, False, chosen.at))
        return None


class _CompletivGame(_Game):
    players_class = CompletivPlayers

    def _round(self, number, plan, vowels) -> bool:
        self.sim.incidents = self.scenario.incidents.get(number, ())
        return super()._round(number, plan, vowels)


def play(store: EventStore, scenario: Scenario) -> Played:
    """Record a whole simulated completiv game in `store` (which must not hold it yet)."""
    return _CompletivGame(store, replace(scenario, variant="completiv")).run()


__all__ = ["CompletivPlayers", "play"]
