"""A duplicate round's mechanics: each player's parts judged, the top, the solo.

Pure functions of a round (and the game's context) shared by the fold (`duplicate_evolve`),
the commands (`duplicate`) and the projections: how a player's submissions, corrections and
annulments make the parts that count, which moves reach the top, and the top a close places.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engine.board import Board
from engine.games.context import Judgement
from engine.games.state import (
    Decision,
    GameState,
    PartResult,
    PlayerRound,
    Received,
    RoundState,
    RoundTop,
    changed,
)
from engine.notation import format_move


def is_late(received_at: datetime | None, deadline: datetime | None) -> bool:
    return received_at is not None and deadline is not None and received_at > deadline


def rack_after(rack: str, judgement: Judgement) -> str:
    """The rack less the tiles a valid move laid from it."""
    return laid_from(rack, judgement)[0]


def laid_from(rack: str, judgement: Judgement) -> tuple[str, str]:
    """(the rack left, the tiles laid that the rack did not hold): the second is empty but
    in duplicat-completiv, where it is the player's letter chosen from the stock."""
    left = list(rack)
    stock = []
    for tile in judgement.tiles:
        key = "?" if tile.joker else tile.letter
        if key in left:
            left.remove(key)
        else:
            stock.append(key)
    return "".join(left), "".join(stock)


_NEVER = datetime.min.replace(tzinfo=UTC)


def _latest(entries: list[Received]) -> Received:
    """The submission received last (by arrival time; by record order among equal times or
    where no time was recorded): slips are sometimes entered out of order."""
    return max(reversed(entries), key=lambda r: r.received_at or _NEVER)


def standing_parts(
    rnd: RoundState, player: PlayerRound
) -> list[tuple[int, Received, Received | None, bool, bool]]:
    """Each part the player sent: (part, the submission that counts, the correction applied
    to it, whether it came late, whether it is annulled). The submission that counts is the
    last received on time, else the last received."""
    received, deadline = player.received, rnd.deadline
    if len(received) == 1 and not rnd.decisions:  # most players' rounds: one slip, as it is
        entry = received[0]
        return (
            []
            if entry.correction
            else [(entry.part, entry, None, is_late(entry.received_at, deadline), False)]
        )
    annulled: set[int] | tuple[()] = ()
    corrections: set[str] | tuple[()] = ()
    if rnd.decisions:
        mine = [d for d in rnd.decisions if d.player_id == player.player_id and d.standing]
        annulled = {d.part for d in mine if d.type_name == "SubmissionAnnulled"}
        corrections = {d.event_id for d in mine if d.type_name == "SubmissionCorrected"}
    found = []
    for part in sorted({r.part for r in received}):
        originals = [r for r in received if r.part == part and not r.correction]
        if not originals:
            continue
        on_time = [r for r in originals if not is_late(r.received_at, deadline)]
        entry = _latest(on_time or originals)
        correction = None
        if corrections:
            for later in received[received.index(entry) + 1 :]:
                if later.correction and later.part == part and later.event_id in corrections:
                    correction = later
        found.append((part, entry, correction, not on_time, part in annulled))
    return found


def part_result(
    part: int,
    entry: Received,
    correction: Received | None,
    judgement: Judgement,
    late: bool,
    annulled: bool,
    board: Board,
    rack: str,
) -> PartResult:
    """A part as it counts: nothing when late or annulled (in that order of reasons), else what
    its judgement earns, 0 with its first problem's code when the move is refused."""
    if late:
        code: str | None = "late"
    elif annulled:
        code = "annulled"
    elif not judgement.valid:
        code = judgement.problems[0].code
    else:
        code = None
    score = judgement.score if code is None else 0
    return PartResult(part, entry, correction, judgement, late, code, score, board, rack)


def settle(state: GameState, rnd: RoundState, player: PlayerRound) -> RoundState:
    """The round with the player's parts judged again, after a change to what they sent or a
    decision."""
    context = state.context
    assert context is not None
    board, rack = rnd.board, rnd.rack
    parts = []
    for part, entry, correction, late, annulled in standing_parts(rnd, player):
        text = correction.text if correction is not None else entry.text
        judgement = context.judge(board, rack, text)
        result = part_result(part, entry, correction, judgement, late, annulled, board, rack)
        parts.append(result)
        if result.code is None and rnd.last:
            board = board.with_tiles((t.row, t.col, t.cell) for t in judgement.tiles)
            rack = rack_after(rack, judgement)
    player = changed(player, parts=tuple(parts))
    return changed(rnd, players={**rnd.players, player.player_id: player})


def judge_sequence(state: GameState, rnd: RoundState, text: str) -> tuple[Judgement, ...]:
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
    scored = [(p.score, p) for p in rnd.players.values()]
    best = max((score for score, _ in scored), default=0)
    if best <= 0:
        return []
    tops = [p for score, p in scored if score == best]
    return sorted(tops, key=lambda p: min((pr.entry.seq or 0, pr.part) for pr in p.parts))


def sequence_of(judged: tuple[Judgement, ...]) -> tuple:
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
        judged = judge_sequence(state, rnd, chosen[-1].move or "")
        if tops and sequence_of(judged) not in {p.sequence for p in tops}:
            return None
    return chosen[-1]


def player_text(player: PlayerRound) -> str:
    return "; ".join(
        format_move(p.judgement.move) for p in player.parts if p.code is None and p.judgement.move
    )


def top_at_close(state: GameState, rnd: RoundState) -> tuple[RoundTop | None, str | None]:
    """The top placed at the close, and a note when it had to be interpreted."""
    context = state.context
    assert context is not None
    chosen = chosen_top(state, rnd)
    note = None
    if chosen is not None and chosen.move is not None:
        judged = judge_sequence(state, rnd, chosen.move)
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


def round_top(state: GameState, rnd: RoundState) -> RoundTop | None:
    """The top closing the round now would place (the recorded one once it is closed)."""
    return rnd.top if rnd.closed else top_at_close(state, rnd)[0]
