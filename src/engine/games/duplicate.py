"""The duplicate variant (RULES 2): every player plays the same board and the same rack.

    decide(state: GameState, command: Command) -> list[Event]
        The events a command records, in order; raises `GameRuleError` (`.code`, a message
        saying why and what to do) and records nothing when the rules refuse it. Decide folds
        the events it proposes with `evolve` and refuses them if evolve would ignore them, so
        that the two never disagree.
    evolve(state: GameState, recorded: Recorded) -> GameState
        Pure fold step; never raises on a recorded event: an inconsistent one (imported from a
        file) is kept in `state.notes` as ignored, with its reason code and message.

Decisions taken where the rules are silent (docs/draws.md and docs/game-day.md restate them):
a round with no valid submission has no top unless the arbiter chooses one (any valid move),
and then nothing is placed and the rack stays; a correction applies to the submission standing
for that player and part, and is late when that submission was; in a last round, the parts are
judged in order on the player's own board, an invalid or annulled part laying nothing; a
recorded RoundClosed with equal tops and no TopChosen places the first of them received (and
notes it); the solo bonus needs at least `solo_min_players` players in the game.
"""

from __future__ import annotations

from datetime import datetime

from engine.bag import Bag, BagError
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
)
from engine.games.context import Judgement
from engine.games.events import (
    DECISIONS,
    DecisionRevoked,
    Event,
    EventDecodeError,
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
    decode_event,
    encode_event,
)
from engine.games.settings import check_settings
from engine.games.state import (
    Decision,
    GameRuleError,
    GameState,
    Note,
    PartResult,
    PlayerRound,
    Received,
    RoundState,
    RoundTop,
    changed,
)
from engine.notation import format_move
from engine.ruleset import RulesetError, load_ruleset

__all__ = ["GameRuleError", "decide", "evolve"]


class _Ignore(Exception):
    """Raised inside evolve's handlers: the event is kept as ignored for this reason."""

    def __init__(self, code: str, message: str, round_number: int | None = None) -> None:
        self.code = code
        self.message = message
        self.round = round_number


# --- evolve ------------------------------------------------------------------------------


def evolve(state: GameState, recorded: Recorded) -> GameState:
    """The state after one recorded event (never raises on the event's content)."""
    event = recorded.event
    counted = changed(state, events=state.events + 1, last_seq=recorded.seq)
    try:
        if isinstance(event, Undecodable):
            raise _Ignore("undecodable", f"not readable: {event.error}")
        if not isinstance(event, GameCreated) and counted.created is None:
            raise _Ignore("no_game", "the game has no GameCreated before this event")
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise _Ignore(
                "wrong_stream", f"{type(event).__name__} does not belong to a duplicate game"
            )
        return handler(counted, event, recorded)
    except _Ignore as why:
        note = Note(
            recorded.seq,
            recorded.event_id,
            event.type_name if isinstance(event, Undecodable) else type(event).__name__,
            why.code,
            why.message,
            why.round if why.round is not None else getattr(event, "round", None),
        )
        return changed(counted, notes=(*counted.notes, note))


def _remember(state: GameState, recorded: Recorded, type_name: str) -> dict[str, str]:
    return (
        {**state.game_events, recorded.event_id: type_name}
        if recorded.event_id
        else dict(state.game_events)
    )


def _created(state: GameState, event: GameCreated, recorded: Recorded) -> GameState:
    if state.created is not None:
        raise _Ignore("game_exists", "the game was already created; a game has one GameCreated")
    if event.variant != "duplicate":
        raise _Ignore("variant_not_supported", f"the {event.variant} variant is not played yet")
    context = state.resolve(event)
    notes = state.notes
    for problem in context.settings.problems:
        notes = (*notes, Note(recorded.seq, recorded.event_id, "GameCreated", "bad_setting",
                              f"{problem}; the default stands", None, ignored=False))  # fmt: skip
    return changed(
        state,
        created=event,
        context=context,
        bag=Bag.full(context.ruleset),
        notes=notes,
        game_events=_remember(state, recorded, "GameCreated"),
    )


