"""The command line under hostile input and hostile output (issue 7): every defect found when
the project was tried as an attacker would, each checked through the real CLI."""

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli import arbitru as cli
from pipelines.cli import lexicon as lexicon_cli
from pipelines.cli.arbitru import app
from pipelines.cli.exits import ExitCode

ROOT = Path(__file__).parents[2]
WORDS = ROOT / "tests" / "data" / "movegen-words.txt"
EMPTY = ["." * 15] * 15
CASA = [*EMPTY[:7], ".......CASA....", *EMPTY[8:]]
GOOD_EVENT = {
    "stream": "tournament/t1",
    "type": "TournamentCreated",
    "payload": {"tournament_id": "t1", "name": "Cupa", "season": "2026"},
}
runner = CliRunner()


@pytest.fixture(autouse=True)
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("ARBITRU_HOME", str(tmp_path / "home"))


def arbitru(*args: str, **kwargs) -> subprocess.CompletedProcess[bytes]:
    """The installed console script as a user runs it (falls back to `python -c main()`)."""
    script = Path(sys.executable).with_name("arbitru")
    command = [str(script)] if script.is_file() else [sys.executable, "-c",
               "from pipelines.cli.arbitru import main; main()"]  # fmt: skip
    env = {**os.environ, **kwargs.pop("env", {})}
    return subprocess.run([*command, *args], env=env, timeout=120, check=False, **kwargs)


def nested_line(depth: int = 10_000) -> str:
    return '{"board": ' + "[" * depth + "]" * depth + ', "move": "H8: VARA", "rack": "RATE"}'


BATCH_COMMANDS = {
    "score": ["engine", "score", "--no-words"],
    "top": ["engine", "top", "--dict", str(WORDS)],
}


def good_line(command: str) -> str:
    if command == "score":
        return json.dumps({"board": EMPTY, "move": "H8: VARA"})
    return json.dumps({"board": CASA, "rack": "RATE"})


def is_error(result: dict) -> bool:
    """A batch result saying the line could not be judged (score) or searched (top)."""
    return "error" in result or not {"move", "moves"} & result.keys()


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_defect_1_a_deeply_nested_batch_line_is_answered_and_the_run_goes_on(command, tmp_path):
    batch = tmp_path / "nested.jsonl"
    batch.write_text(f"{nested_line()}\n{good_line(command)}\n")
    result = runner.invoke(app, [*BATCH_COMMANDS[command], "--batch", str(batch)])
    assert result.exit_code == 1, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in out] == [1, 2]
    assert is_error(out[0]) and not is_error(out[1])
    assert "nested too deeply" in json.dumps(out[0])


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["engine", "score", "--board", str(ROOT / "fixtures" / "boards" / "diluaram.txt"),
         "--move", "15A: [D]ILUARAM", "--no-words", "--json"],
        ["ledger", "head", "--json"],
        ["ledger", "verify", "--json"],
    ],
    ids=["help", "score", "head", "verify"],
)  # fmt: skip
def test_defect_2_output_to_a_full_disk_exits_3_with_one_line_on_stderr(args, tmp_path):
    env = {"ARBITRU_DB": f"sqlite:///{tmp_path / 'l.db'}"}
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(GOOD_EVENT) + "\n")
    assert arbitru("ledger", "import", str(source), env=env, capture_output=True).returncode == 0
    with open("/dev/full", "wb") as full:
        proc = arbitru(*args, env=env, stdout=full, stderr=subprocess.PIPE)
    assert proc.returncode == 3, proc.stderr
    message = proc.stderr.decode()
    assert "Traceback" not in message and len(message.strip().splitlines()) == 1
    assert "could not write the output" in message


def test_defect_2_output_to_a_closed_pipe_exits_3_with_one_line_on_stderr(tmp_path):
    batch = tmp_path / "b.jsonl"
    batch.write_text(good_line("score") + "\n")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = arbitru("engine", "score", "--batch", str(batch), "--no-words",
                       stdout=write_end, stderr=subprocess.PIPE)  # fmt: skip
    finally:
        os.close(write_end)
    assert proc.returncode == 3, proc.stderr
    message = proc.stderr.decode()
    assert "Traceback" not in message and len(message.strip().splitlines()) == 1
    assert "could not write the output" in message


