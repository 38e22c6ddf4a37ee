"""Start-up: a command imports only what it uses (issues 11 and 21).

The ledger's SQLAlchemy and Alembic take most of a second to import; `arbitru --help` and the
engine commands never need them, so they must never load them. Commands reading a ledger load
SQLAlchemy but not Alembic (the schema revision is one query; only migrating needs the
migration tool), nor what only other commands use: signing keys (`cryptography`, for the
commands that sign or check a signature only, not for the other `ledger` commands), SVG
pictures, progress bars, the PostgreSQL dialect on a SQLite ledger. The root help lists the
sub-apps from `cli.SUB_APPS` without importing them, so that list must say what each sub-app
says of itself. A command's help loads no database layer, no signing keys, no Parquet writer
and no Markdown renderer (Typer's help renderer loads without it: `cli.help_renderer`).
At exit, the collector's passes skip what a command made (`cli._no_collection_at_exit`).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli import arbitru as cli

runner = CliRunner()

ROOT = Path(__file__).parents[2]
WORDS = ROOT / "tests" / "data" / "movegen-words.txt"
BOARD = ROOT / "fixtures" / "boards" / "diluaram.txt"
GAME = ROOT / "fixtures" / "games" / "duplicate-game.jsonl"
HEAVY = (
    "sqlalchemy", "alembic", "ledger.store", "ledger.database", "cryptography",
    "sqlalchemy.dialects.postgresql", "rich.progress", "pipelines.pictures.board_svg",
    "pipelines.cli.game", "pipelines.cli.game_decisions", "pipelines.cli.game_replace",
    "pyarrow", "pydantic", "markdown_it", "pygments",
)  # fmt: skip

NEVER_FOR_HELP = {
    "sqlalchemy", "alembic", "ledger.store", "ledger.database", "cryptography", "pyarrow",
    "pydantic", "markdown_it", "pygments",
}  # fmt: skip

NEVER_FOR_STANDINGS = (
    "pipelines.cli.anticipation_views", "pipelines.cli.completiv_views", "pipelines.cli.board",
    "pipelines.games.inputs", "pipelines.games.slip_times", "pipelines.files.whole",
)  # fmt: skip
"""What a game's standings never use: the variants' views and the board (other views draw
them), the writing commands' input parsers and slip times, the writer of output files (the
views that write one, `--svg` and `--html`, load it). (Who records an event, `getpass`,
is asked only by the writing commands too, but at the dependency floors click imports it
itself: it is not ours to forbid.)"""

NOT_FOLDED_BY = {
    "duplicate": ("engine.games.commands", "engine.games.duplicate", "engine.games.completiv",
                  "engine.games.anticipation", "engine.games.anticipation_evolve",
                  "engine.games.anticipation_rules", "engine.games.anticipation_views",
                  "engine.games.anticipation_state", "engine.movegen"),
    "anticipation": ("engine.games.commands", "engine.games.duplicate", "engine.games.completiv",
                     "engine.games.anticipation", "engine.movegen"),
    "completiv": ("engine.games.anticipation", "engine.games.anticipation_evolve",
                  "engine.games.anticipation_rules", "engine.games.anticipation_views",
                  "engine.games.anticipation_state"),
}  # fmt: skip
"""What folding a game of each variant never imports: the commands and the variants' `decide`
(the fold is the variant's `evolve` alone), nor the other variants' folds and rules, nor (but
in completiv, whose judging asks for the tops of racks the players completed) the move
generator: the tops are read from the events."""

# Runs the CLI, then prints (at exit) which of the heavy modules (or packages) it imported.
PROBE = (
    "import atexit, json, sys\n"
    f"heavy = {HEAVY!r}\n"
    "atexit.register(lambda: print('LOADED', json.dumps([h for h in heavy if any(m == h or "
    "m.startswith(h + '.') for m in sys.modules)]), file=sys.stderr))\n"
    "from pipelines.cli.arbitru import main\n"
    "main()\n"
)


def loaded(*args: str, home: Path, watched: tuple[str, ...] = HEAVY) -> tuple[int, list[str]]:
    probe = PROBE.replace(repr(HEAVY), repr(watched))
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                          timeout=120, check=False, env={"ARBITRU_HOME": str(home),
                          "PATH": "/usr/bin:/bin"})  # fmt: skip
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED"))
    return done.returncode, json.loads(line.removeprefix("LOADED "))


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["engine", "--help"],
        ["engine", "score", "--board", str(BOARD), "--move", "15A: [D]ILUARĂM", "--dict",
         str(WORDS)],
        ["engine", "top", "--board", str(BOARD), "--rack", "ILUAAM?", "--dict", str(WORDS),
         "--json"],
        ["lexicon", "check", "CASA", "--dict", str(WORDS)],
    ],
)  # fmt: skip
def test_commands_that_touch_no_database_never_import_sqlalchemy_or_alembic(args, tmp_path):
    code, heavy = loaded(*args, home=tmp_path)
    assert code in (0, 1) and heavy == []


def test_ledger_commands_still_load_the_ledger_on_use(tmp_path):
    code, heavy = loaded("db", "upgrade", "--db", f"sqlite:///{tmp_path / 'a.db'}", home=tmp_path)
    assert code == 0 and "sqlalchemy" in heavy and "alembic" in heavy


def test_reading_a_game_loads_neither_alembic_nor_what_other_commands_use(tmp_path, default_home):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    code, heavy = loaded("ledger", "import", str(GAME), "--db", db, home=default_home)
    assert code == 0 and "alembic" in heavy  # creating the ledger migrates it
    for command in (
        ["game", "standings", "cb26-p1"],
        ["game", "standings", "cb26-p1", "--json"],
        ["game", "results", "cb26-p1", "--round", "3"],
        ["game", "replay", "cb26-p1"],
    ):
        code, heavy = loaded(*command, "--db", db, home=default_home)
        assert code == 0 and heavy == ["sqlalchemy", "ledger.store", "ledger.database"], command


@pytest.mark.parametrize("variant", ["duplicate", "anticipation", "completiv"])
def test_a_games_standings_load_no_view_nor_parser_they_do_not_use(variant, tmp_path, default_home):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    fixture = GAME.with_name(f"{variant}-game.jsonl")
    assert loaded("ledger", "import", str(fixture), "--db", db, home=default_home)[0] == 0
    streams = (json.loads(line)["stream"] for line in fixture.read_text("utf-8").splitlines())
    game = next(s for s in streams if s.startswith("game/")).removeprefix("game/")
    for as_json in ([], ["--json"]):
        code, heavy = loaded("game", "standings", game, *as_json, "--db", db, home=default_home,
                             watched=NEVER_FOR_STANDINGS + NOT_FOLDED_BY[variant])  # fmt: skip
        assert code == 0 and heavy == [], (variant, heavy)


def test_only_the_commands_that_sign_or_check_a_signature_import_cryptography(
    tmp_path, default_home
):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    key, proof = tmp_path / "federation.key", tmp_path / "proof.json"
    signs = {"keys", "checkpoint", "verify-proof"}  # the others neither sign nor check
    for command in (
        ["ledger", "import", str(GAME), "--db", db],
        ["keys", "new", str(key)],
        ["ledger", "checkpoint", "--key", str(key), "--db", db],
        ["ledger", "head", "--db", db],
        ["ledger", "verify", "--db", db],
        ["ledger", "export", "--out", str(tmp_path / "export.jsonl"), "--db", db],
        ["ledger", "checkpoints", "--db", db],
        ["ledger", "prove", "7", "--out", str(proof), "--db", db],
        ["export", "--out", str(tmp_path / "parquet"), "--db", db],
        ["ledger", "--help"],
        ["verify-proof", str(proof), "--pubkey", f"{key}.pub"],
    ):
        code, heavy = loaded(*command, home=default_home)
        assert code == 0, command
        assert ("cryptography" in heavy) == bool(signs & set(command[:2])), (command, heavy)


def test_exporting_replays_games_without_loading_alembic(tmp_path, default_home):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert loaded("ledger", "import", str(GAME), "--db", db, home=default_home)[0] == 0
    code, heavy = loaded("export", "--db", db, "--out", str(tmp_path / "out"), home=default_home)
    assert code == 0 and "sqlalchemy" in heavy
    assert "alembic" not in heavy and "sqlalchemy.dialects.postgresql" not in heavy


def test_writing_to_a_current_ledger_does_not_load_alembic(tmp_path, default_home):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert loaded("db", "upgrade", "--db", db, home=default_home)[0] == 0
    code, heavy = loaded("ledger", "import", str(GAME), "--db", db, home=default_home)
    assert code == 0 and "sqlalchemy" in heavy and "alembic" not in heavy


@pytest.mark.parametrize("name", sorted(cli.SUB_APPS))
def test_the_root_help_shows_each_sub_apps_own_help(name):
    assert cli.load_sub_app(name).help == cli.SUB_APPS[name][1]


def test_the_game_help_lists_every_game_command_and_a_typo_gets_a_suggestion():
    assert all(callable(cli._attribute(where)) for where in cli.GAME_COMMANDS.values())
    shown = runner.invoke(cli.app, ["game", "--help"], env={"COLUMNS": "100"}).stdout
    commands = shown[shown.index("Commands") :].splitlines()
    listed = [line.split()[1] for line in commands if line.startswith("│ ")]
    assert listed == list(cli.GAME_COMMANDS)
    typo = runner.invoke(cli.app, ["game", "standigns"], env={"COLUMNS": "100"})
    assert typo.exit_code == 2 and "Did you mean 'standings'?" in typo.stderr


def test_the_root_help_lists_every_sub_app_in_order_without_loading_them():
    done = subprocess.run([sys.executable, "-c", PROBE, "--help"], capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    listed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("│ ")
              and line.split()[1] in cli.SUB_APPS]  # fmt: skip
    assert listed == list(cli.SUB_APPS)
    assert "LOADED []" in done.stderr


def test_the_root_help_loads_no_importlib_resources(tmp_path):
    """Typer's help renderer is loaded through a finder of our own (`cli.help_renderer`), which
    needs none of importlib's abstract classes: they import `importlib.resources` and with it
    `tempfile` and `random`, a fortieth of the help's time."""
    watched = ("importlib.abc", "importlib.resources", "tempfile")
    assert loaded("--help", home=tmp_path, watched=watched) == (0, [])


def test_the_offline_proof_commands_load_nothing_of_the_database_layer(tmp_path, default_home):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    key, proof = tmp_path / "federation.key", tmp_path / "proof.json"
    code, heavy = loaded("keys", "new", str(key), home=default_home)
    assert code == 0 and "sqlalchemy" not in heavy and "ledger.store" not in heavy
    for made in (
        ["ledger", "import", str(GAME), "--db", db],
        ["ledger", "checkpoint", "--key", str(key), "--db", db],
        ["ledger", "prove", "7", "--out", str(proof), "--db", db],
    ):
        assert loaded(*made, home=default_home)[0] == 0, made
    code, heavy = loaded("verify-proof", str(proof), "--pubkey", f"{key}.pub", home=default_home)
    assert code == 0 and not {"sqlalchemy", "alembic", "ledger.store", "ledger.database"} & set(
        heavy
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        *([name, "--help"] for name in cli.SUB_APPS),
        # recompute's help quotes the recompute's own limits, so it loads its module.
        *([name, "--help"] for name in cli.SUB_COMMANDS if name != "recompute"),
        ["ledger", "head", "--help"],
        ["keys", "new", "--help"],
    ],
    ids=" ".join,
)
def test_help_imports_no_database_layer_nor_cryptography(args, tmp_path):
    code, heavy = loaded(*args, home=tmp_path)
    assert code == 0 and not set(heavy) & NEVER_FOR_HELP, heavy


