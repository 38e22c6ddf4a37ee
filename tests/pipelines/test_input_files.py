"""Files in and out (issue 20, "Files"), through the real CLI: an input is a regular file
within its kind's cap (a FIFO or a device refused at once and by name, exit 2); an output
never replaces a SQLite database (the ledger first), its companions or an input of the same
command; what a killed write left behind is removed by the next run; a new game's seed file
must look random, and the one Arbitru writes is never left empty."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import resource
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter, create
from typer.testing import CliRunner

from pipelines.cli.arbitru import app

ROOT = Path(__file__).parents[2]
GAME = ROOT / "fixtures" / "games" / "duplicate-game.jsonl"
LEXICON = ROOT / "tests" / "data" / "lexicon"
SQLITE_HEADER = b"SQLite format 3\0"
runner = CliRunner()


def _invoke(*args: str, stdin: bytes | None = None):
    return runner.invoke(app, list(args), input=stdin)


def _limited() -> None:
    """A child's memory is capped at 1 GiB and the files it writes at 256 MiB: on code that
    reads /dev/zero whole it fails at once instead of taking the machine's memory or disk."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 28, 1 << 28))


def _arbitru(*args: str, cwd: Path, stdin: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user runs it (stdin from the file `stdin`), with a minute
    to end: a command that blocks on a FIFO fails the test instead of hanging the suite."""
    script = Path(sys.executable).with_name("arbitru")
    with open(stdin or os.devnull, "rb") as given:
        return subprocess.run(
            [str(script), *args], cwd=cwd, capture_output=True, text=True, timeout=60,
            stdin=given, preexec_fn=_limited, check=False,
        )  # fmt: skip


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a SQLite ledger of the sample game (`arbitru.db`, checkpointed at 200
    and 412 events) and
    the federation's key pair (`federation.key`, `.pub`)."""
    folder = tmp_path_factory.mktemp("ledger")
    db = f"sqlite:///{folder / 'arbitru.db'}"
    key = folder / "federation.key"
    assert _invoke("keys", "new", str(key)).exit_code == 0
    first = tmp_path_factory.mktemp("first") / "first.jsonl"
    first.write_text("".join(GAME.read_text(encoding="utf-8").splitlines(True)[:200]))
    for events in (first, GAME):  # checkpoints of 200 events and of all 412
        assert _invoke("ledger", "import", str(events), "--db", db).exit_code == 0
        assert _invoke("ledger", "checkpoint", "--key", str(key), "--db", db).exit_code == 0
    return folder


# --- inputs: regular files only


INPUTS = {
    "board": ["engine", "score", "--board", "{f}", "--move", "H8: VARA", "--no-words"],
    "batch": ["engine", "score", "--no-words", "--batch", "{f}"],
    "dict": ["engine", "score", "--board", "{board}", "--move", "H8: CASA", "--dict", "{f}"],
    "players": ["game", "create", "g1", "--players", "{f}", "--db", "{db}"],
    "submissions": ["game", "submit", "cb26-p1", "--file", "{f}", "--db", "{db}"],
    "seed": ["game", "create", "g1", "--draw", "seeded", "--seed-file", "{f}", "--db", "{db}"],
    "key": ["ledger", "checkpoint", "--key", "{f}", "--db", "{db}"],
    "pubkey": ["verify-proof", "{board}", "--pubkey", "{f}"],
    "proof": ["verify-proof", "{f}", "--pubkey", "{pub}"],
    "points": ["export", "--out", "{out}", "--points", "{f}", "--db", "{db}"],
    "import": ["ledger", "import", "{f}", "--db", "{db}"],
    "verify": ["ledger", "verify", "--file", "{f}"],
    "word list": ["lexicon", "add", "{f}"],
    "hunspell": ["lexicon", "build", "--aff", "{f}", "--dic", "{f}", "--out", "{out}"],
}
"""Every option or argument naming an input file, as a command line ({f}: the file)."""


def _command(name: str, path: Path, ledger: Path, tmp_path: Path) -> list[str]:
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["." * 15] * 15) + "\n")
    given = {
        "f": str(path), "board": str(board), "db": f"sqlite:///{ledger / 'arbitru.db'}",
        "pub": str(ledger / "federation.key.pub"), "out": str(tmp_path / "out"),
    }  # fmt: skip
    return [part.format(**given) for part in INPUTS[name]]


