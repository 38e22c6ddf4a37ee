"""The arbiter's console (`GET /games/{game}/console`): the laptop page a hall tournament's
arbiter runs the day from. It draws the rounds, shows the slips as they arrive (the live
stream, then the round's results re-read through the API), enters paper slips, settles a tie
for the top, closes the round, and records every decision only after showing its dry run.

The page is made on the server with the game as it is now, so that it shows something at
once; its script (`static/console.js`) then writes and re-reads through the API with the
session cookie, sending the game version the page last showed as `If-Match` with every write:
when another arbiter wrote meanwhile the API refuses (412) and the page says so and shows the
game as it now is, so that no arbiter records over what they did not see.

Who sees it: the game's arbiters (chief, deputy, data-entry, read-only: on the game or its
tournament) and admins, each with the controls the ACCESS table lets their roles use, no
other; the public is sent to sign in first, anyone else is refused (403).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pipelines.pictures.catalogues import N_
from pipelines.pictures.reasons import reason_texts
from pipelines.server.access import ARBITER_ROLES, Access, Relation
from pipelines.server.callers import access
from pipelines.server.game_paths import GameId, held_game
from pipelines.server.games_read_api import game_json, whole_results
from pipelines.server.pages.rendering import language, render, signed_in_account, translated
from pipelines.server.pages.signin import to_sign_in
from pipelines.server.problems import Problem

router = APIRouter()

CONSOLE_READERS = frozenset({*ARBITER_ROLES, Relation.ADMIN})
"""Who may open the console: the game's arbiters, whatever their role, and admins."""

_NOT_AN_ARBITER = N_(
    "The console is for the game's arbiters: ask its chief arbiter for a role if you need one."
)

ROLES = {
    Relation.CHIEF: N_("chief arbiter"),
    Relation.DEPUTY: N_("deputy arbiter"),
    Relation.DATA_ENTRY: N_("data entry"),
    Relation.READ_ONLY: N_("read only"),
    Relation.ADMIN: N_("administrator"),
}
"""The roles that open the console, as the page names them."""

_TEXTS = {
    "moved": N_(
        "Another arbiter changed the game: here is what it is now; nothing of yours was "
        "recorded. Look at it again and, if it still holds, send yours again."
    ),
    "stale": N_(
        "The game has changed since this dry run (another arbiter's write, or a slip): "
        "confirming it will be refused. Show the dry run again."
    ),
    "recorded": N_("Recorded."),
    "nothing": N_("Nothing to record: the game is already so."),
    "refused": N_("Refused, nothing was recorded: %(detail)s"),
    "unreachable": N_("The server could not be reached: nothing was recorded; try again."),
    "drawn": N_("Round %(round)s drawn: %(rack)s."),
    "slip_entered": N_("The slip of %(player)s is recorded."),
    "closed": N_("Round %(round)s is closed."),
    "annul": N_("Annul the slip of %(player)s: %(reason)s"),
    "penalty": N_("A penalty of %(points)s points for %(player)s: %(reason)s"),
    "warning": N_("A warning for %(player)s: %(reason)s"),
    "correction": N_("Read the slip of %(player)s as %(text)s: %(reason)s"),
    "revoke": N_("Revoke the decision %(decision)s: %(reason)s"),
    "top": N_("Choose the top: %(move)s"),
    "close": N_("Close round %(round)s"),
    "round_change": N_("%(player)s: this round %(before)s → %(after)s"),
    "total_change": N_("%(player)s: the game's total %(before)s → %(after)s"),
    "top_change": N_("The top: %(before)s → %(after)s"),
    "closes": N_("The round would be closed."),
    "no_change": N_("No score changes."),
    "none": N_("no top"),
    "valid": N_("valid"),
    "invalid": N_("invalid"),
    "no_slip": N_("no slip"),
    "annul_button": N_("Annul"),
    "correct_button": N_("Correct"),
    "revoke_button": N_("Revoke"),
    "choose_button": N_("Choose this top"),
    "remove": N_("Remove"),
    "revoked_by": N_("revoked"),
    "live_on": N_("Live: connected"),
    "live_off": N_("Live: reconnecting…"),
    "open": N_("open"),
    "round_closed": N_("closed"),
    "no_round": N_("No round drawn yet."),
    "player_required": N_("Choose the player."),
    "reason_required": N_("Give the reason."),
    "text_required": N_("Give the slip's text."),
    "tiles_required": N_("Give the tiles drawn."),
    "decision_required": N_("Choose the decision to revoke."),
    "points_required": N_("Give the points (1 to 1000)."),
}
"""What the page's script says, in the reader's language (and the reasons' texts, by code)."""

STATUSES = {
    "counted": N_("counted"),
    "corrected": N_("read otherwise by the arbiter"),
    "superseded": N_("replaced by a later one"),
    "revoked": N_("revoked"),
}
"""A slip's status as the results name it, when it is no reason code (`late`, `annulled`, a
move's problem: those are said by `reason_text`, in Romanian from the reasons' catalogue)."""

EVENTS = {
    "RackDrawn": N_("Draw"),
    "SubmissionReceived": N_("Slip received"),
    "SubmissionAnnulled": N_("Annulment"),
    "PenaltyGiven": N_("Penalty"),
    "WarningGiven": N_("Warning"),
    "SubmissionCorrected": N_("Arbiter's reading"),
    "DecisionRevoked": N_("Revocation"),
    "TopChosen": N_("Top chosen"),
    "RoundClosed": N_("Round closed"),
    "GameEnded": N_("Game ended"),
}
"""The events a console write records, by their type, as its dry run names them."""


def controls(at: Access) -> dict[str, bool]:
    """Which of the console's controls the caller's roles may use (the ACCESS table's word):
    drawing, entering a paper slip (as an arbiter: a player submits only their own),
    deciding (the top, annulments, penalties, warnings, readings, revocations), closing."""
    return {
        "draw": at.may("draw"),
        "enter": at.may("submit") and not at.own_only("submit"),
        "decide": at.may("decide"),
        "close": at.may("close_round"),
    }


@router.get("/games/{game}/console")
def console_page(request: Request, game: GameId) -> Response:
    if signed_in_account(request) is None:
        return to_sign_in(request)
    held = held_game(request, game)
    at = access(request, "read_game", game=held)
    lang = language(request)
    if not at.relations & CONSOLE_READERS:
        raise Problem(403, translated(lang, _NOT_AN_ARBITER), "forbidden")
    shown = game_json(held)
    current = shown["round"]
    results = whole_results(held, current["round"]) if current is not None else None
    can = controls(at)
    texts = _translated(lang)
    data = {"game": shown, "results": results, "version": held.version, "can": can}
    return render(
        request,
        "console.html",
        headers={"Cache-Control": "private, no-store"},
        game=shown,
        results=results,
        round_rows={p["player_id"]: p for p in (results or {}).get("players", [])},
        can=can,
        roles=[translated(lang, ROLES[r]) for r in sorted(at.relations & CONSOLE_READERS)],
        data=data,
        texts=texts,
        statuses=texts["statuses"],
        event_names=texts["events"],
    )


def _translated(lang: str) -> dict[str, Any]:
    """Every text the page shows beyond its template's, in `lang`: the script's, the slips'
    statuses, the events' names, the reasons by code."""
    texts: dict[str, Any] = {k: translated(lang, v) for k, v in _TEXTS.items()}
    texts["statuses"] = {k: translated(lang, v) for k, v in STATUSES.items()}
    texts["events"] = {k: translated(lang, v) for k, v in EVENTS.items()}
    texts["reasons"] = reason_texts(lang)
    texts["lang"] = lang
    return texts
