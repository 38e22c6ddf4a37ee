"""Tournaments and seasons: who played what, and the standings above a single game.

    read_tournaments(store) -> tuple[Tournament, ...]
        Every tournament folded from its stream (`TournamentCreated`, `PlayerRegistered`,
        `GameAdded`), in the order they were created.
    results(store, tournaments, recomputed=False) -> tuple[TournamentResult, ...]
        Each tournament with its standings, every game replayed from the ledger (or, with
        `recomputed`, read from the read models `arbitru recompute` wrote).
    tournament_standings(tournament, games) -> tuple[TournamentStanding, ...]
        A tournament's players ranked by the sum of their game totals (ties share the place);
        `games` maps each game id to its game standings (`engine.games.projections.standings`).
    PointsTable.load(path=None) / table.points(place)
        The federation's conversion of a place into ranking points, read from a TOML file
        (the shipped `data/ranking_points.toml` by default).
    season_standings(results, table) -> tuple[SeasonStanding, ...]
        A season's players ranked by the sum of the ranking points of their places.

Tournament standings are computed from game standings only, so they hold for every variant
whose projections give standings. A player counted is one registered in the tournament or
seen in one of its games; a registered player who played no game is listed with 0 (and gets
no ranking points: places are earned by playing).

Ties share the place (two players first, the next one third), and every player at a shared
place gets that place's ranking points: the federation's table lists places, not ranges.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import sqlalchemy as sa

from engine.games.events import (
    EventDecodeError,
    GameAdded,
    PlayerRegistered,
    TournamentCreated,
    decode_event,
)
from engine.games.projections import Standing, standings
from ledger import EventStore
from ledger.catalogue import naming_problem
from ledger.database import read_transaction
from ledger.input_files import POINTS, InputFileError, read_input
from ledger.schema import events as events_table
from pipelines import readmodels as rm
from pipelines.game_service import Game, load_game
from pipelines.limits import NUMBERS

_MOST = NUMBERS["ranking_points"].most
POINTS_FILE = "ranking_points.toml"
"""The shipped table, in the `pipelines.data` package."""


class TournamentError(ValueError):
    """A tournament stream or a points table that cannot be used; the message says why."""


@dataclass(frozen=True)
class Registration:
    player_id: str
    name: str
    club: str | None = None


@dataclass(frozen=True)
class Tournament:
    """A tournament as its stream records it."""

    tournament_id: str
    name: str
    season: str
    starts_on: str | None
    ends_on: str | None
    place: str | None
    players: tuple[Registration, ...]
    games: tuple[str, ...]


@dataclass(frozen=True)
class TournamentStanding:
    """A player's place in a tournament: the sum of their game totals and the games played."""

    rank: int
    player_id: str
    name: str | None
    total: int
    games: int
    solos: int


@dataclass(frozen=True)
class SeasonStanding:
    """A player's place in a season: ranking points summed over the tournaments played, and
    the place in each (tournament id, place, points), in tournament order."""

    rank: int
    player_id: str
    name: str | None
    points: int
    tournaments: tuple[tuple[str, int, int], ...]


def fold_tournament(events: Iterable[tuple[str, int, dict]]) -> Tournament:
    """A tournament from its stream's (type, schema, payload) in version order."""
    created: TournamentCreated | None = None
    players: dict[str, Registration] = {}
    games: list[str] = []
    for type_name, schema, payload in events:
        try:
            event = decode_event(type_name, schema, payload)
        except EventDecodeError as exc:
            raise TournamentError(f"a tournament event does not decode: {exc}") from exc
        if isinstance(event, TournamentCreated):
            created = event
        elif isinstance(event, PlayerRegistered):
            players[event.player_id] = Registration(event.player_id, event.name, event.club)
        elif isinstance(event, GameAdded) and event.game_id not in games:
            games.append(event.game_id)
    if created is None:
        raise TournamentError("a tournament stream does not start with TournamentCreated")
    return Tournament(
        created.tournament_id, created.name, created.season, created.starts_on,
        created.ends_on, created.place, tuple(players.values()), tuple(games),
    )  # fmt: skip


