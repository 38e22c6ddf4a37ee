"""Tournaments and seasons: who played what, and the standings above a single game.

    read_tournaments(store) -> tuple[Tournament, ...]
        Every tournament folded from its stream (`TournamentCreated`, `PlayerRegistered`,
        `GameAdded`), in the order they were created.
    results(store, tournaments, recomputed=False) -> tuple[TournamentResult, ...]
        Each tournament with its standings, every game replayed from the ledger (or, with
        `recomputed`, read from the read models `arbitru recompute` wrote).
    tournament_standings(tournament, games, tops=None, tie_break=()) -> tuple[...]
        A tournament's players ranked by the sum of their game totals (ties share the place
        unless `tie_break` separates them); `games` maps each game id to its game standings
        (`engine.games.projections.standings`).
    tie_break_order(text) -> tuple[str, ...]
        A tie-break order as written on the command line (`solos,tops,best-round`).
    season_standings(results, table) -> tuple[SeasonStanding, ...]
        A season's players ranked by the sum of the ranking points of their places
        (`pipelines.season.ranking`: an event's value, its scale, ties sharing the average).

Tournament standings are computed from game standings only, so they hold for every variant
whose projections give standings. A player counted is one registered in the tournament or
seen in one of its games; a registered player who played no game is listed with 0 (and gets
no ranking points: places are earned by playing).

Ties share the place (two players first, the next one third), as in a game, and tied players
share the average of the ranking points of the places they cover. A tournament may break its
ties for prizes and points by a configured order of criteria (`TIE_BREAKS`): players equal on
every criterion still share the place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from engine.games.events import GameAdded, PlayerRegistered, TournamentCreated
from engine.games.payloads import EventDecodeError, decode_event
from engine.games.projections import Standing, round_results, standings
from ledger.catalogue import naming_problem
from pipelines.games.service import at_last_close, load_game
from pipelines.season.ranking import Award, PointsTable

if TYPE_CHECKING:
    from ledger import EventStore


class TournamentError(ValueError):
    """A tournament stream or a tie-break order that cannot be used; the message says why."""


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
    """A player's place in a tournament: the sum of their game totals and the games played,
    and the arbiter's warnings that stand, summed over those games (what they cost, if a game
    sets a cost, is already in its total)."""

    rank: int
    player_id: str
    name: str | None
    total: int
    games: int
    solos: int
    club: str | None = None
    tops: int = 0
    best_round: int = 0
    warnings: int = 0


@dataclass(frozen=True)
class SeasonStanding:
    """A player's place in a season: ranking points summed over the tournaments played, the
    place in each (tournament id, place, points or None when not known), in tournament
    order, the points by event type (the variant its games play), and the arbiter's warnings
    that stand, summed over every game of those tournaments."""

    rank: int
    player_id: str
    name: str | None
    points: Decimal
    tournaments: tuple[tuple[str, int, Decimal | None], ...]
    club: str | None = None
    by_type: tuple[tuple[str, Decimal], ...] = ()
    warnings: int = 0


TIE_BREAKS = {
    "solos": ("more solos", lambda s: s.solos),
    "tops": ("more tops", lambda s: s.tops),
    "best-round": ("better best round", lambda s: s.best_round),
}
"""The criteria a tournament may break equal totals by, each higher is better."""


def tie_break_order(text: str | None) -> tuple[str, ...]:
    """The criteria of `--tie-break` (comma-separated, in order), or a clear error."""
    if not text:
        return ()
    order = tuple(part.strip() for part in text.split(","))
    for part in order:
        if part not in TIE_BREAKS:
            raise TournamentError(
                f"--tie-break: {part!r} is not a criterion; give some of "
                f"{', '.join(TIE_BREAKS)}, comma-separated, in order (e.g. solos,tops)"
            )
    if len(set(order)) != len(order):
        raise TournamentError(f"--tie-break: {text!r} names a criterion twice")
    return order


def tie_break_line(order: Sequence[str]) -> str:
    """The rule a table's equal totals follow, printed under it."""
    if not order:
        return "Equal totals share the place and the average of its ranking points."
    said = ", then ".join(TIE_BREAKS[c][0] for c in order)
    return (
        f"Equal totals broken by {said}; players equal on all of them share the place and "
        "the average of its ranking points."
    )


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
    whose TournamentCreated names another tournament (`pipelines.games.stream_names`: the reading
    commands name them): one tournament id is one stream."""
    # The database layer is imported where the ledger is read: a command's help needs none.
    import sqlalchemy as sa

    from ledger.database import read_transaction
    from ledger.schema import events as events_table

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


def _ranked(order: Sequence[tuple[str, object]]) -> list[int]:
    """Places of (key, value) pairs sorted by value, best first: ties share the place."""
    places: list[int] = []
    for i, (_, value) in enumerate(order):
        places.append(places[-1] if i and order[i - 1][1] == value else i + 1)
    return places


def tournament_standings(
    tournament: Tournament,
    games: Mapping[str, Sequence[Standing]],
    tops: Mapping[str, Mapping[str, int]] | None = None,
    tie_break: Sequence[str] = (),
) -> tuple[TournamentStanding, ...]:
    """Players ranked by the sum of their totals over the tournament's games (those in
    `games`), then by the `tie_break` criteria in order; players equal on all share the
    place and keep registration order. `tops` maps a game to each player's rounds at the
    top score; a best round is read from each standing's rounds (when it has them)."""
    names: dict[str, str | None] = {p.player_id: p.name for p in tournament.players}
    clubs = {p.player_id: p.club for p in tournament.players}
    totals = dict.fromkeys(names, 0)
    played = dict.fromkeys(names, 0)
    solos = dict.fromkeys(names, 0)
    topped = dict.fromkeys(names, 0)
    best = dict.fromkeys(names, 0)
    warned = dict.fromkeys(names, 0)
    for game_id in tournament.games:
        game_tops = (tops or {}).get(game_id, {})
        for standing in games.get(game_id, ()):
            player = standing.player_id
            names.setdefault(player, standing.name)
            totals[player] = totals.get(player, 0) + standing.total
            played[player] = played.get(player, 0) + 1
            solos[player] = solos.get(player, 0) + standing.solos
            topped[player] = topped.get(player, 0) + game_tops.get(player, 0)
            scores = standing.rounds if isinstance(standing, Standing) else ()
            best[player] = max(best.get(player, 0), *scores, 0)
            warned[player] = warned.get(player, 0) + standing.warnings
    rows = [
        TournamentStanding(0, player, names[player], total, played[player], solos[player],
                           clubs.get(player), topped[player], best[player], warned[player])
        for player, total in totals.items()
    ]  # fmt: skip
    criteria = [TIE_BREAKS[c][1] for c in tie_break]

    def key(s: TournamentStanding) -> tuple[int, ...]:
        return (s.total, *(c(s) for c in criteria))

    rows.sort(key=key, reverse=True)
    order = [(s.player_id, key(s)) for s in rows]
    return tuple(replace(s, rank=place) for place, s in zip(_ranked(order), rows, strict=True))


