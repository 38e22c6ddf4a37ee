"""The fuzzing that found issue 7's defect 1, kept in the suite: hostile batch files for
`engine score --batch`, `engine top --batch` and `ledger import`.

Each file mixes valid lines, valid lines with bytes changed, random JSON, deeply nested JSON,
huge lines, invalid UTF-8, byte order marks and blank lines. Whatever the file: no exception
escapes the command, every non-blank line is answered (the batch commands give one result per
line, in order; an import either imports every line or names bad lines), and the exit code is
the one the README's table gives.
"""

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipelines.cli import app

ROOT = Path(__file__).parents[2]
WORDS = ROOT / "tests" / "data" / "movegen-words.txt"
EMPTY = ["." * 15] * 15
CASA = [*EMPTY[:7], ".......CASA....", *EMPTY[8:]]
BOM = b"\xef\xbb\xbf"
runner = CliRunner()
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

letters = st.text(alphabet="AEIRSTCVU?", min_size=0, max_size=8)
boards = st.sampled_from([EMPTY, CASA])
coordinates = st.sampled_from(["H8", "8H", "H4", "A1", "O15", "8G", "I6"])
score_lines = st.builds(
    lambda board, where, word, rack: {"board": board, "move": f"{where}: {word}", "rack": rack},
    boards,
    coordinates,
    st.text(alphabet="ACERSTV()[]", min_size=1, max_size=9),
    letters,
)
top_lines = st.builds(lambda board, rack: {"board": board, "rack": rack}, boards, letters)
import_lines = st.builds(
    lambda n, name: {
        "stream": f"tournament/t{n}",
        "type": "TournamentCreated",
        "payload": {"tournament_id": f"t{n}", "name": name, "season": "2026"},
    },
    st.integers(0, 20),
    st.text(max_size=8),
)
random_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


def encoded(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[dict]) -> bytes:
    """A valid line with a few bytes deleted, replaced or inserted, or a key repeated."""
    line = bytearray(encoded(draw(valid)))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(line)))
        action = draw(st.sampled_from(["delete", "replace", "insert", "repeat-key"]))
        if action == "delete" and at < len(line):
            del line[at]
        elif action == "replace" and at < len(line):
            line[at] = draw(st.integers(0, 255))
        elif action == "insert":
            line[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif action == "repeat-key" and line.startswith(b"{"):
            line[1:1] = b'"board": [], "rack": "A", "stream": "x", '
    return bytes(line)


def hostile(depth: int, kind: str) -> bytes:
    """Lines built to break a reader: nesting past Python's recursion limit, huge lines."""
    if kind == "nested-list":
        return b'{"board": ' + b"[" * depth + b"]" * depth + b', "move": "H8: VARA"}'
    if kind == "nested-object":
        return b'{"payload": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}"
    if kind == "unclosed":
        return b"[" * depth
    if kind == "huge-move":
        return encoded({"board": EMPTY, "move": "H8: " + "A" * depth, "rack": "A" * depth})
    return b'"' + b"A" * depth  # an unterminated huge string


def lines(valid: st.SearchStrategy[dict]) -> st.SearchStrategy[bytes]:
    return st.one_of(
        valid.map(encoded),
        mutated(valid),
        random_json.map(encoded),
        st.builds(
            hostile,
            st.sampled_from([900, 5_000, 100_000]),
            st.sampled_from(["nested-list", "nested-object", "unclosed", "huge-move", "huge"]),
        ),
        st.binary(max_size=30).filter(lambda b: b"\n" not in b),
        st.sampled_from([b"\xff\xfe\x00", b"\xc3\x28", b"\xed\xa0\x80", BOM, b"", b"  \t", b"\r"]),
        valid.map(lambda v: BOM + encoded(v)),
    )


def batch_file(valid: st.SearchStrategy[dict]) -> st.SearchStrategy[bytes]:
    return st.lists(lines(valid), min_size=1, max_size=8).map(lambda ls: b"\n".join(ls) + b"\n")


def answered(data: bytes) -> list[int]:
    """The numbers of the lines a command must answer: the non-blank ones (a byte order mark
    opening the file is not content)."""
    numbers = []
    for number, raw in enumerate(data.split(b"\n")[:-1], start=1):
        if number == 1 and raw.startswith(BOM):
            raw = raw[len(BOM) :]
        if raw.strip():
            numbers.append(number)
    return numbers


def run(args: list[str], data: bytes, tmp_path: Path, through_stdin: bool):
    if through_stdin:
        result = runner.invoke(app, [*args, "-"], input=data)
    else:
        path = tmp_path / "batch.jsonl"
        path.write_bytes(data)
        result = runner.invoke(app, [*args, str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("ARBITRU_HOME", str(tmp_path / "home"))
    return tmp_path


@FUZZ
@given(data=batch_file(score_lines), through_stdin=st.booleans())
def test_fuzzed_score_batch_answers_every_line_in_order(home, data, through_stdin):
    result = run(["engine", "score", "--no-words", "--batch"], data, home, through_stdin)
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in out] == answered(data)
    judged = all("move" in r for r in out)
    assert result.exit_code == (0 if judged else 1), result.output
    assert all(len(error) < 400 for r in out for error in r["errors"])


@FUZZ
@given(data=batch_file(top_lines), through_stdin=st.booleans())
def test_fuzzed_top_batch_answers_every_line_in_order(home, data, through_stdin):
    args = ["engine", "top", "--dict", str(WORDS), "--batch"]
    result = run(args, data, home, through_stdin)
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in out] == answered(data)
    clean = all("error" not in r for r in out)
    assert result.exit_code == (0 if clean else 1), result.output
    assert all(len(r["error"]) < 400 for r in out if "error" in r)


@pytest.fixture
def empty_ledger(home) -> Path:
    """An upgraded, empty SQLite ledger, copied for each example (migrating is the slow part)."""
    template = home / "template.db"
    result = runner.invoke(app, ["db", "upgrade", "--db", f"sqlite:///{template}"])
    assert result.exit_code == 0, result.output
    return template


@FUZZ
@given(data=batch_file(import_lines), through_stdin=st.booleans())
def test_fuzzed_import_imports_every_line_or_names_the_bad_ones(
    home, empty_ledger, data, through_stdin
):
    db = home / "ledger.db"
    shutil.copy(empty_ledger, db)
    args = ["ledger", "import", "--db", f"sqlite:///{db}", "--json"]
    result = run(args, data, home, through_stdin)
    report = json.loads(result.stdout)
    expected = answered(data)
    if result.exit_code == 0:
        assert report["ok"] and report["imported"] + report["skipped"] == len(expected)
    else:
        assert result.exit_code == 1, result.output
        bad = [error["line"] for error in report["errors"]]
        assert not report["ok"] and bad and set(bad) <= set(expected)
