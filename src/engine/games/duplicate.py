"""The duplicate variant (RULES 2): every player plays the same board and the same rack.

    decide(state: GameState, command: Command) -> list[Event]
        The events a command records, in order; raises `GameRuleError` (`.code`, a message
        saying why and what to do) and records nothing when the rules refuse it. Decide folds
        the events it proposes with `evolve` and refuses them if evolve would ignore them, so
        that the two never disagree.
    evolve(state: GameState, recorded: Recorded) -> GameState
        Pure fold step (written in `duplicate_evolve`, the round mechanics in `rounds`); never
        raises on a recorded event: an inconsistent one (imported from a file) is kept in
        `state.notes` as ignored, with its reason code and message.

Decisions taken where the rules are silent (docs/draws.md and docs/game-day.md restate them):
a round with no valid submission has no top unless the arbiter chooses one (any valid move),
and then nothing is placed and the rack stays; a correction applies to the submission standing
for that player and part, and is late when that submission was; in a last round, the parts are
judged in order on the player's own board, an invalid or annulled part laying nothing; a
recorded RoundClosed with equal tops and no TopChosen places the first of them received (and
notes it); a top choice that later annulments or corrections made stale no longer counts; the
solo bonus needs at least `solo_min_players` players in the game; with `top_source: computer`,
closing records the engine's best move (the first in canonical order when several share the
score, unless the arbiter chose one of them) and, in a last round, the best move again with the
tiles left until none can be laid; a recorded computer TopChosen is accepted on replay when it
is a valid move (a replay never reruns the search, so it stays fast and does not depend on the
move generator's version).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.bag import BagError
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
    JoinPlayer,
    Penalise,
    RevealSeed,
    Revoke,
    Submit,
    Warn,
    event_of,
)
from engine.games.duplicate_evolve import FOLDED, evolve
from engine.games.events import (
    Event,
    GameEnded,
    PlayerJoined,
    RackDrawn,
    Recorded,
    RoundClosed,
    TopChosen,
)
from engine.games.payloads import EventDecodeError, decode_event, encode_event
from engine.games.rounds import (
    chosen_top,
    judge_sequence,
    player_text,
    rack_after,
    round_top,
    tied_moves,
)
from engine.games.settings import check_settings
from engine.games.state import GameRuleError, GameState, RoundState
from engine.notation import format_move
from engine.ruleset import RulesetError, load_ruleset

__all__ = [
    "GameRuleError",
    "checked",
    "created_events",
    "decide",
    "end_events",
    "evolve",
    "restated",
    "round_top",
]

Evolve = Callable[[GameState, Recorded], GameState]


def _meta(command: Command) -> dict:
    return {
        "received_at": command.received_at,
        "actor": command.actor,
        "source": command.source,
    }


def checked(
    state: GameState, events: list[Event], command: Command, fold: Evolve = evolve
) -> list[Event]:
    """The proposed events as they will read back; refused if the variant's `fold` (its
    evolve) would ignore any: what decide proposes, evolve must accept (every variant's
    decide ends here)."""
    checked = []
    for i, proposed in enumerate(events):
        try:
            event = decode_event(*encode_event(proposed))
        except EventDecodeError as exc:
            raise GameRuleError(f"bad_{exc.field or 'event'}", str(exc)) from None
        checked.append(event)
        before = len(state.notes)
        state = fold(state, Recorded(event, f"proposed-{i}", **_meta(command)))
        for note in state.notes[before:]:
            if note.ignored:
                raise GameRuleError(note.code, note.message)
    return checked


def _create(state: GameState, command: CreateGame) -> list[Event]:
    if state.created is not None:
        raise GameRuleError("game_exists", f"game {state.created.game_id} already exists")
    if command.variant not in FOLDED:
        raise GameRuleError(
            "variant_not_supported",
            f"the {command.variant} variant is not played yet: create a duplicate game",
        )
    return created_events(command)


def created_events(command: CreateGame) -> list[Event]:
    """GameCreated naming the command's variant and a PlayerJoined per player listed, once
    the ruleset, the settings, the seed commitment and the players hold: every variant
    creates its game here, after its own checks (the game not created yet, the variant's)."""
    try:
        ruleset = load_ruleset(command.ruleset)
    except RulesetError as exc:
        raise GameRuleError("unknown_ruleset", str(exc)) from None
    problems = check_settings(ruleset, command.settings, command.variant)
    if problems:
        raise GameRuleError("bad_setting", "; ".join(problems))
    if command.draw == "seeded" and command.seed_commitment is None:
        raise GameRuleError(
            "seed_commitment_missing",
            "a seeded game records the SHA-256 of its secret seed: give the seed commitment",
        )
    if command.draw == "manual" and command.seed_commitment is not None:
        raise GameRuleError(
            "seed_commitment_unexpected", "a seed commitment is for seeded draws: use --draw seeded"
        )
    ids = [p.player_id for p in command.players]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise GameRuleError("player_exists", f"players listed twice: {', '.join(repeated)}")
    players = (PlayerJoined(p.player_id, p.name) for p in command.players)
    return [event_of(command), *players]


def _draw(state: GameState, command: DrawRack) -> list[Event]:
    created, context = state.created, state.context
    assert created is not None and context is not None
    seeded = created.draw == "seeded"
    if seeded and command.tiles is not None:
        raise GameRuleError(
            "seeded_game", "this game's draws are seeded: give the seed, not the tiles"
        )
    if not seeded and command.tiles is None:
        raise GameRuleError("tiles_missing", "a manual draw needs the tiles drawn, e.g. EIR?")
    tiles, rejected = command.tiles, command.rejected
    if seeded:
        if command.seed is None or draws.seed_commitment(command.seed) != created.seed_commitment:
            raise GameRuleError(
                "seed_mismatch",
                "the seed given does not hash to the game's commitment: give the secret seed",
            )
        plan = draws.plan_draw(
            state.leftover,
            state.bag,
            context.settings.draw_size,
            context.settings.minimum(command.round),
            context.ruleset.vowels,
        )
        if not isinstance(plan, draws.DrawPlan):
            raise GameRuleError(plan.code, plan.message)
        try:
            tiles, rejected = draws.seeded_draw(
                command.seed, command.round, plan, state.leftover, state.bag, context.ruleset.vowels
            )
        except BagError as exc:
            raise GameRuleError("game_over", str(exc)) from None
    assert tiles is not None
    return [RackDrawn(command.round, tiles, tuple(rejected), command.deadline)]


def _close(state: GameState, command: CloseRound) -> list[Event]:
    context = state.context
    assert context is not None
    rnd = state.round(command.round)
    if rnd is None or rnd.closed:
        return [RoundClosed(command.round)]  # evolve says why
    if chosen_top(state, rnd) is not None:
        return [RoundClosed(command.round)]
    if context.settings.top_source == "computer":
        move = _computer_top(state, rnd)
        events: list[Event] = [TopChosen(command.round, move)] if move else []
        return [*events, RoundClosed(command.round)]
    tops = tied_moves(rnd)
    if len(tops) > 1:
        listed = "; ".join(f"{player_text(p)} ({p.player_id})" for p in tops)
        raise GameRuleError(
            "top_not_chosen",
            f"round {command.round}: different moves share the top score {tops[0].score}"
            f" ({listed}): the arbiter must choose one first",
        )
    return [RoundClosed(command.round)]


def _computer_top(state: GameState, rnd: RoundState) -> str | None:
    """The computer's best move; in a last round, best moves in sequence until none is left."""
    context = state.context
    assert context is not None
    board, rack, texts = rnd.board, rnd.rack, []
    while rack:
        top = context.top(board, rack)
        if not top.moves:
            break
        move = top.moves[0].move
        texts.append(format_move(move))
        judgement = context.judge(board, rack, texts[-1])
        board = board.with_tiles((t.row, t.col, t.cell) for t in judgement.tiles)
        rack = rack_after(rack, judgement)
        if not rnd.last:
            break
    return "; ".join(texts) or None


def _choose(state: GameState, command: ChooseTop) -> list[Event]:
    context = state.context
    assert context is not None
    rnd = state.round(command.round)
    if context.settings.top_source == "computer" and rnd is not None and not rnd.closed:
        best = _computer_top(state, rnd)
        judged = judge_sequence(state, rnd, command.move)
        wanted = sum(j.score for j in judge_sequence(state, rnd, best)) if best else 0
        if sum(j.score for j in judged) != wanted or not all(j.valid for j in judged):
            raise GameRuleError(
                "not_a_top",
                f"{command.move} is not a computer top of round {command.round}"
                f" (the top scores {wanted}, e.g. {best})",
            )
    return [TopChosen(command.round, command.move)]


def end_events(state: GameState, command: EndGame) -> list[Event]:
    current = state.current
    if current is not None and not current.closed:
        raise GameRuleError(
            "round_not_closed", f"round {current.number} is open: close it before ending the game"
        )
    return [GameEnded(command.reason)]


RESTATED = (JoinPlayer, Submit, Annul, Penalise, Warn, Correct, Revoke, RevealSeed)
"""The commands every variant records as given (joining, a submission, an annulment, a
penalty, a warning, a correction, a revocation, the seed revealed): the fold judges them."""


def restated(command: Command, variant: str) -> list[Event]:
    """The event that restates the command, for the commands of `RESTATED`: the others are
    each variant's own to decide, so one that reaches here is not a command of `variant`."""
    if not isinstance(command, RESTATED):
        raise GameRuleError("unknown_command", f"{type(command).__name__} is not {variant} command")
    return [event_of(command)]


def _events(state: GameState, command: Command) -> list[Event]:
    match command:
        case DrawRack():
            return _draw(state, command)
        case ChooseTop():
            return _choose(state, command)
        case CloseRound():
            return _close(state, command)
        case EndGame():
            return end_events(state, command)
    return restated(command, "a duplicate")


def decide(state: GameState, command: Command) -> list[Event]:
    """The events that carry out an arbiter's command, or `GameRuleError` saying why not."""
    if isinstance(command, CreateGame):
        return checked(state, _create(state, command), command)
    if state.created is None:
        raise GameRuleError("no_game", "the game does not exist: create it first")
    return checked(state, _events(state, command), command)
