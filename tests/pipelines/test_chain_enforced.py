"""Issue 19, item 1: every command enforces the chain. On a ledger altered behind Arbitru's
back in each of four ways (`tampering`: a payload edit, a truncation under a signed
checkpoint, a rewrite with fresh hashes under the old checkpoint, a forged import), an
append is refused, every view says so on its first line and exits 1, `export` and
`recompute` refuse it, and their `--skip-verify` goes ahead saying loudly that nothing
vouches for the result; read models computed at a head whose hash has changed are replayed.
On SQLite and PostgreSQL, through the real `arbitru` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from game_cli_helpers import runner
from tampering import EVENTS, GAME, OPEN_SLIP, SCENARIOS, SIGNED_AT, altered_ledger, signed_ledger
from tampering import rewrite as rewrite_history

from ledger import EventStore
from ledger.checkpoints import LedgerAltered, list_checkpoints
from pipelines.cli.arbitru import app
from pipelines.games.service import load_game
from pipelines.season import readmodels as rm
from pipelines.season.recompute import Selection, plan, replay_games

pytestmark = pytest.mark.usefixtures("default_home")


def _run(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def _head(url: str) -> tuple[int, str]:
    with EventStore(url, upgrade=False) as store:
        head = store.head()
    return head.seq, head.hash


def _said(text: str) -> str:
    return " ".join(text.split())


def _total(url: str, player: str) -> int:
    table = rm.game_standings
    with EventStore(url, upgrade=False) as store, store.engine.connect() as connection:
        return connection.execute(
            sa.select(table.c.total).where(table.c.game_id == GAME, table.c.player_id == player)
        ).scalar_one()


def test_an_intact_signed_ledger_takes_a_slip_and_is_exported_as_verified(
    db_url: str, tmp_path: Path
) -> None:
    signed_ledger(db_url, tmp_path)
    standings = _run("game", "standings", GAME, "--db", db_url, "--json")
    assert standings.exit_code == 0, standings.output
    assert standings.stderr == ""
    assert json.loads(standings.stdout)["ledger_altered"] is None
    recomputed = _run("recompute", "--db", db_url, "--json")
    assert recomputed.exit_code == 0, recomputed.output
    exported = _run("export", "--out", str(tmp_path / "out"), "--db", db_url, "--json")
    assert exported.exit_code == 0, exported.output
    manifest = json.loads((tmp_path / "out" / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["verified"] is True
    with EventStore(db_url, upgrade=False) as store:
        (signed,) = list_checkpoints(store)
    assert manifest["checkpoint"] == signed.to_dict()
    assert signed.tree_size == SIGNED_AT
    submitted = _run("game", "submit", GAME, *OPEN_SLIP, "--db", db_url, "--json")
    assert submitted.exit_code == 0, submitted.output
    assert _head(db_url)[0] == EVENTS + 1


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_an_altered_ledger_refuses_appends_and_every_view_says_so_first(
    scenario: str, db_url: str, tmp_path: Path
) -> None:
    altered_ledger(scenario, db_url, tmp_path)
    head = _head(db_url)
    submitted = _run("game", "submit", GAME, *OPEN_SLIP, "--db", db_url)
    assert submitted.exit_code == 1, submitted.output
    assert submitted.stderr.startswith("error: refused, nothing was written: the ledger fails")
    assert "arbitru ledger verify" in _said(submitted.stderr)
    dry_run = _run("game", "submit", GAME, *OPEN_SLIP, "--dry-run", "--db", db_url)
    assert dry_run.exit_code == 1, dry_run.output
    assert _head(db_url) == head, "a refused append wrote to the ledger"

    shown = _run("game", "standings", GAME, "--db", db_url)
    assert shown.exit_code == 1, shown.output
    first = shown.stderr.splitlines()[0]
    assert first.startswith("error: the ledger fails its integrity check, so this view is not")
    assert "p13" in shown.stdout, "the view is still shown, after the warning"
    for view in (
        ("game", "standings", GAME),
        ("game", "results", GAME, "--round", "2"),
        ("game", "table", GAME),
        ("game", "replay", GAME, "--round", "1"),
        ("tournament", "standings", "cupa-bucuresti-2026"),
        ("tournament", "table", "cupa-bucuresti-2026"),
    ):
        as_json = _run(*view, "--db", db_url, "--json")
        assert as_json.exit_code == 1, (view, as_json.output)
        assert "ledger verify" in _said(json.loads(as_json.stdout)["ledger_altered"]), view


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_export_and_recompute_refuse_an_altered_ledger_and_skip_verify_says_so_loudly(
    scenario: str, db_url: str, tmp_path: Path
) -> None:
    altered_ledger(scenario, db_url, tmp_path)
    out = tmp_path / "parquet"
    refused = _run("export", "--out", str(out), "--db", db_url)
    assert refused.exit_code == 1, refused.output
    assert _said(refused.stderr).startswith(
        "error: the ledger fails its integrity check, so nothing was exported"
    )
    assert "--skip-verify" in refused.stderr
    assert not out.exists()

    forensic = _run("export", "--out", str(out), "--db", db_url, "--skip-verify", "--json")
    assert forensic.exit_code == 0, forensic.output
    assert _said(forensic.stderr).startswith("warning: --skip-verify:")
    assert "not vouched for" in _said(forensic.stderr)
    assert json.loads(forensic.stdout)["verified"] is False
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["verified"] is False
    assert manifest["checkpoint"] is None, "nothing vouches for a checkpoint of this ledger"

    refused = _run("recompute", "--db", db_url)
    assert refused.exit_code == 1, refused.output
    assert _said(refused.stderr).startswith(
        "error: the ledger fails its integrity check, so nothing was recomputed"
    )
    forensic = _run("recompute", "--db", db_url, "--skip-verify", "--json")
    assert forensic.exit_code == 0, forensic.output
    assert _said(forensic.stderr).startswith("warning: --skip-verify:")


def test_read_models_at_the_same_seq_with_another_hash_are_replayed(
    db_url: str, tmp_path: Path
) -> None:
    signed_ledger(db_url, tmp_path)
    before = _total(db_url, "p13")
    seq, old_hash = _head(db_url)
    rewrite_history(db_url, tmp_path)
    assert _head(db_url)[0] == seq and _head(db_url)[1] != old_hash

    exported = _run("export", "--out", str(tmp_path / "out"), "--db", db_url, "--skip-verify",
                    "--json")  # fmt: skip
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.stdout)["rows_from"] == "replay", "stale read models were used"

    recomputed = _run("recompute", "--db", db_url, "--skip-verify", "--json")
    assert recomputed.exit_code == 0, recomputed.output
    assert json.loads(recomputed.stdout)["games"] == 1
    assert "the ledger changed under the read models" in _said(recomputed.stderr)
    assert _total(db_url, "p13") != before


def test_a_game_read_names_the_first_of_its_events_that_no_longer_gives_its_hash(
    db_url: str, tmp_path: Path
) -> None:
    altered_ledger("payload edit", db_url, tmp_path)
    with EventStore(db_url, upgrade=False) as store:
        read = load_game(store, GAME)
    assert read.altered is not None and read.altered.startswith("seq 69 ")
    assert "the event was altered; run `arbitru ledger verify`" in read.altered


def test_a_recompute_checks_every_event_it_replays_against_its_hash(
    db_url: str, tmp_path: Path
) -> None:
    altered_ledger("payload edit", db_url, tmp_path)
    with EventStore(db_url, upgrade=False) as store:
        work = plan(store, Selection(), everything=True)
        with pytest.raises(LedgerAltered, match=r"^seq 69 .*run `arbitru ledger verify`"):
            replay_games(store, work.todo, work.head.seq)
        (replayed,) = replay_games(store, work.todo, work.head.seq, verify=False)
    assert replayed.rows["standings"], "--skip-verify still replays the altered game"


def test_an_export_with_skip_verify_replays_the_events_it_exports(
    db_url: str, tmp_path: Path
) -> None:
    """The read models were computed before the slip at seq 69 was edited (its hash kept, so
    they look fresh): an unverified export takes its rows from the events its `events` table
    holds, never from those read models."""
    altered_ledger("payload edit", db_url, tmp_path)
    out = tmp_path / "parquet"
    forensic = _run("export", "--out", str(out), "--db", db_url, "--skip-verify", "--json")
    assert forensic.exit_code == 0, forensic.output
    assert json.loads(forensic.stdout)["rows_from"] == "replay"
    intact = tmp_path / "intact"
    signed_ledger(f"sqlite:///{tmp_path / 'intact.db'}", tmp_path)
    verified = _run("export", "--out", str(intact), "--db", f"sqlite:///{tmp_path / 'intact.db'}",
                    "--json")  # fmt: skip
    assert json.loads(verified.stdout)["rows_from"] == "read models"
