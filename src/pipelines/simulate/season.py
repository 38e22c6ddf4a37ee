"""A whole season played by simulated players: tournaments and their games.

    plan_season(seed, tournaments, games, players) -> SeasonPlan
        What to play: a pool of players of every level (`pipelines.simulate.players.TIERS`), and per
        tournament its name, dates, variant, the players taking part (drawn from the pool) and
        its games, each with its start time, seed and the arbiter's incidents.
    play_season(store, plan) -> SeasonPlayed
        Records it: each tournament's stream (`TournamentCreated`, `PlayerRegistered` for its
        players, `GameAdded` for its games), then each game played to the end through the
        service layer by the simulated players of its variant (`PLAYS`), as an arbiter's day
        would record it.
    fixed_record(source, target, seed)
        Copies the recorded season into an empty ledger with event ids drawn from the seed and
        times of recording from the simulated clock, so that a seed always gives the same bytes.

A federation's season, as the Romanian federation plays it, has competitions of each variant:
tournament k plays `SEASON_VARIANTS[k % 4]` (classic duplicate, duplicat-completiv,
anticipation with metagrams, duplicat eliptic), all its games in that variant, so that a
tournament's standings compare players on one kind of game. Players keep their id across
tournaments, so that season standings add up; their habits (skill, slips, late slips, second
thoughts, unreadable writing) make the notation realistic, and some rounds get an arbiter's
incident (an annulment, one revoked on appeal, a penalty, a correction, a late slip, a change
of mind; in completiv also a letter from the stock left unmarked, or one the stock no longer
holds); one game in three draws its racks from a committed seed (revealed at the end), the
others by hand from the bag.
Everything is drawn from one `random.Random(seed)`: the same seed records the same events.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import groupby
from typing import TYPE_CHECKING

from engine.games.payloads import format_time
from ledger import NewEvent
from pipelines.simulate import anticipation as simulate_anticipation
from pipelines.simulate import completiv as simulate_completiv
from pipelines.simulate import duplicate as simulate_game
from pipelines.simulate.duplicate import INCIDENTS, Played, Scenario
from pipelines.simulate.players import SimulatedPlayer, make_players

if TYPE_CHECKING:
    from ledger import EventStore

PLACES = (
    ("cupa-bucuresti", "Cupa Bucureștiului", "București"),
    ("memorialul-cluj", "Memorialul Clujean", "Cluj-Napoca"),
    ("open-iasi", "Open Iași", "Iași"),
    ("trofeul-timis", "Trofeul Timișului", "Timișoara"),
    ("cupa-brasov", "Cupa Brașovului", "Brașov"),
    ("festivalul-constanta", "Festivalul Litoralului", "Constanța"),
    ("cupa-sibiu", "Cupa Sibiului", "Sibiu"),
    ("open-craiova", "Open Craiova", "Craiova"),
)
"""Tournaments of the sample season, in calendar order (id prefix, name, town)."""

CLUBS = ("CS Litera", "Clubul Cuvântul", "CSM Scrabble Cluj", "Vocala Iași", "Jolly Timișoara")
ARBITER = "arbitru-principal"
GAMES_A_DAY = 3

PLAYS: dict[str, Callable[[EventStore, Scenario], Played]] = {
    "duplicate": simulate_game.play,
    "completiv": simulate_completiv.play,
    "anticipation": simulate_anticipation.play,
    "eliptic": simulate_game.play,
}
"""How a game of each variant is played by simulated players: duplicat eliptic is duplicate's
game with its own numbers (a rack of 8, at most 7 laid), which its context gives the players."""

SEASON_VARIANTS = tuple(PLAYS)
"""The variants a simulated season's tournaments play, in turn (see the module's docstring)."""

TITLES = {"duplicate": "", "completiv": " (duplicat-completiv)",
          "anticipation": " (anticipație cu metagrame)",
          "eliptic": " (duplicat eliptic)"}  # fmt: skip
COMPLETIV_INCIDENTS = ("unmarked", "rule_a", "rule_b", "stock_joker")
"""Completiv's own mishaps (`pipelines.simulate.completiv`), asked for besides `INCIDENTS`."""
SETTINGS = {
    "duplicate": ({}, {"top_source": "computer"}, {"draw_minimums": "fisf", "solo_bonus": 20}),
    "completiv": ({}, {"solo_bonus": 5, "solo_min_players": 4}),
    "anticipation": ({},),
    "eliptic": ({}, {"top_source": "computer"}),
}
"""The settings of a tournament's games, in turn: the default rules, then games with the
computer's top, FISF's 2+2 draws and another solo bonus."""


