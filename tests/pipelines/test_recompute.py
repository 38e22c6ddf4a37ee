"""`arbitru recompute`: the read models rebuilt from the ledger agree with `game standings`, a
second run with nothing new does no work, `--follow` replays only the games with new events, a
run killed midway leaves the previous read models intact, `--rebuild` restores tampered rows,
worker processes give the rows one process gives and die with a recompute killed with
SIGKILL, and --workers is bounded (SQLite and PostgreSQL)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from game_cli_helpers import cli, runner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import EventStore, NewEvent
from pipelines.cli.arbitru import app
from pipelines.season import readmodels as rm

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
GAME, OTHER = "cb26-p1", "cb26-p2"
LAST_ROUND = 22


def _copy_of_game(game_id: str, dictionary_sha256: str | None = None) -> str:
    """The fixture's game as another game of the same tournament, its last round still open
    (so that a penalty counts): every event id renamed (references to them too), versions
    and chain left to the import."""
    lines = []
    renamed: dict[str, str] = {}
    for raw in FIXTURE.read_text(encoding="utf-8").splitlines():
        event = json.loads(raw)
        if event["stream"] != f"game/{GAME}" or event["type"] in ("GameEnded", "SeedRevealed"):
            continue
        if event["type"] == "RoundClosed" and event["payload"]["round"] == LAST_ROUND:
            continue
        renamed[event["event_id"]] = str(
            uuid.uuid5(uuid.NAMESPACE_URL, game_id + event["event_id"])
        )
        payload = {
            key: renamed.get(value, value) if isinstance(value, str) else value
            for key, value in event["payload"].items()
        }
        if event["type"] == "GameCreated":
            payload["game_id"] = game_id
            if dictionary_sha256 is not None:
                payload["dictionary"] = {**payload["dictionary"], "sha256": dictionary_sha256}
        lines.append(
            json.dumps(
                {
                    "event_id": renamed[event["event_id"]],
                    "stream": f"game/{game_id}",
                    "type": event["type"],
                    "payload": payload,
                    "meta": event["meta"],
                }
            )
        )
    return "\n".join(lines) + "\n"


@pytest.fixture
def season(default_home: Path, db_url: str, tmp_path: Path) -> str:
    """A ledger with the fixture's tournament and two games of it."""
    cli("ledger", "import", str(FIXTURE), "--db", db_url, "--json")
    other = tmp_path / "other.jsonl"
    other.write_text(_copy_of_game(OTHER), encoding="utf-8")
    cli("ledger", "import", str(other), "--db", db_url, "--json")
    return db_url


