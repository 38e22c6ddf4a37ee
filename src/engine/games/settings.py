"""A game's settings: what the variants need as data, read from GameCreated.settings.

GameCreated.settings holds two kinds of keys: overrides of ruleset fields (`solo_bonus`,
`min_vowels`, `bingo_bonus`, ...) and game settings that are no ruleset field (`top_source`,
`draw_size`, `draw_minimums`, `warnings_penalty_after`,
`warnings_penalty_points`). `read_settings` applies both over the ruleset's defaults and
never raises, because a replay must read any recorded game: a key it does not know, or a value
it cannot use, is kept and reported in `GameSettings.problems` and the default stands.
`check_settings` lists the same problems, so that creating a game with them is refused.

`draw_minimums` sets the vowel/consonant rule by round range: a list of
`{"from_round": N, "vowels": V, "consonants": C}` (each range runs until the next one starts),
or the name of a preset, `"fisf"` (2+2 up to round 15, then 1+1). Without it, `min_vowels`
and `min_consonants` apply from round 1.

A variant may play other numbers than the ruleset's by default (`VARIANT_SETTINGS`): duplicat
eliptic's rack holds 8 tiles, of which a move lays at most 7 and the bonus is for exactly 7.
Its game's own settings override those defaults as they override the ruleset's.

`warnings_penalty_after` N and `warnings_penalty_points` P, set together, turn a player's every
Nth standing warning of the game into a penalty of P points in the round of that warning: the
project's decision, off by default, since the federation's texts name no such rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.ruleset import GAME_SETTINGS, Ruleset, RulesetError

TOP_SOURCES = ("players", "computer")


@dataclass(frozen=True)
class DrawMinimum:
    """From round `from_round` on, a rack needs `vowels` vowels and `consonants` consonants."""

    from_round: int
    vowels: int
    consonants: int


PRESETS: Mapping[str, tuple[DrawMinimum, ...]] = {
    "fisf": (DrawMinimum(1, 2, 2), DrawMinimum(16, 1, 1)),
}
"""Named vowel/consonant rules by round range."""

VARIANT_SETTINGS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {"eliptic": MappingProxyType({"rack_size": 8, "max_laid": 7, "bingo_size": 7})}
)
"""The settings a variant plays with unless its game sets them (the project's decisions for
duplicat eliptic, whose written rules were not found: docs/rules.md, section 5). The vowel and
consonant minimums, the bonus and the solo stay the ruleset's."""


