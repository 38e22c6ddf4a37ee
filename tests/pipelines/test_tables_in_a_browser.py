"""Every published table's `--html` page (`game table` of each variant, `tournament table`,
`season table`) opens from disk in headless Chromium with every network request blocked:
no console error, no page error, not one request beyond the file itself, the totals `--json`
gives, and a game table's round cell telling on hover its rack, move and score.

Chromium is Debian's (`/usr/bin/chromium`), driven by Playwright, one browser for the module;
each page is kept as a screenshot in artefacts/screenshots/ (git-ignored) for a reader to see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from game_cli_helpers import PLAYERS, Arbiter, cli, import_with_last_round_open

pytestmark = pytest.mark.usefixtures("default_home")

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artefacts" / "screenshots"


@dataclass
class Opened:
    """A page opened from disk, with what it said and tried to fetch."""

    page: Any
    errors: list[str] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)

    def column(self, heading: str) -> list[str]:
        """The cells of the body rows under `heading`, as shown."""
        heads = self.page.locator("thead th").all_inner_texts()
        at = heads.index(heading)
        return [r.locator("td").nth(at).inner_text() for r in self.page.locator("tbody tr").all()]


def _open(browser: Any, path: Path, screenshot: str) -> Opened:
    """`path` opened as `file://` in a page of about 1000 pixels' width, every request but
    the file's own aborted and noted; its screenshot written to SCREENSHOTS."""
    page = browser.new_page(viewport={"width": 1000, "height": 250})
    opened = Opened(page)
    url = path.resolve().as_uri()
    page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: opened.errors.append(str(e)))

    def route(request_route: Any) -> None:
        if request_route.request.url == url:
            request_route.continue_()
        else:
            opened.fetched.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    page.goto(url)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{screenshot}.png"), full_page=True)
    return opened


def _clean(opened: Opened) -> None:
    assert opened.errors == [] and opened.fetched == []


def _hovered_title(opened: Opened, cell: Any) -> str | None:
    """The `title` (the tooltip a browser shows) of the element the mouse is over once it
    hovers `cell`."""
    cell.hover()
    return opened.page.evaluate(
        "() => { const over = document.querySelectorAll(':hover');"
        " return over[over.length - 1].getAttribute('title'); }"
    )


THREE = ("--player", "ana:Ana Pop", "--player", "bob:Bob Ionescu", "--player", "cid")
GAMES = {
    "duplicate": [
        ("create", "hd1", *PLAYERS),
        ("draw", "hd1", "--tiles", "VARAEIT"),
        ("submit", "hd1", "--player", "ana", "--text", "H8: VARA"),
        ("submit", "hd1", "--player", "bob", "--text", "H8: VARIATE"),
        ("warn", "hd1", "--player", "cri", "--reason", "talking"),
        ("close-round", "hd1"),
    ],
    "completiv": [
        ("create", "hc1", "--variant", "completiv", *THREE),
        ("draw", "hc1", "--tiles", "UCATOR"),
        ("submit", "hc1", "--player", "ana", "--text", "H4: [J]UCATOR = 102 p"),
        ("submit", "hc1", "--player", "bob", "--text", "H4: JUCATOR"),
        ("close-round", "hc1"),
    ],
    "eliptic": [
        ("create", "he1", "--variant", "eliptic", *THREE),
        ("draw", "he1", "--tiles", "JUCATORI"),
        ("submit", "he1", "--player", "ana", "--text", "H4: JUCATOR = 102 p"),
        ("submit", "he1", "--player", "bob", "--text", "H8: CURATI"),
        ("close-round", "he1"),
    ],
    "anticipation": [
        ("create", "an1", "--variant", "anticipation", *THREE),
        ("draw", "an1", "--tiles", "ABEIRST"),
        ("replace", "an1", "--player", "ana", "--text", "-B+Bo"),
        ("submit", "an1", "--player", "ana", "--text", "H8: SERBoATI"),
        ("replace", "an1", "--player", "bob", "--text", "-B+Bo"),
        ("submit", "an1", "--player", "bob", "--text", "H8: SARIT"),
        ("close-round", "an1"),
    ],
}
"""A short game of each variant, as the arbiter's commands: one round, closed."""