def test_typers_help_renderer_still_renders_markdown_when_asked():
    probe = (
        "import sys\n"
        "import pipelines.cli.arbitru, typer.rich_utils as renderer\n"
        "print('markdown_it' in sys.modules, 'pygments' in sys.modules)\n"
        "import rich.markdown, rich.traceback\n"
        "shown = renderer.Markdown('*x*')\n"
        "print(type(shown) is rich.markdown.Markdown, hasattr(rich.traceback, 'install'))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)  # fmt: skip
    assert done.stdout.split() == ["False", "False", "True", "True"]


def test_a_command_runs_the_cyclic_garbage_collector_every_gc_every_new_objects_not_every_700():
    """A command keeps most of what it makes to its end: `main` lets the collector pass less
    often (`cli.GC_EVERY`) than Python's default, which rescans those objects for nothing."""
    probe = (
        "import gc, sys\n"
        "from pipelines.cli.arbitru import main\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    print('THRESHOLD', gc.get_threshold()[0], file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, "--version"], capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0
    assert f"THRESHOLD {cli.GC_EVERY}" in done.stderr.splitlines()


def test_a_command_puts_its_objects_out_of_the_collectors_reach_at_exit_and_loses_nothing(
    tmp_path, default_home
):
    """Python, exiting, runs the cyclic collector over every object left, several times: `main`
    freezes them first (`cli._no_collection_at_exit`). The command's work is done by then: its
    output is all there and the ledger's connections are closed (the last one tidies SQLite's
    `-wal` and `-shm` files away)."""
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert loaded("ledger", "import", str(GAME), "--db", db, home=default_home)[0] == 0
    probe = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('FROZEN', gc.get_freeze_count() > 0, file=sys.stderr))\n"
        "from pipelines.cli.arbitru import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, "game", "standings", "cb26-p1", "--json",
                           "--db", db], capture_output=True, text=True, timeout=120,
                          check=False, env={"ARBITRU_HOME": str(default_home),
                          "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode == 0 and "FROZEN True" in done.stderr.splitlines()
    assert json.loads(done.stdout)["ledger_altered"] is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.db"]
