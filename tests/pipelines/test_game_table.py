"""`arbitru game table`: the per-round table of a game of each variant (the fixtures' games and
the sample season's) carries the numbers of `game standings`, the master row first; its CSV
reads back in Python's csv and in DuckDB; its HTML page parses and fetches nothing."""

from __future__ import annotations

import csv
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest
from game_cli_helpers import Arbiter, cli, create, runner

from pipelines.cli.arbitru import app

pytestmark = pytest.mark.usefixtures("default_home")

ROOT = Path(__file__).resolve().parents[2]
FILES = {
    "fixture": ROOT / "fixtures" / "games",
    "season": ROOT / "fixtures" / "season" / "sample-season.jsonl",
}
VARIANTS = ("duplicate", "completiv", "anticipation")
GAMES = [
    ("fixture", "duplicate", "cb26-p1"),
    ("fixture", "completiv", "cb26-c1"),
    ("fixture", "anticipation", "ant26-p1"),
    ("season", "duplicate", "cb26-p1"),
    ("season", "completiv", "mc26-p1"),
    ("season", "anticipation", "oi26-p1"),
    ("season", "eliptic", "tt26-p1"),  # only the sample season has an eliptic game
]


@pytest.fixture(scope="module")
def ledgers(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each fixture game, and the sample season, imported into a SQLite ledger of its own
    (the fixture's duplicate game and the season's share an id)."""
    folder = tmp_path_factory.mktemp("tables")
    files = {v: FILES["fixture"] / f"{v}-game.jsonl" for v in VARIANTS}
    files["season"] = FILES["season"]
    urls = {name: f"sqlite:///{folder / name}.db" for name in files}
    for name, path in files.items():
        cli("ledger", "import", str(path), "--db", urls[name], "--json")
    return urls


@pytest.fixture
def arbiter(db_url: str) -> Arbiter:
    """A small game's arbiter, on SQLite and on PostgreSQL."""
    return Arbiter(db_url)


def _url(ledgers: dict[str, str], source: str, variant: str) -> str:
    return ledgers["season"] if source == "season" else ledgers[variant]


@pytest.mark.parametrize(("source", "variant", "game"), GAMES)
def test_table_totals_negatives_and_percentages_are_those_of_the_standings(
    ledgers: dict[str, str], source: str, variant: str, game: str
) -> None:
    url = _url(ledgers, source, variant)
    table = cli("game", "table", game, "--db", url, "--json")
    shown = cli("game", "standings", game, "--db", url, "--json")
    assert table["variant"] == variant and table["top_total"] == shown["top_total"]
    rows = shown["standings"]
    assert len(table["players"]) == len(rows) > 1
    for row, standing in zip(table["players"], rows, strict=True):
        for key in ("rank", "player_id", "name", "total", "solos", "pct_of_top"):
            assert row[key] == standing[key], (key, row["player_id"])
        assert [c["total"] for c in row["rounds"]] == standing["rounds"]
        assert row["subtotal"] == sum(c["score"] for c in row["rounds"])
        assert row["total"] == row["subtotal"] + row["solo_bonus"] - row["penalties"]
        assert row["solos"] == sum(c["mark"] == "solo" for c in row["rounds"])
    best = rows[0]["total"] if variant == "anticipation" else shown["top_total"]
    assert [r["negative"] for r in table["players"]] == [s["total"] - best for s in rows]


@pytest.mark.parametrize(
    ("source", "variant", "game"), [g for g in GAMES if g[1] != "anticipation"]
)
def test_master_row_is_the_rounds_tops_at_100_percent(
    ledgers: dict[str, str], source: str, variant: str, game: str
) -> None:
    url = _url(ledgers, source, variant)
    table = cli("game", "table", game, "--db", url, "--json")
    master = table["master"]
    assert (master["total"], master["negative"], master["pct_of_top"]) == (
        table["top_total"],
        0,
        100.0,
    )
    results = cli("game", "results", game, "--round", "3", "--db", url, "--json")
    third = master["rounds"][2]
    assert (third["score"], third["move"]) == (results["top"]["score"], results["top"]["move"])
    marked = {p["player_id"]: p["rounds"][2]["mark"] for p in table["players"]}
    reached = set(results["top"]["reached_by"])
    assert {p for p, mark in marked.items() if mark in ("top", "solo")} == reached


def test_anticipation_has_no_master_row_and_measures_the_negative_from_the_winner(
    ledgers: dict[str, str],
) -> None:
    table = cli("game", "table", "ant26-p1", "--db", ledgers["anticipation"], "--json")
    assert table["master"] is None and table["negative_from"] == "winner"
    assert table["players"][0]["negative"] == 0  # the fixture's two winners tie at 957
    assert all(p["pct_of_top"] is None for p in table["players"])
    shown = runner.invoke(app, ["game", "table", "ant26-p1", "--db", ledgers["anticipation"]])
    assert shown.exit_code == 0
    assert not any(line.split()[:1] == ["master"] for line in shown.stdout.splitlines())
    assert "no common top" in shown.stdout


def test_terminal_table_shows_the_master_row_first_and_every_round_whole(
    ledgers: dict[str, str],
) -> None:
    shown = runner.invoke(app, ["game", "table", "cb26-p1", "--db", ledgers["duplicate"]])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    master = next(i for i, line in enumerate(lines) if "master" in line)
    first = next(i for i, line in enumerate(lines) if "p04 Carmen Manole" in line)
    assert master < first
    assert lines[first].split()[-7:] == ["1112", "0", "0", "0", "1112", "-61", "94.80"]
    assert "…" not in shown.stdout  # 22 rounds on an 80-column screen: wider, never cut


@pytest.mark.parametrize(
    ("variant", "game"), [("completiv", "cb26-c1"), ("anticipation", "ant26-p1")]
)
def test_csv_reads_back_in_python_and_duckdb_with_the_json_numbers(
    ledgers: dict[str, str], tmp_path: Path, variant: str, game: str
) -> None:
    url, out = ledgers[variant], tmp_path / f"{game}.csv"
    table = cli("game", "table", game, "--db", url, "--csv", str(out), "--json")
    with out.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    players = table["players"]
    master = [] if table["master"] is None else [("master", "", table["top_total"])]
    assert [(r["row"], r["player_id"], int(r["total"])) for r in rows] == master + [
        ("player", p["player_id"], p["total"]) for p in players
    ]
    for row, player in zip(rows[len(master) :], players, strict=True):
        assert row["name"] == player["name"] and int(row["negative"]) == player["negative"]
        pct = player["pct_of_top"]
        assert row["pct_of_top"] == ("" if pct is None else f"{pct:.2f}")
        rounds = range(1, table["rounds"] + 1)
        assert [int(row[f"round_{n}"]) for n in rounds] == [c["score"] for c in player["rounds"]]
        tops = [c["round"] for c in player["rounds"] if c["mark"] == "top"]
        assert row["top_rounds"].split() == [str(n) for n in tops]
    read = duckdb.sql(f"SELECT row, player_id, name, total, pct_of_top FROM read_csv('{out}')")
    expected = [("master", None, None, table["top_total"], 100.0)] if master else []
    assert read.fetchall() == expected + [
        ("player", p["player_id"], p["name"], p["total"], p["pct_of_top"]) for p in players
    ]


class _Page(HTMLParser):
    """The tags, the attributes that could fetch something, and the cells' titles."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.fetching: list[tuple[str, str]] = []
        self.titles: list[str] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_style = tag == "style"
        for name, value in attrs:
            if name in ("src", "href", "srcset", "action", "poster", "data"):
                self.fetching.append((tag, name))
            if tag == "td" and name == "title" and value is not None:
                self.titles.append(value)

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data


@pytest.mark.parametrize(
    ("variant", "game"), [("duplicate", "cb26-p1"), ("anticipation", "ant26-p1")]
)
def test_html_page_is_self_contained_and_each_score_tells_its_rack_and_move(
    ledgers: dict[str, str], tmp_path: Path, variant: str, game: str
) -> None:
    url, out = ledgers[variant], tmp_path / f"{game}.html"
    table = cli("game", "table", game, "--db", url, "--html", str(out), "--json")
    page = _Page()
    page.feed(out.read_text(encoding="utf-8"))
    page.close()
    assert page.fetching == []
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(page.tags)
    assert "url(" not in page.style and "@import" not in page.style
    rows = (table["master"] is not None) + len(table["players"])
    assert len(page.titles) == table["rounds"] * rows
    assert page.tags.count("tr") == 1 + rows  # the head, then the master (if any) and players
    second = table["players"][0]["rounds"][1]  # the leader's round 2
    expected = f"round 2: rack {second['rack']}; {second['move']}; {second['score']} point(s)"
    assert expected in page.titles


def test_penalties_are_their_own_column_and_come_off_the_total(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    arbiter.ok("penalise", "hd1", "--player", "ana", "--points", "5", "--reason", "late slip")
    arbiter.ok("close-round", "hd1")
    table = arbiter.view("table", "hd1")
    ana = next(p for p in table["players"] if p["player_id"] == "ana")
    assert (ana["subtotal"], ana["solo_bonus"], ana["penalties"], ana["total"]) == (22, 10, 5, 27)
    assert ana["rounds"][0]["mark"] == "solo" and ana["negative"] == 27 - 22
    standings = arbiter.view("standings", "hd1")["standings"]
    assert [p["total"] for p in table["players"]] == [s["total"] for s in standings]


def test_csv_and_html_to_the_same_file_or_a_folder_are_refused(
    ledgers: dict[str, str], tmp_path: Path
) -> None:
    url, out = ledgers["duplicate"], tmp_path / "table.out"
    both = runner.invoke(
        app, ["game", "table", "cb26-p1", "--db", url, "--csv", str(out), "--html", str(out)]
    )
    assert both.exit_code == 2 and "same file" in both.stderr and not out.exists()
    folder = runner.invoke(app, ["game", "table", "cb26-p1", "--db", url, "--csv", str(tmp_path)])
    assert folder.exit_code == 2 and "not a regular file" in folder.stderr


def test_a_name_a_spreadsheet_would_run_as_a_formula_is_written_inert(
    db_url: str, tmp_path: Path
) -> None:
    arbiter = Arbiter(db_url)
    arbiter.ok("create", "hd1", "--player", "ana:=1+1", "--player", "bob:Bob")
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    out = tmp_path / "hd1.csv"
    cli("game", "table", "hd1", "--db", db_url, "--csv", str(out))
    with out.open(encoding="utf-8-sig", newline="") as handle:
        names = {r["player_id"]: r["name"] for r in csv.DictReader(handle)}
    assert names["ana"] == "'=1+1" and names["bob"] == "Bob"
    shown = arbiter.view("table", "hd1")  # the JSON keeps the name as recorded
    assert {p["player_id"]: p["name"] for p in shown["players"]}["ana"] == "=1+1"


def test_an_open_round_counts_as_closing_it_now_would_and_the_title_says_provisional(
    arbiter: Arbiter,
) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    arbiter.ok("submit", "hd1", "--player", "bob", "--text", "H8: VARIATE")
    table = arbiter.view("table", "hd1")
    standings = arbiter.view("standings", "hd1")
    assert (table["closed_rounds"], table["top_total"]) == (0, standings["top_total"]) == (0, 80)
    assert [(p["player_id"], p["total"], p["negative"]) for p in table["players"]][:2] == [
        ("bob", 90, 10),
        ("ana", 22, -58),
    ]
    shown = runner.invoke(app, ["game", "table", "hd1", "--db", arbiter.db])
    assert "round 1 open (provisional)" in shown.stdout


def test_a_full_disk_leaves_no_table_file_and_an_earlier_one_whole(
    ledgers: dict[str, str], tmp_path: Path, disk_full: None
) -> None:
    csv_out, html_out = tmp_path / "t.csv", tmp_path / "t.html"
    html_out.write_text("earlier page", encoding="utf-8")
    args = ["--csv", str(csv_out), "--html", str(html_out)]
    done = runner.invoke(app, ["game", "table", "cb26-p1", "--db", ledgers["duplicate"], *args])
    assert done.exit_code == 3, done.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.html"]
    assert html_out.read_text(encoding="utf-8") == "earlier page"