def _game(variant: str) -> str:
    return GAMES[variant][0][1]


@pytest.fixture(scope="module")
def ledger(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite ledger holding a short game of each variant, played through the CLI."""
    url = f"sqlite:///{tmp_path_factory.mktemp('browser') / 'games.db'}"
    for variant, commands in GAMES.items():
        arbiter = Arbiter(url, game=_game(variant))
        for command in commands:
            arbiter.ok(*command)
    return url


@pytest.mark.parametrize("variant", list(GAMES))
def test_game_table_page_shows_the_json_totals_and_a_round_cell_tells_its_move_on_hover(
    browser: Any, ledger: str, tmp_path: Path, variant: str
) -> None:
    game = _game(variant)
    out = tmp_path / f"{game}.html"
    table = cli("game", "table", game, "--db", ledger, "--html", str(out), "--json")
    opened = _open(browser, out, f"game-table-{variant}")
    _clean(opened)
    master = [] if table["master"] is None else [table["master"]]
    rows = [*master, *table["players"]]
    assert opened.column("total") == [str(r["total"]) for r in rows]
    assert opened.column("warnings") == [str(r["warnings"]) for r in rows]
    leader = table["players"][0]
    first = leader["rounds"][0]
    row = opened.page.locator("tbody tr").nth(len(master))
    cell = row.locator("td").nth(2)  # rank, player, then round 1
    expected = f"round 1: rack {first['rack']}; {first['move']}; {first['score']} point(s)"
    assert (_hovered_title(opened, cell) or "").startswith(expected)
    opened.page.close()


@pytest.fixture(scope="module")
def tournament(_arbitru_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fixture's fourteen-player tournament, its last round open, two warnings given."""
    folder = tmp_path_factory.mktemp("tournament")
    url = f"sqlite:///{folder / 'tournament.db'}"
    import_with_last_round_open(url, folder)
    arbiter = Arbiter(url, game="cb26-p1")
    leader = arbiter.view("standings", "cb26-p1")["standings"][0]["player_id"]
    for _ in range(2):
        arbiter.ok("warn", "cb26-p1", "--player", leader, "--reason", "talking")
    return url


def _points(shown: str) -> float | None:
    return None if shown == "-" else float(shown)


@pytest.mark.parametrize(
    ("name", "command"),
    [("tournament-table", ("tournament", "table", "cupa-bucuresti-2026")),
     ("season-table", ("season", "table"))],
)  # fmt: skip
def test_ranking_table_page_shows_the_json_points_warnings_and_notes(
    browser: Any, tournament: str, tmp_path: Path, name: str, command: tuple[str, ...]
) -> None:
    out = tmp_path / f"{name}.html"
    shown = cli(*command, "--db", tournament, "--json")
    cli(*command, "--db", tournament, "--html", str(out))
    opened = _open(browser, out, name)
    _clean(opened)
    standings = shown["standings"]
    assert [_points(p) for p in opened.column("points")] == [s["points"] for s in standings]
    assert opened.column("warnings") == [str(s["warnings"]) for s in standings]
    assert sum(map(int, opened.column("warnings"))) == 2
    if "total" in shown["standings"][0]:
        assert opened.column("total") == [str(s["total"]) for s in standings]
    legend = opened.page.locator("p.legend").all_inner_texts()
    assert legend == shown["notes"]
    opened.page.close()


def test_a_page_that_would_fetch_is_caught_with_its_console_error(
    browser: Any, tmp_path: Path
) -> None:
    """The check itself: a page asking for a stylesheet and an image beside it, and writing
    to the console, is seen doing all three."""
    page = tmp_path / "fetching.html"
    page.write_text(
        '<!DOCTYPE html><html><head><link rel="stylesheet" href="http://192.0.2.1/a.css">'
        '</head><body><img src="beside.png"><script>console.error("said")</script></body>'
        "</html>",
        encoding="utf-8",
    )
    opened = _open(browser, page, "fetching")
    beside = (tmp_path / "beside.png").as_uri()
    assert sorted(opened.fetched) == sorted(["http://192.0.2.1/a.css", beside])
    assert "said" in opened.errors
    opened.page.close()
