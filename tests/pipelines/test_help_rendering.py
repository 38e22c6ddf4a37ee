"""Help renders the same under every Typer that pyproject.toml admits (typer 0.26.8 up to, not
including, 0.27: 0.27 shows `<bool>` beside every flag and `{game}` for an argument, and
earlier ones drop an argument's help under newer Click). The CI runs this at both ends: the
newest admitted release, and again at the dependency floors (.ci/run). Every command's help
names metavars the way the README does (GAME, TEXT, INTEGER), shows each argument's help, and
never a flag's type."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from pipelines.cli import arbitru as cli

runner = CliRunner()


def _commands() -> list[list[str]]:
    found: list[list[str]] = [[]]
    for name in cli.SUB_APPS:
        found.append([name])
        group = cli.load_sub_app(name)
        found += [[name, sub] for sub in group.list_commands(None)]  # type: ignore[attr-defined]
    return found + [[name] for name in cli.SUB_COMMANDS]


def _help(*args: str) -> str:
    result = runner.invoke(cli.app, [*args, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "arbitru")
def test_a_commands_help_never_shows_a_flags_type_or_a_braced_argument(command):
    shown = _help(*command)
    assert not re.search(r"<(bool|str|int|path|float)[^>]*>", shown), shown
    assert not re.search(r"\{[a-z_]+\}", shown.split("\n", 3)[1]), shown


def test_an_arguments_help_and_metavar_are_shown():
    shown = _help("game", "results")
    assert "Usage: arbitru game results [OPTIONS] GAME" in shown
    assert "The game: its id (hd1) or its stream (game/hd1)." in shown
    assert re.search(r"--round\s+INTEGER RANGE \[x>=1\]", shown)
    assert re.search(r"--json\s+Machine-readable output\.", shown)
