"""One id, one stream: an opening event names its own stream's id. `ledger import` and `game
create` refuse a second stream claiming a game or tournament id (naming the line, writing
nothing); a ledger of an older version that holds one (written here straight through
`EventStore.append`, which does not ask) is read by recompute, export and the standings with
the misnamed streams left out and named, exit 1, and the good games' rows as without them
(SQLite and PostgreSQL, through the real CLI)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pytest
import sqlalchemy as sa
from game_cli_helpers import PLAYERS, cli, runner

from engine.games import commands as cmd
from ledger import EventStore, NewEvent, import_events
from pipelines.cli.arbitru import app
from pipelines.games.service import ServiceError, execute
from pipelines.season import parquet_schemas as schemas
from pipelines.season import readmodels as rm

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
GAME = "cb26-p1"
TOURNAMENT = "cupa-bucuresti-2026"

GAME_G1 = {"stream": "game/g1", "type": "GameCreated",
           "payload": {"game_id": "g1", "variant": "duplicate"}}  # fmt: skip
TOURNAMENT_T1 = {"stream": "tournament/t1", "type": "TournamentCreated",
                 "payload": {"tournament_id": "t1", "name": "Cupa", "season": "2026"}}  # fmt: skip


def _claiming(line: dict[str, Any], stream: str) -> dict[str, Any]:
    """The same opening event put on another stream, still naming the first one's id."""
    return {**line, "stream": stream}


