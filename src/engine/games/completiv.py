"""The duplicat-completiv variant (RULES 3): duplicate with 6 drawn and one letter chosen.

    decide(state: GameState, command: Command) -> list[Event]
        Duplicate's commands (`engine.games.duplicate`); creating a game also refuses a
        `draw_size` of a whole rack, since each player adds the 7th tile.
    evolve(state: GameState, recorded: Recorded) -> GameState
        Duplicate's fold; from GameCreated on, the game is judged with `CompletivContext`
        (`completiv_judge`): the draw completes the leftover to 6 (the vowel/consonant rule
        applies to those 6), each submission is judged with its chosen letter, and the
        computer's top searches every letter of the stock.
    player_view(state: GameState, player_id: str) -> PlayerView
        One player's rack with their chosen letter, the stock and their score at the moment
        folded, with what was read into their submission.

Rounds, deadlines, tops, solos, annulments, penalties, corrections, revocations and closing
are duplicate's. What a top takes from the stock is the chosen letter it placed: the leftover
is what the top did not use of the drawn tiles (`rounds.laid_from`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from weakref import WeakKeyDictionary

from engine.bag import Bag
from engine.games import duplicate, duplicate_evolve
from engine.games.commands import Command, CreateGame
from engine.games.completiv_judge import CompletivContext, stock_of
from engine.games.context import GameContext
from engine.games.events import Event, GameCreated, Recorded
from engine.games.projections import standings
from engine.games.rounds import laid_from
from engine.games.state import GameRuleError, GameState, Note, changed
from engine.notation import Move, format_tile, parse_move
from engine.ruleset import load_ruleset

__all__ = ["PlayerView", "completiv_context", "decide", "evolve", "player_view"]

_CONTEXTS: WeakKeyDictionary[GameContext, CompletivContext] = WeakKeyDictionary()


def _draw_size(context: GameContext, created: GameCreated) -> tuple[int, str | None]:
    """6 for the ro-frs rack (the rack less the chosen tile), or a smaller recorded one."""
    most = context.ruleset.rack_size - 1
    if "draw_size" not in created.settings:
        return most, None
    if context.settings.draw_size <= most:
        return context.settings.draw_size, None
    return most, (
        f"settings.draw_size: completiv draws at most {most} tiles (each player adds the last"
        f" one from the stock), got {context.settings.draw_size}"
    )


def completiv_context(context: GameContext, created: GameCreated) -> CompletivContext:
    """The completiv context over the one a game's GameCreated resolves to (one per base
    context, so that what it judged stays cached across folds of the same game)."""
    found = _CONTEXTS.get(context)
    if found is None:
        size, _ = _draw_size(context, created)
        settings = replace(context.settings, draw_size=size)
        found = _CONTEXTS[context] = CompletivContext(context.ruleset, settings, context.dictionary)
    return found


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """Duplicate's fold, judged by completiv from GameCreated on (never raises)."""
    after = duplicate_evolve.evolve(state, recorded)
    if state.context is None and after.context is not None and after.created is not None:
        context = completiv_context(after.context, after.created)
        _, problem = _draw_size(after.context, after.created)
        notes = after.notes
        if problem is not None:
            message = f"{problem}; {context.settings.draw_size} stands"
            note = Note(recorded.seq, recorded.event_id, "GameCreated", "bad_setting", message,
                        None, ignored=False)  # fmt: skip
            notes = (*notes, note)
        after = changed(after, context=context, notes=notes)
    return after


def decide(state: GameState, command: Command) -> list[Event]:
    """Duplicate's decisions on a completiv game."""
    events = duplicate.decide(state, command)
    if isinstance(command, CreateGame) and "draw_size" in command.settings:
        size = command.settings["draw_size"]
        most = load_ruleset(command.ruleset).rack_size - 1
        if size > most:
            raise GameRuleError(
                "bad_setting",
                f"settings.draw_size: completiv draws at most {most} tiles (each player adds"
                f" the last one from the stock), got {size}",
            )
    return events


@dataclass(frozen=True)
class PlayerView:
    """A player at one moment: the drawn tiles, the chosen letter of their standing
    submission as written (`J`, `(C)`), the rack it is judged with (`?` where rule a made
    the letter the stock's joker), the stock, their game score, and what was read into
    their submission (`explanation`)."""

    player_id: str
    round: int | None
    drawn: str
    chosen: str | None
    rack: str
    stock: Bag
    score: int
    explanation: tuple[str, ...]


def _score(state: GameState, player_id: str) -> int:
    """The player's game score as the standings give it at this moment."""
    return next((s.total for s in standings(state) if s.player_id == player_id), 0)


def player_view(state: GameState, player_id: str) -> PlayerView:
    """A player's rack with their chosen letter, the stock and their score, explained."""
    rnd = state.current
    score = _score(state, player_id)
    if rnd is None:
        return PlayerView(player_id, None, "", None, "", state.bag, score, ())
    if rnd.closed:
        explanation = []
        top = rnd.top
        if top is not None:
            rack, taken = rnd.rack, ""
            for judgement in top.parts:
                rack, from_stock = laid_from(rack, judgement)
                taken += from_stock
            explanation.append(
                f"round {rnd.number} closed: the top took {taken} from the stock"
                if taken
                else f"round {rnd.number} closed: the top laid no letter from the stock"
            )
        return PlayerView(
            player_id, rnd.number, state.leftover, None, state.leftover, state.bag, score,
            tuple(explanation),
        )  # fmt: skip
    player = rnd.players.get(player_id)
    parts = player.parts if player is not None else ()
    chosen, rack, explanation = None, rnd.rack, []
    for part in parts:
        move = part.judgement.move
        explanation.extend(part.judgement.notes)
        if part.code is not None:
            why = part.judgement.problems[0].message if part.judgement.problems else part.code
            explanation.append(f"part {part.part} scores 0: {why}")
        written = parse_move(part.judgement.text) if move is not None else None
        if isinstance(written, Move) and written.chosen is not None and chosen is None:
            assert move is not None and move.chosen is not None
            chosen = format_tile(written.chosen.letter, written.chosen.joker)
            rack = rnd.rack + ("?" if move.chosen.joker else move.chosen.letter)
    if not parts:
        explanation.append(f"no submission in round {rnd.number} yet: the rack is the drawn tiles")
    stock = stock_of(state.context.ruleset, rnd.board, rnd.rack) if state.context else state.bag
    return PlayerView(
        player_id, rnd.number, rnd.rack, chosen, rack, stock, score, tuple(explanation)
    )
