"""The SVG board of `game replay --svg`: well-formed, premiums coloured by kind, jokers marked,
the last move highlighted, coordinates around the grid, the same bytes every time."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from engine.board import Board
from engine.ruleset import Ruleset, load_ruleset
from pipelines.pictures.board_svg import board_svg

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def ruleset() -> Ruleset:
    return load_ruleset("ro-frs")


def _board() -> Board:
    # VARA at H8 with a joker A at H9, then MO above the R (G10, F10).
    return Board.empty().with_tiles(
        [(7, 7, "V"), (7, 8, "a"), (7, 9, "R"), (7, 10, "A"), (6, 9, "M"), (5, 9, "O")]
    )


def _classes(root: ET.Element) -> list[tuple[str, ET.Element]]:
    return [(e.get("class", ""), e) for e in root.iter(f"{SVG}rect")]


def test_svg_is_well_formed_xml(ruleset: Ruleset) -> None:
    root = ET.fromstring(board_svg(_board(), ruleset, title="hd1 <round 1>").encode())
    assert root.tag == f"{SVG}svg"
    assert any(t.text == "hd1 <round 1>" for t in root.iter(f"{SVG}text"))


def test_every_square_is_drawn_and_premiums_are_coloured_by_kind(ruleset: Ruleset) -> None:
    root = ET.fromstring(board_svg(Board.empty(), ruleset))
    squares = [e for c, e in _classes(root) if c.split()[:1] == ["square"]]
    assert len(squares) == 225
    by_kind: dict[str, set[str]] = {}
    for square in squares:
        kind = square.get("class", "").removeprefix("square").strip()
        by_kind.setdefault(kind, set()).add(square.get("id", ""))
    assert by_kind["TW"] == {"A1", "A8", "A15", "H1", "H15", "O1", "O8", "O15"}
    assert len(by_kind["DW"]) == 17 and "H8" in by_kind["DW"]
    assert len(by_kind["TL"]) == 12 and len(by_kind["DL"]) == 24
    fills: dict[str, set[str | None]] = {}
    for square in squares:
        kind = square.get("class", "").removeprefix("square").strip()
        fills.setdefault(kind, set()).add(square.get("fill"))
    assert all(len(f) == 1 for f in fills.values())
    assert len({next(iter(f)) for f in fills.values()}) == 5  # four premiums and the plain square


def test_jokers_are_marked_and_only_jokers(ruleset: Ruleset) -> None:
    root = ET.fromstring(board_svg(_board(), ruleset))
    jokers = [e.get("data-square") for c, e in _classes(root) if "joker" in c.split()]
    assert jokers == ["H9"]
    assert len([c for c in root.iter(f"{SVG}circle") if c.get("class") == "joker-mark"]) == 1


def test_the_last_move_is_highlighted(ruleset: Ruleset) -> None:
    last = [(7, 7), (7, 8), (7, 9), (7, 10)]
    root = ET.fromstring(board_svg(_board(), ruleset, highlight=last))
    tiles = {e.get("data-square"): c.split() for c, e in _classes(root) if "tile" in c.split()}
    assert set(tiles) == {"H8", "H9", "H10", "H11", "G10", "F10"}
    assert {s for s, c in tiles.items() if "last-move" in c} == {"H8", "H9", "H10", "H11"}


def test_coordinates_name_every_row_and_column(ruleset: Ruleset) -> None:
    root = ET.fromstring(board_svg(Board.empty(), ruleset))
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "coordinate"]
    assert labels == [str(n) for n in range(1, 16)] + [chr(ord("A") + r) for r in range(15)]


def test_the_same_board_gives_the_same_bytes(ruleset: Ruleset) -> None:
    assert board_svg(_board(), ruleset, [(7, 7)]) == board_svg(_board(), ruleset, [(7, 7)])
    assert board_svg(_board(), ruleset, [(7, 7)]) != board_svg(_board(), ruleset, [(7, 8)])
