"""Rulesets are data: tile counts and values, premium layout, bonuses and draw minimums.

A ruleset file (TOML) is loaded, validated field by field and frozen. The engine takes every
number of the game from a `Ruleset`, so that a game recorded years ago replays under the
rules it was played with (its name and SHA-256 are recorded in the game's first event).
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

from engine.echo import echo
from engine.tiles import ALPHABET

PREMIUM_KINDS = ("triple_word", "double_word", "triple_letter", "double_letter")
# (letter multiplier, word multiplier) of each premium kind.
PREMIUM_FACTORS = {
    "triple_word": (1, 3),
    "double_word": (1, 2),
    "triple_letter": (3, 1),
    "double_letter": (2, 1),
}
# The short names arbiters use on score sheets, by (letter factor, word factor).
PREMIUM_LABELS = {(1, 3): "TW", (1, 2): "DW", (3, 1): "TL", (2, 1): "DL"}


RULESET_SETTINGS = frozenset(
    {
        "bingo_bonus",
        "bingo_size",
        "max_laid",
        "min_vowels",
        "min_consonants",
        "solo_bonus",
        "solo_min_players",
        "rack_size",
    }
)
"""Ruleset fields a game may override in GameCreated.settings."""

GAME_SETTINGS = frozenset(
    {
        "top_source",
        "draw_size",
        "draw_minimums",
        "warnings_penalty_after",
        "warnings_penalty_points",
    }
)
"""Game settings that are not ruleset fields (read by `engine.games.settings`)."""


class RulesetError(ValueError):
    """A ruleset file or override is malformed; the message names the field."""


@dataclass(frozen=True)
class Ruleset:
    """Every number of the game. Build with `load_ruleset` or `parse_ruleset`."""

    name: str
    board_size: int
    rack_size: int
    bingo_bonus: int
    jokers: int
    vowels: frozenset[str]
    min_vowels: int
    min_consonants: int
    solo_bonus: int
    solo_min_players: int
    jokers_only: frozenset[str]
    bingo_size: int
    max_laid: int
    """The most tiles one move lays: the rack's size but in duplicat eliptic (7 of 8)."""
    tile_counts: dict[str, int] = field(hash=False, compare=True)
    tile_values: dict[str, int] = field(hash=False, compare=True)
    # letter_factor[r][c], word_factor[r][c]: 1 where a square has no premium.
    letter_factor: tuple[tuple[int, ...], ...] = field(repr=False)
    word_factor: tuple[tuple[int, ...], ...] = field(repr=False)
    sha256: str = ""
    # The premium's short name on each square (None for a plain square), for explanations.
    premium_labels: tuple[tuple[str | None, ...], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        labels = tuple(
            tuple(PREMIUM_LABELS.get(factors) for factors in zip(lf, wf, strict=True))
            for lf, wf in zip(self.letter_factor, self.word_factor, strict=True)
        )
        object.__setattr__(self, "premium_labels", labels)

    def __hash__(self) -> int:
        """A hash of a few scalar fields: equal rulesets hash equal, and the bag and move
        generator caches keyed by ruleset (asked for every move judged) need not hash the
        premium grids each time."""
        return hash(
            (
                self.name,
                self.sha256,
                self.board_size,
                self.rack_size,
                self.max_laid,
                self.bingo_size,
            )
        )

    def value(self, letter: str) -> int:
        """Points of a real tile; letters without tiles (K, Q, W, Y) only come as jokers."""
        return self.tile_values.get(letter, 0)

    def with_settings(self, settings: Mapping[str, Any]) -> Ruleset:
        """This ruleset with a game's overrides of its fields (GameCreated.settings) applied.

        Game settings that are not ruleset fields (`GAME_SETTINGS`: the top's source, the
        draw size, the vowel/consonant minimums by round) are left for
        `engine.games.settings` to read; any other key, or a bad value, is refused naming it.
        """
        changes: dict[str, Any] = {}
        for key, value in settings.items():
            if key in GAME_SETTINGS:
                continue
            if key not in RULESET_SETTINGS:
                known = sorted(RULESET_SETTINGS | GAME_SETTINGS)
                raise RulesetError(
                    f"settings.{key}: not a ruleset field or game setting (expected one of {known})"
                )
            changes[key] = _non_negative_int(value, f"settings.{key}")
        for key in ("rack_size", "max_laid", "bingo_size"):
            if changes.get(key, getattr(self, key)) < 1:
                raise RulesetError(f"settings.{key}: expected at least 1")
        return replace(self, **changes) if changes else self

    def contradictions(self) -> tuple[str, ...]:
        """Sizes that cannot go together: a move laying more tiles than a rack holds, a bonus
        for more tiles than a move lays (no move could earn it). `parse_ruleset` refuses a file
        with one; a game's settings are applied one key at a time (`engine.games.settings`),
        so theirs are checked once all are applied."""
        found = []
        if self.max_laid > self.rack_size:
            found.append(
                f"max_laid: a move lays at most {self.max_laid} tiles but a rack holds"
                f" {self.rack_size}: set max_laid to {self.rack_size} or less"
            )
        most = min(self.max_laid, self.rack_size)
        if self.bingo_size > most:
            found.append(
                f"bingo_size: the bonus is for {self.bingo_size} tiles but a move lays at most"
                f" {most}, so no move could earn it: set bingo_size to {most} or less"
            )
        return tuple(found)


def _non_negative_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RulesetError(f"{where}: expected a whole number >= 0, got {value!r}")
    return value


def _square(name: Any, size: int, where: str) -> tuple[int, int]:
    if not isinstance(name, str) or len(name) < 2:
        raise RulesetError(f"{where}: expected a square like 'H8', got {name!r}")
    row = ord(name[0].upper()) - ord("A")
    try:
        col = int(name[1:]) - 1
    except ValueError:
        raise RulesetError(f"{where}: expected a square like 'H8', got {name!r}") from None
    if not (0 <= row < size and 0 <= col < size):
        raise RulesetError(f"{where}: square {name!r} is off a {size}x{size} board")
    return row, col


def parse_ruleset(data: dict[str, Any], sha256: str = "") -> Ruleset:
    """Validate a ruleset mapping (as read from TOML); errors name the offending field."""
    required = (
        "name",
        "board_size",
        "rack_size",
        "bingo_bonus",
        "jokers",
        "vowels",
        "min_vowels",
        "min_consonants",
        "solo_bonus",
        "solo_min_players",
        "tiles",
        "premiums",
    )
    for key in required:
        if key not in data:
            raise RulesetError(f"{key}: missing")
    name = data["name"]
    if not isinstance(name, str) or not name:
        raise RulesetError(f"name: expected a non-empty string, got {name!r}")
    ints = {
        key: _non_negative_int(data[key], key)
        for key in (
            "board_size",
            "rack_size",
            "bingo_bonus",
            "jokers",
            "min_vowels",
            "min_consonants",
            "solo_bonus",
            "solo_min_players",
        )
    }
    size = ints["board_size"]
    if not 1 <= size <= 26:
        raise RulesetError(f"board_size: expected 1 to 26, got {size}")
    if ints["rack_size"] < 1:
        raise RulesetError("rack_size: expected at least 1")
    sizes = {
        key: _non_negative_int(data.get(key, ints["rack_size"]), key)
        for key in ("bingo_size", "max_laid")
    }
    for key, value in sizes.items():
        if value < 1:
            raise RulesetError(f"{key}: expected at least 1")

    def letters(key: str, default: str | None = None) -> frozenset[str]:
        value = data.get(key, default)
        if not isinstance(value, str) or any(ch not in ALPHABET for ch in value):
            raise RulesetError(f"{key}: expected capital letters A-Z, got {value!r}")
        return frozenset(value)

    vowels = letters("vowels")
    jokers_only = letters("jokers_only", "")

    tiles = data["tiles"]
    if not isinstance(tiles, dict) or not tiles:
        raise RulesetError("tiles: expected a table of letter = [count, value]")
    counts: dict[str, int] = {}
    values: dict[str, int] = {}
    for letter, spec in tiles.items():
        where = f"tiles.{letter}"
        if letter not in ALPHABET:
            raise RulesetError(f"{where}: not a capital letter A-Z")
        if not isinstance(spec, list) or len(spec) != 2:
            raise RulesetError(f"{where}: expected [count, value], got {spec!r}")
        counts[letter] = _non_negative_int(spec[0], f"{where} count")
        values[letter] = _non_negative_int(spec[1], f"{where} value")
    overlap = jokers_only & counts.keys()
    if overlap:
        raise RulesetError(f"jokers_only: {''.join(sorted(overlap))} also have tiles")

    premiums = data["premiums"]
    if not isinstance(premiums, dict):
        raise RulesetError("premiums: expected a table of kind = [squares]")
    letter_factor = [[1] * size for _ in range(size)]
    word_factor = [[1] * size for _ in range(size)]
    seen: dict[tuple[int, int], str] = {}
    for kind, squares in premiums.items():
        if kind not in PREMIUM_FACTORS:
            raise RulesetError(f"premiums.{kind}: unknown kind (expected one of {PREMIUM_KINDS})")
        if not isinstance(squares, list):
            raise RulesetError(f"premiums.{kind}: expected a list of squares")
        lf, wf = PREMIUM_FACTORS[kind]
        for i, square in enumerate(squares):
            r, c = _square(square, size, f"premiums.{kind}[{i}]")
            if (r, c) in seen:
                raise RulesetError(f"premiums.{kind}[{i}]: {square} is also {seen[(r, c)]}")
            seen[(r, c)] = kind
            letter_factor[r][c] = lf
            word_factor[r][c] = wf

    ruleset = Ruleset(
        name=name,
        vowels=vowels,
        jokers_only=jokers_only,
        tile_counts=counts,
        tile_values=values,
        letter_factor=tuple(tuple(row) for row in letter_factor),
        word_factor=tuple(tuple(row) for row in word_factor),
        sha256=sha256,
        **sizes,
        **ints,
    )
    contradictions = ruleset.contradictions()
    if contradictions:
        raise RulesetError(contradictions[0])
    return ruleset


def ruleset_from_toml(text: str) -> Ruleset:
    """Parse and validate ruleset TOML text; its SHA-256 identifies it in game records."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"not valid TOML: {exc}") from None
    return parse_ruleset(data, hashlib.sha256(text.encode("utf-8")).hexdigest())


@cache
def load_ruleset(name: str = "ro-frs") -> Ruleset:
    """A ruleset shipped with the engine, by name. The name is looked up among the shipped
    files, never joined into a path: a name too long for the file system, or one holding
    `/`, is an unknown ruleset like any other. Read once per process (rulesets are frozen):
    every game a recompute folds asks for its ruleset again."""
    folder = resources.files("engine") / "rulesets"
    shipped = sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )
    if name not in shipped:
        raise RulesetError(f"unknown ruleset {echo(name)} (shipped: {', '.join(shipped)})")
    return ruleset_from_toml((folder / f"{name}.toml").read_text(encoding="utf-8"))
