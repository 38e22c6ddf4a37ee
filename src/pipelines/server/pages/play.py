"""The player's page (`/games/{game}/play`): the round open now on their board, their rack,
the deadline, a field to write the slip as on paper with its preview (placed and scored by
`POST /api/v1/.../preview` as they type), their slips of the round with the receipt of the
last one sent, and the results of the last closed round (its public part).

Sending works without a script: the form posts here (`POST /games/{game}/play`, with the form
token) and goes through the API's own route functions (`games_api.submit`, `games_api.replace`:
the same access checks, arrival stamp and receipt), then back to the page with the receipt
(`?receipt=SEQ`, read from the ledger). With the script, the same form is sent to the API with
an Idempotency-Key, and the page follows the game's live stream.

Only the game's players open it: an arbiter follows the game from the console, and a page
showing another player's board read-only would be a second way to see every slip of an open
round, with its own rules to keep; the API already answers arbiters (and the preview route
takes their `player`).
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from engine.games.projections import position
from engine.games.state import GameState, RoundState
from engine.problems import CODES
from pipelines.games.preview import where_played
from pipelines.games.service import Game
from pipelines.games.shapes import results_json, time_text
from pipelines.pictures.catalogues import N_
from pipelines.pictures.reasons import reason_text, reason_texts
from pipelines.server.callers import joined_as
from pipelines.server.game_paths import GameId, held_game
from pipelines.server.pages.forms import posted_form
from pipelines.server.pages.rendering import (
    VARIANT_NAMES,
    language,
    render,
    signed_in_account,
    translated,
)
from pipelines.server.pages.signin import to_sign_in
from pipelines.server.problems import Problem, refusal

router = APIRouter()

_SLIP_TYPES = frozenset({"SubmissionReceived", "ReplacementDeclared"})


@router.get("/games/{game}/play", response_class=HTMLResponse)
def play_page(
    request: Request,
    game: GameId,
    receipt: Annotated[int | None, Query(ge=1)] = None,
) -> Response:
    """The page, for the game's players (the public is sent to sign in first)."""
    account = signed_in_account(request)
    if account is None:
        return to_sign_in(request)
    held = held_game(request, game)
    return render(request, "play.html", **_page(request, held, account, receipt))


@router.post("/games/{game}/play")
async def send(request: Request, game: GameId) -> Response:
    """The form without a script: the slip (or anticipation's replacement) sent through the
    API's route, then back to the page with its receipt; a refusal said on the page. What
    reads the ledger runs in a request thread, never in the event loop."""
    from anyio import to_thread

    fields = await posted_form(request)
    account = await to_thread.run_sync(signed_in_account, request)
    if account is None:
        return to_sign_in(request)
    held = await to_thread.run_sync(held_game, request, game)
    player_of(request, held, account)
    text = fields.get("text", "").strip()
    try:
        answer = await _sent(request, game, fields, text)
    except Exception as exc:  # what the API would answer as a problem, said on the page
        refused = refusal(exc)  # anything else is raised again: the server's error page
        held = await to_thread.run_sync(held_game, request, game)
        said = refused.detail
        if refused.code in CODES:  # the engine's reason (late, round_closed...), translated
            said = reason_text(refused.code, language(request), refused.detail)
        page = _page(request, held, account, None, typed=text, problem=said)
        return render(request, "play.html", status=refused.status, **page)
    seq = int(_json(answer)["seq"])
    return RedirectResponse(f"/games/{quote(game)}/play?receipt={seq}", status_code=303)


async def _sent(request: Request, game: str, fields: dict[str, str], text: str) -> Response:
    """The API's own route for the slip: a submission, or a replacement (`kind`)."""
    from pydantic import ValidationError

    from pipelines.server import bodies, games_api

    lang = language(request)
    try:
        number = int(fields.get("round", ""))
        part = int(fields.get("part", "1") or "1")
        if not (1 <= number <= 10_000 and 1 <= part <= 9):
            raise ValueError(number)
    except ValueError as exc:
        detail = translated(lang, N_("The form is out of date: reload the page."))
        raise Problem(422, detail, "invalid") from exc
    try:
        if fields.get("kind") == "replacement":
            replacement = bodies.Replacement(text=text)
            return await games_api.replace(request, game, number, replacement, False)
        submission = bodies.Submission(text=text, part=part)
    except ValidationError as exc:
        detail = N_("Write the slip as on paper, e.g. H8: VARZA (at most 500 characters).")
        raise Problem(422, translated(lang, detail), "invalid") from exc
    return await games_api.submit(request, game, number, submission, False)


def _json(answer: Response) -> dict[str, Any]:
    import json

    return json.loads(bytes(answer.body))


def player_of(request: Request, held: Game, account: str) -> str:
    """The player id `account` joined the game as; a page saying the page is the players'
    (403) otherwise."""
    found = joined_as(held.state.players, account)
    if found is None:
        message = N_(
            "%(account)s does not play %(game)s: this page is for the game's players (its "
            "arbiters follow it from the console)."
        )
        detail = translated(language(request), message, account=account, game=held.game_id)
        raise Problem(403, detail, "forbidden")
    return found


