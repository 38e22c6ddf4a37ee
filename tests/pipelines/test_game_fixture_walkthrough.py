"""docs/game-day.md runs as written: every `$ arbitru ...` line of its console blocks is run in
order, in a fresh folder holding the files the page shows, through the real CLI. A command
whose shown output starts with `error:` must fail with that message; any other must succeed
and print every plain line shown (tables are left out: their widths follow the terminal; `…`
stands for what the page leaves out). An event id shown in an output stands for the id the run
printed at the same place, in the commands that follow."""

from __future__ import annotations

import re
import secrets
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipelines.cli.arbitru import app

PAGE = Path(__file__).resolve().parents[2] / "docs" / "game-day.md"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TABLE = re.compile(r"[│┃━┏┡└┌┐┘┬┴┼─╇┳╋]")
ELLIPSIS = "…"


@dataclass(frozen=True)
class Step:
    command: str
    shown: tuple[str, ...]


def _files(page: str) -> dict[str, str]:
    return dict(re.findall(r"File `([^`]+)`:\n\n```text\n(.*?)```", page, re.S))


def _steps(page: str) -> list[Step]:
    steps = []
    for block in re.findall(r"```console\n(.*?)```", page, re.S):
        command: str | None = None
        shown: list[str] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    steps.append(Step(command, tuple(shown)))
                command, shown = line[2:], []
            else:
                shown.append(line)
        if command is not None:
            steps.append(Step(command, tuple(shown)))
    return steps


def _flat(text: str) -> str:
    return " ".join(text.split())


def _fragments(line: str) -> list[str]:
    return [_flat(part) for part in line.split(ELLIPSIS) if _flat(part)]


def test_the_page_has_commands_and_files() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert len(_steps(page)) > 30
    assert {"players.txt", "slips-r2.txt", "slips-r3.txt"} <= set(_files(page))
    assert "draws.md" in page


def test_every_command_of_the_game_day_runs_as_written(
    default_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = PAGE.read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name, text in _files(page).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {"COLUMNS": "100"}
    runner = CliRunner()
    ids: dict[str, str] = {}
    for step in _steps(page):
        command = step.command
        if command.startswith("export "):
            name, _, value = command.removeprefix("export ").partition("=")
            env[name] = value
            continue
        for shown_id, real_id in ids.items():
            command = command.replace(shown_id, real_id)
        words = shlex.split(command)
        assert words[0] == "arbitru", command
        given = None
        if "<" in words:  # `... < FILE`: the file on stdin
            at = words.index("<")
            source = tmp_path / words[at + 1]
            if not source.exists():  # a seed of the user's own, made as the README says
                source.write_bytes(secrets.token_bytes(32))
            given, words = source.read_bytes(), words[:at]
        result = runner.invoke(app, words[1:], env=env, input=given)
        assert "Traceback" not in result.output, (command, result.output)
        shown = [line for line in step.shown if line.strip()]
        if shown and shown[0].startswith("error:"):
            assert result.exit_code != 0, (command, result.output)
            for fragment in _fragments(shown[0]):
                assert fragment in _flat(result.stderr), (command, fragment, result.stderr)
            continue
        assert result.exit_code == 0, (command, result.output)
        printed = _flat(result.output)
        for line in shown:
            if TABLE.search(line) or line.lstrip().startswith("{"):
                continue
            for fragment in _fragments(line):
                assert fragment in printed, (command, fragment, result.output)
        for shown_id, real_id in zip(
            UUID.findall("\n".join(shown)), UUID.findall(result.stdout), strict=False
        ):
            ids.setdefault(shown_id, real_id)
