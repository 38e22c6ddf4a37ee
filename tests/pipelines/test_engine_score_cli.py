"""`arbitru engine score` as the README's command-line contract says, through the real CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.arbitru import app

ROOT = Path(__file__).parents[2]
DILUARAM = ROOT / "fixtures" / "boards" / "diluaram.txt"
WORDS = ROOT / "tests" / "data" / "words-small.txt"
runner = CliRunner()


def score(*args):
    return runner.invoke(app, ["engine", "score", *args])


def test_score_json_has_the_contract_keys():
    result = score("--board", str(DILUARAM), "--move", "15A: [D]ILUARĂM", "--no-words", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"valid", "score", "words", "bingo", "errors"} <= data.keys()
    assert (data["valid"], data["score"], data["bingo"], data["errors"]) == (True, 167, True, [])
    assert data["words"][0] == {"word": "DILUARAM", "score": 117, "main": True, "word_factor": 9}


def test_score_human_view_draws_the_board_and_lists_the_words():
    result = score("--board", str(DILUARAM), "--move", "15A: [(D)]ILUARAM = 150 p", "--no-words")
    assert result.exit_code == 0
    assert "(D)ILUARAM" in result.stdout and "valid: 149 points" in result.stdout
    assert "claimed 150 points, computed 149" in result.stdout
    assert "bingo" in result.stdout


def test_invalid_move_exits_1_and_names_every_broken_rule(tmp_path):
    result = score("--board", str(DILUARAM), "--move", "15A: DILUARAX", "--rack", "ILUAAM",
                   "--no-words", "--json")  # fmt: skip
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["valid"] is False and data["score"] == 0
    assert data["errors"] == [
        "the move lays 1 D but the rack ILUAAM holds 0",
        "the move lays 1 X but the rack ILUAAM holds 0",
    ]
    assert [p["code"] for p in data["problems"]] == ["tile_not_on_rack", "tile_not_on_rack"]
    assert [p["message"] for p in data["problems"]] == data["errors"]


def test_word_check_uses_the_given_word_list(tmp_path):
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["." * 15] * 7 + ["......VARA....."] + ["." * 15] * 7) + "\n")
    ok = score("--board", str(board), "--move", "I6: ALE", "--dict", str(WORDS), "--json")
    assert json.loads(ok.stdout)["valid"] is True
    bad = score("--board", str(board), "--move", "I6: ALA", "--dict", str(WORDS), "--json")
    assert bad.exit_code == 1
    assert "ALA is not in the dictionary" in json.loads(bad.stdout)["errors"][0]


def test_board_file_of_the_wrong_size_names_file_and_line(tmp_path):
    board = tmp_path / "short.txt"
    board.write_text("." * 15 + "\n" + "." * 14 + "\n")
    result = score("--board", str(board), "--move", "H8: VARA", "--no-words")
    assert result.exit_code == 2
    assert "expected 15 lines, found 2" in result.stderr and "short.txt" in result.stderr
    board.write_text("\n".join(["." * 15] * 7 + ["." * 16] + ["." * 15] * 7))
    result = score("--board", str(board), "--move", "H8: VARA", "--no-words")
    assert "short.txt, line 8: expected 15 characters, found 16" in result.stderr


def test_board_file_with_unknown_characters_names_line_and_column(tmp_path):
    board = tmp_path / "bad.txt"
    lines = ["." * 15] * 15
    lines[4] = "....#.........."
    board.write_text("\n".join(lines))
    result = score("--board", str(board), "--move", "H8: VARA", "--no-words")
    assert result.exit_code == 2
    assert "bad.txt, line 5, column 5: unknown character '#'" in result.stderr


def test_missing_board_file_says_what_to_give(tmp_path):
    result = score("--board", str(tmp_path / "none.txt"), "--move", "H8: VARA", "--no-words")
    assert result.exit_code == 2
    assert "no such file; give the path of a board file (15 lines" in result.stderr


def test_rack_no_bag_could_give_is_unusable_input_exit_2():
    args = ["--board", str(DILUARAM), "--move", "H8: VARA", "--rack", "VARAK", "--no-words"]
    result = score(*args, "--json")
    assert result.exit_code == 2
    assert "K has no tile" in json.loads(result.stdout)["errors"][0]
    human = score(*args)
    assert human.exit_code == 2
    assert "K has no tile" in human.stderr


def test_unreadable_move_json_is_one_plain_line_even_when_colour_is_forced():
    result = runner.invoke(
        app,
        ["engine", "score", "--board", str(DILUARAM), "--move", "H8 = VARA", "--no-words",
         "--json"],
        env={"FORCE_COLOR": "1"},
    )  # fmt: skip
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 1
    assert json.loads(result.stdout)["valid"] is False


def test_board_file_with_a_byte_order_mark_is_read(tmp_path):
    board = tmp_path / "bom.txt"
    board.write_text(DILUARAM.read_text(), encoding="utf-8-sig")
    result = score("--board", str(board), "--move", "15A: [D]ILUARAM", "--no-words", "--json")
    assert json.loads(result.stdout)["score"] == 167


def test_batch_file_with_a_byte_order_mark_is_read(tmp_path):
    batch = tmp_path / "bom.jsonl"
    line = json.dumps({"board": DILUARAM.read_text().splitlines(), "move": "15A: [D]ILUARAM"})
    batch.write_text(line + "\n", encoding="utf-8-sig")
    result = score("--batch", str(batch), "--no-words")
    assert json.loads(result.stdout)["score"] == 167


def test_batch_board_errors_name_the_batch_line_and_the_board_row(tmp_path):
    rows = ["." * 15] * 15
    rows[4] = "....#.........."
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"board": rows, "move": "H8: VARA"}) + "\n")
    result = score("--batch", str(batch), "--no-words")
    error = json.loads(result.stdout)["errors"][0]
    assert "b.jsonl, line 1, board, row 5, column 5: unknown character '#'" in error


def test_unreadable_move_is_reported_with_the_character():
    result = score("--board", str(DILUARAM), "--move", "H8 = VARA", "--no-words", "--json")
    assert result.exit_code == 1
    assert "at character 4" in json.loads(result.stdout)["errors"][0]


def test_batch_scores_every_line_in_order_and_goes_on_after_a_bad_line(tmp_path):
    empty = ["." * 15] * 15
    diluaram = DILUARAM.read_text().splitlines()
    lines = [
        json.dumps({"board": diluaram, "move": "15A: [D]ILUARAM"}),
        "{not json",
        json.dumps({"board": empty[:3], "move": "H8: VARA"}),
        "",
        json.dumps({"board": empty, "move": "H8: VARA", "rack": "VARA"}),
        json.dumps(["a list"]),
        json.dumps({"board": empty, "move": 7}),
    ]
    batch = tmp_path / "moves.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    result = score("--batch", str(batch), "--no-words")
    assert result.exit_code == 1  # some lines could not be judged
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in out] == [1, 2, 3, 5, 6, 7]
    assert [r["score"] for r in out] == [167, 0, 0, 22, 0, 0]
    assert "line 2: not valid JSON" in out[1]["errors"][0]
    assert "line 3, board: expected 15 rows, found 3" in out[2]["errors"][0]
    assert "line 6: each line must be one JSON object" in out[4]["errors"][0]
    assert "line 7: 'move' must be a string" in out[5]["errors"][0]


def test_batch_replaces_board_move_and_rack(tmp_path):
    result = score("--batch", str(tmp_path / "x.jsonl"), "--move", "H8: VARA", "--no-words")
    assert result.exit_code == 2
    assert "--batch replaces --board" in result.stderr


def test_console_script_runs_as_a_real_process():
    exe = Path(sys.executable).parent / "arbitru"
    if not exe.exists():
        pytest.skip("the arbitru console script is not installed beside this Python")
    proc = subprocess.run(
        [str(exe), "engine", "score", "--board", str(DILUARAM), "--move", "15A: [D]ILUARAM",
         "--no-words", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["score"] == 167


def test_board_no_game_could_reach_is_refused_naming_the_square(tmp_path):
    board = tmp_path / "k.txt"
    lines = ["." * 15] * 15
    lines[7] = "......KA......."
    board.write_text("\n".join(lines) + "\n")
    result = score("--board", str(board), "--move", "8G: KA", "--no-words")
    assert result.exit_code == 2
    assert "H7 holds a real K, which has no tile" in result.stderr


def test_batch_exits_0_when_every_line_was_judged_even_invalid_moves(tmp_path):
    empty = ["." * 15] * 15
    batch = tmp_path / "judged.jsonl"
    batch.write_text(
        json.dumps({"board": empty, "move": "H8: VARA"}) + "\n"
        + json.dumps({"board": empty, "move": "A1: VARA"}) + "\n"
    )  # fmt: skip
    result = score("--batch", str(batch), "--no-words")
    assert result.exit_code == 0
    assert [json.loads(x)["valid"] for x in result.stdout.splitlines()] == [True, False]


def test_an_eliptic_move_scores_the_bonus_for_7_of_8_and_is_refused_for_8(tmp_path):
    board = tmp_path / "empty.txt"
    board.write_text("\n".join(["." * 15] * 15) + "\n")
    eliptic = ("--board", str(board), "--rack", "JUCATORI", "--no-words", "--variant", "eliptic")
    seven = score("--move", "H4: JUCATOR", *eliptic, "--json")
    assert seven.exit_code == 0, seven.output
    assert json.loads(seven.stdout)["score"] == 102
    shown = score("--move", "H4: JUCATOR", *eliptic)
    assert "7 tiles of the rack" in shown.stdout and "valid: 102 points" in shown.stdout
    eight = score("--move", "H4: JUCATORI", *eliptic, "--json")
    assert eight.exit_code == 1
    assert [p["code"] for p in json.loads(eight.stdout)["problems"]] == ["more_than_a_move_lays"]
