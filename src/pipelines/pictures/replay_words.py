"""The replay page's words, in English, each marked for the Romanian catalogue
(`locale/ro/replay.po`, read by `pipelines.pictures.catalogues`): every text the page shows
comes from here or from the record itself; `{names}` are filled in by the page's script.
Tables of words (`columns`, `status`, `events`, `legend`) are the page's by key."""

from __future__ import annotations

from pipelines.pictures.catalogues import N_

WORDS: dict[str, str | dict[str, str]] = {
    "title": N_("Replay of game {game}"),
    "where": N_("Event {n} of {count} · seq {seq} · {event}"),
    "in_round": N_("round {round}"),
    "by_player": N_("player {player}"),
    "previous": N_("◀ Back"),
    "next": N_("Forward ▶"),
    "slider": N_("The event shown"),
    "keys": N_(
        "The arrow keys ← and → (or the slider) move through the events; "
        "Home and End go to the start and the end."
    ),
    "player": N_("Player's board"),
    "rack": N_("Rack: {rack}"),
    "bag": N_("In the bag: {count} tiles"),
    "no_round": N_("No round drawn yet."),
    "round": N_("Round {round}, rack {rack}"),
    "open": N_("open: provisional scores"),
    "closed": N_("closed"),
    "top": N_("Top: {move}, {score} points"),
    "solo": N_("solo: {player}"),
    "no_top": N_("No top yet."),
    "tied": N_("A tie between {count} moves: the arbiter must choose the top."),
    "submissions": N_("The round's slips"),
    "decisions": N_("The arbiter's decisions"),
    "no_decisions": N_("No decision."),
    "standings": N_("Standings so far"),
    "nothing": N_("Nothing to show yet."),
    "over": N_("The game is over: {reason}"),
    "ended": N_("The game was ended: {reason}"),
    "altered": N_("Warning: the ledger fails the check of its chain: {reason}"),
    "public": N_(
        "The public page: the game up to its last closed round "
        "(an open round's slips are not published)."
    ),
    "head": N_("Made from the ledger whose head is seq {seq}, hash {hash}."),
    "no_submission": N_("no slip"),
    "bingo": N_("bonus {bonus}"),
    "replacement": N_("replacement {text}"),
    "replacement_ignored": N_("replacement {text} not applied: {message}"),
    "points_claimed": N_("claimed {claimed}"),
    "solo_bonus": N_("solo +{bonus}"),
    "penalty": N_("penalty −{points}"),
    "warnings": N_("{count} warning(s)"),
    "revoked": N_("revoked on appeal"),
    "columns": {
        "player": N_("Player"),
        "text": N_("Slip (as written)"),
        "move": N_("Move"),
        "status": N_("Status"),
        "points": N_("Points"),
        "detail": N_("Words and bonus"),
        "why": N_("Why it does not count"),
        "round_total": N_("Round total"),
        "rank": N_("Rank"),
        "total": N_("Total"),
        "solos": N_("Solos"),
        "warnings": N_("Warnings"),
        "pct": N_("% of top"),
    },
    "status": {
        "counted": N_("counted"),
        "superseded": N_("superseded"),
        "late": N_("late"),
        "corrected": N_("corrected"),
        "revoked": N_("revoked"),
    },
    "events": {
        "GameCreated": N_("game created"),
        "PlayerJoined": N_("player joined"),
        "RackDrawn": N_("rack drawn"),
        "SubmissionReceived": N_("slip received"),
        "ReplacementDeclared": N_("replacement declared"),
        "SubmissionAnnulled": N_("slip annulled"),
        "PenaltyGiven": N_("penalty"),
        "WarningGiven": N_("warning"),
        "SubmissionCorrected": N_("slip corrected"),
        "DecisionRevoked": N_("decision revoked"),
        "TopChosen": N_("top chosen"),
        "RoundClosed": N_("round closed"),
        "SeedRevealed": N_("seed revealed"),
        "GameEnded": N_("game ended"),
    },
    "legend": {
        "TW": N_("triple word"),
        "DW": N_("double word"),
        "TL": N_("triple letter"),
        "DL": N_("double letter"),
        "joker": N_("joker"),
        "last_move": N_("last move"),
    },
}