@pytest.mark.parametrize("special", ["FIFO", "character device"])
@pytest.mark.parametrize("name", INPUTS)
def test_an_input_that_is_not_a_regular_file_is_refused_at_once_by_name(
    name: str, special: str, ledger: Path, tmp_path: Path
) -> None:
    path = Path("/dev/zero")
    if special == "FIFO":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    before = (ledger / "arbitru.db").read_bytes()
    done = _arbitru(*_command(name, path, ledger, tmp_path), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert f"{path} is a {special}, not a regular file" in said, said
    assert "no such file" not in said and "Traceback" not in said
    assert (ledger / "arbitru.db").read_bytes() == before
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", INPUTS)
def test_an_input_named_too_long_for_the_file_system_is_refused_and_echoed_cut(
    name: str, ledger: Path, tmp_path: Path
) -> None:
    path = Path("x" * 5000)
    before = (ledger / "arbitru.db").read_bytes()
    done = _arbitru(*_command(name, path, ledger, tmp_path), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert "(5,000 characters)" in said and len(said) < 1000, said[:300]
    assert "Traceback" not in said
    assert (ledger / "arbitru.db").read_bytes() == before


@pytest.mark.parametrize(
    ("what", "command"),
    [
        ("JSON Lines file", ["ledger", "import", "-", "--db", "{db}"]),
        ("batch file", ["engine", "score", "--no-words", "--batch", "-"]),
        ("proof file", ["verify-proof", "-", "--pubkey", "{pub}"]),
    ],
)
def test_a_device_on_stdin_is_refused_where_a_command_reads_dash(
    what: str, command: list[str], ledger: Path, tmp_path: Path
) -> None:
    given = {"db": f"sqlite:///{ledger / 'arbitru.db'}", "pub": ledger / "federation.key.pub"}
    before = (ledger / "arbitru.db").read_bytes()
    done = _arbitru(*(p.format(**given) for p in command), cwd=tmp_path, stdin=Path("/dev/zero"))
    assert done.returncode == 2, done.stderr
    assert f"stdin is a character device, not a {what}" in " ".join(done.stderr.split())
    assert (ledger / "arbitru.db").read_bytes() == before


KIB, MIB = 1 << 10, 1 << 20


@pytest.mark.parametrize(
    ("what", "cap", "command"),
    [
        ("board file", "16 KiB", ["engine", "score", "--board", "{f}", "--move", "H8: VARA",
                                  "--no-words"]),
        ("proof file", "4 MiB", ["verify-proof", "{f}", "--pubkey", "{pub}"]),
        ("points table", "64 KiB", ["export", "--out", "{out}", "--points", "{f}", "--db",
                                    "{db}"]),
    ],
)  # fmt: skip
def test_an_input_above_its_kinds_cap_is_refused_before_it_is_read(
    what: str, cap: str, command: list[str], ledger: Path, tmp_path: Path
) -> None:
    size = int(cap.split()[0]) * (MIB if cap.endswith("MiB") else KIB) + 1
    big = tmp_path / "big"
    big.write_bytes(b"." * size)
    given = {"f": big, "pub": ledger / "federation.key.pub", "db": f"sqlite:///{ledger}/arbitru.db",
             "out": tmp_path / "out"}  # fmt: skip
    result = _invoke(*(part.format(**given) for part in command))
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())
    assert f"{what} {big} holds {size} bytes or more, above the {cap} a {what} may hold" in said


def test_a_proof_on_stdin_above_the_cap_is_refused(ledger: Path) -> None:
    pub = str(ledger / "federation.key.pub")
    result = _invoke("verify-proof", "-", "--pubkey", pub, stdin=b" " * (4 * MIB + 1))
    assert result.exit_code == 2
    assert "proof file stdin holds" in " ".join(result.stderr.split())


# --- outputs never replace the ledger


WRITERS = {
    "export": ["ledger", "export", "--out", "{out}", "--db", "{db}"],
    "prove": ["ledger", "prove", "42", "--out", "{out}", "--db", "{db}"],
    "consistency": ["ledger", "consistency", "200", "412", "--out", "{out}", "--db", "{db}"],
    "svg": ["game", "replay", "cb26-p1", "--svg", "{out}", "--db", "{db}"],
    "simulate": ["simulate", "--out", "{out}", "--seed", "1", "--tournaments", "1"],
}


def _writer(name: str, out: Path, db: str) -> list[str]:
    return [part.format(out=out, db=db) for part in WRITERS[name]]


@pytest.mark.parametrize("writer", WRITERS)
def test_an_output_never_replaces_the_ledgers_own_database(
    writer: str, ledger: Path, default_home: Path
) -> None:
    database = ledger / "arbitru.db"
    before = database.read_bytes()
    result = _invoke(*_writer(writer, database, f"sqlite:///{database}"))
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert f"{database} is a SQLite database (a ledger?); an output never replaces one" in said
    assert database.read_bytes() == before
    assert _invoke("ledger", "verify", "--db", f"sqlite:///{database}").exit_code == 0


@pytest.mark.parametrize("companion", ["-wal", "-shm", "-journal"])
def test_an_output_never_replaces_the_files_sqlite_keeps_beside_the_ledger(
    companion: str, ledger: Path
) -> None:
    database = ledger / "arbitru.db"
    out = ledger / f"arbitru.db{companion}"
    result = _invoke(*_writer("export", out, f"sqlite:///{database}"))
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())
    assert f"{out} belongs to the SQLite database {database}" in said
    assert not out.exists()


