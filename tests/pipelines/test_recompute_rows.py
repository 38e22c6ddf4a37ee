"""The season's rows of a game (`pipelines.season.rows`): the sample game's rows add up to its
standings, each player's cumulative score ends at their total, and a round's top and the players
who found it agree with the player rows."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest

from engine.games.projections import round_results, standings
from engine.games.replay import initial_state
from ledger.envelope import RecordedEvent
from pipelines.games import contexts
from pipelines.games.contexts import resolve_context
from pipelines.games.service import fold
from pipelines.season.rows import COLUMNS, TABLES, GameRows, game_rows

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"


@pytest.fixture(scope="module")
def rows(_arbitru_home: Path) -> tuple[GameRows, object]:
    events = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    stored = [
        RecordedEvent(**{k: e[k] for k in RecordedEvent.__dataclass_fields__})
        for e in events
        if e["stream"] == "game/cb26-p1"
    ]
    _, state = fold(stored)
    return game_rows(state, "2026"), state


def test_player_rounds_add_up_to_the_game_standings(rows) -> None:
    found, state = rows
    totals: dict[str, int] = defaultdict(int)
    for row in found.player_rounds:
        totals[row.player_id] += row.score
    assert totals == {s.player_id: s.total for s in standings(state)}
    assert [(r.rank, r.player_id, r.total, r.solos) for r in found.standings] == [
        (s.rank, s.player_id, s.total, s.solos) for s in standings(state)
    ]


def test_results_without_the_texts_as_written_score_the_same(rows) -> None:
    """The rows and standings read round results without the submissions as written: every
    other field is the same as a round explained in full, and so are the standings."""
    _, state = rows
    full = [round_results(state, r.number) for r in state.rounds]
    brief = [round_results(state, r.number, submissions=False) for r in state.rounds]
    assert all(p.submissions is None for r in brief for p in r.players)
    assert any(p.submissions for r in full for p in r.players)
    assert brief == [
        replace(r, players=tuple(replace(p, submissions=None) for p in r.players)) for r in full
    ]
    assert standings(state, brief) == standings(state, full) == standings(state)


def test_cumulative_score_ends_at_the_players_total(rows) -> None:
    found, _ = rows
    last = {}
    for row in found.player_rounds:
        last[row.player_id] = row.cumulative
    assert last == {s.player_id: s.total for s in found.standings}


def test_every_player_has_a_row_in_every_round(rows) -> None:
    found, state = rows
    assert len(found.rounds) == len(state.rounds) == 22
    assert len(found.player_rounds) == 22 * len(state.players)
    assert {(r.season, r.tournament_id, r.game_id) for r in found.player_rounds} == {
        ("2026", "cupa-bucuresti-2026", "cb26-p1")
    }


def test_found_top_counts_the_players_reaching_the_top_score(rows) -> None:
    found, _ = rows
    by_round = defaultdict(list)
    for row in found.player_rounds:
        by_round[row.round].append(row)
    for rnd in found.rounds:
        reached = [p for p in by_round[rnd.round] if p.points >= (rnd.top_score or 0) > 0]
        assert rnd.found_top == len(reached), rnd
        solos = [p.player_id for p in by_round[rnd.round] if p.solo]
        assert solos == ([rnd.solo_player_id] if rnd.solo_player_id else [])


def test_a_score_is_points_plus_bonus_minus_penalty_and_invalid_rounds_say_why(rows) -> None:
    found, _ = rows
    for row in found.player_rounds:
        assert row.score == row.points + row.bonus - row.penalty
        assert row.valid == (row.reason is None)
        if row.reason == "no_submission":
            assert (row.submission, row.move, row.seq) == (None, None, None)
    reasons = {row.reason for row in found.player_rounds}
    assert None in reasons and len(reasons) > 1


def test_a_game_not_created_has_no_rows() -> None:
    assert game_rows(initial_state(resolve_context)) == GameRows((), (), ())


def test_columns_follow_the_row_classes() -> None:
    for name, row_class in TABLES.items():
        assert [c[0] for c in COLUMNS[name]] == list(row_class._fields)
    assert ("pct_of_top", float, True) in COLUMNS["player_rounds"]
    assert ("valid", bool, False) in COLUMNS["player_rounds"]


def test_folding_many_games_in_one_process_keeps_a_bounded_number_of_contexts(rows) -> None:
    """A recompute folds thousands of games per process: their judgement caches must not all
    stay in memory."""
    _, state = rows
    created = state.created
    for n in range(contexts.CONTEXTS_KEPT + 5):
        resolve_context(replace(created, game_id=f"copy-{n}"))
    assert len(contexts._contexts) == contexts.CONTEXTS_KEPT