def _open(state: GameState) -> None:
    if state.ended is not None:
        raise _Ignore("game_ended", f"the game has ended ({state.ended})")


def _joined(state: GameState, event: PlayerJoined, recorded: Recorded) -> GameState:
    _open(state)
    if event.player_id in state.players:
        raise _Ignore("player_exists", f"player {event.player_id} has already joined")
    return changed(
        state,
        players={**state.players, event.player_id: event},
        game_events=_remember(state, recorded, "PlayerJoined"),
    )


def _drawn(state: GameState, event: RackDrawn, recorded: Recorded) -> GameState:
    _open(state)
    expected = len(state.rounds) + 1
    if event.round != expected:
        raise _Ignore("wrong_round", f"the next round to draw is round {expected}")
    current = state.current
    if current is not None and not current.closed:
        raise _Ignore(
            "round_not_closed", f"round {current.number} is not closed: close it before drawing"
        )
    if state.over is not None:
        raise _Ignore("game_over", state.over)
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
        raise _Ignore(plan.code, plan.message)
    problems = draws.check_manual_draw(
        plan, state.leftover, state.bag, event.drawn, event.rejected, context.ruleset.vowels
    )
    if problems:
        raise _Ignore(problems[0].code, "; ".join(p.message for p in problems))
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


def _open_round(state: GameState, number: int) -> RoundState:
    _open(state)
    found = state.round(number)
    if found is None:
        raise _Ignore("round_not_drawn", f"round {number} has not been drawn")
    if found.closed:
        raise _Ignore("round_closed", f"round {number} is closed: nothing about it is accepted")
    return found


def _known_player(state: GameState, player_id: str) -> None:
    if player_id not in state.players:
        raise _Ignore("unknown_player", f"{player_id} has not joined this game")


def _with_round(state: GameState, rnd: RoundState) -> GameState:
    rounds = list(state.rounds)
    rounds[rnd.number - 1] = rnd
    return changed(state, rounds=tuple(rounds))


def is_late(received_at: datetime | None, deadline: datetime | None) -> bool:
    return received_at is not None and deadline is not None and received_at > deadline


def _settle(state: GameState, rnd: RoundState, player_id: str) -> RoundState:
    """The player's parts judged again after a change to what they sent or a decision."""
    context = state.context
    assert context is not None
    player = rnd.players.get(player_id) or PlayerRound(player_id)
    mine = [d for d in rnd.decisions if d.player_id == player_id and d.standing]
    annulled = {d.part for d in mine if d.type_name == "SubmissionAnnulled"}
    corrections = {d.event_id for d in mine if d.type_name == "SubmissionCorrected"}
    board, rack = rnd.board, rnd.rack
    parts = []
    for part in sorted({r.part for r in player.received}):
        originals = [r for r in player.received if r.part == part and not r.correction]
        if not originals:
            continue
        on_time = [r for r in originals if not is_late(r.received_at, rnd.deadline)]
        entry = on_time[-1] if on_time else originals[-1]
        position = player.received.index(entry)
        correction = None
        for later in player.received[position + 1 :]:
            if later.correction and later.part == part and later.event_id in corrections:
                correction = later
        late = not on_time
        text = correction.text if correction is not None else entry.text
        judgement = context.judge(board, rack, text)
        if late:
            code = "late"
        elif part in annulled:
            code = "annulled"
        elif not judgement.valid:
            code = judgement.problems[0].code
        else:
            code = None
        score = judgement.score if code is None else 0
        parts.append(PartResult(part, entry, correction, judgement, late, code, score))
        if code is None and rnd.last:
            board = board.with_tiles((t.row, t.col, t.cell) for t in judgement.tiles)
            rack = rack_after(rack, judgement)
    player = changed(player, parts=tuple(parts))
    return changed(rnd, players={**rnd.players, player_id: player})


def rack_after(rack: str, judgement: Judgement) -> str:
    left = list(rack)
    for tile in judgement.tiles:
        left.remove("?" if tile.joker else tile.letter)
    return "".join(left)


