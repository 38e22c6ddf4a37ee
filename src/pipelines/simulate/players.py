"""Simulated players of a duplicate game: what each one hands in for a round.

A round shows every player the same board and rack. The engine's move generator ranks every
legal move; each simulated player then writes what a player of their habits would: a strong
player often finds the top (choosing freely among equal tops, so that the arbiter sometimes has
to pick one), a weaker one settles for a lower-ranked move; some write a word that is not in
the list or lay it on the wrong square, some write something the notation cannot read, some
hand in late, some change their mind before the deadline, some write their claimed score (now
and then wrongly), one now and then plays a joker as K, Q, W or Y. In the last round a player
may hand in several parts, each played with the tiles the previous one left (RULES 2.8).

Everything is derived from one `random.Random`, so a seed gives the same game every time; the
judging itself is left to the game (this module only uses the engine to find and check moves).
`pipelines.simulate.duplicate` drives a whole game with these players through the service layer.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from datetime import timedelta

from engine.board import Board
from engine.dictionary import Dictionary
from engine.movegen import MoveGenerator, ScoredMove
from engine.notation import Move, NotationError, format_move, parse_move
from engine.rack import Rack
from engine.ruleset import Ruleset
from engine.tiles import JOKER
from engine.verdict import check_move

FIRST_NAMES = (
    "Andrei", "Ana", "Bogdan", "Carmen", "Cristian", "Dana", "Dorin", "Elena", "Florin",
    "Gabriela", "Horia", "Ioana", "Iulian", "Laura", "Liviu", "Mihaela", "Mircea", "Monica",
    "Octavian", "Paula", "Radu", "Roxana", "Sorin", "Simona", "Tudor", "Teodora", "Vlad",
    "Valentina", "Costin", "Irina",
)  # fmt: skip
LAST_NAMES = (
    "Popescu", "Ionescu", "Dumitrescu", "Stan", "Stoica", "Gheorghiu", "Munteanu", "Constantin",
    "Dobre", "Marinescu", "Lungu", "Ursu", "Rusu", "Toma", "Neagu", "Barbu", "Cristea", "Florea",
    "Moldovan", "Oprea", "Enache", "Sandu", "Voicu", "Zamfir", "Preda", "Niculescu", "Vasilescu",
    "Tănase", "Manole", "Bălan",
)  # fmt: skip


@dataclass(frozen=True)
class Habits:
    """How a simulated player plays: chances per round, between 0 and 1.

    `skill` is the chance of finding a top move; otherwise the player falls one level of score
    down the ranking, and each further level with chance `depth`, never below `floor` times
    the top score (a weak player still finds a fair move most rounds). `slip` writes an
    invalid move, `scrawl` something unreadable, `late` hands in after the deadline,
    `second_thoughts` hands in a weaker move first and the chosen one before the deadline,
    `absent` hands in nothing, `claims` writes the claimed score.
    """

    skill: float
    depth: float
    floor: float
    slip: float
    scrawl: float
    late: float
    second_thoughts: float
    absent: float
    claims: float


TIERS: dict[str, Habits] = {
    "maestru": Habits(0.7, 0.5, 0.75, 0.02, 0.01, 0.01, 0.03, 0.0, 0.9),
    "expert": Habits(0.45, 0.6, 0.6, 0.04, 0.02, 0.01, 0.03, 0.01, 0.7),
    "club": Habits(0.25, 0.7, 0.45, 0.07, 0.03, 0.02, 0.02, 0.03, 0.5),
    "debutant": Habits(0.1, 0.8, 0.3, 0.12, 0.05, 0.03, 0.02, 0.05, 0.3),
}
"""Habits by level, strongest first."""


STYLES = ("plain", "plain", "claim", "lower", "online", "hand")
"""The ways of writing a move (`SimulatedPlayer.style`), drawn for each player."""

DIACRITICS = {"A": "ĂÂ", "I": "Î", "S": "Ș", "T": "Ț"}
"""The letters a `hand` player may write with a diacritic (folded when read, RULES 1)."""

NO_TILE = "KQWY"
"""Letters with no tile: only a joker can stand for them (RULES 1)."""

CLAIMS = ("= {} p", "= {}", "{} puncte", "({} p)")
"""How a `hand` player writes the score they claim; the others write `= 12 p`."""


@dataclass(frozen=True)
class SimulatedPlayer:
    player_id: str
    name: str
    habits: Habits
    style: str
    """How the player writes a move: `plain` (`H8: VARA`), `claim` (`H8: VARA = 12 p`),
    `lower` (jokers as lowercase letters), `online` (`P1-T3 - H8: VARA`) or `hand` (as
    written in a hall: `h8 VARĂ`, lower-case coordinates, no colon, a diacritic where the
    word has a letter that takes one, the claim as `= 12`, `12 puncte` or `(12 p)`)."""


def make_players(count: int, rng: random.Random) -> tuple[SimulatedPlayer, ...]:
    """`count` players with distinct Romanian names, levels spread from strong to weak."""
    names: list[str] = []
    while len(names) < count:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name not in names:
            names.append(name)
    levels = list(TIERS)
    players = []
    for i, name in enumerate(names):
        level = levels[min(len(levels) - 1, i * len(levels) // count)]
        style = rng.choice(STYLES)
        players.append(SimulatedPlayer(f"p{i + 1:02d}", name, TIERS[level], style))
    return tuple(players)


@dataclass(frozen=True)
class Slip:
    """A submission as a simulated player hands it in: text as written, how long after the draw
    it arrives, its part (last round), and what the player meant when it cannot be read."""

    player_id: str
    text: str
    delay: timedelta
    part: int = 1
    meant: str | None = None


@dataclass(frozen=True)
class Table:
    """What every player sees in a round: the board, the rack, the round's time and ranking."""

    board: Board
    rack: str
    round: int
    game_tag: str
    think_time: timedelta
    last: bool


