"""The stable JSON shapes of `arbitru game` (DESIGN.md: scripts rely on them): the events a
command appended, a round's results, the standings, the game at a moment.

Every value is read off a folded state by the engine's projections; keys are added, never
renamed or removed.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine.board import square_name
from engine.games.context import Judgement
from engine.games.payloads import format_time
from engine.games.projections import (
    PlayerResult,
    Position,
    RoundResults,
    Standing,
    SubmissionView,
    round_results,
    round_top,
    standings,
)
from engine.games.rounds import chosen_top, tied_moves
from engine.games.state import Decision, GameState, Note, RoundState, RoundTop
from engine.notation import format_placement
from engine.placement import Tile
from engine.problems import CODES
from ledger import NewEvent, RecordedEvent
from pipelines.games.variant_shapes import player_json as completiv_json
from pipelines.games.variant_shapes import replacing_json, sheet_json

if TYPE_CHECKING:
    from pipelines.games.service import Outcome


def event_json(new: NewEvent | RecordedEvent, recorded: RecordedEvent | None) -> dict[str, Any]:
    """An appended (or proposed) event: type, payload, meta, id, and where it landed (a
    recorded event given twice: `event_json(r, r)`)."""
    value: dict[str, Any] = {
        "type": new.type,
        "payload": new.payload,
        "meta": new.meta,
        "event_id": new.event_id,
    }
    if recorded is not None:
        value["seq"] = recorded.seq
        value["version"] = recorded.version
    return value


def time_text(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


def _tiles_json(tiles: tuple[Tile, ...]) -> list[dict[str, Any]]:
    return [
        {"square": square_name(t.row, t.col), "letter": t.letter, "joker": t.joker} for t in tiles
    ]


def judgement_json(judgement: Judgement) -> dict[str, Any]:
    """A text as judged: the parsed move, its words with premiums, bonus, problems (code and
    message), and the points it earns."""
    verdict = judgement.verdict
    value: dict[str, Any] = {
        "move": format_placement(judgement.move) if judgement.move is not None else None,
        "valid": judgement.valid,
        "points": judgement.score,
        "problems": [{"code": p.code, "message": p.message} for p in judgement.problems],
        "words": [],
        "bingo": False,
        "bonus": 0,
        "tiles": [],
        "claimed": judgement.move.claimed if judgement.move is not None else None,
        "points_if_valid": None,
        "warnings": [],
        "notes": list(judgement.notes),
    }
    if verdict is not None:
        value["words"] = [
            {
                "word": w.written,
                "score": w.score,
                "main": w.main,
                "word_factor": w.word_factor,
                "premiums": [
                    {"square": sq.name, "premium": sq.premium}
                    for sq in w.squares
                    if sq.new and sq.premium
                ],
            }
            for w in verdict.words
        ]
        value["bingo"] = verdict.bingo
        value["bonus"] = verdict.bonus
        value["tiles"] = _tiles_json(verdict.tiles)
        value["points_if_valid"] = verdict.points_if_valid
        value["warnings"] = list(verdict.warnings)
    return value


def attributes(thing: object, names: str) -> dict[str, Any]:
    """These attributes of `thing` (their names space-separated), in that order, as they are:
    the part of a JSON shape that only repeats an object's fields, its keys written once."""
    return {name: getattr(thing, name) for name in names.split()}


def _submission_json(view: SubmissionView) -> dict[str, Any]:
    return {
        **attributes(view, "event_id seq part text"),
        "received_at": time_text(view.received_at),
        **attributes(view, "source correction reason status score"),
        **judgement_json(view.judgement),
    }


def reason_message(code: str | None, result: PlayerResult) -> str | None:
    """Why a player's round scores nothing, in words: the judged problem's own message when
    there is one, else the code's meaning."""
    if code is None:
        return None
    if code == "no_submission":
        return "no submission this round"
    for part in result.parts:
        for problem in part.judgement.problems:
            if problem.code == code:
                return problem.message
    return CODES.get(code, code)