def _page(
    request: Request,
    held: Game,
    account: str,
    receipt: int | None,
    *,
    typed: str = "",
    problem: str | None = None,
) -> dict[str, Any]:
    """What the template shows (a dict of plain values)."""
    from pipelines.pictures.board_svg import CELL, MARGIN, board_svg
    from pipelines.pictures.replay_html import messages

    player = player_of(request, held, account)
    state = held.state
    lang = language(request)
    created = state.created
    rnd = state.current
    open_round = rnd if rnd is not None and not rnd.closed else None
    if open_round is not None:
        board, rack, _ = where_played(state, open_round, player)
        highlight: tuple = ()
    else:
        now_ = position(state, player)
        board, rack, highlight = now_.board, now_.rack, ((t.row, t.col) for t in now_.last_move)
    ruleset = state.context.ruleset if state.context is not None else None
    svg = ""
    if ruleset is not None:
        drawn = board_svg(board, ruleset, highlight, words=messages(lang)["legend"])
        svg = drawn.split("?>", 1)[-1].strip()
    stored = {e.event_id: e for e in held.stored}
    variant = created.variant if created is not None else None
    return {
        "game": held.game_id,
        "title": (created.title if created is not None else None) or held.game_id,
        "variant": variant,
        "variant_name": (
            translated(lang, VARIANT_NAMES[variant]) if variant in VARIANT_NAMES else ""
        ),
        "player": player,
        "round": _round_shown(rnd),
        "rack": rack,
        "stock": _stock(state, open_round, player) if variant == "anticipation" else None,
        "board_svg": Markup(svg),  # our own SVG: every text in it escaped
        "slips": _slips(rnd, player, stored) if rnd is not None else [],
        "receipt": _receipt(held, player, receipt),
        "results": _results(held, state, player),
        "ended": state.ended or state.over,
        "typed": typed,
        "problem": problem,
        "script_data": {
            "game": held.game_id,
            "round": open_round.number if open_round is not None else None,
            "player": player,
            "cell": CELL,
            "margin": MARGIN,
            "size": board.size,
            "words": _script_words(lang),
            # the reasons a slip cannot be placed, by code (in English: the API's own words)
            "reasons": reason_texts(lang) if lang != "en" else {},
        },
    }


def _stock(state: GameState, rnd: RoundState | None, player: str) -> str | None:
    """Anticipation: the two tiles of the player's stock they play the open round with."""
    from engine.games.anticipation_rules import holdings, sheet_of

    if rnd is None:
        return None
    mine = rnd.player(player)
    return holdings(rnd, sheet_of(state, player), mine)[1]


def _round_shown(rnd: RoundState | None) -> dict[str, Any] | None:
    if rnd is None:
        return None
    return {
        "number": rnd.number,
        "open": not rnd.closed,
        "last": rnd.last,
        "deadline": time_text(rnd.deadline),
        "deadline_at": rnd.deadline,
    }


def _slips(rnd: RoundState, player: str, stored: dict[str, Any]) -> list[dict[str, Any]]:
    """The player's slips of the round as received, newest first, each with its ledger seq
    and hash; those a later slip of the same part replaced marked superseded. Nothing is said
    of how an open round's slip is judged (its words' validity is for the close)."""
    mine = rnd.players.get(player)
    if mine is None:
        return []
    standing = {part.entry.event_id for part in mine.parts}
    standing |= {part.correction.event_id for part in mine.parts if part.correction}
    shown = []
    for entry in mine.received:
        event = stored.get(entry.event_id)
        shown.append(
            {
                "seq": entry.seq,
                "hash": event.hash if event is not None else "",
                "text": entry.text,
                "part": entry.part,
                "received_at": time_text(entry.received_at),
                "moment": entry.received_at,
                "correction": entry.correction,
                "superseded": entry.event_id not in standing,
            }
        )
    replacing = mine.replacement
    if replacing is not None:
        event = stored.get(replacing.event_id)
        if event is not None:
            shown.append(_replacement_shown(event))
    return sorted(shown, key=lambda s: -(s["seq"] or 0))


def _replacement_shown(event: Any) -> dict[str, Any]:
    arrived = _recorded(event)["received_at"]
    return {**_recorded(event), "part": None, "moment": arrived, "correction": False,
            "superseded": False}  # fmt: skip


def _recorded(event: Any) -> dict[str, Any]:
    """A slip's event as its receipt says it: seq, hash, text, arrival (the ledger's)."""
    return {
        "seq": event.seq,
        "hash": event.hash,
        "text": event.payload.get("text", ""),
        "received_at": event.meta.get("received_at") or event.recorded_at,
    }


def _receipt(held: Game, player: str, seq: int | None) -> dict[str, Any] | None:
    """The receipt of the player's slip recorded at `seq` (none for another's event)."""
    if seq is None:
        return None
    event = next((e for e in held.stored if e.seq == seq), None)
    if event is None or event.type not in _SLIP_TYPES:
        return None
    if str(event.payload.get("player_id", "")).lower() != player.lower():
        return None
    return {**_recorded(event), "replacement": event.type == "ReplacementDeclared"}


def _results(held: Game, state: GameState, player: str) -> dict[str, Any] | None:
    """The last closed round's results as the public sees them: the player's row, the top,
    its solo (an open round's are nobody's but its arbiters' until it closes)."""
    closed = [r.number for r in state.rounds if r.closed]
    if not closed:
        return None
    document = results_json(held.game_id, state, closed[-1])
    mine = next((p for p in document["players"] if p["player_id"] == player), None)
    solos = [p["player_id"] for p in document["players"] if p.get("solo")]
    return {"round": closed[-1], "top": document["top"], "mine": mine, "solos": solos}


_SCRIPT_WORDS = {
    "score": N_("Score: %(points)s"),
    "bingo": N_("bingo bonus: %(points)s"),
    "cannot": N_("Cannot be placed:"),
    "times": N_("× %(factor)s"),
    "left": N_("%(time)s left"),
    "past": N_("The deadline has passed."),
    "sending": N_("Sending…"),
    "failed": N_("Not sent: %(why)s"),
    "offline": N_("No connection: the slip was not sent. Send it again."),
}


def _script_words(lang: str) -> dict[str, str]:
    """The script's words in the reader's language (placeholders left for it to fill)."""
    return {key: translated(lang, text) for key, text in _SCRIPT_WORDS.items()}
