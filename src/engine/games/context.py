"""What a game is judged with: its ruleset, settings and dictionary, and the judging of texts.

A context is built once per game from its GameCreated (`context_for`); the pipelines find the
dictionary the game names. Judging a submission's text on a board and rack is cached here, so
that a replay judges each distinct (board, rack, text) once however many players wrote it,
and checks each distinct move once however it was written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.board import Board
from engine.dictionary import Dictionary
from engine.games.events import GameCreated
from engine.games.settings import GameSettings, read_settings
from engine.notation import Move, NotationError, format_tile, parse_move
from engine.placement import Tile
from engine.problems import Problem
from engine.rack import Rack
from engine.ruleset import Ruleset, load_ruleset
from engine.verdict import Verdict, as_written, check_move

if TYPE_CHECKING:
    from engine.movegen import Top


class Judgement(NamedTuple):
    """A text judged on a board and rack: the parsed move (None when unreadable), the
    verdict, the problems with their codes, the points it earns (0 unless valid), and what
    the variant read into it (`notes`: completiv's chosen letter applied or ignored, and why)."""

    text: str
    move: Move | None
    verdict: Verdict | None
    problems: tuple[Problem, ...]
    score: int
    notes: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return self.verdict.tiles if self.verdict is not None and self.valid else ()


@dataclass(frozen=True, eq=False)
class GameContext:
    """A game's ruleset (with its overrides), settings and dictionary."""

    ruleset: Ruleset
    settings: GameSettings
    dictionary: Dictionary
    _judged: dict[Any, Judgement] = field(default_factory=dict, repr=False)
    _checked: dict[Any, Verdict] = field(default_factory=dict, repr=False)

    def judge(self, board: Board, rack: str, text: str) -> Judgement:
        """Read and judge a submission's text on a board with a rack (cached)."""
        key = (board.rows, rack, text)
        found = self._judged.get(key)
        if found is None:
            found = self._judged[key] = self._judge(board, rack, text)
        return found

    def _judge(self, board: Board, rack: str, text: str) -> Judgement:
        move = parse_move(text)
        if isinstance(move, NotationError):
            problem = Problem("unreadable", f"unreadable: {move.message}")
            return Judgement(text, None, None, (problem,), 0)
        return self._judge_move(board, rack, text, move, self.check(board, rack, move))

    def _judge_move(
        self, board: Board, rack: str, text: str, move: Move, verdict: Verdict
    ) -> Judgement:
        """A readable submission judged from its move's verdict. Only duplicat-completiv lets a
        move choose a letter from the stock (`CompletivContext` judges it); here that is refused."""
        if move.chosen is not None:
            mark = format_tile(move.chosen.letter, move.chosen.joker)
            problem = Problem(
                "completiv_mark_not_allowed",
                f"a letter chosen from the stock ({mark}) is for duplicat-completiv games:"
                " write the move with the rack's tiles only",
            )
            return Judgement(text, move, verdict, (problem, *verdict.problems), 0)
        return Judgement(text, move, verdict, verdict.problems, verdict.score)

    def check(self, board: Board, rack: str, move: Move) -> Verdict:
        """A parsed move checked on a board with a rack (`engine.verdict.check_move`), cached
        by the tiles it lays: players write the same move with and without a claimed score or
        an online game's prefix, and it is placed and scored once."""
        key = (board.rows, rack, *move.laid())
        found = self._checked.get(key)
        if found is None:
            found = self._checked[key] = check_move(
                board, move, self.ruleset, self.dictionary, Rack(rack)
            )
        elif found.move != move:
            found = as_written(found, move)
        return found

    def top(self, board: Board, rack: str) -> Top:
        """The computer's top: the best score and every move reaching it (engine.movegen).
        The generator is imported here, when a top is first asked for: replaying a game reads
        the tops its events record, so the views of a game never load it."""
        from engine.movegen import find_top

        return find_top(board, Rack(rack), self.ruleset, self.dictionary)


def context_for(created: GameCreated, dictionary: Dictionary) -> GameContext:
    """The context a GameCreated asks for: its ruleset by name with its variant's settings
    (`VARIANT_SETTINGS`) and its own applied.

    Settings that cannot be applied are reported in `GameSettings.problems`, never raised;
    an unknown ruleset name raises `RulesetError` (the game cannot be judged without it).
    """
    ruleset, settings = read_settings(
        load_ruleset(created.ruleset), created.settings, created.variant
    )
    return GameContext(ruleset, settings, dictionary)
