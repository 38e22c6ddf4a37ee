"""The fuzzing that found issue 7's defect 1, kept in the suite: hostile batch files for
`engine score --batch`, `engine top --batch` and `ledger import`; and (issue 20) fuzzed
arbiter sessions and the other commands' options, below.

Each file mixes valid lines, valid lines with bytes changed, random JSON, deeply nested JSON,
huge lines, invalid UTF-8, byte order marks and blank lines. Whatever the file: no exception
escapes the command, every non-blank line is answered (the batch commands give one result per
line, in order; an import either imports every line or names bad lines), and the exit code is
the one the README's table gives.
"""

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipelines.cli.arbitru import app

pytestmark = pytest.mark.heavy  # run once by CI, not again at the dependency floors

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


# Every command's options and files (issue 20): an arbiter's session of fuzzed commands on a
# real ledger, then every view of what was accepted; and the other commands' options. Whatever
# the values: no internal error (exit 4, an exception out of the command), no traceback, an
# exit code of the README's table, and nothing accepted that a later view, recompute, verify
# or export refuses.

SESSION = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
OPTIONS = settings(SESSION, max_examples=150)
README_CODES = re.findall(r"^\| (\d) \| ", (ROOT / "README.md").read_text("utf-8"), re.M)
CODES = {int(code) for code in README_CODES} - {4}
"""The README's exit codes but the internal error's."""
NASTY = [
    "", " ", "-", "--", "0", "-1", "1", "2", "99999999999999999999", "1e3", "abc", "CART3AM",
    "CARTEAM", "??", "VARAEIT", "H8: CARTEA", "H8: CARTEA = 99 p", "8H: CARTE", "H4: CARTEA",
    "zzz", "ana", "bob", "zed", "hd1", "game/hd1", "game/zz", "tournament/t", "A\x00B", "\x1b[31m",
    "é" * 3, "Ａ", "x" * 300, "2026-11-30T18:00:00Z", "2026-11-30T18:00:00", "1999",
    "9999-12-31T23:59:59-23:00", "0001-01-01T00:00:00+01:00",
    "solo_bonus=abc", "solo_bonus=10", "top_source=computer", "draw_size=0", "ro-frs", "nope",
    "duplicate", "completiv", "eliptic", "anticipation", "seeded", "manual",
    "[", "{}", "null", "\u202e",
]  # fmt: skip
values = st.one_of(st.sampled_from(NASTY), st.text(max_size=12))
numbers = st.sampled_from(
    [
        "1",
        "2",
        "3",
        "0",
        "-5",
        "x",
        "1000",
        "1001",
        "2147483648",
        "9007199254740991",
        "99999999999999999999",
    ]
)
players = st.one_of(st.sampled_from(["ana", "bob"]), st.sampled_from(["ana", "zed"]), values)


def _maybe(option: str, strategy: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), strategy.map(lambda v: [option, v]))