def read_tournaments(store: EventStore) -> tuple[Tournament, ...]:
    """Every tournament of the ledger, in the order they were created, but for the streams
    whose TournamentCreated names another tournament (`pipelines.stream_names`: the reading
    commands name them): one tournament id is one stream."""
    query = (
        sa.select(events_table.c.stream)
        .where(events_table.c.type == "TournamentCreated")
        .order_by(events_table.c.seq)
    )
    with read_transaction(store.engine) as connection:
        streams = [row.stream for row in connection.execute(query)]
    read = [list(store.read_stream(stream)) for stream in streams]
    return tuple(
        fold_tournament((e.type, e.schema, e.payload) for e in stored)
        for stream, stored in zip(streams, read, strict=True)
        if naming_problem(stream, stored[0].type, stored[0].payload) is None
    )


def _ranked(order: Sequence[tuple[str, int]]) -> list[int]:
    """Places of (key, value) pairs sorted by value, best first: ties share the place."""
    places: list[int] = []
    for i, (_, value) in enumerate(order):
        places.append(places[-1] if i and order[i - 1][1] == value else i + 1)
    return places


def tournament_standings(
    tournament: Tournament, games: Mapping[str, Sequence[Standing]]
) -> tuple[TournamentStanding, ...]:
    """Players ranked by the sum of their totals over the tournament's games (those in
    `games`); ties share the place and keep registration order."""
    names: dict[str, str | None] = {p.player_id: p.name for p in tournament.players}
    totals = dict.fromkeys(names, 0)
    played = dict.fromkeys(names, 0)
    solos = dict.fromkeys(names, 0)
    for game_id in tournament.games:
        for standing in games.get(game_id, ()):
            player = standing.player_id
            names.setdefault(player, standing.name)
            totals[player] = totals.get(player, 0) + standing.total
            played[player] = played.get(player, 0) + 1
            solos[player] = solos.get(player, 0) + standing.solos
    order = sorted(totals.items(), key=lambda item: -item[1])
    return tuple(
        TournamentStanding(place, player, names[player], total, played[player], solos[player])
        for place, (player, total) in zip(_ranked(order), order, strict=True)
    )


@dataclass(frozen=True)
class PointsTable:
    """Ranking points by place: `points[0]` for the winner; places beyond the list get
    `beyond`. `name` says which table it is (shown with season standings)."""

    name: str
    points: tuple[int, ...]
    beyond: int = 0

    def points_for(self, place: int) -> int:
        return self.points[place - 1] if 1 <= place <= len(self.points) else self.beyond

    @classmethod
    def load(cls, path: Path | None = None) -> PointsTable:
        """The table in a TOML file (`name`, `points` = a list of non-negative integers, not
        increasing, optional `beyond`); without a path, the shipped federation table."""
        where = str(path) if path is not None else f"the shipped {POINTS_FILE}"
        try:
            if path is None:
                text = resources.files("pipelines.data").joinpath(POINTS_FILE).read_text("utf-8")
            else:
                text = read_input(path, POINTS).decode("utf-8")
            data = tomllib.loads(text)
        except InputFileError as exc:
            raise TournamentError(str(exc)) from None
        except OSError as exc:
            raise TournamentError(f"cannot read the points table {where}: {exc}") from exc
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise TournamentError(f"the points table {where} is not valid TOML: {exc}") from exc
        except RecursionError:
            raise TournamentError(f"the points table {where} is nested too deeply") from None
        return cls.from_mapping(data, where)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], where: str) -> PointsTable:
        points, beyond = data.get("points"), data.get("beyond", 0)
        if (
            not isinstance(points, list)
            or not points
            or not all(
                isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= _MOST for p in points
            )
        ):
            raise TournamentError(
                f"the points table {where} needs `points`: a list of whole numbers from 0 to "
                f"{_MOST:,}, the winner's first, e.g. points = [1000, 859, 801]"
            )
        if any(a < b for a, b in itertools.pairwise(points)):
            raise TournamentError(
                f"the points table {where} gives a place more points than the place above it"
            )
        if not isinstance(beyond, int) or isinstance(beyond, bool) or beyond < 0:
            raise TournamentError(f"the points table {where}: `beyond` must be a whole number >= 0")
        if beyond > points[-1]:
            raise TournamentError(
                f"the points table {where}: `beyond` ({beyond}) exceeds the last place's points"
            )
        name = data.get("name")
        return cls(str(name) if name else where, tuple(points), beyond)


