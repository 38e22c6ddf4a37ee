"""The sample season shipped with Arbitru (`pipelines/data/sample-season.jsonl`, linked from
fixtures/season/): restored into a fresh ledger it holds what its README says (four
tournaments, one variant each, every variant played, the slips and the arbiter's acts), its
moves are words of the default list, its season standings are the expected ones, and after
`arbitru recompute` the Parquet export holds rows of every variant whose totals, read in
DuckDB, are those of `arbitru game standings` for a game of each variant."""

from __future__ import annotations

import re
from collections import Counter
from importlib import resources
from itertools import pairwise
from pathlib import Path

import duckdb
import pytest
from game_cli_helpers import cli

from engine.games.projections import round_results
from ledger import EventStore
from pipelines.games.service import load_game
from pipelines.lexicons.cache import load_dictionary
from pipelines.lexicons.registry import default_sha256
from pipelines.season.ranking import DEMO_POINTS_FILE, PointsTable
from pipelines.season.tournaments import read_tournaments
from pipelines.simulate.season import SEASON_VARIANTS

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "season" / "sample-season.jsonl"
EVENTS = 3658
TOURNAMENTS = {
    "cupa-bucuresti-2026": "duplicate",
    "memorialul-cluj-2026": "completiv",
    "open-iasi-2026": "anticipation",
    "trofeul-timis-2026": "eliptic",
}
GAMES = {
    "duplicate": "cb26-p1",
    "completiv": "mc26-p1",
    "anticipation": "oi26-p1",
    "eliptic": "tt26-p1",
}
"""A game of each variant, whose export rows are checked against its standings."""
TOTALS = {
    "standings": "SELECT player_id, total FROM TABLE WHERE level = 'game' AND game_id = ? "
    "ORDER BY 1",
    "player_rounds": "SELECT player_id, sum(score) FROM TABLE WHERE game_id = ? GROUP BY 1 "
    "ORDER BY 1",
}
"""A game's totals in the export, by player: as ranked, and added up round by round."""
EXPECTED_SEASON = [
    # rank, player, ranking points (the demo's value-12 scale), (tournament, place) for each
    # tournament played
    (1, "p08", 1467, [("cupa", 5), ("memo", 2), ("open", 1), ("trof", 4)]),
    (2, "p05", 1230, [("cupa", 3), ("open", 3), ("trof", 1)]),
    (3, "p09", 1097, [("cupa", 2), ("memo", 4), ("open", 6), ("trof", 6)]),
    (4, "p07", 905, [("cupa", 4), ("memo", 3), ("open", 4)]),
    (5, "p01", 824, [("cupa", 1), ("trof", 4)]),
    (6, "p03", 643, [("memo", 5), ("open", 2)]),
    (6, "p02", 643, [("open", 5), ("trof", 2)]),
    (8, "p04", 560, [("memo", 1)]),
    (9, "p06", 508, [("open", 7), ("trof", 3)]),
    (10, "p13", 494, [("cupa", 7), ("memo", 6), ("trof", 9)]),
    (11, "p10", 374, [("cupa", 8), ("memo", 10), ("open", 8)]),
    (12, "p16", 334, [("cupa", 12), ("memo", 8), ("open", 10), ("trof", 11)]),
    (13, "p15", 329, [("cupa", 11), ("memo", 9), ("open", 11), ("trof", 10)]),
    (14, "p11", 316, [("memo", 7), ("trof", 8)]),
    (15, "p12", 288, [("open", 9), ("trof", 7)]),
    (16, "p18", 208, [("cupa", 10), ("memo", 12), ("open", 12), ("trof", 12)]),
    (17, "p14", 206, [("cupa", 6)]),
    (18, "p17", 178, [("cupa", 9), ("memo", 11)]),
]


@pytest.fixture(scope="module")
def sample(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The sample season restored into a fresh SQLite ledger (every hash the same)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('sample') / 'sample.db'}"
    report = cli("ledger", "import", str(FIXTURE), "--db", url, "--require-same-hashes", "--json")
    assert report["ok"] and report["imported"] == EVENTS and not report["hash_mismatches"]
    return url