def _rows(url: str) -> dict[str, list[tuple]]:
    """Every read-model table's rows, sorted (state included)."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as connection:
            return {
                table.name: sorted(
                    connection.execute(sa.select(table)).all(), key=lambda r: repr(tuple(r))
                )
                for table in rm.metadata.sorted_tables
            }
    finally:
        engine.dispose()


def _execute(url: str, sql: str) -> None:
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as connection:
            connection.execute(sa.text(sql))
    finally:
        engine.dispose()


def _penalty(url: str, game: str, points: int) -> None:
    with EventStore(url) as store:
        stream = f"game/{game}"
        store.append(
            stream,
            [
                NewEvent(
                    "PenaltyGiven",
                    {
                        "round": LAST_ROUND,
                        "player_id": "p01",
                        "points": points,
                        "reason": "vorbit în timpul rundei",
                    },
                )
            ],
            expected_version=store.stream_version(stream),
        )


def test_read_models_agree_with_game_standings(season: str) -> None:
    report = cli("recompute", "--db", season, "--json")
    assert report["games"] == 2 and report["rows"]["standings"] == 28
    assert report["previous_head"] is None and report["problems"] == []
    shown = cli("game", "standings", GAME, "--db", season, "--json")["standings"]
    stored = [
        (r.rank, r.player_id, r.total, r.solos)
        for r in sorted(_rows(season)["read_game_standings"], key=lambda r: r.rank)
        if r.game_id == GAME
    ]
    assert stored == [(s["rank"], s["player_id"], s["total"], s["solos"]) for s in shown]
    state = _rows(season)["read_models"]
    with EventStore(season) as store:
        assert [(s.seq, s.hash) for s in state] == [(store.head().seq, store.head().hash)]


def test_a_second_run_with_nothing_new_does_no_work(season: str) -> None:
    cli("recompute", "--db", season, "--json")
    before = _rows(season)
    again = cli("recompute", "--db", season, "--json")
    assert (again["games"], again["events"]) == (0, 0)
    assert _rows(season) == before
    assert "Nothing new" in cli("recompute", "--db", season).stdout


def test_follow_replays_only_the_games_with_new_events(season: str) -> None:
    cli("recompute", "--db", season, "--json")
    _execute(season, "UPDATE read_game_standings SET name = 'marked'")
    _penalty(season, OTHER, 7)
    report = cli("recompute", "--db", season, "--follow", "--json")
    assert report["games"] == 1
    names = {(r.game_id, r.name == "marked") for r in _rows(season)["read_game_standings"]}
    assert names == {(GAME, True), (OTHER, False)}
    totals = {
        r.game_id: r.total for r in _rows(season)["read_game_standings"] if r.player_id == "p01"
    }
    assert totals[OTHER] == totals[GAME] - 7


def test_a_plain_run_after_new_events_replays_every_game(season: str) -> None:
    cli("recompute", "--db", season, "--json")
    _penalty(season, OTHER, 7)
    assert cli("recompute", "--db", season, "--json")["games"] == 2


def test_a_selection_replays_only_its_games(season: str) -> None:
    assert cli("recompute", "--db", season, "--game", OTHER, "--json")["games"] == 1
    assert {r.game_id for r in _rows(season)["read_games"]} == {OTHER}
    unknown = cli("recompute", "--db", season, "--season", "1999", "--json", code=2)
    assert "no game of season 1999" in unknown.stderr
    report = cli("recompute", "--db", season, "--tournament", "cupa-bucuresti-2026", "--json")
    assert report["games"] == 2


def test_rebuild_restores_tampered_rows(season: str) -> None:
    cli("recompute", "--db", season, "--json")
    before = _rows(season)
    _execute(season, "UPDATE read_player_rounds SET score = score + 1000")
    _execute(season, "DELETE FROM read_rounds")
    assert cli("recompute", "--db", season, "--json")["games"] == 0
    assert cli("recompute", "--db", season, "--rebuild", "--json")["games"] == 2
    after = _rows(season)
    assert {k: v for k, v in after.items() if k != "read_models"} == {
        k: v for k, v in before.items() if k != "read_models"
    }


_KILLED_MIDWAY = """
import os, signal, sys
import pipelines.season.recompute as recompute
real = recompute._insert
def insert_then_die(connection, table, rows):
    real(connection, table, rows)
    os.kill(os.getpid(), signal.SIGKILL)
recompute._insert = insert_then_die
from pipelines.cli.arbitru import main
sys.argv = ["arbitru", "recompute", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("how", [["--rebuild"], [], ["--follow"]])
def test_a_recompute_killed_midway_leaves_the_previous_read_models(
    season: str, how: list[str]
) -> None:
    cli("recompute", "--db", season, "--json")
    before = _rows(season)
    _penalty(season, GAME, 5)
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_MIDWAY, "--db", season, "--json", *how],
        capture_output=True,
        timeout=300,
        env={**os.environ},
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert _rows(season) == before
    report = cli("recompute", "--db", season, "--json", *how)
    assert report["games"] == (1 if how == ["--follow"] else 2)
    assert _rows(season) != before


def test_worker_processes_give_the_rows_one_process_gives(season: str) -> None:
    cli("recompute", "--db", season, "--workers", "1", "--json")
    one = _rows(season)
    cli("recompute", "--db", season, "--workers", "2", "--rebuild", "--json")
    two = _rows(season)
    assert {k: v for k, v in one.items() if k != "read_models"} == {
        k: v for k, v in two.items() if k != "read_models"
    }


def test_options_that_contradict_each_other_are_refused(season: str) -> None:
    result = cli("recompute", "--db", season, "--game", GAME, "--season", "2026", code=2)
    assert "--season and --game" in result.stderr
    result = cli("recompute", "--db", season, "--rebuild", "--follow", code=2)
    assert "--rebuild" in result.stderr
    result = cli("recompute", "--db", season, "--game", "nope", code=2)
    assert "no game nope" in result.stderr


def test_a_mistyped_ledger_path_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    result = cli("recompute", "--db", f"sqlite:///{missing}", code=2)
    assert "no Arbitru ledger" in result.stderr
    assert not missing.exists()


