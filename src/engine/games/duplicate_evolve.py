"""The duplicate variant's fold: `evolve(state, recorded) -> state`, one event at a time.

Pure, and never raises on a recorded event: an event the rules cannot apply (imported from a
file, say) is kept in `state.notes` as ignored, with its reason code and message; `decide`
(in `duplicate`) refuses a command whenever evolve would ignore its events.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.bag import Bag
from engine.games import draws
from engine.games.context import GameContext
from engine.games.events import (
    DECISIONS,
    DecisionRevoked,
    GameCreated,
    GameEnded,
    PenaltyGiven,
    PlayerJoined,
    RackDrawn,
    Recorded,
    RoundClosed,
    SeedRevealed,
    SubmissionAnnulled,
    SubmissionCorrected,
    SubmissionReceived,
    TopChosen,
    Undecodable,
    WarningGiven,
)
from engine.games.rounds import (
    candidates,
    judge_sequence,
    laid_from,
    player_text,
    sequence_of,
    settle,
    tied_moves,
    top_at_close,
)
from engine.games.state import (
    Decision,
    GameState,
    Note,
    PlayerRound,
    Received,
    RoundState,
    changed,
)

Settle = Callable[[GameState, RoundState, PlayerRound], RoundState]
"""A variant's judging of a player's parts again after a decision (`rounds.settle`)."""

FOLDED = frozenset({"duplicate", "completiv", "eliptic"})
"""The variants this fold plays: duplicat-completiv differs from duplicate only in how a
submission is judged and the computer's top searched (its context, `engine.games.completiv`)
and in the chosen letter a top takes from the stock (`rounds.laid_from`); duplicat eliptic
only in its numbers (a rack of 8, at most 7 laid: `settings.VARIANT_SETTINGS`)."""


class Ignore(Exception):
    """Raised inside evolve's handlers (of every variant that folds its own events): the event
    is kept as ignored for this reason."""

    def __init__(self, code: str, message: str, round_number: int | None = None) -> None:
        self.code = code
        self.message = message
        self.round = round_number


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """The state after one recorded event (never raises on the event's content)."""
    event = recorded.event
    counted = changed(state, events=state.events + 1, last_seq=recorded.seq)
    try:
        if isinstance(event, Undecodable):
            raise Ignore("undecodable", f"not readable: {event.error}")
        if not isinstance(event, GameCreated) and counted.created is None:
            raise Ignore("no_game", "the game has no GameCreated before this event")
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise Ignore(
                "wrong_stream", f"{type(event).__name__} does not belong to a duplicate game"
            )
        return handler(counted, event, recorded)
    except Ignore as why:
        note = Note(
            recorded.seq,
            recorded.event_id,
            event.type_name if isinstance(event, Undecodable) else type(event).__name__,
            why.code,
            why.message,
            why.round if why.round is not None else getattr(event, "round", None),
        )
        return changed(counted, notes=(*counted.notes, note))


def remembered(state: GameState, recorded: Recorded, type_name: str) -> dict[str, str]:
    return (
        {**state.game_events, recorded.event_id: type_name}
        if recorded.event_id
        else dict(state.game_events)
    )


def _created(state: GameState, event: GameCreated, recorded: Recorded) -> GameState:
    if state.created is not None:
        raise Ignore("game_exists", "the game was already created; a game has one GameCreated")
    if event.variant not in FOLDED:
        raise Ignore("variant_not_supported", f"the {event.variant} variant is not played yet")
    context = state.resolve(event)
    notes = (*state.notes, *setting_notes(context, recorded))
    return changed(
        state,
        created=event,
        context=context,
        bag=Bag.full(context.ruleset),
        notes=notes,
        game_events=remembered(state, recorded, "GameCreated"),
    )


def setting_notes(context: GameContext, recorded: Recorded) -> tuple[Note, ...]:
    """One note per unusable setting of GameCreated (kept, reported; the default stands)."""
    return tuple(
        Note(recorded.seq, recorded.event_id, "GameCreated", "bad_setting",
             f"{problem}; the default stands", None, ignored=False)
        for problem in context.settings.problems
    )  # fmt: skip


def check_open(state: GameState) -> None:
    if state.ended is not None:
        raise Ignore("game_ended", f"the game has ended ({state.ended})")


def _joined(state: GameState, event: PlayerJoined, recorded: Recorded) -> GameState:
    check_open(state)
    folded = event.player_id.casefold()
    same = next((p for p in state.players if p.casefold() == folded), None)
    if same is not None:
        joined = "" if same == event.player_id else f" as {same} (ids are compared without case)"
        raise Ignore("player_exists", f"player {event.player_id} has already joined{joined}")
    return changed(
        state,
        players={**state.players, event.player_id: event},
        game_events=remembered(state, recorded, "PlayerJoined"),
    )


def check_next_draw(state: GameState, event: RackDrawn, expected_text: str) -> None:
    """A draw must be the next round's, after the current one closed, in a game not over;
    `expected_text` names the next round (`{expected}` stands for its number)."""
    check_open(state)
    expected = len(state.rounds) + 1
    if event.round != expected:
        raise Ignore("wrong_round", expected_text.format(expected=expected))
    current = state.current
    if current is not None and not current.closed:
        raise Ignore(
            "round_not_closed", f"round {current.number} is not closed: close it before drawing"
        )
    if state.over is not None:
        raise Ignore("game_over", state.over)


def _drawn(state: GameState, event: RackDrawn, recorded: Recorded) -> GameState:
    check_next_draw(state, event, "the next round to draw is round {expected}")
    context = state.context
    assert context is not None
    settings = context.settings
    plan = draws.plan_draw(
        state.leftover,
        state.bag,
        settings.draw_size,
        settings.minimum(event.round),
        context.ruleset.vowels,
    )
    if not isinstance(plan, draws.DrawPlan):
        raise Ignore(plan.code, plan.message)
    return open_drawn_round(state, event, recorded, plan)


def open_drawn_round(
    state: GameState, event: RackDrawn, recorded: Recorded, plan: draws.DrawPlan
) -> GameState:
    """The round a draw opens, once the draw holds to its plan (the bag, the rejected draws,
    the vowel and consonant rule): on the board as it stands, the drawn tiles out of the bag.
    Every variant's draw ends here; only the plan differs."""
    context = state.context
    assert context is not None
    problems = draws.check_manual_draw(
        plan, state.leftover, state.bag, event.drawn, event.rejected, context.ruleset.vowels
    )
    if problems:
        raise Ignore(problems[0].code, "; ".join(p.message for p in problems))
    new_round = RoundState(
        number=event.round,
        board=state.board,
        leftover=state.leftover,
        bag_before=state.bag,
        plan=plan,
        drawn=event.drawn,
        rejected=event.rejected,
        deadline=event.deadline,
        draw_event_id=recorded.event_id,
    )
    return changed(state, rounds=(*state.rounds, new_round), bag=state.bag.take(event.drawn))


def open_round(state: GameState, number: int) -> RoundState:
    check_open(state)
    found = state.round(number)
    if found is None:
        raise Ignore("round_not_drawn", f"round {number} has not been drawn")
    if found.closed:
        raise Ignore("round_closed", f"round {number} is closed: nothing about it is accepted")
    return found


def known_player(state: GameState, player_id: str) -> None:
    if player_id not in state.players:
        raise Ignore("unknown_player", f"{player_id} has not joined this game")


def with_round(state: GameState, rnd: RoundState) -> GameState:
    rounds = list(state.rounds)
    rounds[rnd.number - 1] = rnd
    return changed(state, rounds=tuple(rounds))


def _received(state: GameState, event: SubmissionReceived, recorded: Recorded) -> GameState:
    rnd = open_round(state, event.round)
    known_player(state, event.player_id)
    if event.part > 1 and not rnd.last:
        raise Ignore(
            "part_not_allowed",
            f"part {event.part}: several submissions in one round only in the last round",
        )
    player = rnd.player(event.player_id)
    player = changed(player, received=(*player.received, entry_of(event, recorded)))
    return with_round(state, settle(state, rnd, player))


def entry_of(event: SubmissionReceived | SubmissionCorrected, recorded: Recorded) -> Received:
    """A text received from the player, or the arbiter's correction of it, as the round keeps
    it (every variant's)."""
    correction = isinstance(event, SubmissionCorrected)
    return Received(recorded.event_id, recorded.seq, event.player_id, event.part, event.text,
                    recorded.received_at, recorded.source, correction,
                    event.reason if correction else None)  # fmt: skip


def _submitted(rnd: RoundState, player_id: str, part: int, what: str) -> None:
    player = rnd.players.get(player_id)
    if player is None or not any(r.part == part for r in player.received):
        raise Ignore(
            f"nothing_to_{what}",
            f"{player_id} has no submission (part {part}) in round {rnd.number} to {what}",
        )


def _decision(recorded: Recorded, type_name: str, round_number: int, **fields) -> Decision:
    return Decision(recorded.event_id, recorded.seq, type_name, round_number, **fields)


def annulled(
    state: GameState, event: SubmissionAnnulled, recorded: Recorded, settle_player: Settle = settle
) -> GameState:
    """The annulment kept as the round's decision, and the player's parts settled again by
    the variant's `settle_player`."""
    rnd = open_round(state, event.round)
    known_player(state, event.player_id)
    _submitted(rnd, event.player_id, event.part, "annul")
    decision = _decision(
        recorded, "SubmissionAnnulled", event.round,
        player_id=event.player_id, part=event.part, reason=event.reason,
    )  # fmt: skip
    rnd = changed(rnd, decisions=(*rnd.decisions, decision))
    return with_round(state, settle_player(state, rnd, rnd.player(event.player_id)))


def _penalised(state: GameState, event: PenaltyGiven, recorded: Recorded) -> GameState:
    rnd = open_round(state, event.round)
    known_player(state, event.player_id)
    decision = _decision(
        recorded, "PenaltyGiven", event.round,
        player_id=event.player_id, points=event.points, reason=event.reason,
    )  # fmt: skip
    return with_round(state, changed(rnd, decisions=(*rnd.decisions, decision)))


def _warned(state: GameState, event: WarningGiven, recorded: Recorded) -> GameState:
    rnd = open_round(state, event.round)
    known_player(state, event.player_id)
    decision = _decision(
        recorded, "WarningGiven", event.round, player_id=event.player_id, reason=event.reason
    )
    return with_round(state, changed(rnd, decisions=(*rnd.decisions, decision)))


def corrected(
    state: GameState, event: SubmissionCorrected, recorded: Recorded, settle_player: Settle = settle
) -> GameState:
    """The correction received after what it corrects and kept as the round's decision; the
    player's parts settled again by the variant's `settle_player`."""
    rnd = open_round(state, event.round)
    known_player(state, event.player_id)
    _submitted(rnd, event.player_id, event.part, "correct")
    player = rnd.players[event.player_id]
    decision = _decision(
        recorded, "SubmissionCorrected", event.round,
        player_id=event.player_id, part=event.part, reason=event.reason,
    )  # fmt: skip
    player = changed(player, received=(*player.received, entry_of(event, recorded)))
    rnd = changed(rnd, decisions=(*rnd.decisions, decision))
    return with_round(state, settle_player(state, rnd, player))


def _top_chosen(state: GameState, event: TopChosen, recorded: Recorded) -> GameState:
    rnd = open_round(state, event.round)
    judged = judge_sequence(state, rnd, event.move)
    if not all(j.valid for j in judged):
        problem = next(j for j in judged if not j.valid).problems[0]
        raise Ignore("not_a_top", f"{event.move} is not a valid move here: {problem.message}")
    context = state.context
    assert context is not None
    if context.settings.top_source == "players":
        tops = candidates(rnd)
        if tops and sequence_of(judged) not in {p.sequence for p in tops}:
            best = tops[0].score
            moves = ", ".join(player_text(p) for p in tied_moves(rnd))
            raise Ignore(
                "not_a_top",
                f"{event.move} is not a top of round {event.round}: the top score is {best},"
                f" reached by {moves}",
            )
    decision = _decision(recorded, "TopChosen", event.round, move=event.move)
    return with_round(state, changed(rnd, decisions=(*rnd.decisions, decision)))


def _closed(state: GameState, event: RoundClosed, recorded: Recorded) -> GameState:
    rnd = open_round(state, event.round)
    top, note = top_at_close(state, rnd)
    rnd = changed(rnd, closed=True, top=top)
    board, leftover, bag = rnd.board, rnd.rack, state.bag
    if top is not None:
        board = board.with_tiles((t.row, t.col, t.cell) for t in top.tiles)
        for judgement in top.parts:
            leftover, from_stock = laid_from(leftover, judgement)
            bag = bag.take(from_stock)
    over = state.over
    if rnd.last and not leftover and not bag:
        over = "the bag is empty and the rack played out"
    elif over is None:
        context = state.context
        assert context is not None
        settings, vowels = context.settings, context.ruleset.vowels
        plan = draws.plan_draw(
            leftover, bag, settings.draw_size, settings.minimum(rnd.number + 1), vowels
        )
        if not isinstance(plan, draws.DrawPlan):
            over = plan.message
    after = changed(with_round(state, rnd), board=board, leftover=leftover, bag=bag, over=over)
    after = changed(after, game_events=remembered(after, recorded, "RoundClosed"))
    if note is not None:
        remark = Note(recorded.seq, recorded.event_id, "RoundClosed", "top_interpreted", note,
                      event.round, ignored=False)  # fmt: skip
        after = changed(after, notes=(*after.notes, remark))
    return after


def _find_decision(state: GameState, event_id: str) -> tuple[RoundState, int] | None:
    for rnd in state.rounds:
        for i, decision in enumerate(rnd.decisions):
            if decision.event_id == event_id:
                return rnd, i
    return None


def _known_event(state: GameState, event_id: str) -> str | None:
    """The type of a recorded event of this game, if any."""
    if event_id in state.game_events:
        return state.game_events[event_id]
    for rnd in state.rounds:
        if rnd.draw_event_id == event_id:
            return "RackDrawn"
        for player in rnd.players.values():
            if any(r.event_id == event_id for r in player.received):
                return "SubmissionReceived"
    return None


def revoked(
    state: GameState, event: DecisionRevoked, recorded: Recorded, settle_player: Settle = settle
) -> GameState:
    """The decision revoked, while its round is open, and its player's parts settled again by
    the variant's `settle_player` (anticipation judges them on the player's own board)."""
    check_open(state)
    found = _find_decision(state, event.event_id)
    if found is None:
        known = _known_event(state, event.event_id)
        if known is not None:
            raise Ignore(
                "not_a_decision",
                f"{event.event_id} is a {known}, not a decision ({', '.join(DECISIONS)})",
            )
        raise Ignore("unknown_event", f"no decision {event.event_id} in this game")
    rnd, index = found
    decision = rnd.decisions[index]
    if rnd.closed:
        raise Ignore(
            "round_closed",
            f"round {rnd.number} is closed: its decisions can no longer be revoked",
            rnd.number,
        )
    if not decision.standing:
        raise Ignore("already_revoked", f"{event.event_id} was already revoked", rnd.number)
    decisions = list(rnd.decisions)
    decisions[index] = changed(decision, revoked_by=recorded.event_id or "revoked")
    rnd = changed(rnd, decisions=tuple(decisions))
    if decision.player_id is not None:
        rnd = settle_player(state, rnd, rnd.player(decision.player_id))
    after = with_round(state, rnd)
    return changed(after, game_events=remembered(after, recorded, "DecisionRevoked"))


def _revealed(state: GameState, event: SeedRevealed, recorded: Recorded) -> GameState:
    created = state.created
    assert created is not None
    if created.draw != "seeded":
        raise Ignore("not_seeded", "this game's draws are manual: there is no seed to reveal")
    if state.seed is not None:
        raise Ignore("seed_revealed", "the seed was already revealed")
    if draws.seed_commitment(event.seed) != created.seed_commitment:
        raise Ignore(
            "seed_mismatch", "this seed does not hash to the commitment recorded in GameCreated"
        )
    notes = state.notes
    context = state.context
    assert context is not None
    for rnd in state.rounds:
        expected = draws.seeded_draw(
            event.seed, rnd.number, rnd.plan, rnd.leftover, rnd.bag_before, context.ruleset.vowels
        )
        if expected != (rnd.drawn, rnd.rejected):
            message = (
                f"round {rnd.number}: the seed derives {expected[0]} (rejected:"
                f" {', '.join(expected[1]) or 'none'}), the record says {rnd.drawn} (rejected:"
                f" {', '.join(rnd.rejected) or 'none'})"
            )
            notes = (*notes, Note(recorded.seq, recorded.event_id, "SeedRevealed",
                                  "draw_mismatch", message, rnd.number, ignored=False))  # fmt: skip
    return changed(
        state, seed=event.seed, notes=notes, game_events=remembered(state, recorded, "SeedRevealed")
    )


def _ended(state: GameState, event: GameEnded, recorded: Recorded) -> GameState:
    check_open(state)
    return changed(state, ended=event.reason, game_events=remembered(state, recorded, "GameEnded"))


_HANDLERS = {
    GameCreated: _created,
    PlayerJoined: _joined,
    RackDrawn: _drawn,
    SubmissionReceived: _received,
    SubmissionAnnulled: annulled,
    PenaltyGiven: _penalised,
    WarningGiven: _warned,
    SubmissionCorrected: corrected,
    DecisionRevoked: revoked,
    TopChosen: _top_chosen,
    RoundClosed: _closed,
    SeedRevealed: _revealed,
    GameEnded: _ended,
}