@dataclass(frozen=True)
class TournamentResult:
    """A tournament of a season with its standings (the input of season standings), and why
    the events of one of its games no longer give their hashes (None: they all do)."""

    tournament: Tournament
    standings: tuple[TournamentStanding, ...]
    altered: str | None = None


def season_standings(
    results: Sequence[TournamentResult], table: PointsTable
) -> tuple[SeasonStanding, ...]:
    """Players ranked by the ranking points of their places, summed over the tournaments
    given (those of one season); ties share the place. Only players who played a game of a
    tournament earn its points."""
    names: dict[str, str | None] = {}
    points: dict[str, int] = {}
    places: dict[str, list[tuple[str, int, int]]] = {}
    for result in results:
        for standing in result.standings:
            if not standing.games:
                continue
            earned = table.points_for(standing.rank)
            names.setdefault(standing.player_id, standing.name)
            points[standing.player_id] = points.get(standing.player_id, 0) + earned
            places.setdefault(standing.player_id, []).append(
                (result.tournament.tournament_id, standing.rank, earned)
            )
    order = sorted(points.items(), key=lambda item: -item[1])
    return tuple(
        SeasonStanding(place, player, names[player], total, tuple(places[player]))
        for place, (player, total) in zip(_ranked(order), order, strict=True)
    )


def seasons(tournaments: Iterable[Tournament]) -> tuple[str, ...]:
    """The seasons of these tournaments, latest (in sort order) last."""
    return tuple(sorted({t.season for t in tournaments}))


def recomputed_standings(
    store: EventStore, game_ids: Iterable[str]
) -> dict[str, tuple[Standing, ...]]:
    """The standings of these games as the last `arbitru recompute` wrote them (read model
    `read_game_standings`); a game it has not computed has none."""
    wanted = list(game_ids)
    table = rm.game_standings
    query = (
        sa.select(table.c.game_id, table.c.rank, table.c.player_id, table.c.name,
                  table.c.total, table.c.solos, table.c.pct_of_top)
        .where(table.c.game_id.in_(wanted))
        .order_by(table.c.game_id, table.c.rank, table.c.player_id)
    )  # fmt: skip
    found: dict[str, list[Standing]] = {game_id: [] for game_id in wanted}
    with read_transaction(store.engine) as connection:
        for row in connection.execute(query):
            found[row.game_id].append(
                Standing(
                    row.rank, row.player_id, row.name, row.total, row.solos, row.pct_of_top, ()
                )
            )
    return {game_id: tuple(rows) for game_id, rows in found.items()}


def results(
    store: EventStore, tournaments: Iterable[Tournament], *, recomputed: bool = False
) -> tuple[TournamentResult, ...]:
    """Each tournament with its standings: its games replayed from the ledger, or with
    `recomputed` read from the read models (fast; as fresh as the last recompute)."""
    if recomputed:
        return tuple(
            TournamentResult(t, tournament_standings(t, recomputed_standings(store, t.games)))
            for t in tournaments
        )
    found = []
    for t in tournaments:
        games = [load_game(store, game_id, must_exist=False) for game_id in t.games]
        ranked = tournament_standings(
            t, {g: _standings(game) for g, game in zip(t.games, games, strict=True)}
        )
        altered = next((game.altered for game in games if game.altered is not None), None)
        found.append(TournamentResult(t, ranked, altered))
    return tuple(found)


def _standings(game: Game) -> tuple[Standing, ...]:
    """A game's standings; none for a game added to a tournament but not (yet) in this
    ledger, nor for a stream whose GameCreated names another game (`pipelines.stream_names`)."""
    opening = game.stored[0] if game.stored else None
    if opening is None or naming_problem(game.stream, opening.type, opening.payload):
        return ()
    return standings(game.state)