def _received(state: GameState, event: SubmissionReceived, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round)
    _known_player(state, event.player_id)
    if event.part > 1 and not rnd.last:
        raise _Ignore(
            "part_not_allowed",
            f"part {event.part}: several submissions in one round only in the last round",
        )
    player = rnd.players.get(event.player_id) or PlayerRound(event.player_id)
    entry = Received(
        recorded.event_id,
        recorded.seq,
        event.player_id,
        event.part,
        event.text,
        recorded.received_at,
        recorded.source,
    )
    player = changed(player, received=(*player.received, entry))
    rnd = changed(rnd, players={**rnd.players, event.player_id: player})
    return _with_round(state, _settle(state, rnd, event.player_id))


def _submitted(rnd: RoundState, player_id: str, part: int, what: str) -> None:
    player = rnd.players.get(player_id)
    if player is None or not any(r.part == part for r in player.received):
        raise _Ignore(
            f"nothing_to_{what}",
            f"{player_id} has no submission (part {part}) in round {rnd.number} to {what}",
        )


def _decision(recorded: Recorded, type_name: str, round_number: int, **fields) -> Decision:
    return Decision(recorded.event_id, recorded.seq, type_name, round_number, **fields)


def _annulled(state: GameState, event: SubmissionAnnulled, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round)
    _known_player(state, event.player_id)
    _submitted(rnd, event.player_id, event.part, "annul")
    decision = _decision(
        recorded, "SubmissionAnnulled", event.round,
        player_id=event.player_id, part=event.part, reason=event.reason,
    )  # fmt: skip
    rnd = changed(rnd, decisions=(*rnd.decisions, decision))
    return _with_round(state, _settle(state, rnd, event.player_id))


def _penalised(state: GameState, event: PenaltyGiven, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round)
    _known_player(state, event.player_id)
    decision = _decision(
        recorded, "PenaltyGiven", event.round,
        player_id=event.player_id, points=event.points, reason=event.reason,
    )  # fmt: skip
    return _with_round(state, changed(rnd, decisions=(*rnd.decisions, decision)))


def _corrected(state: GameState, event: SubmissionCorrected, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round)
    _known_player(state, event.player_id)
    _submitted(rnd, event.player_id, event.part, "correct")
    player = rnd.players[event.player_id]
    entry = Received(
        recorded.event_id,
        recorded.seq,
        event.player_id,
        event.part,
        event.text,
        recorded.received_at,
        recorded.source,
        correction=True,
        reason=event.reason,
    )
    decision = _decision(
        recorded, "SubmissionCorrected", event.round,
        player_id=event.player_id, part=event.part, reason=event.reason,
    )  # fmt: skip
    player = changed(player, received=(*player.received, entry))
    rnd = changed(
        rnd,
        players={**rnd.players, event.player_id: player},
        decisions=(*rnd.decisions, decision),
    )
    return _with_round(state, _settle(state, rnd, event.player_id))


# --- tops --------------------------------------------------------------------------------


def _judge_sequence(state: GameState, rnd: RoundState, text: str) -> tuple[Judgement, ...]:
    """A top's text judged on the round's board, parts separated by `;` in a last round."""
    context = state.context
    assert context is not None
    texts = [t.strip() for t in text.split(";")] if rnd.last else [text]
    board, rack = rnd.board, rnd.rack
    judged = []
    for part in texts:
        judgement = context.judge(board, rack, part)
        judged.append(judgement)
        if not judgement.valid:
            break
        board = board.with_tiles((t.row, t.col, t.cell) for t in judgement.tiles)
        rack = rack_after(rack, judgement)
    return tuple(judged)


def candidates(rnd: RoundState) -> list[PlayerRound]:
    """The players whose round reaches the best score among submissions (none when no
    submission counts), in the order their standing submission was received."""
    best = max((p.score for p in rnd.players.values()), default=0)
    if best <= 0:
        return []
    tops = [p for p in rnd.players.values() if p.score == best]
    return sorted(tops, key=lambda p: min((pr.entry.seq or 0, pr.part) for pr in p.parts))