def test_a_game_that_cannot_be_judged_is_named_and_the_others_are_recomputed(
    season: str, tmp_path: Path
) -> None:
    unknown = tmp_path / "unknown-list.jsonl"
    unknown.write_text(_copy_of_game("cb26-p3", "ab" * 32), encoding="utf-8")
    cli("ledger", "import", str(unknown), "--db", season, "--json")
    result = cli("recompute", "--db", season, code=1)
    assert "game cb26-p3 has no rows" in result.stderr
    assert "arbitru lexicon add" in result.stderr
    games = {r.game_id: r.problem for r in _rows(season)["read_games"]}
    assert games[GAME] is None and games[OTHER] is None and "ab" * 32 in games["cb26-p3"]
    assert {r.game_id for r in _rows(season)["read_game_standings"]} == {GAME, OTHER}


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cuts=st.lists(st.integers(min_value=20, max_value=411), min_size=1, max_size=3))
def test_following_the_ledger_slice_by_slice_equals_a_rebuild(
    default_home: Path, tmp_path_factory: pytest.TempPathFactory, cuts: list[int]
) -> None:
    """Replay equals incremental state: the read models after `--follow` runs between imports
    of successive slices of the sample file are those a rebuild from the whole ledger gives."""
    lines = FIXTURE.read_text(encoding="utf-8").splitlines(keepends=True)
    url = f"sqlite:///{tmp_path_factory.mktemp('slices') / 'ledger.db'}"
    folder = tmp_path_factory.mktemp("slice-files")
    bounds = [0, *sorted(set(cuts)), len(lines)]
    for n, (start, end) in enumerate(itertools.pairwise(bounds)):
        part = folder / f"part-{n}.jsonl"
        part.write_text("".join(lines[start:end]), encoding="utf-8")
        cli("ledger", "import", str(part), "--db", url, "--json")
        cli("recompute", "--db", url, "--follow", "--json")
    followed = _rows(url)
    cli("recompute", "--db", url, "--rebuild", "--json")
    rebuilt = _rows(url)
    assert {k: v for k, v in followed.items() if k != "read_models"} == {
        k: v for k, v in rebuilt.items() if k != "read_models"
    }
    assert followed["read_models"][0].seq == rebuilt["read_models"][0].seq == len(lines)


_WORKERS_HELD = """
import os, pathlib, sys, time
import pipelines.season.recompute as recompute
pids, watch_only = pathlib.Path(sys.argv[1]), sys.argv[2] == "watch"
recompute.GAMES_PER_TASK = 1  # two games: two tasks, two workers
if watch_only:
    recompute._kernel_kills_orphans = lambda: False
def held(batch, up_to_seq, verify=True):
    with pids.open("a") as out:
        out.write(f"{os.getpid()}\\n")
    time.sleep(600)
recompute._replay_batch = held
from pipelines.cli.arbitru import main
sys.argv = ["arbitru", "recompute", *sys.argv[3:]]
main()
"""


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def _connections(url: str) -> int:
    """Sessions open on a PostgreSQL test database (other than the one asking)."""
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain) as connection:
        return connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchone()[0]


def _until(condition, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["kernel", "watch"])
def test_workers_die_with_a_recompute_killed_with_sigkill(
    season: str, tmp_path: Path, how: str, paused
) -> None:
    """`kill -9` of a recompute ends its workers too (by the kernel on Linux, or by their
    watch thread), and on PostgreSQL none of their connections stays open."""
    pids = tmp_path / "pids"
    args = [sys.executable, "-c", _WORKERS_HELD, str(pids), how, "--db", season,
            "--workers", "2", "--json"]  # fmt: skip
    with paused(pids, "the workers never started", args, stderr=subprocess.PIPE) as parent:
        assert _until(lambda: len(pids.read_text().split()) == 2), "only one worker started"
        workers = [int(pid) for pid in pids.read_text().split()]
        assert all(_alive(pid) for pid in workers)
        if season.startswith("postgresql"):
            assert _connections(season) >= 2
        parent.kill()
        parent.wait(timeout=60)
        assert _until(lambda: not any(_alive(pid) for pid in workers)), "workers outlived it"
    if season.startswith("postgresql"):
        assert _until(lambda: _connections(season) == 0), "the workers' connections stayed"


@pytest.mark.parametrize("wanted", ["0", "-3", "100000"])
def test_an_absurd_number_of_workers_is_refused(season: str, wanted: str) -> None:
    result = cli("recompute", "--db", season, "--workers", wanted, code=2)
    assert f"--workers {wanted}: give between 1 and 64" in " ".join(result.stderr.split())
    assert cli("game", "standings", GAME, "--db", season, "--json")  # the ledger is untouched


def test_more_workers_than_the_work_can_use_are_capped_and_it_says_so(season: str) -> None:
    """Two games make one task: --workers 50 replays them in one process, and says why."""
    result = runner.invoke(app, ["recompute", "--db", season, "--workers", "50", "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 2
    said = " ".join(result.stderr.split())
    assert said.startswith("--workers 50: using 1 (2 game(s) to replay, 8 a task,"), said
