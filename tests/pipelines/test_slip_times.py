"""Received times that cannot silently flip a slip (RULES 2: a slip after the deadline scores
0), through the real CLI on SQLite and PostgreSQL: a slip typed after the deadline without
its time is refused unless `--late` says so; a received time in the future or before the
round's draw (a year typo) is refused; a file's lines and anticipation replacements alike.
Every refusal writes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter, create

pytestmark = pytest.mark.usefixtures("default_home")


def _at(delta: timedelta) -> str:
    """A time `delta` from now, as an arbiter types it."""
    return (datetime.now(UTC) + delta).isoformat(timespec="seconds").replace("+00:00", "Z")


@pytest.fixture
def arbiter(db_url: str) -> Arbiter:
    return Arbiter(db_url)


def _drawn(arbiter: Arbiter, deadline: timedelta) -> None:
    """A duplicate game whose round 1 is drawn now, its deadline `deadline` from now."""
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT", "--deadline", _at(deadline))


def _status(arbiter: Arbiter, player: str) -> list[str]:
    results = arbiter.view("results", "hd1", "--round", "1")
    [found] = [p for p in results["players"] if p["player_id"] == player]
    return [s["status"] for s in found["submissions"]]


def test_a_slip_typed_after_the_deadline_without_its_time_is_refused(arbiter: Arbiter) -> None:
    _drawn(arbiter, -timedelta(minutes=10))
    said = arbiter.refused(2, "submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    assert "round 1's deadline" in said and "has passed" in said
    assert "--received-at" in said and "--late" in said


def test_a_slip_typed_after_the_deadline_with_its_time_is_on_time(arbiter: Arbiter) -> None:
    _drawn(arbiter, -timedelta(minutes=10))
    when = _at(-timedelta(minutes=11))
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA", "--received-at", when)
    assert _status(arbiter, "ana") == ["counted"]


def test_late_records_a_slip_without_a_time_as_late_on_purpose(arbiter: Arbiter) -> None:
    _drawn(arbiter, -timedelta(minutes=10))
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA", "--late")
    assert _status(arbiter, "ana") == ["late"]


@pytest.mark.parametrize("deadline", [timedelta(minutes=3), None])
def test_late_on_a_slip_that_would_not_be_late_is_refused(
    arbiter: Arbiter, deadline: timedelta | None
) -> None:
    if deadline is None:
        create(arbiter)
        arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    else:
        _drawn(arbiter, deadline)
    said = arbiter.refused(2, "submit", "hd1", "--player", "ana", "--text", "H8: VARA", "--late")
    assert "--late: round 1" in said and "drop --late" in said


@pytest.mark.parametrize(
    ("when", "why"),
    [
        ("2020-12-01T10:00:00Z", "is before round 1 was drawn"),
        ("2099-12-01T10:00:00Z", "is in the future"),
    ],
)
@pytest.mark.parametrize("deadline", [timedelta(minutes=3), -timedelta(minutes=10)])
def test_a_received_time_with_a_wrong_year_is_refused(
    arbiter: Arbiter, when: str, why: str, deadline: timedelta
) -> None:
    """Whether the round is played now (its deadline ahead) or typed up after it."""
    _drawn(arbiter, deadline)
    args = ("submit", "hd1", "--player", "ana", "--text", "H8: VARA", "--received-at", when)
    said = arbiter.refused(2, *args)
    assert f"received at {when} {why}" in said and "check its date" in said


def test_a_received_time_within_the_clock_skew_is_accepted(arbiter: Arbiter) -> None:
    """A hall's clock a few minutes ahead of the server's, or a slip handed in just before the
    arbiter typed the draw."""
    _drawn(arbiter, timedelta(minutes=10))
    for player, delta in (("ana", timedelta(minutes=3)), ("bob", -timedelta(minutes=3))):
        args = ("--player", player, "--text", "H8: VARA", "--received-at", _at(delta))
        arbiter.ok("submit", "hd1", *args)
        assert _status(arbiter, player) == ["counted"]


def test_a_files_lines_are_checked_each_and_named_by_line(arbiter: Arbiter, tmp_path: Path) -> None:
    _drawn(arbiter, -timedelta(minutes=10))
    slips = tmp_path / "hall.txt"
    slips.write_text(
        f"ana | {_at(-timedelta(minutes=12))} | H8: VARA\n"
        "bob | H4: VARIATE\n"
        "cri | 2020-12-01T10:00:00Z | H4: VARIATE\n",
        encoding="utf-8",
    )
    said = arbiter.refused(2, "submit", "hd1", "--file", str(slips))
    assert "hall.txt:2: round 1's deadline" in said
    assert "hall.txt:3: received at 2020-12-01T10:00:00Z is before round 1" in said
    assert "hall.txt:1" not in said
    slips.write_text(slips.read_text().replace("2020-12-01T10:00:00Z", _at(-timedelta(minutes=13))))
    arbiter.ok("submit", "hd1", "--file", str(slips), "--received-at", _at(-timedelta(minutes=11)))
    assert [_status(arbiter, p) for p in ("ana", "bob", "cri")] == [["counted"]] * 3


def test_an_anticipation_replacement_takes_the_same_checks(db_url: str) -> None:
    arbiter = Arbiter(db_url, game="an1")
    arbiter.ok("create", "an1", "--variant", "anticipation", "--player", "ana", "--player", "bob")
    arbiter.ok("draw", "an1", "--tiles", "ABEIRST", "--deadline", _at(-timedelta(minutes=10)))
    said = arbiter.refused(2, "replace", "an1", "--player", "ana", "--text", "-B+Bo")
    assert "round 1's deadline" in said and "--late" in said
    typo = ("--received-at", "2099-01-01T10:00:00Z")
    said = arbiter.refused(2, "replace", "an1", "--player", "ana", "--text", "-B+Bo", *typo)
    assert "is in the future" in said
    on_time = ("--received-at", _at(-timedelta(minutes=11)))
    arbiter.ok("replace", "an1", "--player", "ana", "--text", "-B+Bo", *on_time)
    arbiter.ok("replace", "an1", "--player", "bob", "--text", "-B+Bo", "--late")


def test_a_slip_for_a_closed_round_is_refused_for_the_round_not_its_time(
    arbiter: Arbiter,
) -> None:
    _drawn(arbiter, -timedelta(minutes=10))
    arbiter.ok("close-round", "hd1")
    said = arbiter.refused(
        1, "submit", "hd1", "--round", "1", "--player", "ana", "--text", "H8: VARA"
    )
    assert "round 1 is closed" in said and "--received-at" not in said