def _sequence_of(judged: tuple[Judgement, ...]) -> tuple:
    return tuple(j.tiles for j in judged)


def tied_moves(rnd: RoundState) -> list[PlayerRound]:
    """One player per distinct top move (the first received), when players' tops differ."""
    seen: dict[tuple, PlayerRound] = {}
    for player in candidates(rnd):
        seen.setdefault(player.sequence, player)
    return list(seen.values())


def chosen_top(state: GameState, rnd: RoundState) -> Decision | None:
    """The arbiter's standing top choice, if it still names a top: an annulment or a
    correction after the choice may have changed which moves reach the top score."""
    chosen = rnd.standing("TopChosen")
    if not chosen:
        return None
    context = state.context
    assert context is not None
    if context.settings.top_source == "players":
        tops = candidates(rnd)
        judged = _judge_sequence(state, rnd, chosen[-1].move or "")
        if tops and _sequence_of(judged) not in {p.sequence for p in tops}:
            return None
    return chosen[-1]


def _top_chosen(state: GameState, event: TopChosen, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round)
    judged = _judge_sequence(state, rnd, event.move)
    if not all(j.valid for j in judged):
        problem = next(j for j in judged if not j.valid).problems[0]
        raise _Ignore("not_a_top", f"{event.move} is not a valid move here: {problem.message}")
    context = state.context
    assert context is not None
    if context.settings.top_source == "players":
        tops = candidates(rnd)
        if tops and _sequence_of(judged) not in {p.sequence for p in tops}:
            best = tops[0].score
            moves = ", ".join(_player_text(p) for p in tied_moves(rnd))
            raise _Ignore(
                "not_a_top",
                f"{event.move} is not a top of round {event.round}: the top score is {best},"
                f" reached by {moves}",
            )
    decision = _decision(recorded, "TopChosen", event.round, move=event.move)
    return _with_round(state, changed(rnd, decisions=(*rnd.decisions, decision)))


def _player_text(player: PlayerRound) -> str:
    return "; ".join(
        format_move(p.judgement.move) for p in player.parts if p.code is None and p.judgement.move
    )


def _top_at_close(state: GameState, rnd: RoundState) -> tuple[RoundTop | None, str | None]:
    """The top placed at the close, and a note when it had to be interpreted."""
    context = state.context
    assert context is not None
    chosen = chosen_top(state, rnd)
    note = None
    if chosen is not None and chosen.move is not None:
        judged = _judge_sequence(state, rnd, chosen.move)
        source = "computer" if context.settings.top_source == "computer" else "arbiter"
        parts, chosen_by = judged, chosen.event_id
    else:
        if context.settings.top_source == "computer":
            return None, "no computer top was recorded: nothing is placed"
        tops = tied_moves(rnd)
        if not tops:
            return None, None
        if len(tops) > 1:
            note = (
                f"{len(tops)} different moves share the top and no TopChosen was recorded:"
                " the first received is placed"
            )
        parts = tuple(p.judgement for p in tops[0].parts if p.code is None)
        source, chosen_by = "players", None
    score = sum(j.score for j in parts)
    reached = tuple(p.player_id for p in rnd.players.values() if score > 0 and p.score >= score)
    solo = None
    if len(reached) == 1 and len(state.players) >= context.settings.solo_min_players:
        solo = reached[0]
    return RoundTop(parts, score, source, reached, solo, chosen_by), note