@dataclass(frozen=True)
class TournamentResult:
    """A tournament of a season with its standings (the input of season standings), its
    event type (the variant its games play: `mixed` when they differ, None with no game), and
    why the events of one of its games no longer give their hashes (None: they all do)."""

    tournament: Tournament
    standings: tuple[TournamentStanding, ...]
    variant: str | None = None
    altered: str | None = None

    def award(self, table: PointsTable) -> Award:
        """The ranking points of this event's players: only those who played a game count,
        for the event's value and for the places."""
        played = [(s.player_id, s.rank) for s in self.standings if s.games]
        return table.award(played)


def season_standings(
    results: Sequence[TournamentResult], table: PointsTable
) -> tuple[SeasonStanding, ...]:
    """Players ranked by the ranking points of their places, summed over the tournaments
    given (those of one season), with the sum by event type; ties share the place. Only
    players who played a game of a tournament earn its points; a place whose points are not
    known (no scale for the event's value) adds nothing."""
    names: dict[str, str | None] = {}
    clubs: dict[str, str | None] = {}
    points: dict[str, Decimal] = {}
    by_type: dict[str, dict[str, Decimal]] = {}
    places: dict[str, list[tuple[str, int, Decimal | None]]] = {}
    warned: dict[str, int] = {}
    for result in results:
        award = result.award(table)
        kind = result.variant or "none"
        for standing in result.standings:
            if not standing.games:
                continue
            player = standing.player_id
            earned = award.points[player]
            names.setdefault(player, standing.name)
            clubs[player] = standing.club or clubs.get(player)
            points[player] = points.get(player, Decimal(0)) + (earned or 0)
            kinds = by_type.setdefault(player, {})
            kinds[kind] = kinds.get(kind, Decimal(0)) + (earned or 0)
            places.setdefault(player, []).append(
                (result.tournament.tournament_id, standing.rank, earned)
            )
            warned[player] = warned.get(player, 0) + standing.warnings
    order = sorted(points.items(), key=lambda item: -item[1])
    return tuple(
        SeasonStanding(place, player, names[player], total, tuple(places[player]),
                       clubs[player], tuple(sorted(by_type[player].items())), warned[player])
        for place, (player, total) in zip(_ranked(order), order, strict=True)
    )  # fmt: skip