@dataclass(frozen=True)
class PlannedGame:
    scenario: Scenario


@dataclass(frozen=True)
class PlannedTournament:
    tournament_id: str
    name: str
    place: str
    starts_on: date
    ends_on: date
    players: tuple[SimulatedPlayer, ...]
    games: tuple[PlannedGame, ...]


@dataclass(frozen=True)
class SeasonPlan:
    season: str
    pool: tuple[SimulatedPlayer, ...]
    clubs: dict[str, str]
    tournaments: tuple[PlannedTournament, ...]


@dataclass(frozen=True)
class SeasonPlayed:
    plan: SeasonPlan
    games: dict[str, Played]


def plan_season(
    seed: int, tournaments: int = 3, games: int = 3, players: int = 12, season: int = 2026
) -> SeasonPlan:
    """The season a seed gives: `tournaments` tournaments (at most `len(PLACES)`) of `games`
    games each, `players` players in each, drawn from a pool half as large again."""
    if not 1 <= tournaments <= len(PLACES):
        raise ValueError(f"tournaments must be between 1 and {len(PLACES)}, not {tournaments}")
    if not 1 <= games <= 20:
        raise ValueError(f"games must be between 1 and 20, not {games}")
    if not 2 <= players <= 60:
        raise ValueError(f"players must be between 2 and 60, not {players}")
    rng = random.Random(seed)
    pool = make_players(players + players // 2, rng)
    clubs = {p.player_id: rng.choice(CLUBS) for p in pool}
    months = _months(tournaments)
    planned: list[PlannedTournament] = []
    game_index = 0
    shorts = short_ids(p for p, _, _ in PLACES)
    for t, (prefix, name, place) in enumerate(PLACES[:tournaments]):
        variant = SEASON_VARIANTS[t % len(SEASON_VARIANTS)]
        tournament_id = f"{prefix}-{season}"
        starts_on = date(season, months[t], rng.randint(1, 20))
        days = (games + GAMES_A_DAY - 1) // GAMES_A_DAY
        chosen = sorted(rng.sample(range(len(pool)), players))
        roster = tuple(pool[i] for i in chosen)
        short = shorts[prefix] + str(season)[-2:]
        planned_games = []
        for g in range(games):
            day, slot = divmod(g, GAMES_A_DAY)
            start = datetime.combine(starts_on, datetime.min.time(), UTC) + timedelta(
                days=day, hours=9 + 2 * slot + slot // 2
            )
            scenario = Scenario(
                game_id=f"{short}-p{g + 1}",
                players=len(roster),
                seed=rng.getrandbits(32),
                title=f"{name} {season}, partida {g + 1}{TITLES[variant]}",
                tournament_id=tournament_id,
                variant=variant,
                roster=roster,
                draw="seeded" if game_index % 3 == 0 else "manual",
                start=start,
                arbiter=ARBITER,
                incidents=_incidents(rng, game_index, variant),
                settings=SETTINGS[variant][g % len(SETTINGS[variant])],
            )
            planned_games.append(PlannedGame(scenario))
            game_index += 1
        planned.append(
            PlannedTournament(
                tournament_id, name, place, starts_on, starts_on + timedelta(days=days - 1),
                roster, tuple(planned_games),
            )
        )  # fmt: skip
    ids = [g.scenario.game_id for t in planned for g in t.games]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"game ids planned twice: {', '.join(twice)}")
    return SeasonPlan(str(season), pool, clubs, tuple(planned))


def short_ids(prefixes: Iterable[str]) -> dict[str, str]:
    """Each tournament's short id, for its games' ids (`cb26-p1`): the initials of its words,
    lengthened with the next letters of its last word (then a number) where an earlier
    tournament already has them (`cupa-bucuresti` cb, `cupa-brasov` cbr), so that no two
    tournaments share one however many are played."""
    shorts: dict[str, str] = {}
    for prefix in prefixes:
        words = prefix.split("-")
        head = "".join(word[0] for word in words[:-1])
        tails = [words[-1][:n] for n in range(1, len(words[-1]) + 1)]
        candidates = [head + tail for tail in tails]
        candidates += [f"{candidates[-1]}{n}" for n in range(2, len(shorts) + 3)]
        shorts[prefix] = next(c for c in candidates if c not in shorts.values())
    return shorts


