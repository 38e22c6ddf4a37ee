"""`arbitru tournament sigles`: the fixture tournament's results as Latin-1 SIGLES lines,
read back and checked against `tournament standings --json`; names with ș ț ă
transliterated and said; ties sharing the place; nothing written from an altered ledger."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import tampering
from game_cli_helpers import cli, runner

from ledger import EventStore, NewEvent
from pipelines.cli.arbitru import app
from pipelines.season.sigles import latin1

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
TOURNAMENT = "cupa-bucuresti-2026"


@pytest.fixture
def ledger(db_url: str) -> str:
    cli("ledger", "import", str(FIXTURE), "--db", db_url, "--json")
    return db_url


def _read(path: Path) -> list[list[str]]:
    raw = path.read_bytes()
    assert raw.endswith(b"\r\n") and b"\n" not in raw.replace(b"\r\n", b"")
    return list(csv.reader(raw.decode("latin-1").splitlines()))


def test_sigles_lines_are_latin1_place_name_total_as_the_tournament_standings(ledger, tmp_path):
    out = tmp_path / "cupa.sig"
    result = cli("tournament", "sigles", TOURNAMENT, "--out", str(out), "--db", ledger)
    standings = cli("tournament", "standings", TOURNAMENT, "--db", ledger, "--json")["standings"]
    lines = _read(out)
    assert [(int(p), n, int(t)) for p, n, t in lines] == [
        (s["rank"], latin1(s["name"]), s["total"]) for s in standings
    ]
    assert "Radu Tanase" in [n for _p, n, _t in lines]
    assert f"wrote {len(standings)} player(s) of {TOURNAMENT}" in result.stdout
    assert "Radu Tănase -> Radu Tanase" in result.stderr
    assert all(line.startswith(b'"') for line in out.read_bytes().split(b"\r\n")[:-1])


def test_romanian_letters_latin1_lacks_are_transliterated_and_reported(ledger, tmp_path):
    names = {"p20": "Ștefan Țurcanu", "p21": "Ioana Brâncuși-Dăscălescu", "p22": "Îlie Mânu"}
    with EventStore(ledger) as store:
        store.append(
            f"tournament/{TOURNAMENT}",
            [NewEvent("PlayerRegistered", {"player_id": p, "name": n}) for p, n in names.items()],
        )
    out = tmp_path / "cupa.sig"
    result = runner.invoke(
        app, ["tournament", "sigles", TOURNAMENT, "--out", str(out), "--db", ledger]
    )
    assert result.exit_code == 0, result.stderr
    written = [n for _p, n, _t in _read(out)]
    assert {"Stefan Turcanu", "Ioana Brâncusi-Dascalescu", "Îlie Mânu"} <= set(written)
    (told,) = [line for line in result.stderr.splitlines() if "transliterated" in line]
    assert "3 name(s) transliterated" in told
    assert "Ștefan Țurcanu -> Stefan Turcanu" in told
    assert "Ioana Brâncuși-Dăscălescu -> Ioana Brâncusi-Dascalescu" in told
    assert "Îlie" not in told  # â and î are Latin-1 letters: nothing to say
    assert "\u00e2".encode("latin-1") in out.read_bytes()
    summary = cli("tournament", "sigles", TOURNAMENT, "--out", str(out), "--db", ledger, "--json")
    assert summary["players"] == len(written) and summary["encoding"] == "latin-1"
    assert {"recorded": "Ștefan Țurcanu", "written": "Stefan Turcanu"} in summary["transliterated"]
    assert len(summary["transliterated"]) == 3


def test_tied_players_share_the_place_on_their_lines(ledger, tmp_path):
    with EventStore(ledger) as store:
        store.append(
            f"tournament/{TOURNAMENT}",
            [NewEvent("PlayerRegistered", {"player_id": p, "name": p}) for p in ("p30", "p31")],
        )
    out = tmp_path / "cupa.sig"
    cli("tournament", "sigles", TOURNAMENT, "--out", str(out), "--db", ledger)
    lines = _read(out)
    assert lines[-2:] == [[str(len(lines) - 1), "p30", "0"], [str(len(lines) - 1), "p31", "0"]]
    places = [int(p) for p, _n, _t in lines]
    assert places == sorted(places)


def test_latin1_keeps_its_own_letters_and_replaces_only_the_others():
    assert latin1("Ăă Șș Şş Țț Ţţ Ââ Îî") == "Aa Ss Ss Tt Tt Ââ Îî"
    assert latin1("Łukasz  Œuvre\tß") == "Lukasz OEuvre ß"
    assert latin1("Zhāng 张") == "Zhang ?"
    assert latin1('Ion "Nelu"\nPop') == 'Ion "Nelu" Pop'


def test_a_quote_in_a_name_is_doubled_so_the_line_keeps_three_fields(ledger, tmp_path):
    with EventStore(ledger) as store:
        store.append(
            f"tournament/{TOURNAMENT}",
            [NewEvent("PlayerRegistered", {"player_id": "p40", "name": 'Ion "Nelu" Pop'})],
        )
    out = tmp_path / "cupa.sig"
    cli("tournament", "sigles", TOURNAMENT, "--out", str(out), "--db", ledger)
    assert b'"Ion ""Nelu"" Pop"' in out.read_bytes()
    assert all(len(line) == 3 for line in _read(out))


@pytest.mark.parametrize("scenario", list(tampering.SCENARIOS))
def test_nothing_is_written_from_an_altered_ledger(scenario, db_url, tmp_path):
    tampering.altered_ledger(scenario, db_url, tmp_path)
    out = tmp_path / "cupa.sig"
    result = runner.invoke(
        app, ["tournament", "sigles", TOURNAMENT, "--out", str(out), "--db", db_url]
    )
    assert result.exit_code == 1, result.stderr
    assert "integrity check, so nothing was written" in result.stderr
    assert not out.exists()


def test_an_unknown_tournament_or_an_unusable_out_is_a_clear_error(ledger, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    result = runner.invoke(
        app, ["tournament", "sigles", "nope", "--out", str(tmp_path / "x"), "--db", ledger]
    )
    assert result.exit_code == 2
    assert "no tournament nope" in result.stderr and TOURNAMENT in result.stderr
    result = runner.invoke(
        app, ["tournament", "sigles", TOURNAMENT, "--out", str(folder), "--db", ledger]
    )
    assert result.exit_code == 2
    assert "is a directory, not a regular file" in result.stderr
    assert not list(folder.iterdir())
    database = tmp_path / "other.db"
    cli("ledger", "import", str(FIXTURE), "--db", f"sqlite:///{database}", "--json")
    before = database.read_bytes()
    result = runner.invoke(
        app, ["tournament", "sigles", TOURNAMENT, "--out", str(database), "--db", ledger]
    )
    assert result.exit_code == 2
    assert "is a SQLite database (a ledger?)" in result.stderr
    assert database.read_bytes() == before
