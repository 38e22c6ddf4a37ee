"""Properties of the tournament level: any points table either loads or is refused with a
RankingError; standings always add game totals exactly, ranks follow the totals and ties
share the place; season points are always the points of the places, tied players sharing
the average."""

from __future__ import annotations

import itertools
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from engine.games.projections import Standing
from pipelines.season.ranking import RankingError
from pipelines.season.tournaments import (
    PointsTable,
    Registration,
    Tournament,
    TournamentResult,
    season_standings,
    tournament_standings,
)

PLAYERS = [f"p{i}" for i in range(8)]
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2000) | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=12),
    max_leaves=20,
)


scales = st.dictionaries(st.sampled_from(["9", "10", "14", "100", "x"]), values, max_size=3)


@given(st.dictionaries(st.sampled_from(["name", "scales", "other"]), values | scales))
def test_any_points_table_either_loads_or_is_refused_with_a_reason(data):
    try:
        table = PointsTable.from_mapping(data, "t.toml")
    except RankingError as exc:
        assert "t.toml" in str(exc)
        return
    for value, scale in table.scales.items():
        assert 10 <= value <= 100 and 0 < len(scale) <= value
        assert list(scale) == sorted(scale, reverse=True) and scale[-1] >= 0


games_of = st.dictionaries(
    st.sampled_from(["g1", "g2", "g3"]),
    st.dictionaries(st.sampled_from(PLAYERS), st.integers(0, 60), max_size=8),
)


@given(games_of)
def test_standings_add_game_totals_and_ties_share_the_place(games):
    tournament = Tournament(
        "t", "T", "2026", None, None, None, tuple(Registration(p, p) for p in PLAYERS[:3]),
        ("g1", "g2", "g3"),
    )  # fmt: skip
    standings = {
        g: tuple(Standing(0, p, p, total, 0, None, ()) for p, total in totals.items())
        for g, totals in games.items()
    }
    ranked = tournament_standings(tournament, standings)
    for s in ranked:
        assert s.total == sum(t.get(s.player_id, 0) for t in games.values())
        assert s.games == sum(s.player_id in t for t in games.values())
    for before, after in itertools.pairwise(ranked):
        assert before.total >= after.total
        assert after.rank == (
            before.rank if before.total == after.total else ranked.index(after) + 1
        )
    table = PointsTable("t", {10: (100, 60, 40, 20)}, "t.toml")
    season = season_standings([TournamentResult(tournament, ranked)], table)
    award = table.award([(s.player_id, s.rank) for s in ranked if s.games])
    assert {s.player_id: s.points for s in season} == {p: n or 0 for p, n in award.points.items()}


COMPLETE = PointsTable("t", {v: tuple(range(7 * v, 0, -7)) for v in range(10, 101)}, "t")
"""A complete scale for every value: place p of a value-v event earns 7 * (v - p + 1)."""


@given(st.lists(st.integers(1, 4), min_size=1, max_size=40))
def test_tied_players_share_the_points_of_the_places_they_cover_and_none_is_lost(groups):
    """Any standings of tie groups (sizes given): every player of a group gets the same
    points, and the groups together earn, to the rounding, exactly the points of the places
    they cover, on the scale of the event's value."""
    places, seen = [], 0
    for size in groups:
        places += [(f"p{seen + i}", seen + 1) for i in range(size)]
        seen += size
    award = COMPLETE.award(places)
    assert award.value == min(max(seen, 10), 100)
    covered = sum(COMPLETE.scales[award.value][:seen])
    assert abs(sum(award.points.values()) - covered) <= Decimal("0.005") * seen
    for _, rank in places:
        assert len({award.points[p] for p, r in places if r == rank}) == 1