def test_an_output_never_replaces_a_sqlite_file_beside_a_postgresql_ledger(
    pg_url: str, tmp_path: Path, default_home: Path
) -> None:
    assert _invoke("ledger", "import", str(GAME), "--db", pg_url).exit_code == 0
    other = tmp_path / "old-ledger.db"
    other.write_bytes(SQLITE_HEADER + bytes(4080))
    for writer in ("export", "svg"):
        result = _invoke(*_writer(writer, other, pg_url))
        assert result.exit_code == 2
        assert "is a SQLite database" in result.stderr
    assert other.read_bytes() == SQLITE_HEADER + bytes(4080)


def test_an_output_never_replaces_an_input_of_the_same_command(tmp_path: Path) -> None:
    aff, dic = tmp_path / "small.aff", tmp_path / "small.dic"
    aff.write_bytes((LEXICON / "tiny.aff").read_bytes())
    dic.write_text((LEXICON / "tiny.dic").read_text("utf-8") + "al\n", "utf-8")
    out = tmp_path / "out"
    build = ["lexicon", "build", "--aff", str(aff), "--dic", str(dic), "--min-words", "5"]
    assert _invoke(*build, "--out", str(out)).exit_code == 0
    two_letter = out / "ro-frs-two-letter.txt"
    include = tmp_path / "include.txt"
    include.symlink_to(two_letter)  # the same file under another name
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    result = _invoke(*build, "--include", str(include), "--out", str(out))
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())
    assert f"{two_letter} is an input of this command; an output never replaces it" in said
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


# --- what a killed write leaves behind


# Runs `arbitru` with the rename of a finished output held back, so that the test can kill
# it (SIGKILL: no cleanup runs) while its temporary file or folder is there.
_HELD_BACK = """
import pathlib, sys, time
from pipelines.files import folder as export_dir
from pipelines.files import whole as output_file
ready = pathlib.Path(sys.argv[1])
def held_back(*args):
    ready.touch()
    time.sleep(120)
output_file.held_signals = export_dir.held_signals = held_back
sys.argv = ["arbitru", *sys.argv[2:]]
from pipelines.cli.arbitru import main
main()
"""


@pytest.mark.parametrize(
    ("command", "out"),
    [(["ledger", "export", "--out"], "events.jsonl"), (["export", "--out"], "tables")],
)
def test_the_next_run_removes_what_a_killed_export_left_and_says_so(
    command: list[str], out: str, ledger: Path, tmp_path: Path, default_home: Path, paused
) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    db = f"sqlite:///{ledger / 'arbitru.db'}"
    ready = tmp_path / "ready"
    args = [*command, str(folder / out), "--db", db]
    with paused(
        ready, "the export never reached the rename",
        [sys.executable, "-c", _HELD_BACK, str(ready), *args], stderr=subprocess.DEVNULL,
    ) as process:  # fmt: skip
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
    (left,) = [p.name for p in folder.iterdir()]
    assert left.startswith(f".{out}.{process.pid}.") and left.endswith(".partial")
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "interrupted" in line]
    assert said == [f"removed what an interrupted earlier run left beside {folder / out}: {left}"]
    assert [p.name for p in folder.iterdir()] == [out]