def test_defect_2_an_import_that_committed_is_never_reported_rejected(tmp_path):
    env = {"ARBITRU_DB": f"sqlite:///{tmp_path / 'l.db'}"}
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(GOOD_EVENT) + "\n")
    with open("/dev/full", "wb") as full:
        proc = arbitru("ledger", "import", str(source), "--json", env=env, stdout=full,
                       stderr=subprocess.PIPE)  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    message = proc.stderr.decode()
    assert "Traceback" not in message and "committed" in message and "1 event" in message
    head = arbitru("ledger", "head", "--json", env=env, capture_output=True)
    assert json.loads(head.stdout)["seq"] == 1


def test_defect_2_export_to_a_reader_that_stops_early_still_ends_quietly_with_0(tmp_path):
    env = {"ARBITRU_DB": f"sqlite:///{tmp_path / 'l.db'}"}
    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(
            json.dumps({**GOOD_EVENT, "stream": f"tournament/t{n}",
                        "payload": {**GOOD_EVENT["payload"], "tournament_id": f"t{n}"}}) + "\n"
            for n in range(2000)
        )
    )  # fmt: skip
    assert arbitru("ledger", "import", str(source), env=env, capture_output=True).returncode == 0
    exporter = subprocess.Popen(
        [str(Path(sys.executable).with_name("arbitru")), "ledger", "export"],
        env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert exporter.stdout is not None and exporter.stderr is not None
    exporter.stdout.readline()
    exporter.stdout.close()
    stderr = exporter.stderr.read()
    assert exporter.wait(timeout=60) == 0, stderr
    assert b"Traceback" not in stderr and b"error" not in stderr


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_defect_10_batch_dash_reads_standard_input(command):
    text = f"{good_line(command)}\n{{not json\n"
    result = runner.invoke(app, [*BATCH_COMMANDS[command], "--batch", "-"], input=text)
    assert result.exit_code == 1, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in out] == [1, 2]
    assert not is_error(out[0]) and is_error(out[1])
    assert "stdin, line 2" in json.dumps(out[1])


def test_defect_10_a_huge_move_is_not_echoed_whole_in_its_error():
    board = str(ROOT / "fixtures" / "boards" / "diluaram.txt")
    huge = "H8 = " + "A" * 1_000_000
    result = runner.invoke(app, ["engine", "score", "--board", board, "--move", huge,
                                 "--no-words", "--json"])  # fmt: skip
    assert result.exit_code == 1
    error = json.loads(result.stdout)["errors"][0]
    assert len(error) < 300 and "(1,000,005 characters)" in error and "H8 = AAA" in error


def test_defect_10_a_huge_rack_is_not_echoed_whole_in_its_error(tmp_path):
    board = tmp_path / "casa.txt"
    board.write_text("\n".join(CASA) + "\n")
    result = runner.invoke(app, ["engine", "top", "--board", str(board), "--rack", "E" * 100_000,
                                 "--dict", str(WORDS)])  # fmt: skip
    assert result.exit_code == 2
    assert len(result.stderr) < 300 and "(100,000 characters)" in result.stderr


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_defect_10_a_huge_batch_move_or_rack_is_not_echoed_whole(command, tmp_path):
    field = {"move": "Q" * 500_000} if command == "score" else {"rack": "Q" * 500_000}
    batch = tmp_path / "huge.jsonl"
    batch.write_text(json.dumps({"board": EMPTY, **field}) + "\n")
    result = runner.invoke(app, [*BATCH_COMMANDS[command], "--batch", str(batch)])
    assert result.exit_code == 1
    assert len(result.stdout) < 600 and "(500,000 characters)" in result.stdout


