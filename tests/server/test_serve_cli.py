"""`arbitru serve` as an operator starts and stops it, through real processes: what keeps it
from starting is said once, before any worker starts, with the exit code of unusable input (2,
README "Exit codes"); SIGTERM stops it after answering what it was asked, keeping what it
wrote; and the server's libraries load only when it runs, never for a help."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import (
    arbitru_command,
    drop_pg_database,
    free_port,
    fresh_pg_database,
    start_server,
)

ROOT = Path(__file__).parents[2]
SERVER_LIBRARIES = ("fastapi", "uvicorn", "pydantic", "starlette")


def serve(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`arbitru serve ARGS` run to its end (a refusal ends it at once)."""
    return subprocess.run(
        [*arbitru_command(), "serve", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def said_once(done: subprocess.CompletedProcess) -> str:
    """The one error line of a refused start; nothing of a server having started."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "Started" not in done.stderr and "Uvicorn running" not in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    return lines[0]


def test_a_database_that_cannot_be_opened_is_said_once_before_any_worker_starts(tmp_path):
    db, name = fresh_pg_database()
    drop_pg_database(name)
    done = serve("--db", db, "--workers", "2", "--port", str(free_port()))
    assert done.returncode == 2
    assert said_once(done).startswith(f"error: cannot open the database {db}")


def test_a_sqlite_ledger_in_a_missing_folder_is_said_once(tmp_path):
    done = serve("--db", f"sqlite:///{tmp_path / 'no' / 'ledger.db'}", "--port", str(free_port()))
    assert done.returncode == 2
    assert "folder" in said_once(done) and "does not exist" in done.stderr


def test_more_than_one_worker_on_sqlite_is_refused_saying_why(tmp_path):
    done = serve("--db", f"sqlite:///{tmp_path / 'ledger.db'}", "--workers", "2")
    assert done.returncode == 2
    line = said_once(done)
    assert "--workers above 1 needs a PostgreSQL ledger" in line and "one process" in line
    assert not (tmp_path / "ledger.db").exists()


def test_a_port_in_use_is_said_in_one_line_not_as_a_start_up_failure(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("--db", f"sqlite:///{tmp_path / 'ledger.db'}", "--port", str(port))
    assert done.returncode == 2
    assert said_once(done) == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"


def test_a_host_that_is_not_an_address_is_said_in_one_line(tmp_path):
    done = serve("--db", f"sqlite:///{tmp_path / 'ledger.db'}", "--host", "no-such-host.invalid")
    assert done.returncode == 2
    assert said_once(done).startswith("error: --host 'no-such-host.invalid': not an address")


def test_a_log_level_uvicorn_does_not_know_is_refused(tmp_path):
    done = serve("--db", f"sqlite:///{tmp_path / 'ledger.db'}", "--log-level", "loud")
    assert done.returncode == 2
    assert "--log-level 'loud'" in said_once(done)


def _write_a_game(server) -> None:
    server.account("boss", "Boss", "admin")
    server.account("ana")
    server.account("bob")
    made = server.client("boss").post(
        "/games", json={"game_id": "kept", "variant": "duplicate", "players": ["ana", "bob"]}
    )
    assert made.status_code == 201, made.text


def _ledger_verifies(db: str) -> None:
    done = subprocess.run(
        [*arbitru_command(), "ledger", "verify", "--db", db, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_sigterm_stops_the_server_cleanly_keeping_what_it_wrote(tmp_path):
    db = f"sqlite:///{tmp_path / 'ledger.db'}"
    server = start_server(db, tmp_path / "server.log")
    try:
        _write_a_game(server)
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(30) == 0
    finally:
        server.stop()
    log = server.log.read_text()
    assert "Application shutdown complete" in log and "Traceback" not in log
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{server.base}/games/kept", timeout=2)
    _ledger_verifies(db)
    again = start_server(db, tmp_path / "again.log")
    try:
        players = httpx.get(f"{again.base}/games/kept", timeout=10).json()["players"]
        assert [player["player_id"] for player in players] == ["ana", "bob"]
    finally:
        again.stop()


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in found.read_text().split()] if found.exists() else []


def test_sigterm_stops_every_worker_on_postgresql(tmp_path):
    db, name = fresh_pg_database()
    try:
        server = start_server(db, tmp_path / "server.log", "--workers", "2")
        try:
            workers = _children(server.process.pid)
            assert len(workers) >= 2
            _write_a_game(server)
            server.process.send_signal(signal.SIGTERM)
            assert server.process.wait(30) == 0
        finally:
            server.stop()
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in workers):
            assert time.monotonic() < deadline, "a worker outlived the server"
            time.sleep(0.05)
        assert "Traceback" not in server.log.read_text()
        _ledger_verifies(db)
    finally:
        drop_pg_database(name)


def test_arbitru_help_lists_serve():
    done = subprocess.run(
        [*arbitru_command(), "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    assert "serve" in done.stdout and "Serve the tournament server" in done.stdout


# The CLI run in a fresh interpreter, which then says which server libraries it imported.
PROBE = (
    "import atexit, json, sys\n"
    f"libraries = {SERVER_LIBRARIES!r}\n"
    "atexit.register(lambda: print('LOADED', json.dumps(sorted({m.split('.')[0] for m in "
    "sys.modules} & set(libraries))), file=sys.stderr))\n"
    "from pipelines.cli.arbitru import main\n"
    "main()\n"
)


@pytest.mark.parametrize(
    "args", [["--help"], ["serve", "--help"], ["game", "--help"], ["accounts", "--help"]]
)
def test_the_server_libraries_load_only_when_the_server_runs(args, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"ARBITRU_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED"))
    assert json.loads(line.removeprefix("LOADED ")) == []


def test_the_readmes_walk_on_the_network_runs_as_printed(tmp_path):
    """README "A tournament on the network": its shell block, run as printed (on a free port
    instead of 8000), ends with the standings it promises."""
    text = (ROOT / "README.md").read_text("utf-8")
    block = text.split("<!-- network-walk:begin -->\n```sh\n")[1].split("```\n<!-- network")[0]
    script = "set -euo pipefail\n" + block.replace("8000", str(free_port()))
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PATH": f"{Path(arbitru_command()[0]).parent}:{os.environ['PATH']}"},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    standings = json.loads(done.stdout.splitlines()[-1])
    assert [(s["player_id"], s["total"]) for s in standings["standings"]] == [
        ("ion", 76),
        ("maria", 14),
    ]
    assert "Traceback" not in done.stderr


def test_after_the_demo_arbitru_serve_on_its_ledger_serves_its_standings(tmp_path):
    """The quick start's third command: `arbitru serve` with ARBITRU_DB naming the demo's
    ledger (as the demo's last lines say) answers a game's standings as the command does."""
    folder = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if k != "ARBITRU_DB"}
    done = subprocess.run(
        [*arbitru_command(), "demo", "--dir", str(folder)],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "\n    arbitru serve\n" in done.stdout
    db = f"sqlite:///{folder / 'ledger.db'}"
    game = done.stdout.split("/api/v1/games/")[1].split("/standings")[0]
    running = start_server(db, tmp_path / "serve.log")
    try:
        served = httpx.get(f"{running.base}/games/{game}/standings", timeout=30)
    finally:
        running.stop()
    assert served.status_code == 200, served.text
    expected = subprocess.run(
        [*arbitru_command(), "game", "standings", game, "--db", db, "--json"],
        capture_output=True, text=True, timeout=60, check=True, env=env,
    ).stdout  # fmt: skip
    assert served.json()["standings"] == json.loads(expected)["standings"]


def test_a_server_process_is_ready_before_it_answers_its_start_out_of_the_collectors_reach(
    tmp_path,
):
    """What `arbitru serve`'s processes do once started, before answering: the default word
    list loaded, and what they hold from their start frozen out of the collector's full
    passes (each of which walked all of it, 50-60 ms without an answer, in a rush)."""
    probe = (
        "import gc\n"
        "from pipelines.games.contexts import _dictionary\n"
        "from pipelines.server.app import COLLECT_EVERY, _warmed_up\n"
        "assert gc.get_freeze_count() == 0 and _dictionary.cache_info().currsize == 0\n"
        "_warmed_up()\n"
        "assert _dictionary.cache_info().currsize == 1, 'the word list is not loaded'\n"
        "assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()\n"
        "assert gc.get_threshold()[0] == COLLECT_EVERY\n"
    )
    environment = {**os.environ, "ARBITRU_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=environment, timeout=120
    )
    assert done.returncode == 0, done.stderr