def test_what_a_running_writer_has_beside_the_file_is_left_to_it(
    ledger: Path, tmp_path: Path
) -> None:
    with subprocess.Popen(["sleep", "60"]) as other:
        try:
            theirs = tmp_path / f".events.jsonl.{other.pid}.0123abcd.partial"
            theirs.write_bytes(b"half an export")
            db = f"sqlite:///{ledger / 'arbitru.db'}"
            result = _invoke(*_writer("export", tmp_path / "events.jsonl", db))
            assert result.exit_code == 0 and "interrupted" not in result.stderr
            assert theirs.read_bytes() == b"half an export"
        finally:
            other.kill()


# --- seeds


@pytest.fixture
def arbiter(db_url: str, default_home: Path) -> Arbiter:
    return Arbiter(db_url)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"\x07" * 32, "distinct values"),
        (b"hunter2hunter2hunter2\n", "text like a password"),
        (bytes(0x80 + 7 * i for i in range(10)), "fewer than the 16"),
        (b"0f1e2d3c4b5a6978\n", "fewer than the 16"),
        (bytes(range(100, 116)) + b"\xff" * 4 + bytes(range(200, 216)), "four times in a row"),
    ],
)
def test_a_new_games_seed_file_must_hold_random_bytes(
    content: bytes, why: str, arbiter: Arbiter, tmp_path: Path
) -> None:
    seed_file = tmp_path / "weak.seed"
    seed_file.write_bytes(content)
    said = arbiter.refused(
        2, "create", "hd1", "--player", "ana", "--draw", "seeded", "--seed-file", str(seed_file)
    )
    assert f"{seed_file}: " in said and why in said and "head -c 32 /dev/urandom" in said


def test_a_seed_of_random_bytes_from_a_file_or_stdin_is_committed_to(
    arbiter: Arbiter, tmp_path: Path
) -> None:
    seed = secrets.token_bytes(32)
    seed_file = tmp_path / "hd1.seed"
    seed_file.write_bytes(seed)
    given = ["create", "hd1", "--player", "ana", "--draw", "seeded", "--seed-file", "-"]
    result = runner.invoke(app, ["game", *given, "--db", arbiter.db, "--json"], input=seed)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)["events"][0]["payload"]
    assert payload["seed_commitment"] == hashlib.sha256(seed.hex().encode()).hexdigest()
    drawn = arbiter.ok("draw", "hd1", "--seed-file", str(seed_file))
    assert len(drawn["events"][0]["payload"]["drawn"]) == 7
    written = tmp_path / "hd2.seed"  # the hex text Arbitru writes passes the same check
    create(Arbiter(arbiter.db, game="hd2"), "--draw", "seeded", "--seed-file", str(written))
    again = ["create", "hd3", "--player", "ana", "--draw", "seeded", "--seed-file", str(written)]
    reply = Arbiter(arbiter.db, game="hd3").ok(*again)
    commitment = hashlib.sha256(written.read_text().strip().encode()).hexdigest()
    assert reply["events"][0]["payload"]["seed_commitment"] == commitment


def test_a_seed_file_on_a_full_disk_is_not_left_behind_empty(
    arbiter: Arbiter, tmp_path: Path, fsync_raising, monkeypatch
) -> None:
    seed_file = tmp_path / "seeds" / "hd1.seed"
    fsync_raising("file", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    given = ["create", "hd1", "--player", "ana", "--draw", "seeded", "--seed-file", str(seed_file)]
    result = arbiter.run(*given)
    assert result.exit_code == 3, result.output
    said = " ".join(result.stderr.split())
    assert f"could not write {seed_file}: No space left on device; nothing was written" in said
    assert list(seed_file.parent.iterdir()) == [] and arbiter.count() == 0
    monkeypatch.undo()  # the disk has room again: the next run is not blocked
    assert arbiter.ok(*given)["events"][0]["payload"]["draw"] == "seeded"
    assert len(seed_file.read_text().strip()) == 64
