"""`arbitru game results|standings|replay`: a round explained, the standings, and the game
at any moment, read from the ledger (nothing is written). Each view of a ledger that fails its
integrity check says so first and exits 1 (`cli.game_common.view_of`); its `--json` has the
reason in `ledger_altered` (null when the check passes)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from engine.games.projections import position
from engine.ruleset import Ruleset
from ledger.default_url import DEFAULT_URL
from pipelines.cli import views
from pipelines.cli.game_common import GameArg, loaded, store, view_of
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.games import shapes as game_json
from pipelines.games.limits import shown
from pipelines.games.service import Game, ledger_altered, replay_to, vouched


def _ruleset(game: Game) -> Ruleset:
    context = game.state.context
    if context is None:
        fail(f"{game.stream} cannot be read: its first event is not a usable GameCreated")
    return context.ruleset


def results_command(
    game: GameArg,
    round_number: Annotated[
        int | None, typer.Option("--round", min=1, help="The round (default: the current one).")
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", help="Only this player's submissions.")
    ] = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """A round explained, submission by submission.

    Every submission as written (with its global seq, which `replay --at` takes), the parsed
    move, words and points beside the points claimed, premiums, bonus, penalty, score and
    reason, the top, and the decisions with who recorded them and when."""
    read = loaded(db, game)
    ruleset = _ruleset(read)
    if round_number is None:
        current = read.state.current
        if current is None:
            fail(f"{read.stream} has no round yet: draw round 1 first (`arbitru game draw`)")
        round_number = current.number
    if read.state.round(round_number) is None:
        drawn = len(read.state.rounds)
        fail(f"round {round_number} of {read.stream} has not been drawn ({drawn} round(s) so far)")
    if player is not None and player not in read.state.players:
        fail(
            f"{player} is not a player of {read.stream} (players: {', '.join(read.state.players)})"
        )
    stored = {event.event_id: event for event in read.stored}
    with view_of(read.altered):
        if as_json:
            document = game_json.results_json(
                read.game_id, read.state, round_number, stored, player
            )
            emit_json({**document, "ledger_altered": read.altered})
        else:
            views.show_results(read.state, round_number, ruleset, stored, player)


def standings_command(
    game: GameArg, db: DbOption = DEFAULT_URL, as_json: JsonOption = False
) -> None:
    """Players ranked by game score.

    Ties share the place; with solos and the percentage of the top total."""
    read = loaded(db, game)
    _ruleset(read)
    with view_of(read.altered):
        if as_json:
            document = game_json.standings_json(read.game_id, read.state)
            emit_json({**document, "ledger_altered": read.altered})
        else:
            views.show_standings(read.game_id, read.state)


def replay_command(
    game: GameArg,
    at: Annotated[
        int | None, typer.Option("--at", min=1, help="The state right after this global seq.")
    ] = None,
    round_number: Annotated[
        int | None,
        typer.Option("--round", min=1, help="The state when this round closed (or now)."),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", help="That player's own board (in a last round; in anticipation, always)."
        ),
    ] = None,
    svg: Annotated[
        Path | None, typer.Option("--svg", help="Also write the board as an SVG picture.")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write the whole game as one self-contained HTML page that fetches "
            "nothing: a slider and the arrow keys step through its events, showing at each the "
            "board, the rack, the round's slips with their scores and why any does not count, "
            "and the standings (in anticipation, each player's own board); it opens at --at or "
            "--round (default: the last event) and names the ledger head it was made from.",
        ),
    ] = None,
    lang: Annotated[
        str, typer.Option("--lang", help="The --html page's language: ro (default) or en.")
    ] = "ro",
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """The game at a moment: board, rack, bag and scores.

    The last move is highlighted on the board. `--html FILE` writes the whole game as a page
    to step through, event by event."""
    if at is not None and round_number is not None:
        fail("--at and --round exclude each other: give one")
    page_target = _page_target(html, svg, lang)
    with store(db) as opened:
        head = opened.head()
        read = vouched(opened, replay_to(opened, game, at=at, round_number=round_number))
        whole = read
        if html is not None and (at is not None or round_number is not None):
            whole = vouched(opened, replay_to(opened, game, at=head.seq))
    ruleset = _ruleset(read)
    state = read.state
    if player is not None and player not in state.players:
        fail(f"{player} is not a player of {read.stream} (players: {', '.join(state.players)})")
    spot = position(state, player)
    with view_of(read.altered):
        if svg is not None:
            title = f"{read.game_id}, " + (f"round {spot.round}" if spot.round else "start")
            views.write_svg(svg, spot, ruleset, title)
        if html is not None and page_target is not None:
            _write_page(
                html, page_target, whole, ruleset, (head.seq, head.hash), lang, read, player
            )
        if as_json:
            document = game_json.position_json(read.game_id, state, spot, player)
            emit_json({**document, "ledger_altered": read.altered})
        elif svg is not None or html is not None:
            for written in (svg, html):
                if written is not None:
                    views.out.print(f"wrote {written}", markup=False)
        else:
            views.show_position(read.game_id, state, spot, ruleset, player)


_PAGE_WHAT_TO_DO = "the page goes to a new path or replaces an earlier file"


def _page_target(html: Path | None, svg: Path | None, lang: str) -> Path | None:
    """Where `--html` writes, checked before anything is read (`output_target`: never over a
    ledger, a FIFO or a directory), and its language."""
    if html is None:
        if lang != "ro":
            fail("--lang is the language of the --html page: give --html FILE too")
        return None
    from pipelines.files.whole import output_target  # the page's modules: --html only
    from pipelines.pictures.replay_html import LANGUAGES

    if lang not in LANGUAGES:
        choices = ", ".join(LANGUAGES)
        fail(f"--lang {shown(lang)} is not a language of the page: give one of {choices}")
    target = output_target(html, _PAGE_WHAT_TO_DO)
    if svg is not None and output_target(svg, _PAGE_WHAT_TO_DO) == target:
        fail(f"--svg and --html name the same file {html}: give each its own")
    return target


def _write_page(
    html: Path,
    target: Path,
    whole: Game,
    ruleset: Ruleset,
    head: tuple[int, str],
    lang: str,
    read: Game,
    player: str | None,
) -> None:
    """The replay page of the whole game, opening at the moment `read` ends at, written whole
    or not at all (`pipelines.files.whole`)."""
    from pipelines.files.whole import write_whole
    from pipelines.pictures.replay_html import messages, replay_page
    from pipelines.pictures.replay_steps import replay

    made = replay(whole, ruleset, head, legend=messages(lang)["legend"])
    last = read.stored[-1].seq if read.stored else 0
    start = sum(1 for step in made.document["steps"] if step["seq"] <= last) - 1
    page = replay_page(made, lang, start=start, player=player)
    write_whole([page.encode("utf-8")], html, target)


def list_command(db: DbOption = DEFAULT_URL, as_json: JsonOption = False) -> None:
    """The ledger's games: variant, round and status, as their events record them.

    A game's `round` is its last round drawn; its status is `ended`, `open` (that round is
    open), `closed` (it is closed) or `created` (no round drawn yet)."""
    from pipelines.games.listing import games_listed

    with store(db) as opened:
        altered = ledger_altered(opened)
        listed = games_listed(opened)
    with view_of(altered):
        if as_json:
            emit_json({"games": listed, "ledger_altered": altered})
        else:
            _show_games(listed)


def _show_games(listed: list[dict]) -> None:
    if not listed:
        views.out.print("no game in this ledger yet (`arbitru game create` makes one)")
        return
    table = Table(title=f"{len(listed)} game(s)", title_justify="left")
    for column in ("game", "variant", "round", "status", "tournament", "title"):
        table.add_column(column)
    for game in listed:
        cells = (game["game_id"], game["variant"], game["round"] or "-", game["status"],
                 game["tournament_id"], game["title"])  # fmt: skip
        table.add_row(*(Text("" if cell is None else shown(str(cell))) for cell in cells))
    views.out.print(table)
