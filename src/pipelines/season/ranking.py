"""The federation's ranking system: an event's value and the points of its places.

    event_value(players) -> int
        The value of an event: its number of players, clamped to 10-100.
    PointsTable.load(path=None) / table.award(places) -> Award
        The scales (value -> points of places 1, 2, 3, ...) read from a TOML file (the shipped
        `data/ranking_points.toml` by default), and the points each player of an event earns.

Tied players share the average of the points of the places they cover (four tied first of
a value-14 event get (606 + 438 + 370 + 317) / 4 = 432.75), rounded to the hundredth, half
up, as points are published. A scale listing as many places as its value is complete: a place
past it (an event of more than 100 players) earns 0. A scale listing fewer is known only that
far: a place past it earns no points (`None`), never a guess, and so does every place of an
event whose value has no scale.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from importlib import resources
from pathlib import Path

from ledger.input_files import POINTS, InputFileError, read_input
from pipelines.games.limits import NUMBERS

POINTS_FILE = "ranking_points.toml"
"""The shipped scales, in the `pipelines.data` package."""

DEMO_POINTS_FILE = "demo_ranking_points.toml"
"""The demo's own made-up value-12 scale (the sample season's events), marked as the demo's."""

LOWEST_VALUE, HIGHEST_VALUE = 10, 100
CENT = Decimal("0.01")


_MOST = NUMBERS["ranking_points"].most
"""The most points a place may give."""


class RankingError(ValueError):
    """A points table that cannot be used; the message says why."""


def event_value(players: int) -> int:
    """An event's value: its number of players, clamped to 10-100."""
    return min(max(players, LOWEST_VALUE), HIGHEST_VALUE)


@dataclass(frozen=True)
class Award:
    """The points of one event: its value, whether the table has that value's scale, how
    many places the scale lists, and each player's points (`None`: not known)."""

    value: int
    scaled: bool
    listed: int
    points: Mapping[str, Decimal | None]

    @property
    def partial(self) -> bool:
        """Whether some place of this event is past what its scale lists."""
        return (
            self.scaled
            and self.listed < self.value
            and any(p is None for p in self.points.values())
        )