class Players:
    """Simulated players with the engine's move generator, reused round after round."""

    def __init__(
        self,
        players: tuple[SimulatedPlayer, ...],
        ruleset: Ruleset,
        dictionary: Dictionary,
        rng: random.Random,
    ) -> None:
        self.players = players
        self.ruleset = ruleset
        self.dictionary = dictionary
        self.rng = rng
        self.generator = MoveGenerator(ruleset, dictionary)

    def round(self, table: Table) -> list[Slip]:
        """Every slip of the round, in the order the players are listed."""
        ranked = self.generator.moves(table.board, table.rack)
        ease = self.rng.uniform(0.2, 1.2)
        slips: list[Slip] = []
        for player in self.players:
            slips.extend(self._slips(player, table, ranked, ease))
        if JOKER in table.rack and not table.last and self.rng.random() < 0.5:
            self._foreign_joker(table, ranked, slips)
        return slips

    def _foreign_joker(self, table: Table, ranked: list[ScoredMove], slips: list[Slip]) -> None:
        """A player fond of loanwords plays the joker as K, Q, W or Y (letters with no tile,
        RULES 1) when the rack allows such a move: the first player with one slip writes the
        best of them instead of their own move."""
        found = next(
            (m for m in ranked if any(m.move.word[i] in NO_TILE for i in m.move.jokers)), None
        )
        if found is None:
            return
        writers = {p.player_id: p for p in self.players}
        counts = Counter(s.player_id for s in slips)
        for i, slip in enumerate(slips):
            if counts[slip.player_id] == 1 and slip.meant is None:
                slips[i] = replace(slip, text=self._write(writers[slip.player_id], table, found))
                return

    def _slips(
        self, player: SimulatedPlayer, table: Table, ranked: list[ScoredMove], ease: float
    ) -> list[Slip]:
        rng, habits = self.rng, player.habits
        if not ranked or rng.random() < habits.absent:
            return []
        chosen = self._choose(habits, ranked, ease)
        window = table.think_time.total_seconds()
        arrival = timedelta(seconds=round(rng.uniform(0.35, 0.95) * window))
        if rng.random() < habits.late:
            arrival = table.think_time + timedelta(seconds=rng.randint(5, 150))
        slips = []
        if rng.random() < habits.second_thoughts and len(ranked) > 1:
            first = ranked[min(len(ranked) - 1, rng.randint(1, 40))]
            early = timedelta(seconds=round(arrival.total_seconds() * rng.uniform(0.3, 0.8)))
            slips.append(Slip(player.player_id, self._write(player, table, first), early))
        if rng.random() < habits.scrawl:
            meant = self._write(player, table, chosen)
            slips.append(Slip(player.player_id, self.scrawl(chosen.move), arrival, meant=meant))
            return slips
        if rng.random() < habits.slip:
            wrong = self._slip(table, chosen)
            if wrong is not None:
                text = self._write(player, table, ScoredMove(wrong, chosen.score))
                slips.append(Slip(player.player_id, text, arrival))
                return slips
        slips.append(Slip(player.player_id, self._write(player, table, chosen), arrival))
        if table.last:
            slips.extend(self._further_parts(player, table, chosen, arrival))
        return slips

    def _choose(self, habits: Habits, ranked: list[ScoredMove], ease: float = 1.0) -> ScoredMove:
        """A top move with chance `skill` times the round's `ease` (some tops are hard to see,
        which makes solos), else a move some levels of score down."""
        levels = sorted({m.score for m in ranked}, reverse=True)
        reachable = [s for s in levels if s >= levels[0] * habits.floor] or levels[:1]
        level = 0
        if self.rng.random() >= habits.skill * ease and len(reachable) > 1:
            level = 1
            while level < len(reachable) - 1 and self.rng.random() < habits.depth:
                level += 1
        return self.rng.choice([m for m in ranked if m.score == levels[level]])

    def _write(self, player: SimulatedPlayer, table: Table, scored: ScoredMove) -> str:
        """The move in the player's own way of writing, with the score they believe it makes."""
        move = scored.move
        chosen = move.chosen
        after = player.style in ("claim", "hand")  # completiv: `JUCATOR +J`, not `[J]UCATOR`
        if (
            after
            and chosen is not None
            and chosen.at is not None
            and (move.word.count(chosen.letter) == 1)
        ):
            move = replace(move, chosen=replace(chosen, at=None))
        text = format_move(move)
        if player.style == "lower" and move.jokers:
            word = "".join(ch.lower() if i in move.jokers else ch for i, ch in enumerate(move.word))
            text = f"{move.coordinate}: {word}"
        if player.style == "online":
            text = f"{table.game_tag}-T{table.round} - {text}"
        if player.style == "hand":
            text = self._by_hand(text, move)
        if player.style in ("claim", "hand") or self.rng.random() < player.habits.claims / 3:
            score = scored.score
            if self.rng.random() < 0.1:
                score = max(0, score + self.rng.choice((-10, -2, 1, 2, 10)))
            form = self.rng.choice(CLAIMS) if player.style == "hand" else CLAIMS[0]
            text += " " + form.format(score)
        return text

    def _by_hand(self, text: str, move: Move) -> str:
        """A move's canonical text as written by hand: the coordinate in lower case without
        the colon, and one letter that takes a diacritic written with it."""
        coordinate, word = text.split(": ", 1)
        places = [i for i, ch in enumerate(word) if ch in DIACRITICS and (
            i == 0 or word[i - 1] != "(")]  # fmt: skip
        if places and self.rng.random() < 0.5:
            i = self.rng.choice(places)
            word = word[:i] + self.rng.choice(DIACRITICS[word[i]]) + word[i + 1 :]
        return f"{coordinate.lower()} {word}"

    def _slip(self, table: Table, chosen: ScoredMove) -> Move | None:
        """A mistaken version of a move that the engine refuses: two letters swapped, or the
        word laid one square off."""
        move = chosen.move
        attempts: list[Move] = []
        for i in range(len(move.word) - 1):
            word = move.word[:i] + move.word[i + 1] + move.word[i] + move.word[i + 2 :]
            if word != move.word:
                attempts.append(Move(move.row, move.col, move.across, word, move.jokers))
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            row, col = move.row + dr, move.col + dc
            if 0 <= row < table.board.size and 0 <= col < table.board.size:
                attempts.append(Move(row, col, move.across, move.word, move.jokers))
        self.rng.shuffle(attempts)
        rack = Rack.parse(table.rack, self.ruleset)
        for attempt in attempts:
            verdict = check_move(table.board, attempt, self.ruleset, self.dictionary, rack)
            if not verdict.valid:
                return attempt
        return None

    def scrawl(self, move: Move) -> str:
        """A slip nobody can read as a move (what the arbiter may correct later)."""
        candidates = [
            f"{move.word} la {move.coordinate}",
            f"{move.coordinate} - {move.word}",
            f"{move.coordinate}; {move.word}",
            f"{move.coordinate}: {move.word[:2]} {move.word[2:]}",
            f"{move.coordinate}:",
        ]
        self.rng.shuffle(candidates)
        for text in candidates:
            if isinstance(parse_move(text), NotationError):
                return text
        return "?"

    def _further_parts(
        self, player: SimulatedPlayer, table: Table, first: ScoredMove, arrival: timedelta
    ) -> list[Slip]:
        """Last round: more parts, each played with what the previous one left."""
        board, rack, move = table.board, table.rack, first
        slips: list[Slip] = []
        for part in range(2, 8):
            verdict = check_move(board, move.move, self.ruleset, self.dictionary)
            used = Counter(JOKER if t.joker else t.letter for t in verdict.tiles)
            left = Counter(rack) - used
            rack = "".join(sorted(left.elements()))
            board = board.with_tiles((t.row, t.col, t.cell) for t in verdict.tiles)
            if not rack:
                break
            found = self.generator.moves(board, rack)
            if not found or self.rng.random() >= player.habits.skill + 0.2:
                break
            move = self._choose(player.habits, found)
            arrival = min(
                arrival + timedelta(seconds=self.rng.randint(5, 30)),
                max(arrival, table.think_time - timedelta(seconds=1)),
            )
            slips.append(
                Slip(player.player_id, self._write(player, table, move), arrival, part=part)
            )
        return slips
