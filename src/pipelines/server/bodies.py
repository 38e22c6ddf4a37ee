"""What the API's writes take: one model per request body, every field held to the limits of
what may be recorded (`pipelines.games.limits`, the command line's own), unknown fields
refused. A value a model lets through is checked again by the service layer before anything
is appended."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from pipelines.games import limits

ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
"""Game, tournament and account ids (a game's stream is `game/ID`)."""


def _text(kind: str, field: str) -> Any:
    def check(value: str) -> str:
        return limits.check_text(kind, value, field)

    return AfterValidator(check)


def _player_id(value: str) -> str:
    return limits.check_id("id", value, "player")


def _time(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("give the time with its zone, e.g. 2026-05-01T10:00:00Z")
    return limits.check_time(value, "time")


Time = Annotated[datetime, AfterValidator(_time)]
PlayerId = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_player_id)]
AccountId = Annotated[str, Field(pattern=ID_PATTERN, max_length=64)]
Slip = Annotated[str, Field(min_length=1, max_length=500), _text("slip", "text")]
Reason = Annotated[str, Field(min_length=1, max_length=500), _text("reason", "reason")]
Source = Annotated[str, Field(min_length=1, max_length=200), _text("source", "source")]
Title = Annotated[str, Field(min_length=1, max_length=200), _text("title", "title")]
Tiles = Annotated[str, Field(min_length=1, max_length=limits.TILES_LONGEST)]
Part = Annotated[int, Field(ge=1, le=9)]


class Body(BaseModel):
    """A request body: unknown fields are refused, so that a misspelt one is not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NewGame(Body):
    game_id: AccountId
    variant: Literal["duplicate", "completiv", "anticipation", "eliptic"] = "duplicate"
    players: list[AccountId] = Field(default_factory=list, max_length=limits.LISTS_LONGEST)
    title: Title | None = None
    tournament_id: AccountId | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    draw: Literal["manual", "seeded"] = "manual"
    ruleset: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")] = "ro-frs"


class Players(Body):
    players: list[AccountId] = Field(min_length=1, max_length=limits.LISTS_LONGEST)


class Draw(Body):
    tiles: Tiles | None = None
    rejected: list[Tiles] = Field(default_factory=list, max_length=limits.LISTS_LONGEST)
    deadline: Time | None = None


class Submission(Body):
    """A slip. A player gives `text` (and `part` in a last round); an arbiter entering a
    paper slip also names the `player`, and may give when it was handed in and its `source`."""

    text: Slip
    part: Part = 1
    player: PlayerId | None = None
    received_at: Time | None = None
    source: Source | None = None


class Preview(Body):
    """A slip to preview as its player would send it (`player`: named by an arbiter)."""

    text: Slip
    part: Part = 1
    player: PlayerId | None = None


class Replacement(Body):
    text: Slip
    player: PlayerId | None = None
    received_at: Time | None = None
    source: Source | None = None


class Empty(Body):
    """A body that holds nothing (`{}`), or none at all."""


class TopChoice(Body):
    move: Slip


class Annulment(Body):
    player: PlayerId
    part: Part = 1
    reason: Reason


class Penalty(Body):
    player: PlayerId
    points: Annotated[int, Field(ge=1, le=1_000)]
    reason: Reason


class Warning(Body):
    player: PlayerId
    reason: Reason


class Correction(Body):
    player: PlayerId
    part: Part = 1
    text: Slip
    reason: Reason


class Revocation(Body):
    event_id: Annotated[str, Field(pattern=r"^[0-9a-f-]{4,36}$")]
    reason: Reason


class Ending(Body):
    reason: Reason = "the bag is played out"
