"""Draws: how many tiles a round draws, the vowel/consonant rule, and seeded draws.

A round's draw completes the leftover of the previous top back to the draw size (RULES 2.1).
The rack must then hold the round's minimum of vowels and consonants, a joker counting as
either; a draw that breaks the rule goes back to the bag and is drawn again (the rejected draws
are recorded). The rule is not applied to the draw that empties the bag. The game ends when the
bag is empty and the rack played out, or when no draw could make a rack that keeps the rule:
once the bag is empty, a leftover that breaks the rule (`NNP`) ends the game.

Seeded draws are derived from a secret seed whose SHA-256 the game records at creation; the
derivation (docs/draws.md) is: for round r and attempt a (0 for the first draw of the round,
1 after one rejected draw, ...), a stream of 32-bit big-endian integers taken from the SHA-256
blocks of the UTF-8 text `"{seed}:{r}:{a}:{i}"` for i = 0, 1, 2, ...; each tile is picked from
the bag's tiles in canonical order (sorted by character code, jokers `?` first) at index
`x mod n`, rejecting any x >= 2**32 - (2**32 mod n) so that every tile is equally likely, and
taken out of the list before the next pick.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from engine.bag import Bag, BagError
from engine.games.settings import DrawMinimum
from engine.problems import Problem
from engine.tiles import JOKER

MAX_ATTEMPTS = 1000
"""Seeded draws give up after this many rejected draws (never reached when a rack can keep
the rule: each attempt then succeeds with a fair probability)."""


@dataclass(frozen=True)
class DrawPlan:
    """What a round's draw must do: how many tiles, under which rule (None: the last draw)."""

    needed: int
    minimum: DrawMinimum | None

    @property
    def last(self) -> bool:
        return self.minimum is None