@dataclass(frozen=True)
class PointsTable:
    """The scales of a ranking system: `scales[value]` lists the points of places 1, 2, 3, ...
    of an event of that value. `name` says which system it is (shown under tables), `where`
    which file holds it (named when a scale is missing)."""

    name: str
    scales: Mapping[int, tuple[int, ...]]
    where: str

    def place_points(self, value: int, place: int) -> int | None:
        """The points of one place of an event of this value (`None`: not known)."""
        scale = self.scales.get(value)
        if scale is None:
            return None
        if place <= len(scale):
            return scale[place - 1]
        return 0 if len(scale) >= value else None

    def shared(self, value: int, first: int, count: int) -> Decimal | None:
        """What each of `count` players tied from place `first` earns: the average of the
        places they cover, to the hundredth (half up); `None` when one of them is not known."""
        covered = [self.place_points(value, p) for p in range(first, first + count)]
        if any(p is None for p in covered):
            return None
        return (Decimal(sum(covered)) / count).quantize(CENT, rounding=ROUND_HALF_UP)

    def award(self, places: Sequence[tuple[str, int]]) -> Award:
        """The points of an event's players, given as (player id, place) best first, only
        those who played (ties share a place; the next place counts every player above)."""
        value = event_value(len(places))
        points: dict[str, Decimal | None] = {}
        seen = 0
        for _, group in itertools.groupby(places, key=lambda item: item[1]):
            tied = [player for player, _ in group]
            earned = self.shared(value, seen + 1, len(tied))
            points.update(dict.fromkeys(tied, earned))
            seen += len(tied)
        scale = self.scales.get(value, ())
        return Award(value, value in self.scales, len(scale), points)

    def missing_line(self, event: str, award: Award) -> str | None:
        """The line saying why an event's players got no points, or None when all did."""
        if not award.scaled:
            return (
                f"{event}: no ranking points: {self.where} has no scale for value "
                f"{award.value}; supply the federation's table with --points FILE "
                f"(a line `{award.value} = [...]` under [scales])"
            )
        if award.partial:
            return (
                f"{event}: places past {award.listed} get no ranking points: {self.where} "
                f"lists only {award.listed} places of the value-{award.value} scale; supply "
                "the full scale with --points FILE"
            )
        return None

    @classmethod
    def load(cls, path: Path | None = None, *, shipped: str = POINTS_FILE) -> PointsTable:
        """The table in a TOML file (`name`, `[scales]` of value = list of points); without a
        path, the one shipped as `shipped` (the federation's published scales by default)."""
        where = str(path) if path is not None else f"the shipped {shipped}"
        try:
            if path is None:
                text = resources.files("pipelines.data").joinpath(shipped).read_text("utf-8")
            else:
                text = read_input(path, POINTS).decode("utf-8")
            data = tomllib.loads(text)
        except InputFileError as exc:
            raise RankingError(str(exc)) from None
        except OSError as exc:
            raise RankingError(f"cannot read the points table {where}: {exc}") from exc
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise RankingError(f"the points table {where} is not valid TOML: {exc}") from exc
        except RecursionError:
            raise RankingError(f"the points table {where} is nested too deeply") from None
        return cls.from_mapping(data, where)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], where: str) -> PointsTable:
        """The table of a TOML document read from `where`, or a RankingError naming the rule
        it breaks."""
        scales = data.get("scales")
        if not isinstance(scales, Mapping) or not scales:
            raise RankingError(
                f"the points table {where} needs a [scales] table: one line per event value "
                "(10 to 100), the points of places 1, 2, 3, ..., e.g. 14 = [606, 438, 370]"
            )
        read: dict[int, tuple[int, ...]] = {}
        for key, points in scales.items():
            value = _value(key, where)
            if not isinstance(points, list) or not points or not all(map(_whole, points)):
                raise RankingError(
                    f"the points table {where}: the value-{value} scale must be a list of whole "
                    "numbers from 0 to "
                    f"{_MOST:,}, the winner's first"
                )
            if any(a < b for a, b in itertools.pairwise(points)):
                raise RankingError(
                    f"the points table {where}: the value-{value} scale gives a place more "
                    "points than the place above it"
                )
            if len(points) > value:
                raise RankingError(
                    f"the points table {where}: the value-{value} scale lists {len(points)} "
                    f"places; an event of value {value} has at most {value} places with points"
                )
            read[value] = tuple(points)
        name = data.get("name")
        return cls(str(name) if name else where, dict(sorted(read.items())), where)

    def missing_values(self) -> list[int]:
        """The event values 10-100 this table has no scale for."""
        return [v for v in range(LOWEST_VALUE, HIGHEST_VALUE + 1) if v not in self.scales]


def _whole(points: object) -> bool:
    """A place's points: a whole number within the limits (`pipelines.games.limits`)."""
    return isinstance(points, int) and not isinstance(points, bool) and 0 <= points <= _MOST


def _value(key: object, where: str) -> int:
    text = str(key)
    if not text.isdigit() or not LOWEST_VALUE <= int(text) <= HIGHEST_VALUE:
        raise RankingError(
            f"the points table {where}: {text!r} under [scales] is not an event value; "
            f"values are whole numbers {LOWEST_VALUE} to {HIGHEST_VALUE}"
        )
    return int(text)


def shown(points: Decimal | None) -> str:
    """Points as published: to the hundredth, trailing zeros dropped (432.75, 606, 292.5);
    `-` when not known."""
    if points is None:
        return "-"
    text = f"{points:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def as_number(points: Decimal | None) -> int | float | None:
    """Points for JSON and Parquet: a whole number when whole (606), else a float of at most
    two decimals (432.75); None when not known."""
    if points is None:
        return None
    return int(points) if points == points.to_integral_value() else float(points)