@dataclass(frozen=True)
class GameSettings:
    """Everything a variant reads besides the ruleset's tiles and board."""

    draw_size: int
    bingo_size: int
    minimums: tuple[DrawMinimum, ...]
    solo_bonus: int
    solo_min_players: int
    top_source: str = "players"
    warnings_after: int = 0
    """Every this many warnings cost a player `warnings_points` (0: warnings cost nothing)."""
    warnings_points: int = 0
    unknown: dict[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def minimum(self, round_number: int) -> DrawMinimum:
        """The vowel/consonant rule of a round."""
        current = self.minimums[0]
        for rule in self.minimums:
            if rule.from_round <= round_number:
                current = rule
        return current


def _whole(value: Any, where: str, least: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise RulesetError(f"{where}: expected a whole number >= {least}, got {value!r}")
    return value


def _minimums(value: Any) -> tuple[DrawMinimum, ...]:
    where = "settings.draw_minimums"
    if isinstance(value, str):
        if value not in PRESETS:
            raise RulesetError(f"{where}: unknown preset {value!r} (known: {', '.join(PRESETS)})")
        return PRESETS[value]
    if not isinstance(value, list) or not value:
        raise RulesetError(
            f'{where}: expected a preset name ("fisf") or a list of'
            ' {"from_round", "vowels", "consonants"}'
        )
    rules = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or set(item) - {"from_round", "vowels", "consonants"}:
            raise RulesetError(
                f'{where}[{i}]: expected {{"from_round", "vowels", "consonants"}}, got {item!r}'
            )
        rules.append(
            DrawMinimum(
                _whole(item.get("from_round", 1), f"{where}[{i}].from_round", 1),
                _whole(item.get("vowels", 0), f"{where}[{i}].vowels"),
                _whole(item.get("consonants", 0), f"{where}[{i}].consonants"),
            )
        )
    starts = [rule.from_round for rule in rules]
    if starts[0] != 1 or starts != sorted(set(starts)):
        raise RulesetError(f"{where}: ranges must start at round 1 and go up, got {starts}")
    return tuple(rules)


def _warnings_penalty(settings: Mapping[str, Any], problems: list[str]) -> tuple[int, int]:
    """(after, points) of the warnings' penalty, (0, 0) when off or unusable (the problem then
    added to `problems`): both settings or neither, each a whole number >= 1."""
    after = settings.get("warnings_penalty_after")
    points = settings.get("warnings_penalty_points")
    if after is None and points is None:
        return 0, 0
    if after is None or points is None:
        given, missing = (
            ("warnings_penalty_after", "warnings_penalty_points")
            if points is None
            else ("warnings_penalty_points", "warnings_penalty_after")
        )
        problems.append(
            f"settings.{given}: set {missing} too (every N warnings cost P points: both are needed)"
        )
        return 0, 0
    try:
        return (
            _whole(after, "settings.warnings_penalty_after", 1),
            _whole(points, "settings.warnings_penalty_points", 1),
        )
    except RulesetError as exc:
        problems.append(str(exc))
        return 0, 0


def read_settings(
    ruleset: Ruleset, settings: Mapping[str, Any], variant: str = "duplicate"
) -> tuple[Ruleset, GameSettings]:
    """The ruleset with the variant's and the game's overrides, and the game's settings;
    never raises.

    Each key is applied alone: one that is unknown or holds a bad value is reported in
    `GameSettings.problems` (and unknown keys kept in `unknown`), and the default stands.
    Sizes that cannot go together once all are applied (`Ruleset.contradictions`), and a
    vowel/consonant rule no rack of the draw size can keep, are reported too.
    """
    problems: list[str] = []
    unknown: dict[str, Any] = {}
    settings = {**VARIANT_SETTINGS.get(variant, {}), **settings}
    for key, value in settings.items():
        if key in GAME_SETTINGS:
            continue
        try:
            ruleset = ruleset.with_settings({key: value})
        except RulesetError as exc:
            problems.append(str(exc))
            if "not a ruleset field" in str(exc):
                unknown[key] = value
    minimums: tuple[DrawMinimum, ...] = (
        DrawMinimum(1, ruleset.min_vowels, ruleset.min_consonants),
    )
    draw_size = ruleset.rack_size
    top_source = "players"
    if "draw_minimums" in settings:
        try:
            minimums = _minimums(settings["draw_minimums"])
        except RulesetError as exc:
            problems.append(str(exc))
    if "draw_size" in settings:
        try:
            size = _whole(settings["draw_size"], "settings.draw_size", 1)
            if size > ruleset.rack_size:
                raise RulesetError(
                    f"settings.draw_size: {size} is more than a rack holds ({ruleset.rack_size})"
                )
            draw_size = size
        except RulesetError as exc:
            problems.append(str(exc))
    if "top_source" in settings:
        value = settings["top_source"]
        if value in TOP_SOURCES:
            top_source = value
        else:
            problems.append(
                f"settings.top_source: expected {' or '.join(TOP_SOURCES)}, got {value!r}"
            )
    problems.extend(f"settings.{problem}" for problem in ruleset.contradictions())
    problems.extend(
        f"settings.draw_minimums: from round {rule.from_round}, a rack of {draw_size} tiles"
        f" cannot hold {rule.vowels} vowel(s) and {rule.consonants} consonant(s)"
        for rule in minimums
        if rule.vowels + rule.consonants > draw_size
    )
    warnings_after, warnings_points = _warnings_penalty(settings, problems)
    game = GameSettings(
        draw_size=draw_size,
        bingo_size=ruleset.bingo_size,
        minimums=minimums,
        solo_bonus=ruleset.solo_bonus,
        solo_min_players=ruleset.solo_min_players,
        top_source=top_source,
        warnings_after=warnings_after,
        warnings_points=warnings_points,
        unknown=unknown,
        problems=tuple(problems),
    )
    return ruleset, game


def check_settings(
    ruleset: Ruleset, settings: Mapping[str, Any], variant: str = "duplicate"
) -> tuple[str, ...]:
    """Every problem of a game's settings (empty when they can all be applied)."""
    return read_settings(ruleset, settings, variant)[1].problems