@pytest.mark.parametrize("command", sorted(BATCH_COMMANDS))
def test_defect_11_duplicate_keys_in_a_batch_line_are_refused(command, tmp_path):
    good = good_line(command)
    batch = tmp_path / "dup.jsonl"
    batch.write_text('{"board": [], ' + good[1:] + "\n")
    result = runner.invoke(app, [*BATCH_COMMANDS[command], "--batch", str(batch)])
    assert result.exit_code == 1
    (out,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert is_error(out) and "'board' appears twice" in json.dumps(out)


def test_defect_11_human_top_shows_the_best_20_and_says_how_many_more(tmp_path):
    board = tmp_path / "casa.txt"
    board.write_text("\n".join(CASA) + "\n")
    args = ["engine", "top", "--board", str(board), "--rack", "?", "--dict", str(WORDS)]
    moves = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["moves"]
    assert len(moves) == 30  # every one of them at the top score
    human = runner.invoke(app, args)
    assert human.exit_code == 0, human.output
    rows = [line for line in human.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == 20 and moves[19]["move"] in rows[-1]
    assert "… and 10 more move(s) at the top score" in human.stdout
    assert "--limit N" in human.stdout and "--json" in human.stdout


def test_defect_11_human_top_with_limit_lists_as_many_as_asked(tmp_path):
    board = tmp_path / "casa.txt"
    board.write_text("\n".join(CASA) + "\n")
    args = ["engine", "top", "--board", str(board), "--rack", "RATE", "--dict", str(WORDS)]
    moves = json.loads(runner.invoke(app, [*args, "--limit", "25", "--json"]).stdout)["moves"]
    human = runner.invoke(app, [*args, "--limit", "25"])
    rows = [line for line in human.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == len(moves) == 25 and "more move" not in human.stdout


def test_defect_11_version_prints_the_package_version():
    proc = arbitru("--version", capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().strip() == f"arbitru {version('arbitru')}"


def test_an_unexpected_exception_is_one_internal_error_line_with_exit_4(monkeypatch, capsys):
    def broken() -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "app", broken)
    monkeypatch.delenv("ARBITRU_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 4
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "internal error" in err and "RuntimeError: boom" in err and "ARBITRU_DEBUG=1" in err


def test_arbitru_debug_shows_the_traceback_of_an_internal_error(monkeypatch):
    def broken() -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "app", broken)
    monkeypatch.setenv("ARBITRU_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        cli.main()


def test_an_unreadable_board_file_is_named_without_python_errno_text(tmp_path):
    not_utf8 = tmp_path / "latin1.txt"
    not_utf8.write_bytes(b"\xe2" * 15 + b"\n")
    for board, problem in [(tmp_path, "is a directory"), (not_utf8, "not UTF-8 text")]:
        result = runner.invoke(app, ["engine", "score", "--board", str(board), "--move",
                                     "H8: VARA", "--no-words"])  # fmt: skip
        assert result.exit_code == 2
        assert problem in result.stderr and "Errno" not in result.stderr


def test_a_path_holding_square_brackets_is_named_as_written_not_read_as_markup(tmp_path):
    for folder in ["[/x]", "[bold]"]:
        board = tmp_path / folder / "board.txt"
        result = runner.invoke(app, ["engine", "score", "--board", str(board), "--move",
                                     "H8: VARA", "--no-words"])  # fmt: skip
        assert result.exit_code == 2
        assert f"{board}: no such file; give the path of a board file" in result.stderr


def test_a_word_list_name_too_long_for_the_file_system_is_a_clear_error(tmp_path):
    board = tmp_path / "casa.txt"
    board.write_text("\n".join(CASA) + "\n")
    result = runner.invoke(app, ["engine", "top", "--board", str(board), "--rack", "RATE",
                                 "--dict", "x" * 5000])  # fmt: skip
    assert result.exit_code == 2
    assert "(5,000 characters)" in result.stderr and "Errno" not in result.stderr


def test_an_unknown_ruleset_of_any_length_is_a_clear_error():
    for name in ["nope", "../rulesets/ro-frs", "r" * 5000]:
        result = runner.invoke(app, ["engine", "score", "--ruleset", name, "--board", "b",
                                     "--move", "H8: VARA"])  # fmt: skip
        assert result.exit_code == 2
        assert "unknown ruleset" in result.stderr and len(result.stderr) < 300


def test_the_readme_exit_code_table_is_the_one_the_command_uses():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ")]
    assert [int(code) for code in rows[1:]] == [int(code) for code in ExitCode]


def test_ctrl_c_ends_a_command_with_130_as_shells_do(monkeypatch, capsys):
    """README, exit codes: Ctrl-C ends a command with 130 wherever it comes (here while
    `lexicon info` reads the list), with one line and neither a traceback nor Click's
    "Aborted!" and 1 (which Typer before 0.13 gave)."""

    def ctrl_c(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(lexicon_cli, "describe", ctrl_c)
    monkeypatch.setattr(sys, "argv", ["arbitru", "lexicon", "info"])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 130
    assert capsys.readouterr().err == "error: interrupted\n"
