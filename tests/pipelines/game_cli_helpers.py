"""Running `arbitru` through Typer's CliRunner: any command (`cli`), or `arbitru game` as an
arbiter would against a real ledger (`Arbiter`). Imported as a plain module: pytest puts this
folder on sys.path."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

from ledger import EventStore
from pipelines.cli.arbitru import app

runner = CliRunner()


def cli(*args: str, code: int = 0) -> Any:
    """`arbitru ARGS...`, which must exit with `code`: its JSON when it succeeds with --json,
    else its result."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.stderr or result.output
    return json.loads(result.stdout) if "--json" in args and code == 0 else result


@dataclass
class Arbiter:
    """One arbiter's terminal on one ledger."""

    db: str
    game: str = "hd1"
    actor: str = "arbiter-1"

    def run(self, *args: str, actor: bool = True) -> Result:
        """`arbitru game ARGS... --db DB --actor ACTOR` (views take no --actor); never raises
        (the caller checks the exit code)."""
        who = ["--actor", self.actor] if actor else []
        result = runner.invoke(app, ["game", *args, "--db", self.db, *who])
        assert "Traceback" not in result.output, result.output
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    def ok(self, *args: str) -> dict[str, Any]:
        """A command that must succeed, with --json; its JSON."""
        result = self.run(*args, "--json")
        assert result.exit_code == 0, result.stderr or result.output
        return json.loads(result.stdout)

    def view(self, *args: str) -> dict[str, Any]:
        """A view (replay, results, standings) with --json; its JSON."""
        result = runner.invoke(app, ["game", *args, "--db", self.db, "--json"])
        assert result.exit_code == 0, result.stderr or result.output
        return json.loads(result.stdout)

    def refused(self, code: int, *args: str, actor: bool = True) -> str:
        """A command that must fail with `code` and write nothing; its stderr."""
        before = self.count()
        result = self.run(*args, actor=actor)
        assert result.exit_code == code, (result.exit_code, result.output)
        assert self.count() == before, "a refused command wrote to the ledger"
        assert result.stderr.strip().startswith("error:"), result.stderr
        return " ".join(result.stderr.split())

    def count(self) -> int:
        """How many events the whole ledger holds (0 when there is no ledger yet)."""
        try:
            with EventStore(self.db, upgrade=False) as store:
                return store.head().seq
        except Exception:
            return 0

    def events(self) -> list[str]:
        with EventStore(self.db, upgrade=False) as store:
            return [e.type for e in store.read_stream(f"game/{self.game}")]


PLAYERS = ("--player", "ana:Ana", "--player", "bob:Bob", "--player", "cri:Cri", "--player", "dan")


def create(arbiter: Arbiter, *extra: str) -> dict[str, Any]:
    """A duplicate game of four players on the default word list."""
    return arbiter.ok("create", arbiter.game, *PLAYERS, "--title", "Hall duplicate", *extra)


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "games"
DUPLICATE_FIXTURE = FIXTURES / "duplicate-game.jsonl"


def import_with_last_round_open(db: str, folder: Path) -> None:
    """The duplicate fixture (tournament cupa-bucuresti-2026, its fourteen-player game
    cb26-p1) imported up to its last RoundClosed: the game not ended, so the arbiter can still
    decide in its last round."""
    lines = DUPLICATE_FIXTURE.read_text(encoding="utf-8").splitlines(keepends=True)
    last_close = max(i for i, line in enumerate(lines) if '"type":"RoundClosed"' in line)
    opened = folder / "open-last-round.jsonl"
    opened.write_text("".join(lines[:last_close]), encoding="utf-8")
    cli("ledger", "import", str(opened), "--db", db)
