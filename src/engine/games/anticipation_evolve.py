"""The anticipation variant's fold: `evolve(state, recorded) -> state`, one event at a time.

Pure, and never raises on a recorded event: an event the rules cannot apply is kept in
`state.notes` as ignored, with its reason code and message. The events that mean the same in
every variant (a player joining, a penalty, the seed revealed, the end) are folded by the
duplicate's fold; an annulment, a correction and a revocation by the duplicate's handlers,
given anticipation's `settle` (a player's parts judged on their own board); the rest are
anticipation's own: the groups drawn from the 98 letters, each player's replacement,
submissions judged on each player's own board, and a round's close, which moves every
player's sheet on (board, stock, eliminated letters).
"""

from __future__ import annotations

from functools import partial

from engine.bag import Bag
from engine.games import draws, duplicate_evolve
from engine.games.anticipation_rules import (
    closed_sheet,
    read_replacement,
    settle,
    sheet_of,
)
from engine.games.anticipation_state import Replacing
from engine.games.duplicate_evolve import (
    Ignore,
    annulled,
    check_next_draw,
    check_open,
    corrected,
    entry_of,
    known_player,
    open_drawn_round,
    open_round,
    remembered,
    revoked,
    setting_notes,
    with_round,
)
from engine.games.events import (
    DECISIONS,
    DecisionRevoked,
    GameCreated,
    RackDrawn,
    Recorded,
    ReplacementDeclared,
    RoundClosed,
    SubmissionAnnulled,
    SubmissionCorrected,
    SubmissionReceived,
    TopChosen,
)
from engine.games.rounds import is_late
from engine.games.settings import DrawMinimum
from engine.games.state import (
    GameState,
    Note,
    PlayerRound,
    RoundState,
    changed,
)
from engine.tiles import JOKER

NO_RULE = DrawMinimum(1, 0, 0)
"""Groups are drawn without the vowel/consonant rule: every letter is drawn (rule 1)."""


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """The state after one recorded event (never raises on the event's content)."""
    event = recorded.event
    handler = _HANDLERS.get(type(event))
    if handler is None or (state.created is None and not isinstance(event, GameCreated)):
        return duplicate_evolve.evolve(state, recorded)
    counted = changed(state, events=state.events + 1, last_seq=recorded.seq)
    try:
        return handler(counted, event, recorded)
    except Ignore as why:
        number = why.round if why.round is not None else getattr(event, "round", None)
        note = Note(recorded.seq, recorded.event_id, type(event).__name__, why.code,
                    why.message, number)  # fmt: skip
        return changed(counted, notes=(*counted.notes, note))


def _created(state: GameState, event: GameCreated, recorded: Recorded) -> GameState:
    if state.created is not None:
        raise Ignore("game_exists", "the game was already created; a game has one GameCreated")
    context = state.resolve(event)
    notes = (*state.notes, *setting_notes(context, recorded))
    full = Bag.full(context.ruleset)
    letters = full.take(JOKER * full.count(JOKER))
    return changed(state, created=event, context=context, bag=letters, notes=notes,
                   game_events=remembered(state, recorded, "GameCreated"))  # fmt: skip


def _plan(state: GameState) -> draws.DrawPlan:
    context = state.context
    assert context is not None
    size = context.settings.draw_size
    plan = draws.plan_draw("", state.bag, size, NO_RULE, context.ruleset.vowels)
    if not isinstance(plan, draws.DrawPlan):
        raise Ignore(plan.code, plan.message)
    return plan


def _drawn(state: GameState, event: RackDrawn, recorded: Recorded) -> GameState:
    check_next_draw(state, event, "the next group to draw is round {expected}'s")
    return open_drawn_round(state, event, recorded, _plan(state))


def _open_round(state: GameState, number: int, player_id: str) -> RoundState:
    rnd = open_round(state, number)
    known_player(state, player_id)
    return rnd