def _command(name: str, *parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    games = st.sampled_from(["hd1", "hd1", "hd1", "hd1", "hd1", "zz", ""])
    return st.tuples(games, *parts).map(lambda t: [name, t[0], *(x for p in t[1:] for x in p)])


def _given(option: str, strategy: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return strategy.map(lambda v: [option, v])


game_commands = st.one_of(
    _command("join", _given("--player", values)),
    _command("draw", _maybe("--tiles", values), _maybe("--rejected", values),
             _maybe("--deadline", values), _maybe("--round", numbers)),
    _command("submit", _given("--player", players), _given("--text", values),
             _maybe("--part", numbers), _maybe("--received-at", values),
             _maybe("--source", values), _maybe("--round", numbers)),
    _command("choose-top", _given("--move", values), _maybe("--round", numbers)),
    _command("annul", _given("--player", players), _given("--reason", values),
             _maybe("--part", numbers)),
    _command("penalise", _given("--player", players), _given("--points", numbers),
             _given("--reason", values)),
    _command("correct", _given("--player", players), _given("--text", values),
             _given("--reason", values)),
    _command("revoke", _given("--event", values), _given("--reason", values)),
    _command("close-round", _maybe("--round", numbers)),
    _command("end", _maybe("--reason", values)),
    _command("results", _maybe("--round", numbers), _maybe("--player", players)),
    _command("replay", _maybe("--at", numbers), _maybe("--player", players)),
    _command("standings"),
    st.tuples(values, _maybe("--player", values), _maybe("--set", values),
              _maybe("--ruleset", values), _maybe("--variant", values),
              _maybe("--title", values), _maybe("--tournament", values)).map(
        lambda t: ["create", t[0], *(x for p in t[1:] for x in p)]),
)  # fmt: skip
slip_files = st.lists(
    st.tuples(players, st.sampled_from([" | ", "\t", " ", "|"]), values).map("".join),
    min_size=0,
    max_size=5,
).map(lambda rows: "\n".join(rows).encode("utf-8", "surrogatepass"))


def _invoke(args: list[str], db: str):
    result = runner.invoke(app, [*args, "--db", db])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        result.exception,
    )
    assert "Traceback" not in result.output, (args, result.output)
    assert result.exit_code in CODES, (args, result.exit_code, result.output)
    return result


@pytest.fixture
def game_template(default_home, tmp_path) -> Path:
    """A SQLite ledger holding game hd1 (ana, bob) with round 1 drawn, copied per example."""
    template = tmp_path / "template.db"
    db = f"sqlite:///{template}"
    for args in (
        ["game", "create", "hd1", "--player", "ana:Ana", "--player", "bob"],
        ["game", "draw", "hd1", "--tiles", "CARTEAM"],
        ["game", "submit", "hd1", "--player", "ana", "--text", "H8: CARTEA"],
    ):
        assert _invoke(args, db).exit_code == 0
    return template


def _everything_reads_back(db: str, tmp_path: Path) -> None:
    """Every game's views, a recompute, the chain's check and the Parquet export all succeed
    on what the session recorded."""
    listed = json.loads(_invoke(["game", "list", "--json"], db).stdout)["games"]
    for game in listed:
        views = [
            ["game", "standings", game["game_id"], "--json"],
            ["game", "replay", game["game_id"], "--json"],
            ["game", "replay", game["game_id"]],
        ]
        views += [["game", "results", game["game_id"], "--round", str(n), *shown]
                  for n in range(1, game["round"] + 1) for shown in ([], ["--json"])]  # fmt: skip
        for args in views:
            assert _invoke(args, db).exit_code == 0, args
    assert _invoke(["recompute", "--json"], db).exit_code == 0
    assert _invoke(["ledger", "verify"], db).exit_code == 0
    out = tmp_path / "parquet"
    shutil.rmtree(out, ignore_errors=True)
    assert _invoke(["export", "--out", str(out)], db).exit_code == 0


@SESSION
@given(session=st.lists(game_commands, min_size=2, max_size=8), slips=slip_files)
def test_fuzzed_arbiter_sessions_never_fail_inside_and_every_accepted_act_reads_back(
    game_template, tmp_path, session, slips
):
    ledger = tmp_path / "ledger.db"
    shutil.copy(game_template, ledger)
    db = f"sqlite:///{ledger}"
    slip_file = tmp_path / "slips.txt"
    slip_file.write_bytes(slips)
    for args in [*session, ["game", "submit", "hd1", "--file", str(slip_file)]]:
        _invoke(args if args[0] == "game" else ["game", *args], db)
    _everything_reads_back(db, tmp_path)


other_commands = st.one_of(
    st.tuples(st.sampled_from(["--season", "--tournament", "--game", "--workers"]), values).map(
        lambda t: ["recompute", *t]),
    st.tuples(_maybe("--stream", values), _maybe("--expect-head", values)).map(
        lambda t: ["ledger", "verify", *t[1]] if t[1] else ["ledger", "export", *t[0]]),
    st.tuples(values, _maybe("--round", numbers)).map(lambda t: ["game", "results", *t[:1], *t[1]]),
    st.tuples(values).map(lambda t: ["tournament", "standings", *t]),
    st.tuples(values).map(lambda t: ["season", "standings", "--season", *t]),
    st.tuples(st.sampled_from(["ILUAAM?", "ABC", "?"]) | values, _maybe("--limit", numbers)).map(
        lambda t: ["engine", "top", "--board", str(ROOT / "fixtures" / "boards" / "diluaram.txt"),
                   "--rack", t[0], "--dict", str(WORDS), *t[1]]),
    st.tuples(values, _maybe("--rack", values)).map(
        lambda t: ["engine", "score", "--board", str(ROOT / "fixtures" / "boards" / "diluaram.txt"),
                   "--move", t[0], "--no-words", *t[1]]),
    st.tuples(values).map(lambda t: ["lexicon", "check", t[0] or "A", "--dict", str(WORDS)]),
    st.tuples(values, values).map(lambda t: ["ledger", "prove", t[0], "--checkpoint", t[1]]),
)  # fmt: skip


@OPTIONS
@given(args=other_commands)
def test_fuzzed_options_of_the_other_commands_never_fail_inside(game_template, tmp_path, args):
    ledger = tmp_path / "ledger.db"
    if not ledger.exists():
        shutil.copy(game_template, ledger)
    db = f"sqlite:///{ledger}"
    needs_db = args[0] not in ("engine", "lexicon")
    result = runner.invoke(app, [*args, *(["--db", db] if needs_db else [])])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        result.exception,
    )
    assert "Traceback" not in result.output and result.exit_code in CODES, (args, result.output)
