"""The arbiter's decisions as the arbiter names them: event types in words, and a decision
given by its event id or by enough of its start (what `arbitru game revoke --event` and the
server's revocations take)."""

from __future__ import annotations

import re

from pipelines.games.service import CommandRefused, Game, ServiceError

EVENT_WORDS = {
    "GameCreated": "game creation",
    "PlayerJoined": "player joining",
    "RackDrawn": "draw",
    "SubmissionReceived": "submission",
    "SubmissionCorrected": "correction",
    "SubmissionAnnulled": "annulment",
    "PenaltyGiven": "penalty",
    "TopChosen": "top choice",
    "DecisionRevoked": "revocation",
    "RoundClosed": "round close",
    "SeedRevealed": "seed reveal",
    "GameEnded": "game end",
    "ReplacementDeclared": "replacement",
}
"""Each event type in the arbiter's words, for the views and the refusals."""

_EVENT_TYPE = re.compile(r"\b(" + "|".join(EVENT_WORDS) + r")\b")


def in_words(message: str) -> str:
    """A message of the rules with every event type's name said in the arbiter's words."""
    return _EVENT_TYPE.sub(lambda m: EVENT_WORDS[m[1]], message)


def decision_named(game: Game, given: str, where: str = "--event") -> str:
    """The event id `given` names: itself when some event has it, else the one decision whose
    id starts with it. A prefix of several decisions' ids is refused (exit 2), one of none
    refused as not a decision (exit 1), both listing the decisions it could have named."""
    if any(event.event_id == given for event in game.stored):
        return given
    decisions = [d for rnd in game.state.rounds for d in rnd.decisions]
    matches = [d for d in decisions if given and d.event_id.startswith(given)]
    if len(matches) == 1:
        return matches[0].event_id

    def listed(found: list) -> str:
        return "; ".join(
            f"{d.event_id} (round {d.round}, {EVENT_WORDS.get(d.type_name, d.type_name)}"
            + (f" about {d.player_id}" if d.player_id else "")
            + (", revoked" if d.revoked_by else "")
            + ")"
            for d in found
        )

    if len(matches) > 1:
        raise ServiceError(
            f"{where} {given!r} starts {len(matches)} decisions' ids: {listed(matches)}; "
            "give more of the one meant"
        )
    known = f"its decisions: {listed(decisions)}" if decisions else "it has no decision yet"
    raise CommandRefused(
        f"no decision of {game.stream} has an event id starting with {given!r}; {known}",
        "unknown_event",
    )