def _with_player(state: GameState, rnd: RoundState, player: PlayerRound) -> GameState:
    return with_round(state, settle(state, rnd, player))


def _received(state: GameState, event: SubmissionReceived, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round, event.player_id)
    if event.part > 2 or (event.part == 2 and not rnd.last):
        raise Ignore(
            "part_not_allowed",
            f"part {event.part}: one submission a round; in the last round two, part 1 with"
            " the stock's two letters and part 2 with the group (rule 8)",
        )
    player = rnd.player(event.player_id)
    entry = entry_of(event, recorded)
    return _with_player(state, rnd, changed(player, received=(*player.received, entry)))


def _declared(state: GameState, event: ReplacementDeclared, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round, event.player_id)
    player = rnd.player(event.player_id)
    if player.replacement is not None:
        raise Ignore(
            "replacement_declared",
            f"{event.player_id} already declared {player.replacement.text!r} in round"
            f" {event.round}: a recorded replacement can never be changed (rule 9)",
        )
    late = is_late(recorded.received_at, rnd.deadline)
    code, message, group, stock, joker_for = read_replacement(
        event.text, rnd.drawn, sheet_of(state, event.player_id).stock, late
    )
    if code is not None:
        message += f": counts as no replacement, the group stays {rnd.drawn} (rule 10)"
    replacing = Replacing(recorded.event_id, recorded.seq, event.text, recorded.received_at,
                          recorded.source, code, message, group, stock, joker_for)  # fmt: skip
    return _with_player(state, rnd, changed(player, replacement=replacing))


def _top_chosen(state: GameState, event: TopChosen, recorded: Recorded) -> GameState:
    raise Ignore("no_top", "every player plays their own board: an anticipation round has no top")


def _closed(state: GameState, event: RoundClosed, recorded: Recorded) -> GameState:
    check_open(state)
    rnd = state.round(event.round)
    if rnd is None:
        raise Ignore("round_not_drawn", f"round {event.round} has not been drawn")
    if rnd.closed:
        raise Ignore("round_closed", f"round {event.round} is already closed")
    sheets = {p: closed_sheet(sheet_of(state, p), rnd, rnd.players.get(p)) for p in state.players}
    over = state.over
    if not state.bag:
        over = f"all {rnd.number} groups have been played"
    game_events = remembered(state, recorded, "RoundClosed")
    closed = with_round(state, changed(rnd, closed=True))
    return changed(closed, sheets=sheets, over=over, game_events=game_events)


def _revoked(state: GameState, event: DecisionRevoked, recorded: Recorded) -> GameState:
    """The duplicate's revocation, the player's parts judged again on their own board; a
    replacement is no decision and can never be changed (rule 9)."""
    try:
        return revoked(state, event, recorded, settle)
    except Ignore as why:
        if why.code != "unknown_event" or not _is_replacement(state, event.event_id):
            raise
        raise Ignore(
            "not_a_decision",
            f"{event.event_id} is a ReplacementDeclared, not a decision ({', '.join(DECISIONS)})"
            ": a recorded replacement can never be changed (rule 9)",
        ) from None


def _is_replacement(state: GameState, event_id: str) -> bool:
    """Whether the event is a player's replacement (a round keeps it, not `game_events`)."""
    return any(
        player.replacement is not None and player.replacement.event_id == event_id
        for rnd in state.rounds
        for player in rnd.players.values()
    )


_HANDLERS = {
    GameCreated: _created,
    RackDrawn: _drawn,
    SubmissionReceived: _received,
    ReplacementDeclared: _declared,
    SubmissionAnnulled: partial(annulled, settle_player=settle),
    SubmissionCorrected: partial(corrected, settle_player=settle),
    DecisionRevoked: _revoked,
    TopChosen: _top_chosen,
    RoundClosed: _closed,
}
"""Anticipation's handlers (its own, or the duplicate's with its `settle`); every other event
is folded by the duplicate's fold."""