def _file(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _import(path: Path, db_url: str, code: int) -> dict[str, Any]:
    result = runner.invoke(app, ["ledger", "import", str(path), "--db", db_url, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def _events(db_url: str) -> int:
    with EventStore(db_url) as store:
        return store.head().seq


@pytest.mark.parametrize(
    ("lines", "line", "named"),
    [
        ([_claiming(GAME_G1, "game/g2")], 1, "'g1', not 'g2'"),
        ([GAME_G1, _claiming(GAME_G1, "game/g2")], 2, "'g1', not 'g2'"),
        ([TOURNAMENT_T1, _claiming(TOURNAMENT_T1, "tournament/t2")], 2, "'t1', not 't2'"),
    ],
    ids=["game-id-not-its-stream", "two-game-streams-one-id", "two-tournament-streams-one-id"],
)
def test_import_refuses_an_opening_event_naming_another_stream_by_line(
    db_url: str, tmp_path: Path, lines: list[dict[str, Any]], line: int, named: str
) -> None:
    report = _import(_file(tmp_path / "claims.jsonl", lines), db_url, code=1)
    (error,) = report["errors"]
    assert error["line"] == line
    assert named in error["problems"][0] and "one id is one stream" in error["problems"][0]
    assert report["imported"] == 0 and _events(db_url) == 0


def test_the_ledger_itself_refuses_an_import_naming_another_stream(db_url: str) -> None:
    """The rule is the catalogue's (which field names the stream), not the pipelines' payload
    check: an import without that check refuses the line too."""
    line = json.dumps(_claiming(TOURNAMENT_T1, "tournament/t2")) + "\n"
    with EventStore(db_url) as store:
        report = import_events(store, io.BytesIO(line.encode()))
        assert [e.line for e in report.errors] == [1]
        assert "names tournament_id 't1', not 't2'" in report.errors[0].problems[0]
        assert store.head().seq == 0


@pytest.mark.parametrize("first", [GAME_G1, TOURNAMENT_T1], ids=["game", "tournament"])
def test_import_refuses_a_second_stream_claiming_an_id_the_ledger_holds(
    db_url: str, tmp_path: Path, first: dict[str, Any]
) -> None:
    _import(_file(tmp_path / "first.jsonl", [first]), db_url, code=0)
    kind = first["stream"].split("/")[0]
    second = _claiming(first, f"{kind}/other")
    report = _import(_file(tmp_path / "second.jsonl", [second]), db_url, code=1)
    assert report["errors"][0]["line"] == 1
    assert f"on {kind}/other names" in report["errors"][0]["problems"][0]
    assert _events(db_url) == 1


def test_game_create_of_an_existing_id_is_refused(db_url: str) -> None:
    cli("game", "create", "g1", "--variant", "duplicate", *PLAYERS, "--db", db_url, "--json")
    result = runner.invoke(app, ["game", "create", "g1", "--variant", "duplicate", *PLAYERS,
                                 "--db", db_url])  # fmt: skip
    assert result.exit_code == 1
    assert "game g1 already exists" in result.stderr
    assert _events(db_url) == 1 + len(PLAYERS) // 2


def test_game_create_of_an_id_an_older_stream_claims_is_refused(db_url: str) -> None:
    with EventStore(db_url) as store:
        store.append("game/old", [NewEvent("GameCreated", GAME_G1["payload"])])
    result = runner.invoke(app, ["game", "create", "g1", "--variant", "duplicate", *PLAYERS,
                                 "--db", db_url])  # fmt: skip
    assert result.exit_code == 1
    assert "game/old already claims the id g1" in " ".join(result.stderr.split())
    assert _events(db_url) == 1


def test_the_service_refuses_to_open_a_stream_with_another_games_id(db_url: str) -> None:
    create = cmd.CreateGame(game_id="g1", variant="duplicate", players=())
    with EventStore(db_url) as store:
        with pytest.raises(ServiceError, match="GameCreated on game/g2 names game_id 'g1'"):
            execute(store, "g2", [create])
        assert store.head().seq == 0


def _older_ledger(url: str) -> str:
    """The fixture's tournament and game, and what an older Arbitru let in: game/imposter, a
    copy of the game whose GameCreated still names it (and the tournament listing it too), and
    tournament/twin whose TournamentCreated names the tournament's id."""
    cli("ledger", "import", str(FIXTURE), "--db", url, "--json")
    lines = [json.loads(raw) for raw in FIXTURE.read_text(encoding="utf-8").splitlines()]
    with EventStore(url) as store:
        copied = [NewEvent(e["type"], e["payload"], e["meta"]) for e in lines
                  if e["stream"] == f"game/{GAME}"]  # fmt: skip
        store.append("game/imposter", copied)
        (created,) = [e for e in lines if e["type"] == "TournamentCreated"]
        store.append("tournament/twin", [NewEvent("TournamentCreated", created["payload"])])
        store.append(f"tournament/{TOURNAMENT}", [NewEvent("GameAdded", {"game_id": "imposter"})])
    return url


@pytest.fixture(scope="module")
def clean(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fixture alone in a SQLite ledger: what the good game's rows must be."""
    url = f"sqlite:///{tmp_path_factory.mktemp('clean') / 'ledger.db'}"
    cli("ledger", "import", str(FIXTURE), "--db", url, "--json")
    return url


def _run(*args: str, code: int) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def _read_models(url: str) -> dict[str, list[tuple]]:
    with EventStore(url) as store, store.engine.connect() as connection:
        return {
            name: sorted(tuple(row) for row in connection.execute(sa.select(table)))
            for name, table in rm.ROW_TABLES.items()
        }


def test_recompute_leaves_out_a_game_naming_another_and_names_it(db_url: str, clean: str) -> None:
    summary = _run("recompute", "--db", _older_ledger(db_url), code=1)
    (problem,) = summary["problems"]
    assert problem["game_id"] == "imposter"
    assert "GameCreated on game/imposter names game_id 'cb26-p1'" in problem["problem"]
    _run("recompute", "--db", clean, code=0)
    assert _read_models(db_url) == _read_models(clean)


def test_recompute_prints_one_line_naming_the_stream_left_out(db_url: str) -> None:
    result = runner.invoke(app, ["recompute", "--db", _older_ledger(db_url)])
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("game imposter has no rows: GameCreated on game/imposter")


def _rows(out: Path) -> dict[str, list[dict[str, Any]]]:
    partitioning = ds.partitioning(schemas.PARTITIONING, flavor="hive")
    return {
        table: sorted(
            ds.dataset(out / table, format="parquet", partitioning=partitioning)
            .to_table()
            .to_pylist(),
            key=repr,
        )
        for table in ("player_rounds", "rounds", "standings")
    }


@pytest.mark.parametrize("recomputed", [False, True], ids=["replayed", "read-models"])
def test_export_leaves_out_the_misnamed_streams_and_keeps_the_good_games_rows(
    db_url: str, clean: str, tmp_path: Path, recomputed: bool
) -> None:
    older = _older_ledger(db_url)
    if recomputed:
        _run("recompute", "--db", older, code=1)
    report = _run("export", "--out", str(tmp_path / "older"), "--db", older, code=1)
    assert [m["stream"] for m in report["left_out"]] == ["game/imposter", "tournament/twin"]
    assert (
        "names tournament_id 'cupa-bucuresti-2026', not 'twin'" in report["left_out"][1]["problem"]
    )
    _run("export", "--out", str(tmp_path / "clean"), "--db", clean, code=0)
    assert _rows(tmp_path / "older") == _rows(tmp_path / "clean")
    manifest = json.loads((tmp_path / "older" / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["left_out"] == report["left_out"]
    assert [g["game_id"] for g in manifest["games"]] == [GAME]


def test_export_prints_one_line_for_each_stream_left_out(db_url: str, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["export", "--out", str(tmp_path / "out"), "--db", _older_ledger(db_url)]
    )
    assert result.exit_code == 1
    assert [line.split(":")[0] for line in result.stderr.splitlines()] == [
        "left out game/imposter",
        "left out tournament/twin",
    ]


def test_tournament_standings_leave_out_the_misnamed_streams_and_name_them(
    db_url: str, clean: str
) -> None:
    older = _older_ledger(db_url)
    report = _run("tournament", "standings", TOURNAMENT, "--db", older, code=1)
    assert [m["stream"] for m in report["left_out"]] == ["game/imposter", "tournament/twin"]
    expected = _run("tournament", "standings", TOURNAMENT, "--db", clean, code=0)
    assert report["standings"] == expected["standings"]
    assert expected["left_out"] == []


def test_tournament_standings_of_a_misnamed_stream_say_why_it_is_not_found(db_url: str) -> None:
    result = runner.invoke(app, ["tournament", "standings", "twin", "--db", _older_ledger(db_url)])
    assert result.exit_code == 2
    message = " ".join(result.stderr.split())
    assert "no tournament twin in this ledger" in message
    assert "tournament/twin is left out: TournamentCreated on tournament/twin" in message


def test_season_standings_leave_out_the_misnamed_streams_and_name_them(
    db_url: str, clean: str
) -> None:
    report = _run("season", "standings", "--db", _older_ledger(db_url), code=1)
    assert [m["stream"] for m in report["left_out"]] == ["game/imposter", "tournament/twin"]
    assert report["tournaments"] == [TOURNAMENT]
    expected = _run("season", "standings", "--db", clean, code=0)
    assert report["standings"] == expected["standings"]


def test_export_credits_no_row_an_older_recompute_filed_under_the_id_a_stream_named(
    db_url: str, clean: str, tmp_path: Path
) -> None:
    """An older recompute filed the rows of game/stray, whose GameCreated says game ghost, under
    ghost: fresh read models or not, the export leaves them out."""
    cli("ledger", "import", str(FIXTURE), "--db", db_url, "--json")
    lines = [json.loads(raw) for raw in FIXTURE.read_text(encoding="utf-8").splitlines()]
    copied = [
        NewEvent(e["type"], {**e["payload"], "game_id": "ghost"} if e["type"] == "GameCreated"
                 else e["payload"], e["meta"])
        for e in lines
        if e["stream"] == f"game/{GAME}"
    ]  # fmt: skip
    with EventStore(db_url) as store:
        store.append("game/stray", copied)
    _run("recompute", "--db", db_url, code=1)
    with EventStore(db_url) as store, store.engine.begin() as connection:
        for table in rm.ROW_TABLES.values():
            rows = connection.execute(sa.select(table).where(table.c.game_id == GAME)).all()
            ghosts = [{**row._asdict(), "game_id": "ghost"} for row in rows]
            connection.execute(table.insert(), ghosts)
    report = _run("export", "--out", str(tmp_path / "older"), "--db", db_url, code=1)
    assert report["rows_from"] == "read models"
    assert [m["stream"] for m in report["left_out"]] == ["game/stray"]
    _run("export", "--out", str(tmp_path / "clean"), "--db", clean, code=0)
    assert _rows(tmp_path / "older") == _rows(tmp_path / "clean")


def test_import_refuses_a_new_stream_of_an_id_an_older_stream_claims(
    db_url: str, tmp_path: Path
) -> None:
    """game/old2's GameCreated (an older Arbitru's) names new1: game/new1 would be a second
    stream of that id, refused as `game create new1` refuses it."""
    with EventStore(db_url) as store:
        store.append("game/old2", [NewEvent("GameCreated", {"game_id": "new1",
                                                            "variant": "duplicate"})])  # fmt: skip
    new1 = {"stream": "game/new1", "type": "GameCreated",
            "payload": {"game_id": "new1", "variant": "duplicate"}}  # fmt: skip
    report = _import(_file(tmp_path / "new1.jsonl", [GAME_G1, new1]), db_url, code=1)
    (error,) = report["errors"]
    assert error["line"] == 2
    assert "game/old2 already claims the id new1" in error["problems"][0]
    assert _events(db_url) == 1


def _claiming_ledger(url: str) -> str:
    """The fixture, and game/cb26-p9 of an older Arbitru: a copy of the game whose GameCreated
    still names cb26-p1, which the tournament does not list."""
    cli("ledger", "import", str(FIXTURE), "--db", url, "--json")
    lines = [json.loads(raw) for raw in FIXTURE.read_text(encoding="utf-8").splitlines()]
    with EventStore(url) as store:
        copied = [NewEvent(e["type"], e["payload"], e["meta"]) for e in lines
                  if e["stream"] == f"game/{GAME}"]  # fmt: skip
        store.append("game/cb26-p9", copied)
    return url


@pytest.mark.parametrize(
    "command",
    [
        ("tournament", "standings", TOURNAMENT),
        ("tournament", "table", TOURNAMENT),
        ("season", "standings"),
    ],
    ids=["tournament-standings", "tournament-table", "season-standings"],
)
def test_the_standings_name_a_stream_claiming_one_of_the_tournaments_games(
    db_url: str, command: tuple[str, ...]
) -> None:
    report = _run(*command, "--db", _claiming_ledger(db_url), code=1)
    assert [m["stream"] for m in report["left_out"]] == ["game/cb26-p9"]
    assert "names game_id 'cb26-p1', not 'cb26-p9'" in report["left_out"][0]["problem"]