def seasons(tournaments: Iterable[Tournament]) -> tuple[str, ...]:
    """The seasons of these tournaments, latest (in sort order) last."""
    return tuple(sorted({t.season for t in tournaments}))


@dataclass(frozen=True)
class Games:
    """What a tournament's standings read of its games: each game's standings, each player's
    rounds at the top score (replayed games only) and each game's variant."""

    standings: dict[str, tuple[Standing, ...]]
    tops: dict[str, dict[str, int]]
    variants: dict[str, str]
    altered: str | None = None
    """Why the events of one of these games no longer give their hashes (replayed only)."""


def game_standings(store: EventStore, game_ids: Iterable[str], *, published: bool = False) -> Games:
    """These games, each replayed from its stream; a game added to a tournament but not
    (yet) in this ledger has no standings, nor has a stream whose GameCreated names another
    game (`pipelines.games.stream_names`). A top is a round whose move scored the round's top.
    `published`: each game as the public sees it, up to its last closed round
    (`pipelines.games.service.at_last_close`), an open round's provisional scores left out."""
    found, tops, variants, altered = {}, {}, {}, None
    for game_id in game_ids:
        game = load_game(store, game_id, must_exist=False)
        altered = altered or game.altered
        opening = game.stored[0] if game.stored else None
        misnamed = opening and naming_problem(game.stream, opening.type, opening.payload)
        if misnamed or game.state.created is None:
            found[game_id] = ()
            continue
        state = at_last_close(store, game) if published else game.state
        rounds = [round_results(state, r.number, submissions=False) for r in state.rounds]
        found[game_id] = standings(state, rounds)
        counted: dict[str, int] = {}
        for result in rounds:
            for player in result.players:
                at_top = result.top is not None and 0 < result.top.score <= player.score
                counted[player.player_id] = counted.get(player.player_id, 0) + at_top
        tops[game_id] = counted
        variants[game_id] = game.state.created.variant
    return Games(found, tops, variants, altered)


def recomputed_standings(store: EventStore, game_ids: Iterable[str]) -> Games:
    """The standings of these games as the last `arbitru recompute` wrote them (read model
    `read_game_standings`, with their variant); a game it has not computed has none. The
    read models keep no tops nor round scores: tie-breaks by them need the replay."""
    import sqlalchemy as sa

    from ledger.database import read_transaction
    from pipelines.season import readmodels as rm

    wanted = list(game_ids)
    table = rm.game_standings
    query = (
        sa.select(table.c.game_id, table.c.rank, table.c.player_id, table.c.name,
                  table.c.total, table.c.solos, table.c.pct_of_top, table.c.warnings)
        .where(table.c.game_id.in_(wanted))
        .order_by(table.c.game_id, table.c.rank, table.c.player_id)
    )  # fmt: skip
    kinds = sa.select(rm.games.c.game_id, rm.games.c.variant).where(rm.games.c.game_id.in_(wanted))
    found: dict[str, list[Standing]] = {game_id: [] for game_id in wanted}
    with read_transaction(store.engine) as connection:
        for row in connection.execute(query):
            found[row.game_id].append(
                Standing(
                    row.rank,
                    row.player_id,
                    row.name,
                    row.total,
                    row.solos,
                    row.pct_of_top,
                    (),
                    row.warnings,
                )
            )
        variants = {row.game_id: row.variant for row in connection.execute(kinds) if row.variant}
    return Games({game_id: tuple(rows) for game_id, rows in found.items()}, {}, variants)


def tournament_variant(tournament: Tournament, variants: Mapping[str, str]) -> str | None:
    """A tournament's event type: the variant of its games, `mixed` when they differ."""
    kinds = {variants[g] for g in tournament.games if g in variants}
    return kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else None)


def results(
    store: EventStore,
    tournaments: Iterable[Tournament],
    *,
    recomputed: bool = False,
    tie_break: Sequence[str] = (),
    published: bool = False,
) -> tuple[TournamentResult, ...]:
    """Each tournament with its standings: its games replayed from the ledger, or with
    `recomputed` read from the read models (fast; as fresh as the last recompute; no
    tie-break by tops or best round); `published`: replayed to their last closed rounds, as
    the public sees them (`game_standings`)."""
    if recomputed and set(tie_break) - {"solos"}:
        raise TournamentError(
            "the read models keep no tops nor round scores: break ties by them on the games "
            "replayed (recomputed=False)"
        )
    found = []
    for t in tournaments:
        if recomputed:
            games = recomputed_standings(store, t.games)
        else:
            games = game_standings(store, t.games, published=published)
        ranked = tournament_standings(t, games.standings, games.tops, tie_break)
        variant = tournament_variant(t, games.variants)
        found.append(TournamentResult(t, ranked, variant, games.altered))
    return tuple(found)