@pytest.fixture(scope="module")
def exported(sample: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The read models recomputed, then the Parquet export, through the CLI."""
    cli("recompute", "--db", sample, "--json")
    out = tmp_path_factory.mktemp("export") / "season"
    report = cli("export", "--out", str(out), "--db", sample, "--json")
    assert report["rows_from"] == "read models"
    return out


def _sql(out: Path, table: str, query: str, *params: object) -> list[tuple]:
    source = (
        f"read_parquet('{out / table}/**/*.parquet', hive_partitioning = true, "
        "hive_types = {'season': 'VARCHAR'})"
    )
    return duckdb.execute(query.replace("TABLE", source), list(params)).fetchall()


def test_the_shipped_sample_season_is_the_fixture_and_holds_what_its_readme_says(sample):
    shipped = resources.files("pipelines.data").joinpath("sample-season.jsonl")
    assert FIXTURE.read_bytes() == shipped.read_bytes()
    statuses: dict[str, Counter[str]] = {v: Counter() for v in SEASON_VARIANTS}
    types: Counter[str] = Counter()
    rule_a = 0
    with EventStore(sample) as store:
        tournaments = read_tournaments(store)
        assert [t.tournament_id for t in tournaments] == list(TOURNAMENTS)
        assert [len(t.games) for t in tournaments] == [3, 3, 3, 3]
        assert {t.season for t in tournaments} == {"2026"}
        for t in tournaments:
            for game_id in t.games:
                game = load_game(store, game_id)
                state = game.state
                assert state.ended is not None and state.over is not None  # bag out, or no draw
                variant = state.created.variant
                assert variant == TOURNAMENTS[t.tournament_id], game_id
                types.update(e.type for e in game.stored)
                if variant == "eliptic":  # a rack of 8 until the bag runs out
                    assert {len(r.rack) for r in state.rounds if not r.last} == {8}, game_id
                for rnd in state.rounds:
                    for player in round_results(state, rnd.number).players:
                        for s in player.submissions:
                            statuses[variant][s.status] += 1
                            rule_a += any("rule a" in n for n in s.judgement.notes)
    for variant in SEASON_VARIANTS:
        for status in ("counted", "superseded", "late", "corrected"):
            assert statuses[variant][status], (variant, status)
    for status in ("unreadable", "annulled", "not_in_dictionary", "square_mismatch"):
        assert statuses["duplicate"][status], status
    assert statuses["completiv"]["completiv_letter_unmarked"] and rule_a
    assert statuses["anticipation"]["tile_not_on_rack"]  # played after a replacement in error
    for kind in ("PenaltyGiven", "DecisionRevoked", "TopChosen", "SeedRevealed",
                 "ReplacementDeclared"):  # fmt: skip
        assert types[kind], kind


def test_the_sample_season_is_played_with_words_of_the_default_list(sample):
    words = load_dictionary()
    counted = 0
    with EventStore(sample) as store:
        for t in read_tournaments(store):
            for game_id in t.games:
                state = load_game(store, game_id).state
                assert state.created.dictionary.sha256 == default_sha256()
                for rnd in state.rounds:
                    for player in round_results(state, rnd.number).players:
                        for s in player.submissions:
                            if s.status == "counted":
                                counted += 1
                                for word in s.judgement.verdict.words:
                                    assert words.accepts(word.word), (game_id, s.text)
    assert counted > 2000


def test_the_sample_season_places_are_the_expected_ones_and_its_value_12_has_no_scale(sample):
    """Its tournaments have 12 players (value 12), which the federation's published scales
    leave out: no points and a line for each; the demo's own value-12 scale ranks it."""
    shown = cli("season", "standings", "--db", sample, "--json")
    assert shown["tournaments"] == list(TOURNAMENTS)
    places = {
        s["player_id"]: [(t["tournament_id"][:4], t["place"]) for t in s["tournaments"]]
        for s in shown["standings"]
    }
    assert places == {player: played for _, player, _, played in EXPECTED_SEASON}
    assert {s["points"] for s in shown["standings"]} == {0}
    assert len(shown["missing"]) == len(TOURNAMENTS)
    assert all("no scale for value 12" in line for line in shown["missing"])

    demo = resources.files("pipelines.data").joinpath(DEMO_POINTS_FILE)
    with resources.as_file(demo) as points:
        ranked = cli("season", "standings", "--db", sample, "--points", str(points), "--json")
    scale = PointsTable.load(shipped=DEMO_POINTS_FILE).scales[12]
    assert not ranked["missing"]
    got = {s["player_id"]: s["points"] for s in ranked["standings"]}
    sharing = Counter(spot for played in places.values() for spot in played)

    def award(spot: tuple[str, int]) -> float:
        """A place's points, players tied at it sharing the average of the places they fill."""
        _, place = spot
        return sum(scale[place - 1 : place - 1 + sharing[spot]]) / sharing[spot]

    expected = {p: sum(award(spot) for spot in played) for p, played in places.items()}
    assert got == pytest.approx(expected, abs=0.01)
    assert [s["points"] for s in ranked["standings"]] == sorted(got.values(), reverse=True)


def test_the_export_holds_every_variant_and_its_totals_are_the_game_standings(sample, exported):
    for table in ("player_rounds", "rounds", "standings"):
        variants = _sql(
            exported, table, "SELECT DISTINCT variant FROM TABLE WHERE variant IS NOT NULL"
        )
        assert {v for (v,) in variants} == set(SEASON_VARIANTS), table
    for variant, game in GAMES.items():
        shown = cli("game", "standings", game, "--db", sample, "--json")["standings"]
        expected = sorted((s["player_id"], s["total"]) for s in shown)
        for table, query in TOTALS.items():
            assert _sql(exported, table, query, game) == expected, (variant, table)


def test_anticipation_rows_have_the_common_group_and_no_top(sample, exported):
    game = GAMES["anticipation"]
    rounds = _sql(
        exported, "rounds",
        "SELECT round, rack, top_move, top_score, found_top FROM TABLE WHERE game_id = ? "
        "ORDER BY round", game,
    )  # fmt: skip
    assert len(rounds) == 14
    for number, rack, top_move, top_score, found_top in rounds:
        drawn = cli("game", "results", game, "--round", str(number), "--db", sample, "--json")
        assert rack == drawn["drawn"] and len(rack) == 7
        assert (top_move, top_score, found_top) == (None, None, 0)
    (rows,) = _sql(
        exported, "player_rounds",
        "SELECT count(*) FROM TABLE WHERE game_id = ? AND (top_score IS NOT NULL "
        "OR pct_of_top IS NOT NULL OR solo)", game,
    )  # fmt: skip
    assert rows == (0,)


def test_exported_moves_are_in_canonical_notation_not_as_written(sample, exported):
    """`move` and `top_move` are the moves read, without the player's round prefix or claimed
    score (which stay in `submission`, as written)."""
    written = _sql(
        exported, "player_rounds",
        "SELECT submission, move FROM TABLE WHERE move IS NOT NULL "
        "AND (submission LIKE '% = %' OR submission LIKE 'P%-T% - %')",
    )  # fmt: skip
    assert written, "the sample season has slips with a claimed score or a round prefix"
    assert all(" = " not in move and " - " not in move for _, move in written)
    game = GAMES["duplicate"]
    tops = _sql(
        exported, "rounds", "SELECT round, top_move FROM TABLE WHERE game_id = ? ORDER BY round",
        game,
    )  # fmt: skip
    for number, top_move in tops:
        shown = cli("game", "results", game, "--round", str(number), "--db", sample, "--json")
        assert top_move == shown["top"]["move"]
        assert " = " not in top_move and not top_move.startswith("P")


FORMS = {
    "a lower-case coordinate": r"^(?:[a-o]\d{1,2}|\d{1,2}[a-o])\b",
    "a coordinate without the colon (H8 VARA)": r"^(?:[A-Oa-o]\d{1,2}|\d{1,2}[A-Oa-o]) \S",
    "a claim without the p (= 52)": r"= \d+$",
    "a claim in words (52 puncte)": r"\d+ puncte$",
    "a claim in brackets ((52 p))": r"\(\d+ p\)$",
    "a diacritic": r"[ĂÂÎȘȚ]",
    "a joker for a letter with no tile (K, Q, W, Y)": r"\([KQWY]\)|: \S*[kqwy]",
    "the chosen letter after the word (+X)": r"\+[A-Z]\b",
    "the stock's joker chosen in place ([(X)])": r"\[\([A-Z]\)\]",
}
"""Notation forms of RULES 1 and 3 and how the simulated players write them."""


def test_the_sample_season_holds_every_notation_form_and_revoked_decision_it_plays(sample):
    """What the simulation plays besides the plain cases: each notation form, every kind of
    decision revoked, rule b, the stock's joker, a joker for O in anticipation, a late
    replacement, slips recorded out of arrival order and games with their own settings."""
    with EventStore(sample) as store:
        events = store.read_all()
        by_id = {e.event_id: e for e in events}
        texts = [e.payload["text"] for e in events if e.type == "SubmissionReceived"]
        for form, pattern in FORMS.items():
            assert any(re.search(pattern, t) for t in texts), form
        anticipation = [
            e.payload["text"] for e in events
            if e.type in ("SubmissionReceived", "ReplacementDeclared")
            and e.stream.startswith("game/oi26")
        ]  # fmt: skip
        assert any("(O)" in t for t in anticipation)
        revoked = {by_id[e.payload["event_id"]].type for e in events if e.type == "DecisionRevoked"}
        assert revoked == {"SubmissionAnnulled", "PenaltyGiven", "SubmissionCorrected", "TopChosen"}
        settings = [e.payload.get("settings", {}) for e in events if e.type == "GameCreated"]
        assert {"top_source": "computer"} in settings
        assert any(s.get("draw_minimums") == "fisf" and s.get("solo_bonus") == 20 for s in settings)
        out_of_order = late_replacement = rule_b = 0
        for t in read_tournaments(store):
            for game_id in t.games:
                game = load_game(store, game_id)
                state = game.state
                times = [
                    (e.payload["round"], e.meta["received_at"]) for e in game.stored
                    if e.type == "SubmissionReceived"
                ]  # fmt: skip
                out_of_order += any(a > b for a, b in pairwise(times))
                for rnd in state.rounds:
                    for player in round_results(state, rnd.number).players:
                        replaced = player.replacement
                        late_replacement += replaced is not None and replaced.code == "late"
                        rule_b += player.code == "completiv_letter_not_in_stock"
    assert out_of_order and late_replacement and rule_b