def _closed(state: GameState, event: RoundClosed, recorded: Recorded) -> GameState:
    rnd = _open_round(state, event.round)
    top, note = _top_at_close(state, rnd)
    rnd = changed(rnd, closed=True, top=top)
    board, leftover = rnd.board, rnd.rack
    if top is not None:
        board = board.with_tiles((t.row, t.col, t.cell) for t in top.tiles)
        for judgement in top.parts:
            leftover = rack_after(leftover, judgement)
    over = state.over
    if rnd.last and not leftover and not state.bag:
        over = "the bag is empty and the rack played out"
    elif over is None and not rnd.last:
        context = state.context
        assert context is not None
        settings, vowels = context.settings, context.ruleset.vowels
        plan = draws.plan_draw(
            leftover, state.bag, settings.draw_size, settings.minimum(rnd.number + 1), vowels
        )
        if not isinstance(plan, draws.DrawPlan):
            over = plan.message
    after = changed(_with_round(state, rnd), board=board, leftover=leftover, over=over)
    after = changed(after, game_events=_remember(after, recorded, "RoundClosed"))
    if note is not None:
        remark = Note(recorded.seq, recorded.event_id, "RoundClosed", "top_interpreted", note,
                      event.round, ignored=False)  # fmt: skip
        after = changed(after, notes=(*after.notes, remark))
    return after


# --- appeals, seed, end ------------------------------------------------------------------


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


def _revoked(state: GameState, event: DecisionRevoked, recorded: Recorded) -> GameState:
    _open(state)
    found = _find_decision(state, event.event_id)
    if found is None:
        known = _known_event(state, event.event_id)
        if known is not None:
            raise _Ignore(
                "not_a_decision",
                f"{event.event_id} is a {known}, not a decision ({', '.join(DECISIONS)})",
            )
        raise _Ignore("unknown_event", f"no decision {event.event_id} in this game")
    rnd, index = found
    decision = rnd.decisions[index]
    if rnd.closed:
        raise _Ignore(
            "round_closed",
            f"round {rnd.number} is closed: its decisions can no longer be revoked",
            rnd.number,
        )
    if not decision.standing:
        raise _Ignore("already_revoked", f"{event.event_id} was already revoked", rnd.number)
    decisions = list(rnd.decisions)
    decisions[index] = changed(decision, revoked_by=recorded.event_id or "revoked")
    rnd = changed(rnd, decisions=tuple(decisions))
    if decision.player_id is not None:
        rnd = _settle(state, rnd, decision.player_id)
    after = _with_round(state, rnd)
    return changed(after, game_events=_remember(after, recorded, "DecisionRevoked"))


def _revealed(state: GameState, event: SeedRevealed, recorded: Recorded) -> GameState:
    created = state.created
    assert created is not None
    if created.draw != "seeded":
        raise _Ignore("not_seeded", "this game's draws are manual: there is no seed to reveal")
    if state.seed is not None:
        raise _Ignore("seed_revealed", "the seed was already revealed")
    if draws.seed_commitment(event.seed) != created.seed_commitment:
        raise _Ignore(
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
        state, seed=event.seed, notes=notes, game_events=_remember(state, recorded, "SeedRevealed")
    )


def _ended(state: GameState, event: GameEnded, recorded: Recorded) -> GameState:
    _open(state)
    return changed(state, ended=event.reason, game_events=_remember(state, recorded, "GameEnded"))


_HANDLERS = {
    GameCreated: _created,
    PlayerJoined: _joined,
    RackDrawn: _drawn,
    SubmissionReceived: _received,
    SubmissionAnnulled: _annulled,
    PenaltyGiven: _penalised,
    SubmissionCorrected: _corrected,
    DecisionRevoked: _revoked,
    TopChosen: _top_chosen,
    RoundClosed: _closed,
    SeedRevealed: _revealed,
    GameEnded: _ended,
}


# --- decide ------------------------------------------------------------------------------


def _meta(command: Command) -> dict:
    return {
        "received_at": command.received_at,
        "actor": command.actor,
        "source": command.source,
    }


def _check(state: GameState, events: list[Event], command: Command) -> list[Event]:
    """The proposed events as they will read back; refused if evolve would ignore any."""
    checked = []
    for i, proposed in enumerate(events):
        try:
            event = decode_event(*encode_event(proposed))
        except EventDecodeError as exc:
            raise GameRuleError(f"bad_{exc.field or 'event'}", str(exc)) from None
        checked.append(event)
        before = len(state.notes)
        state = evolve(state, Recorded(event, f"proposed-{i}", **_meta(command)))
        for note in state.notes[before:]:
            if note.ignored:
                raise GameRuleError(note.code, note.message)
    return checked


