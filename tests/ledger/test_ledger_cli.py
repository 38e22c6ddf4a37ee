"""The `arbitru ledger` and `arbitru db` commands, through Typer's CliRunner as users run them,
and once through the real console script."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ledger_helpers import game_created, rack
from typer.testing import CliRunner

from ledger import EventStore, verify_file
from pipelines.cli.arbitru import app

runner = CliRunner()

GOOD_LINES = [
    {"stream": "tournament/t1", "type": "TournamentCreated",
     "payload": {"tournament_id": "t1", "name": "Cupa", "season": "2026"}},
    {"stream": "game/g1", "type": "GameCreated",
     "payload": {"game_id": "g1", "variant": "duplicate", "tournament_id": "t1"},
     "meta": {"actor": "arbitru-ana"}},
    {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": 1, "drawn": "ĂEIR?"},
     "version": 2},
    {"stream": "tournament/t1", "type": "GameAdded", "payload": {"game_id": "g1"},
     "event_id": "6f1c8a52-3d4e-4b7a-9c1d-2e3f4a5b6c7d"},
]  # fmt: skip


def _write_lines(path: Path, lines: list[object]) -> Path:
    path.write_text(
        "".join(
            (x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)) + "\n" for x in lines
        ),
        encoding="utf-8",
    )
    return path


def _invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


def test_import_writes_every_line_and_reports_counts(db_url: str, tmp_path: Path) -> None:
    source = _write_lines(tmp_path / "in.jsonl", GOOD_LINES)
    result = _invoke("ledger", "import", str(source), "--db", db_url, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["ok"], report["imported"], report["skipped"]) == (True, 4, 0)
    assert report["head"]["seq"] == 4
    with EventStore(db_url) as store:
        assert [e.type for e in store.read_all()] == [line["type"] for line in GOOD_LINES]


def test_import_reports_every_bad_line_by_number_and_writes_nothing(
    sqlite_url: str, tmp_path: Path
) -> None:
    source = _write_lines(
        tmp_path / "bad.jsonl",
        [
            GOOD_LINES[0],
            "{not json",
            {"stream": "game/g1", "type": "RackDrawn", "payload": {"round": 1.5, "drawn": "A"}},
            {"stream": "Game/X", "type": "Nope", "payload": []},
            {"stream": "game/g1", "type": "GameCreated", "payload": {}, "colour": "red"},
            "[1, 2]",
        ],
    )
    result = _invoke("ledger", "import", str(source), "--db", sqlite_url, "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert [e["line"] for e in report["errors"]] == [2, 3, 4, 5, 6]
    problems = {e["line"]: " ".join(e["problems"]) for e in report["errors"]}
    assert "not valid JSON" in problems[2]
    assert "payload.round" in problems[3]
    assert "Game/X" in problems[4] and "Nope" in problems[4] and "payload" in problems[4]
    assert "colour" in problems[5]
    with EventStore(sqlite_url) as store:
        assert store.head().seq == 0


def test_import_rejects_the_whole_file_when_a_line_breaks_a_stream(
    sqlite_url: str, tmp_path: Path
) -> None:
    lines = [GOOD_LINES[1], {**GOOD_LINES[2], "version": 5}, GOOD_LINES[0]]
    source = _write_lines(tmp_path / "in.jsonl", lines)
    result = _invoke("ledger", "import", str(source), "--db", sqlite_url)
    assert result.exit_code == 1
    assert "2" in result.stderr and "version" in result.stderr
    with EventStore(sqlite_url) as store:
        assert store.head().seq == 0


def test_import_skips_events_already_stored(sqlite_url: str, tmp_path: Path) -> None:
    opening = {**GOOD_LINES[0], "event_id": "0b6f9a1e-7c2d-4e5f-8a9b-1c2d3e4f5a6b"}
    first = _write_lines(tmp_path / "first.jsonl", [opening, GOOD_LINES[3]])
    assert _invoke("ledger", "import", str(first), "--db", sqlite_url).exit_code == 0
    player = {"stream": "tournament/t1", "type": "PlayerRegistered",
              "payload": {"player_id": "p1", "name": "Ana"}}  # fmt: skip
    second = _write_lines(tmp_path / "second.jsonl", [opening, GOOD_LINES[3], player])
    again = _invoke("ledger", "import", str(second), "--db", sqlite_url, "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert (report["imported"], report["skipped"]) == (1, 2)
    assert report["head"]["seq"] == 3
    human = _invoke("ledger", "import", str(second), "--db", sqlite_url)
    assert "skipped 2" in human.stdout


def test_export_then_import_into_an_empty_ledger_reproduces_the_head(
    db_url: str, tmp_path: Path
) -> None:
    source = _write_lines(tmp_path / "in.jsonl", GOOD_LINES)
    assert _invoke("ledger", "import", str(source), "--db", db_url).exit_code == 0
    exported = _invoke("ledger", "export", "--db", db_url)
    assert exported.exit_code == 0
    export = tmp_path / "export.jsonl"
    export.write_bytes(exported.stdout_bytes)
    fields = json.loads(exported.stdout.splitlines()[0])
    assert set(fields) == {
        "seq", "event_id", "stream", "version", "type", "schema",
        "payload", "meta", "recorded_at", "prev_hash", "hash",
    }  # fmt: skip
    copy = f"sqlite:///{tmp_path / 'copy.db'}"
    restored = _invoke(
        "ledger", "import", str(export), "--db", copy, "--require-same-hashes", "--json"
    )
    assert restored.exit_code == 0, restored.output
    original_head = json.loads(_invoke("ledger", "head", "--db", db_url, "--json").stdout)
    copy_head = json.loads(_invoke("ledger", "head", "--db", copy, "--json").stdout)
    assert copy_head == original_head
    assert original_head["seq"] == 4


def test_import_into_a_non_empty_ledger_warns_of_hash_differences(
    sqlite_url: str, tmp_path: Path
) -> None:
    with EventStore(sqlite_url) as store:  # recorded before the events merged into it
        store.append("game/other", [game_created("other")])
    first = f"sqlite:///{tmp_path / 'first.db'}"
    _invoke("ledger", "import", str(_write_lines(tmp_path / "a.jsonl", GOOD_LINES)), "--db", first)
    export = tmp_path / "export.jsonl"
    assert _invoke("ledger", "export", "--db", first, "--out", str(export)).exit_code == 0
    merged = _invoke("ledger", "import", str(export), "--db", sqlite_url, "--json")
    assert merged.exit_code == 0
    assert len(json.loads(merged.stdout)["hash_mismatches"]) == 4
    strict = _invoke("ledger", "import", str(export), "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert strict.exit_code == 0
    refused_db = f"sqlite:///{tmp_path / 'y.db'}"
    with EventStore(refused_db) as store:
        store.append("game/other", [game_created("other")])
    refused = _invoke("ledger", "import", str(export), "--db", refused_db, "--require-same-hashes")
    assert refused.exit_code == 1
    with EventStore(refused_db) as store:
        assert store.head().seq == 1


def test_export_of_one_stream_verifies_as_partial(sqlite_url: str, tmp_path: Path) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created()])
        store.append("game/g2", [game_created("g2")])
        store.append("game/g1", [rack(1)])
    out = tmp_path / "g1.jsonl"
    assert (
        _invoke(
            "ledger", "export", "--db", sqlite_url, "--stream", "game/g1", "--out", str(out)
        ).exit_code
        == 0
    )
    assert [json.loads(x)["seq"] for x in out.read_text().splitlines()] == [1, 3]
    assert _invoke("ledger", "verify", "--file", str(out), "--partial").exit_code == 0
    whole = _invoke("ledger", "verify", "--file", str(out), "--json")
    assert whole.exit_code == 1
    assert json.loads(whole.stdout)["first_broken_seq"] == 3


def _export_file(tmp_path: Path, db: str) -> Path:
    with EventStore(db) as store:
        store.append("game/g1", [game_created(), rack(1), rack(2, meta={"note": "Ș"}), rack(3)])
    out = tmp_path / "export.jsonl"
    assert _invoke("ledger", "export", "--db", db, "--out", str(out)).exit_code == 0
    return out


def test_verify_file_passes_on_an_untouched_export(sqlite_url: str, tmp_path: Path) -> None:
    out = _export_file(tmp_path, sqlite_url)
    result = _invoke("ledger", "verify", "--file", str(out), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert (report["ok"], report["checked"], report["first_broken_seq"]) == (True, 4, None)
    head = json.loads(_invoke("ledger", "head", "--db", sqlite_url, "--json").stdout)
    assert (report["last_seq"], report["last_hash"]) == (head["seq"], head["hash"])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b'"drawn":"AEIR?"', b'"drawn":"AEIS?"'),
        (b'"round":2', b'"round":7'),
        (b',"seq":3,', b',"seq":3 ,'),
    ],
)
def test_verify_file_names_the_seq_of_a_changed_byte(
    sqlite_url: str, tmp_path: Path, old: bytes, new: bytes
) -> None:
    out = _export_file(tmp_path, sqlite_url)
    lines = out.read_bytes().splitlines(keepends=True)
    target = next(i for i, line in enumerate(lines) if b',"seq":3,' in line)
    assert old in lines[target]
    lines[target] = lines[target].replace(old, new, 1)
    out.write_bytes(b"".join(lines))
    result = _invoke("ledger", "verify", "--file", str(out), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["first_broken_seq"] == 3
    assert report["line"] == target + 1
    human = _invoke("ledger", "verify", "--file", str(out))
    assert human.exit_code == 1 and "seq 3" in human.stdout


def test_every_single_byte_change_of_an_export_is_caught(sqlite_url: str, tmp_path: Path) -> None:
    out = _export_file(tmp_path, sqlite_url)
    data = out.read_bytes()
    for position in range(len(data)):
        changed = bytearray(data)
        changed[position] = (changed[position] + 1) % 256
        assert not verify_file(io.BytesIO(bytes(changed))).ok, position


def test_verify_of_a_tampered_database_exits_1_naming_the_seq(db_url: str, tmp_path: Path) -> None:
    with EventStore(db_url) as store:
        store.append("game/g1", [game_created(), rack(1)])
        with store.engine.begin() as connection:
            if store.engine.dialect.name == "postgresql":
                connection.exec_driver_sql("DROP TRIGGER events_refuse_update_delete ON events")
            else:
                connection.exec_driver_sql("DROP TRIGGER events_refuse_update")
            connection.exec_driver_sql("UPDATE events SET stream = 'game/g9' WHERE seq = 2")
    result = _invoke("ledger", "verify", "--db", db_url, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["first_broken_seq"] == 2
    assert _invoke("ledger", "verify", "--db", db_url).stdout.count("seq 2") >= 1


def test_head_of_an_empty_ledger(sqlite_url: str) -> None:
    assert _invoke("db", "upgrade", "--db", sqlite_url).exit_code == 0
    result = _invoke("ledger", "head", "--db", sqlite_url, "--json")
    assert json.loads(result.stdout) == {"seq": 0, "hash": "0" * 64}


def test_the_database_comes_from_arbitru_db_when_no_option_is_given(
    sqlite_url: str,
) -> None:
    with EventStore(sqlite_url) as store:
        store.append("game/g1", [game_created()])
    result = _invoke("ledger", "head", "--json", env={"ARBITRU_DB": sqlite_url})
    assert json.loads(result.stdout)["seq"] == 1


def test_db_upgrade_creates_then_reports_current(sqlite_url: str) -> None:
    first = _invoke("db", "upgrade", "--db", sqlite_url, "--json")
    assert first.exit_code == 0
    assert json.loads(first.stdout)["from"] is None
    second = json.loads(_invoke("db", "upgrade", "--db", sqlite_url, "--json").stdout)
    assert second["from"] == second["to"] is not None


def test_a_bad_url_is_an_error_that_says_what_to_write(tmp_path: Path) -> None:
    result = _invoke("ledger", "head", "--db", "not a url")
    assert result.exit_code == 2
    assert "not a database URL" in result.stderr and "sqlite:///" in result.stderr
    unsupported = _invoke("ledger", "head", "--db", "mysql://x@localhost/db")
    assert unsupported.exit_code == 2 and "unsupported database" in unsupported.stderr


def test_an_unreachable_server_is_an_error_that_says_what_to_check() -> None:
    result = _invoke("ledger", "head", "--db", "postgresql+psycopg://postgres@127.0.0.1:1/none")
    assert result.exit_code == 2
    assert "cannot open the database" in result.stderr
    assert "ARBITRU_DB" in result.stderr


def test_a_sqlite_file_in_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    result = _invoke("ledger", "head", "--db", f"sqlite:///{tmp_path / 'no' / 'x.db'}")
    assert result.exit_code == 2 and "does not exist" in result.stderr


def test_a_file_that_is_not_a_database_is_an_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    result = _invoke("ledger", "head", "--db", f"sqlite:///{junk}")
    assert result.exit_code == 2 and "not" in result.stderr


def test_a_missing_import_file_is_an_error(sqlite_url: str, tmp_path: Path) -> None:
    result = _invoke("ledger", "import", str(tmp_path / "absent.jsonl"), "--db", sqlite_url)
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_the_console_script_imports_exports_and_verifies(tmp_path: Path) -> None:
    beside = Path(sys.executable).with_name("arbitru")
    script = str(beside) if beside.is_file() else shutil.which("arbitru")
    assert script, "the arbitru console script is not installed"
    source = _write_lines(tmp_path / "in.jsonl", GOOD_LINES)
    env = {**os.environ, "ARBITRU_DB": f"sqlite:///{tmp_path / 'cli.db'}"}

    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [script, *args], cwd=tmp_path, env=env, capture_output=True, timeout=60
        )

    assert run("ledger", "import", str(source)).returncode == 0
    exported = run("ledger", "export")
    assert exported.returncode == 0 and exported.stdout.count(b"\n") == 4
    (tmp_path / "out.jsonl").write_bytes(exported.stdout)
    verified = run("ledger", "verify", "--file", "out.jsonl", "--json")
    assert verified.returncode == 0, verified.stderr
    head = json.loads(run("ledger", "head", "--json").stdout)
    assert json.loads(verified.stdout)["last_hash"] == head["hash"]
    assert run("ledger", "verify").returncode == 0


def test_import_reads_standard_input_when_the_file_is_a_dash(sqlite_url: str) -> None:
    text = "".join(json.dumps(line) + "\n" for line in GOOD_LINES)
    result = runner.invoke(app, ["ledger", "import", "-", "--db", sqlite_url], input=text)
    assert result.exit_code == 0, result.output
    with EventStore(sqlite_url) as store:
        assert store.head().seq == 4


def test_import_names_the_line_that_reuses_a_stored_event_id_for_another_event(
    sqlite_url: str, tmp_path: Path
) -> None:
    first = _write_lines(tmp_path / "first.jsonl", [GOOD_LINES[0], GOOD_LINES[3]])
    assert _invoke("ledger", "import", str(first), "--db", sqlite_url).exit_code == 0
    reused = {**GOOD_LINES[3], "payload": {"game_id": "g2"}}
    second = _write_lines(tmp_path / "second.jsonl", [GOOD_LINES[1], reused])
    result = _invoke("ledger", "import", str(second), "--db", sqlite_url, "--json")
    assert result.exit_code == 1
    (error,) = json.loads(result.stdout)["errors"]
    assert error["line"] == 2 and "payload" in error["problems"][0]
    with EventStore(sqlite_url) as store:
        assert store.head().seq == 2
