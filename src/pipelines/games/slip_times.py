"""When a slip was handed in, checked before it is recorded: a received time decides whether a
slip is on time or late, so a time that cannot be right is refused rather than recorded.

- A slip given no time (`--received-at`) arrives now; when the round's deadline has passed,
  it would silently be late and score 0, which is what happens to every slip collected at
  the deadline and typed afterwards. It is refused, unless the arbiter says `--late` (the
  slip really came after the deadline); `--late` on a slip that would not be late is refused.
- A received time after now (more than CLOCK_SKEW ahead: a hall's clock and the server's may
  differ) or before the round's draw (less the same CLOCK_SKEW) is a typo, such as a wrong
  year, and is refused. The draw's time is when the ledger recorded it; a round whose
  deadline had already passed then was typed up afterwards, and it began at most
  LONGEST_ROUND before its deadline.

Every slip of a batch is checked, and every problem named at once (a file's by its line).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from engine.games.commands import Command, DeclareReplacement, Submit
from engine.games.payloads import format_time
from engine.games.state import RoundState
from pipelines.games.service import Game, ServiceError

CLOCK_SKEW = timedelta(minutes=5)
"""How far a hall's clock may be from the server's: received times this far after now, or
before the draw was recorded, are accepted."""

LONGEST_ROUND = timedelta(hours=1)
"""The longest a round can have run before its deadline (the federation's rounds last
minutes): the earliest time a slip of a round typed up after its deadline can bear."""


class SlipTimeError(ServiceError):
    """A slip's received time that cannot be right, or a late slip given no time."""


def checked_arrivals(
    game: Game, commands: Sequence[Command], *, late: bool, now: datetime | None = None
) -> list[Command]:
    """The commands with every slip's received time checked (see the module docstring) and
    a slip given none stamped `now`; `SlipTimeError` naming every problem otherwise."""
    now = now or datetime.now(UTC)
    checked: list[Command] = []
    problems: list[str] = []
    for command in commands:
        slip = isinstance(command, Submit | DeclareReplacement)
        rnd = game.state.round(command.round) if slip else None
        if rnd is None or rnd.closed:  # not a slip, or a round the rules refuse slips for
            checked.append(command)
            continue
        where = f"{command.source}: " if command.source else ""
        if command.received_at is None:
            problem = _unstamped(rnd, now, late)
            command = replace(command, received_at=now)
        else:
            problem = _impossible(game, rnd, command.received_at, now)
        if problem:
            problems.append(where + problem)
        checked.append(command)
    if problems:
        raise SlipTimeError("nothing was recorded: " + "; ".join(problems))
    return checked


def _unstamped(rnd: RoundState, now: datetime, late: bool) -> str | None:
    deadline = rnd.deadline
    if deadline is not None and now > deadline and not late:
        return (
            f"round {rnd.number}'s deadline {format_time(deadline)} has passed, so a slip "
            "recorded now would be late and score 0: give the time it was handed in with "
            "--received-at (a file line may give its own), or --late to record it late on "
            "purpose"
        )
    if late and (deadline is None or now <= deadline):
        why = "has no deadline" if deadline is None else f"is open until {format_time(deadline)}"
        return f"--late: round {rnd.number} {why}, so the slip would not be late; drop --late"
    return None


def _impossible(game: Game, rnd: RoundState, received: datetime, now: datetime) -> str | None:
    if received > now + CLOCK_SKEW:
        return (
            f"received at {format_time(received)} is in the future (now {format_time(now)}): "
            "check its date"
        )
    earliest = _round_start(game, rnd) - CLOCK_SKEW
    if received < earliest:
        return (
            f"received at {format_time(received)} is before round {rnd.number} was drawn "
            f"({format_time((earliest + CLOCK_SKEW).replace(microsecond=0))}): check its date"
        )
    return None


def _round_start(game: Game, rnd: RoundState) -> datetime:
    """When the round was drawn, as the ledger recorded it; for a round typed up after its
    deadline, LONGEST_ROUND before that deadline."""
    [drawn] = [e for e in game.stored if e.event_id == rnd.draw_event_id]
    recorded = datetime.fromisoformat(drawn.recorded_at)
    if rnd.deadline is not None and rnd.deadline < recorded:
        return rnd.deadline - LONGEST_ROUND
    return recorded