def _create(state: GameState, command: CreateGame) -> list[Event]:
    if state.created is not None:
        raise GameRuleError("game_exists", f"game {state.created.game_id} already exists")
    if command.variant != "duplicate":
        raise GameRuleError(
            "variant_not_supported",
            f"the {command.variant} variant is not played yet: create a duplicate game",
        )
    try:
        ruleset = load_ruleset(command.ruleset)
    except RulesetError as exc:
        raise GameRuleError("unknown_ruleset", str(exc)) from None
    problems = check_settings(ruleset, command.settings)
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
    created = GameCreated(
        game_id=command.game_id,
        variant=command.variant,
        tournament_id=command.tournament_id,
        title=command.title,
        ruleset=command.ruleset,
        settings=dict(command.settings),
        dictionary=command.dictionary,
        draw=command.draw,
        seed_commitment=command.seed_commitment,
    )
    return [created, *(PlayerJoined(p.player_id, p.name) for p in command.players)]


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
        listed = "; ".join(f"{_player_text(p)} ({p.player_id})" for p in tops)
        raise GameRuleError(
            "top_not_chosen",
            f"round {command.round}: different moves share the top score {tops[0].score}"
            f" ({listed}): choose one with a TopChosen first",
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
        judged = _judge_sequence(state, rnd, command.move)
        wanted = sum(j.score for j in _judge_sequence(state, rnd, best)) if best else 0
        if sum(j.score for j in judged) != wanted or not all(j.valid for j in judged):
            raise GameRuleError(
                "not_a_top",
                f"{command.move} is not a computer top of round {command.round}"
                f" (the top scores {wanted}, e.g. {best})",
            )
    return [TopChosen(command.round, command.move)]


def _end(state: GameState, command: EndGame) -> list[Event]:
    current = state.current
    if current is not None and not current.closed:
        raise GameRuleError(
            "round_not_closed", f"round {current.number} is open: close it before ending the game"
        )
    return [GameEnded(command.reason)]


def decide(state: GameState, command: Command) -> list[Event]:
    """The events that carry out an arbiter's command, or `GameRuleError` saying why not."""
    if isinstance(command, CreateGame):
        return _check(state, _create(state, command), command)
    if state.created is None:
        raise GameRuleError("no_game", "the game does not exist: create it first")
    if isinstance(command, JoinPlayer):
        events: list[Event] = [PlayerJoined(command.player_id, command.name)]
    elif isinstance(command, DrawRack):
        events = _draw(state, command)
    elif isinstance(command, Submit):
        events = [SubmissionReceived(command.round, command.player_id, command.text, command.part)]
    elif isinstance(command, ChooseTop):
        events = _choose(state, command)
    elif isinstance(command, Annul):
        events = [
            SubmissionAnnulled(command.round, command.player_id, command.reason, command.part)
        ]
    elif isinstance(command, Penalise):
        events = [PenaltyGiven(command.round, command.player_id, command.points, command.reason)]
    elif isinstance(command, Correct):
        events = [
            SubmissionCorrected(
                command.round, command.player_id, command.text, command.reason, command.part
            )
        ]
    elif isinstance(command, Revoke):
        events = [DecisionRevoked(command.event_id, command.reason)]
    elif isinstance(command, CloseRound):
        events = _close(state, command)
    elif isinstance(command, RevealSeed):
        events = [SeedRevealed(command.seed)]
    elif isinstance(command, EndGame):
        events = _end(state, command)
    else:
        raise GameRuleError(
            "unknown_command", f"{type(command).__name__} is not a duplicate command"
        )
    return _check(state, events, command)


def round_top(state: GameState, rnd: RoundState) -> RoundTop | None:
    """The top closing the round now would place (the recorded one once it is closed)."""
    return rnd.top if rnd.closed else _top_at_close(state, rnd)[0]
