"""`arbitru engine top` as the README's command-line contract says, through the real CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.board import Board
from engine.dictionary import Dictionary
from engine.movegen import find_top, generate_moves
from engine.notation import format_move
from engine.rack import Rack
from engine.ruleset import load_ruleset
from pipelines.cli.arbitru import app

ROOT = Path(__file__).parents[2]
WORDS = ROOT / "tests" / "data" / "movegen-words.txt"
runner = CliRunner()
EMPTY = ["." * 15] * 15
CASA = [*EMPTY[:7], ".......CASA....", *EMPTY[8:]]


@pytest.fixture(autouse=True)
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("ARBITRU_HOME", str(tmp_path / "home"))


@pytest.fixture
def board_file(tmp_path) -> Path:
    path = tmp_path / "board.txt"
    path.write_text("\n".join(CASA) + "\n")
    return path


def engine_top(*args):
    return runner.invoke(app, ["engine", "top", *args])


def word_list() -> Dictionary:
    lines = WORDS.read_text().splitlines()
    return Dictionary.from_words(w for w in lines if w and not w.startswith("#"))


def test_top_json_has_the_contract_keys_and_every_move_at_the_top(board_file):
    result = engine_top("--board", str(board_file), "--rack", "RATE?", "--dict", str(WORDS),
                        "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"top_score", "moves", "elapsed_ms"}
    expected = find_top(Board.parse(CASA), Rack("RATE?"), load_ruleset(), word_list())
    assert data["top_score"] == expected.top_score > 0
    assert data["moves"] == [
        {"move": format_move(m.move), "score": m.score} for m in expected.moves
    ]
    assert isinstance(data["elapsed_ms"], float) and data["elapsed_ms"] >= 0


def test_limit_lists_the_n_best_legal_moves_whatever_their_score(board_file):
    result = engine_top("--board", str(board_file), "--rack", "RATE", "--dict", str(WORDS),
                        "--limit", "4", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    every = generate_moves(Board.parse(CASA), Rack("RATE"), load_ruleset(), word_list())
    assert data["moves"] == [{"move": format_move(m.move), "score": m.score} for m in every[:4]]
    assert data["top_score"] == every[0].score


def test_human_view_draws_the_board_and_lists_the_top_moves(board_file):
    result = engine_top("--board", str(board_file), "--rack", "RATE", "--dict", str(WORDS))
    assert result.exit_code == 0, result.output
    expected = find_top(Board.parse(CASA), Rack("RATE"), load_ruleset(), word_list())
    assert f"top {expected.top_score} points" in result.stdout
    assert format_move(expected.moves[0].move) in result.stdout
    assert " 15 " in result.stdout.splitlines()[0]


def test_batch_answers_every_line_in_order_and_goes_on_after_a_bad_line(tmp_path):
    lines = [
        json.dumps({"board": CASA, "rack": "RATE"}),
        "{not json",
        json.dumps({"board": EMPTY[:3], "rack": "RATE"}),
        json.dumps({"board": CASA, "rack": "AEIRSTUV"}),
        "",
        json.dumps({"board": EMPTY, "rack": "CASA"}),
        json.dumps({"board": CASA, "rack": 7}),
        json.dumps({"board": CASA, "rack": "??A?"}),
    ]
    batch = tmp_path / "positions.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    result = engine_top("--batch", str(batch), "--dict", str(WORDS))
    assert result.exit_code == 1, result.output  # some lines were in error
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in out] == [1, 2, 3, 4, 6, 7, 8]
    ok = [r for r in out if "error" not in r]
    assert [r["line"] for r in ok] == [1, 6]
    assert all({"top_score", "moves", "elapsed_ms"} <= r.keys() for r in ok)
    assert ok[1]["top_score"] > 0 and all("H" in m["move"] or "8" in m["move"]
                                          for m in ok[1]["moves"])  # fmt: skip
    errors = {r["line"]: r["error"] for r in out if "error" in r}
    assert "line 2: not valid JSON" in errors[2]
    assert "line 3" in errors[3] and "expected 15" in errors[3] and "found 3" in errors[3]
    assert "line 4" in errors[4] and "a rack holds at most 7" in errors[4]
    assert "line 7: 'rack' must be a string" in errors[7]
    assert "line 8" in errors[8] and "jokers" in errors[8]


def test_a_rack_of_more_than_seven_tiles_is_a_clear_error(board_file):
    result = engine_top("--board", str(board_file), "--rack", "AEIRSTUV", "--dict", str(WORDS))
    assert result.exit_code == 2
    assert "8 tiles, a rack holds at most 7" in result.stderr


def test_a_letter_without_tiles_on_the_rack_is_a_clear_error(board_file):
    result = engine_top("--board", str(board_file), "--rack", "KIWI", "--dict", str(WORDS))
    assert result.exit_code == 2
    assert "K has no tile; only a joker '?' stands for it" in result.stderr


def test_a_rack_holding_a_tile_already_on_the_board_is_a_clear_error(tmp_path):
    board = tmp_path / "board.txt"
    board.write_text("\n".join([*EMPTY[:7], "......ZAR......", *EMPTY[8:]]) + "\n")
    result = engine_top("--board", str(board), "--rack", "ZEA", "--dict", str(WORDS))
    assert result.exit_code == 2
    assert "the game has 1 Z, 1 on the board" in result.stderr


def test_an_unreadable_board_names_file_line_and_column(tmp_path):
    bad = tmp_path / "bad.txt"
    rows = list(CASA)
    rows[2] = "..#............"
    bad.write_text("\n".join(rows))
    result = engine_top("--board", str(bad), "--rack", "RATE", "--dict", str(WORDS))
    assert result.exit_code == 2
    assert "bad.txt, line 3, column 3: unknown character '#'" in result.stderr


def test_batch_replaces_board_and_rack(tmp_path, board_file):
    result = engine_top("--batch", str(tmp_path / "x.jsonl"), "--board", str(board_file))
    assert result.exit_code == 2
    assert "--batch replaces --board and --rack" in result.stderr


def test_batch_of_good_lines_exits_0(tmp_path):
    batch = tmp_path / "good.jsonl"
    batch.write_text(json.dumps({"board": CASA, "rack": "RATE"}) + "\n")
    result = engine_top("--batch", str(batch), "--dict", str(WORDS))
    assert result.exit_code == 0, result.output


def test_empty_rack_is_refused_with_what_to_give(tmp_path):
    board_file = tmp_path / "casa.txt"
    board_file.write_text("\n".join(CASA) + "\n")
    result = engine_top("--board", str(board_file), "--rack", "", "--dict", str(WORDS))
    assert result.exit_code == 2
    assert "the rack is empty" in result.stderr


def _run_top(*args: str, hide_kernel: bool) -> subprocess.CompletedProcess[str]:
    """`arbitru engine top` in a fresh process; `hide_kernel`: as if built without a compiler."""
    hide = "sys.modules['engine._kernel'] = None; " if hide_kernel else ""
    code = f"import sys; {hide}from pipelines.cli.arbitru import main; main()"
    return subprocess.run([sys.executable, "-c", code, "engine", "top", *args],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


def test_without_the_compiled_generator_top_says_so_once_and_finds_the_same_moves(board_file):
    args = ("--board", str(board_file), "--rack", "RATE?", "--dict", str(WORDS), "--json")
    compiled = _run_top(*args, "--limit", "7", hide_kernel=False)
    python = _run_top(*args, "--limit", "7", hide_kernel=True)
    assert compiled.returncode == python.returncode == 0, python.stderr
    assert "notice" not in compiled.stderr
    notice = python.stderr.splitlines()
    assert len(notice) == 1 and notice[0].startswith(
        "notice: the compiled move generator is not in use (engine._kernel could not be imported"
    ), python.stderr
    same = [json.loads(r.stdout) for r in (compiled, python)]
    for result in same:
        del result["elapsed_ms"]
    assert same[0] == same[1] and len(same[0]["moves"]) == 7


def test_limit_n_gives_the_first_n_of_every_move_even_through_ties(board_file):
    every = generate_moves(Board.parse(CASA), Rack("RATE?"), load_ruleset(), word_list())
    scores = [m.score for m in every]
    tied = next(n for n in range(1, len(every)) if scores[n - 1] == scores[n])
    result = engine_top("--board", str(board_file), "--rack", "RATE?", "--dict", str(WORDS),
                        "--limit", str(tied), "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["moves"] == [{"move": format_move(m.move), "score": m.score} for m in every[:tied]]


def test_an_eliptic_top_lays_at_most_7_of_8_and_a_duplicate_rack_holds_7(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("JUCATORI\nJUCATOR\nACTORI\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n".join(EMPTY) + "\n")
    args = ["--board", str(empty), "--rack", "JUCATORI", "--dict", str(words)]
    result = engine_top(*args, "--variant", "eliptic", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["top_score"] == 102
    assert {m["move"] for m in data["moves"]} == {"8D: JUCATOR", "H4: JUCATOR"}
    refused = engine_top(*args, "--json")
    assert refused.exit_code == 2
    assert "rack 'JUCATORI': 8 tiles, a rack holds at most 7" in refused.output
    unknown = engine_top(*args, "--variant", "completiv")
    assert unknown.exit_code == 2
    assert "the engine commands judge duplicate or eliptic racks" in " ".join(
        unknown.output.split()
    )