def _months(count: int) -> list[int]:
    """Months spread over the season, from February to November."""
    return [2 + (9 * i) // max(1, count) for i in range(count)]


def _incidents(rng: random.Random, game_index: int, variant: str) -> dict[int, tuple[str, ...]]:
    """A few arbiter's incidents in the early rounds of a game: two taken in turn from
    `INCIDENTS` (so that three games hold every kind), and up to two more at random; in
    completiv, each of its own mishaps in a few rounds too (they happen where they fit)."""
    kinds = [INCIDENTS[(2 * game_index + i) % len(INCIDENTS)] for i in range(2)]
    kinds += [rng.choice(INCIDENTS) for _ in range(rng.randint(0, 2))]
    rounds = rng.sample(range(2, 12), len(kinds))
    incidents = {n: (kind,) for n, kind in sorted(zip(rounds, kinds, strict=True))}
    if variant == "completiv":
        for kind in COMPLETIV_INCIDENTS:
            late = kind == "rule_b"  # once both jokers have left the stock
            for n in rng.sample(range(10, 20) if late else range(2, 20), 4 if late else 3):
                incidents[n] = (*incidents.get(n, ()), kind)
    if variant == "anticipation":
        for n in rng.sample(range(2, 14), 2):
            incidents[n] = (*incidents.get(n, ()), "late_replacement")
    return dict(sorted(incidents.items()))


def _tournament_events(plan: SeasonPlan, tournament: PlannedTournament) -> list[NewEvent]:
    """The tournament's stream, recorded the morning it starts."""
    morning = datetime.combine(tournament.starts_on, datetime.min.time(), UTC)
    meta = {"actor": ARBITER, "received_at": format_time(morning + timedelta(hours=8))}
    return [
        NewEvent(
            "TournamentCreated",
            {
                "tournament_id": tournament.tournament_id,
                "name": tournament.name,
                "season": plan.season,
                "starts_on": tournament.starts_on.isoformat(),
                "ends_on": tournament.ends_on.isoformat(),
                "federation": "FRS",
                "place": tournament.place,
            },
            meta,
        ),
        *(
            NewEvent(
                "PlayerRegistered",
                {"player_id": p.player_id, "name": p.name, "club": plan.clubs[p.player_id]},
                meta,
            )
            for p in tournament.players
        ),
        *(NewEvent("GameAdded", {"game_id": g.scenario.game_id}, meta) for g in tournament.games),
    ]


def play_season(store: EventStore, plan: SeasonPlan, only: str | None = None) -> SeasonPlayed:
    """Record the whole season (or only the tournament `only`) in `store`, which must hold
    none of its streams yet."""
    played: dict[str, Played] = {}
    for tournament in plan.tournaments:
        if only is not None and tournament.tournament_id != only:
            continue
        store.append(
            f"tournament/{tournament.tournament_id}",
            _tournament_events(plan, tournament),
            expected_version=0,
        )
        for game in tournament.games:
            scenario = game.scenario
            played[scenario.game_id] = PLAYS[scenario.variant](store, scenario)
    return SeasonPlayed(plan, played)


def fixed_record(source: EventStore, target: EventStore, seed: int) -> None:
    """Copy every event of `source` into the empty `target`, in order, with event ids drawn
    from `seed` (a revocation naming the copy of its decision) and recorded at the simulated
    time they were received (`meta.received_at`, never earlier than the event before, a
    millisecond apart): the same seed then gives the same file, byte for byte, hashes
    included. What a simulation records with the ledger's own ids and clock differs only
    in those."""
    rng = random.Random(f"arbitru simulate {seed}")
    new_ids: dict[str, str] = {}
    clock = datetime.min.replace(tzinfo=UTC)
    for stream, run in groupby(source.iter_all(), key=lambda e: e.stream):
        batch = []
        for event in run:
            new_ids[event.event_id] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            payload = event.payload
            if "event_id" in payload:
                payload = {**payload, "event_id": new_ids[payload["event_id"]]}
            clock += timedelta(milliseconds=1)
            if "received_at" in event.meta:
                clock = max(clock, datetime.fromisoformat(event.meta["received_at"]))
            batch.append(
                NewEvent(
                    event.type, payload, event.meta, new_ids[event.event_id], event.schema,
                    f"{clock:%Y-%m-%dT%H:%M:%S.%f}Z",
                )
            )  # fmt: skip
        target.append(stream, batch)