def seed_commitment(seed: str) -> str:
    """The hex SHA-256 of a seed's UTF-8 bytes: what GameCreated.seed_commitment records."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _meets(vowels: int, consonants: int, jokers: int, minimum: DrawMinimum) -> bool:
    short = max(0, minimum.vowels - vowels) + max(0, minimum.consonants - consonants)
    return short <= jokers


def _kinds(counts: Mapping[str, int], vowels: frozenset[str]) -> tuple[int, int, int]:
    """(vowels, consonants, jokers) among tiles counted by kind (a rack's, a bag's)."""
    jokers = counts.get(JOKER, 0)
    v = sum(n for tile, n in counts.items() if tile in vowels)
    return v, sum(counts.values()) - jokers - v, jokers


def keeps_rule(rack: str, minimum: DrawMinimum, vowels: frozenset[str]) -> bool:
    """Whether a rack holds the minimum of vowels and consonants, jokers counting as either."""
    return _meets(*_kinds(Counter(rack), vowels), minimum)


def can_keep_rule(
    leftover: str, bag: Bag, needed: int, minimum: DrawMinimum, vowels: frozenset[str]
) -> bool:
    """Whether some draw of `needed` tiles from the bag makes a rack that keeps the rule."""
    lv, lc, lj = _kinds(Counter(leftover), vowels)
    bv, bc, bj = _kinds(bag.counts, vowels)
    for v in range(min(needed, bv) + 1):
        for j in range(min(needed - v, bj) + 1):
            c = needed - v - j
            if c <= bc and _meets(lv + v, lc + c, lj + j, minimum):
                return True
    return False


def plan_draw(
    leftover: str, bag: Bag, draw_size: int, minimum: DrawMinimum, vowels: frozenset[str]
) -> DrawPlan | Problem:
    """The draw a round needs, or why the game is over (code `game_over`)."""
    needed = max(0, draw_size - len(leftover))
    if needed >= len(bag):
        if not bag and not leftover:
            return Problem("game_over", "the bag is empty and the rack played out: end the game")
        if not bag and not keeps_rule(leftover, minimum, vowels):
            return Problem(
                "game_over",
                f"the bag is empty and the leftover {leftover} has not {minimum.vowels} vowel(s)"
                f" and {minimum.consonants} consonant(s): end the game",
            )
        return DrawPlan(len(bag), None)
    if not can_keep_rule(leftover, bag, needed, minimum, vowels):
        return Problem(
            "game_over",
            f"no draw of {needed} tiles from the bag makes a rack with {minimum.vowels} vowel(s)"
            f" and {minimum.consonants} consonant(s): end the game",
        )
    return DrawPlan(needed, minimum)


def check_manual_draw(
    plan: DrawPlan,
    leftover: str,
    bag: Bag,
    drawn: str,
    rejected: tuple[str, ...],
    vowels: frozenset[str],
) -> list[Problem]:
    """Every reason a hand draw cannot be recorded as it is (empty when it can)."""
    problems = []
    named = [(f"rejected draw {t or '(empty)'}", t) for t in rejected]
    for label, tiles in [*named, (f"draw {drawn or '(empty)'}", drawn)]:
        if len(tiles) != plan.needed:
            problems.append(
                Problem(
                    "wrong_draw_size",
                    f"{label}: {len(tiles)} tiles, the round draws {plan.needed}"
                    f" (the leftover {leftover or '(none)'} completed to the draw size)",
                )
            )
        short = bag.shortage(Counter(tiles))
        if short:
            problems.append(
                Problem(
                    "tiles_not_in_bag",
                    f"{label}: "
                    + "; ".join(f"{n} {t} drawn, the bag holds {held}" for t, n, held in short),
                )
            )
    if plan.minimum is None:
        if rejected:
            problems.append(
                Problem(
                    "rejected_draw_was_valid",
                    "this draw empties the bag: the vowel/consonant rule does not apply, so no"
                    " draw may be rejected",
                )
            )
        return problems
    for tiles in rejected:
        if keeps_rule(leftover + tiles, plan.minimum, vowels):
            problems.append(
                Problem(
                    "rejected_draw_was_valid",
                    f"rejected draw {tiles}: the rack {leftover + tiles} keeps the rule, it"
                    " cannot be rejected",
                )
            )
    if not keeps_rule(leftover + drawn, plan.minimum, vowels):
        problems.append(
            Problem(
                "draw_breaks_vowel_rule",
                f"the rack {leftover + drawn} needs {plan.minimum.vowels} vowel(s) and"
                f" {plan.minimum.consonants} consonant(s) (a joker counts as either): put the"
                " tiles back, draw again, and record this draw as rejected",
            )
        )
    return problems


def _numbers(seed: str, round_number: int, attempt: int) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(f"{seed}:{round_number}:{attempt}:{counter}".encode()).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        counter += 1


def derive_tiles(seed: str, round_number: int, attempt: int, pool: str, count: int) -> str:
    """`count` tiles picked from `pool` (the bag's tiles in canonical order), in pick order."""
    numbers = _numbers(seed, round_number, attempt)
    tiles = list(pool)
    picked = []
    for _ in range(count):
        n = len(tiles)
        limit = 2**32 - (2**32 % n)
        x = next(numbers)
        while x >= limit:
            x = next(numbers)
        picked.append(tiles.pop(x % n))
    return "".join(picked)


def seeded_draw(
    seed: str,
    round_number: int,
    plan: DrawPlan,
    leftover: str,
    bag: Bag,
    vowels: frozenset[str],
) -> tuple[str, tuple[str, ...]]:
    """(drawn, rejected draws) of a round, derived from the seed (see the module docstring)."""
    pool = bag.tiles()
    rejected = []
    for attempt in range(MAX_ATTEMPTS):
        tiles = derive_tiles(seed, round_number, attempt, pool, plan.needed)
        if plan.minimum is None or keeps_rule(leftover + tiles, plan.minimum, vowels):
            return tiles, tuple(rejected)
        rejected.append(tiles)
    raise BagError(f"no draw keeping the rule after {MAX_ATTEMPTS} attempts")