def _player_json(result: PlayerResult) -> dict[str, Any]:
    return {
        **attributes(result, "player_id name"),
        "submissions": [_submission_json(v) for v in result.submissions],
        **attributes(result, "score solo bonus penalty warnings total code"),
        "message": reason_message(result.code, result),
        "replacement": replacing_json(result.replacement),
    }


def top_json(top: RoundTop | None) -> dict[str, Any] | None:
    if top is None:
        return None
    moves = list(top.moves)
    return {
        "move": "; ".join(moves),
        "moves": moves,
        **attributes(top, "text score source"),
        "reached_by": list(top.reached_by),
        **attributes(top, "solo chosen_by"),
        "tiles": _tiles_json(top.tiles),
    }


def note_json(note: Note) -> dict[str, Any]:
    return {
        **attributes(note, "seq event_id"),
        "type": note.type_name,
        **attributes(note, "round code message ignored"),
    }


def decision_json(decision: Decision, stored: RecordedEvent | None = None) -> dict[str, Any]:
    """An arbiter's decision about a round; `revoked_by` names the revoking event; `actor`
    and `recorded_at` (from the stored event, when given) say who recorded it and when."""
    meta = stored.meta if stored is not None else {}
    return {
        "event_id": decision.event_id,
        "seq": decision.seq,
        "type": decision.type_name,
        "player_id": decision.player_id,
        "part": decision.part,
        "reason": decision.reason,
        "points": decision.points,
        "move": decision.move,
        "revoked_by": decision.revoked_by,
        "actor": meta.get("actor"),
        "recorded_at": stored.recorded_at if stored is not None else None,
    }


def tied_tops(state: GameState, rnd: RoundState) -> list[str]:
    """The different moves sharing the top of an open round that no standing choice settles
    (empty when there is no such tie): closing it needs `choose-top`, and no view may show one
    of them as the top meanwhile."""
    context = state.context
    if rnd.closed or context is None or context.settings.top_source != "players":
        return []
    if state.created is not None and state.created.variant == "anticipation":
        return []
    if chosen_top(state, rnd) is not None:
        return []
    tops = tied_moves(rnd)
    if len(tops) < 2:
        return []
    moves = ([p.judgement.move for p in top.parts if p.code is None] for top in tops)
    return ["; ".join(format_placement(m) for m in parts if m is not None) for parts in moves]


def results_json(
    game_id: str,
    state: GameState,
    number: int,
    stored: dict[str, RecordedEvent] | None = None,
    player: str | None = None,
) -> dict[str, Any]:
    """`game results --json`: one round explained (the round must have been drawn); `stored`
    (the game's events by id) adds who recorded each decision and when, `player` keeps that
    player's row only. `tied` lists the moves of an open round's unsettled tie (then `top`
    is null)."""
    results = round_results(state, number)
    rnd = state.round(number)
    assert rnd is not None
    tied = tied_tops(state, rnd)
    found = stored or {}
    return {
        "decisions": [decision_json(d, found.get(d.event_id)) for d in rnd.decisions],
        "dictionary": dictionary_json(state),
        "game_id": game_id,
        "round": results.round,
        "rack": results.rack,
        "drawn": results.drawn,
        "rejected": list(results.rejected),
        "deadline": time_text(results.deadline),
        "last": results.last,
        "closed": results.closed,
        "board": list(results.board.rows),
        "top": None if tied else top_json(results.top),
        "tied": tied,
        "players": [_player_json(p) for p in results.players if player in (None, p.player_id)],
        "ignored": [note_json(n) for n in results.notes if n.ignored],
        "notes": [note_json(n) for n in results.notes if not n.ignored],
    }


def standing_json(standing: Standing) -> dict[str, Any]:
    return {
        "rank": standing.rank,
        "player_id": standing.player_id,
        "name": standing.name,
        "total": standing.total,
        "solos": standing.solos,
        "warnings": standing.warnings,
        "pct_of_top": standing.pct,
        "rounds": list(standing.rounds),
    }


def dictionary_json(state: GameState) -> dict[str, Any] | None:
    """The word list a game is judged with; `recorded` is false for a game whose GameCreated
    names none (it is then judged with the default list, and the views say so)."""
    context = state.context
    if context is None:
        return None
    ref = state.created.dictionary if state.created is not None else None
    return {
        "name": context.dictionary.name,
        "sha256": context.dictionary.sha256,
        "recorded": ref is not None and ref.sha256 is not None,
    }


def dictionary_note(state: GameState) -> str | None:
    """A warning for a game that records no word list."""
    value = dictionary_json(state)
    if value is None or value["recorded"]:
        return None
    return (
        f"the game records no word list: judged with the default list {value['name']} "
        f"(SHA-256 {value['sha256']})"
    )


def standings_json(game_id: str, state: GameState) -> dict[str, Any]:
    """`game standings --json`: `{"game_id", "standings": [{"rank", "player_id", "name",
    "total", "solos", "warnings", "pct_of_top", "rounds"}], ...}`."""
    rows, tops = ranked(state)
    return {
        "game_id": game_id,
        "rounds": len(state.rounds),
        "closed_rounds": sum(1 for r in state.rounds if r.closed),
        "top_total": tops,
        "standings": [standing_json(s) for s in rows],
        "dictionary": dictionary_json(state),
        "ended": state.ended,
        "ignored": [note_json(n) for n in state.ignored],
    }


def ranked(state: GameState) -> tuple[tuple[Standing, ...], int]:
    """The standings and the sum of the rounds' tops (an open round's as closing it now
    would place it), each round explained once for both."""
    if state.context is None:  # a game that cannot be judged: its recorded tops only
        tops = (round_top(state, rnd) for rnd in state.rounds)
        return (), sum(top.score for top in tops if top is not None)
    results = [round_results(state, rnd.number, submissions=False) for rnd in state.rounds]
    return standings(state, results), sum(r.top.score for r in results if r.top is not None)


def position_json(game_id: str, state: GameState, spot: Position, player: str | None) -> dict:
    """`game replay --json`: the board, rack, bag and scores at the moment folded."""
    value: dict[str, Any] = {
        "game_id": game_id,
        "seq": state.last_seq,
        "events": state.events,
        "round": spot.round,
        "board": list(spot.board.rows),
        "rack": spot.rack,
        "bag": {"count": len(spot.bag), "tiles": spot.bag.tiles()},
        "last_move": _tiles_json(spot.last_move),
        "over": spot.over,
        "ended": spot.ended,
        "standings": [standing_json(s) for s in standings(state)],
    }
    if player is not None:
        value["player"] = player
        if state.created is not None and state.created.variant == "anticipation":
            value["sheet"] = sheet_json(state, player)
        if (chosen := completiv_json(state, player)) is not None:
            value["completiv"] = chosen
    return value


def round_touched(outcome: Outcome) -> int | None:
    """The round a command was about: the last one its events name, else the current one."""
    for event in reversed(outcome.events):
        number = event.payload.get("round")
        if isinstance(number, int):
            return number
    current = outcome.after.current
    return current.number if current is not None else None


def round_results_of(state: GameState, number: int | None) -> RoundResults | None:
    """Round `number`'s results, or None when there is no such round (or no rules to judge)."""
    if number is None or state.round(number) is None or state.context is None:
        return None
    return round_results(state, number)


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """What a command appended (or, in a dry run, would append, with how the round's results
    and the standings would change): `arbitru game ... --json`, and the server's receipts."""
    recorded: list[RecordedEvent | None] = list(outcome.recorded) or [None] * len(outcome.events)
    game = outcome.stream.split("/", 1)[1]
    value: dict[str, Any] = {
        "game_id": game,
        "stream": outcome.stream,
        "dry_run": outcome.dry_run,
        "conflicts": outcome.conflicts,
        "events": [event_json(n, r) for n, r in zip(outcome.events, recorded, strict=True)],
    }
    if outcome.dry_run:
        number = round_touched(outcome)
        before = round_results_of(outcome.before, number)
        after = round_results_of(outcome.after, number)
        value["changes"] = {
            "round": number,
            "results_before": results_json(game, outcome.before, before.round) if before else None,
            "results_after": results_json(game, outcome.after, after.round) if after else None,
            "standings_before": [standing_json(s) for s in standings(outcome.before)],
            "standings_after": [standing_json(s) for s in standings(outcome.after)],
        }
    return value
