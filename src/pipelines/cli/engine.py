"""`arbitru engine`: score a move (and, from the top finder, find the best moves)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from engine.board import Board, BoardError, square_name
from engine.dictionary import Dictionary
from engine.echo import echo
from engine.notation import NotationError, format_move, parse_move
from engine.rack import Rack, RackError
from engine.ruleset import Ruleset
from engine.verdict import Verdict, check_move
from pipelines.cli.board import board_table
from pipelines.cli.engine_top import top
from pipelines.cli.exits import ExitCode
from pipelines.cli.inputs import (
    BoardOption,
    DictOption,
    JsonOption,
    RackOption,
    RulesetOption,
    VariantOption,
    board_from_json,
    console,
    emit_json,
    fail,
    read_batch,
    read_board_file,
    resolve_dictionary,
    resolve_ruleset,
    when_batch,
)

engine_app = typer.Typer(help="The rules engine: score moves, find the top.", no_args_is_help=True)
engine_app.command("top")(top)


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """The stable JSON shape of `engine score` (README.md), with explanation fields added."""
    return {
        "valid": verdict.valid,
        "score": verdict.score,
        "words": [
            {"word": w.written, "score": w.score, "main": w.main, "word_factor": w.word_factor}
            for w in verdict.words
        ],
        "bingo": verdict.bingo,
        "errors": list(verdict.errors),
        "problems": [{"code": p.code, "message": p.message} for p in verdict.problems],
        "move": format_move(verdict.move),
        "bonus": verdict.bonus,
        "tiles": [
            {"square": square_name(t.row, t.col), "letter": t.letter, "joker": t.joker}
            for t in verdict.tiles
        ],
        "claimed": verdict.move.claimed,
        "warnings": list(verdict.warnings),
    }


def _unreadable_json(errors: list[str]) -> dict[str, Any]:
    return {"valid": False, "score": 0, "words": [], "bingo": False, "errors": errors}


class _Unusable(Exception):
    """Input that cannot be judged at all: a rack no bag could give (exit code 2)."""


def _score_one(
    board: Board,
    move_text: str,
    rack_text: str | None,
    ruleset: Ruleset,
    dictionary: Dictionary | None,
) -> Verdict | list[str]:
    """Judge one move; an unreadable move is a list of errors (it scores 0, exit code 1)."""
    rack = None
    if rack_text is not None:
        try:
            rack = Rack.parse(rack_text, ruleset)
        except RackError as exc:
            raise _Unusable(str(exc)) from None
    move = parse_move(move_text)
    if isinstance(move, NotationError):
        return [f"unreadable move {echo(move_text)}: {move.message}"]
    return check_move(board, move, ruleset, dictionary, rack)


def _show_verdict(verdict: Verdict, board: Board, ruleset: Ruleset) -> None:
    highlight = [(t.row, t.col, t.cell) for t in verdict.tiles]
    console.print(board_table(board, ruleset, highlight))
    table = Table(title=format_move(verdict.move), title_justify="left")
    table.add_column("word")
    table.add_column("squares")
    table.add_column("points", justify="right")
    for w in verdict.words:
        squares = " ".join(
            f"{s.name}{'*' if s.new else ''}{f'({s.premium})' if s.premium and s.new else ''}"
            for s in w.squares
        )
        factor = f" x{w.word_factor}" if w.word_factor > 1 else ""
        table.add_row(w.written, squares + factor, str(w.score))
    if verdict.bonus:
        table.add_row("bingo", f"{len(verdict.tiles)} tiles of the rack", str(verdict.bonus))
    console.print(table)
    if verdict.valid:
        console.print(f"[bold green]valid[/]: {verdict.score} points")
    else:
        would_be = f" (would be {verdict.points_if_valid})" if verdict.words else ""
        console.print(f"[bold red]invalid[/]: scores 0{would_be}")
        for error in verdict.errors:
            console.print(f"  - {error}")
    for warning in verdict.warnings:
        console.print(f"[yellow]note[/]: {warning}")


@engine_app.command()
def score(
    board_file: BoardOption = None,
    move: Annotated[str | None, typer.Option("--move", help='A move, e.g. "H8: VARA".')] = None,
    rack: RackOption = None,
    dict_spec: DictOption = None,
    no_words: Annotated[bool, typer.Option("--no-words", help="Skip the word check.")] = False,
    batch: Annotated[
        Path | None, typer.Option("--batch", help="JSON Lines of {board, move, rack}.")
    ] = None,
    as_json: JsonOption = False,
    ruleset_name: RulesetOption = "ro-frs",
    variant: VariantOption = "duplicate",
) -> None:
    """Validate and score a move: words formed, premiums, bonus, and every broken rule."""
    ruleset = resolve_ruleset(ruleset_name, variant)
    when_batch(
        batch,
        {"--board": board_file, "--move": move, "--rack": rack},
        lambda path: _score_batch(path, ruleset, resolve_dictionary(dict_spec, no_words)),
    )
    if board_file is None or move is None:
        fail('give --board FILE and --move "H8: VARA" (or --batch FILE.jsonl)')
    board = read_board_file(board_file, ruleset)
    dictionary = resolve_dictionary(dict_spec, no_words, as_json)
    try:
        result = _score_one(board, move, rack, ruleset, dictionary)
    except _Unusable as exc:
        if as_json:
            emit_json(_unreadable_json([str(exc)]), sort_keys=False)
            raise typer.Exit(ExitCode.UNUSABLE) from None
        fail(str(exc))
    if isinstance(result, list):
        if as_json:
            emit_json(_unreadable_json(result), sort_keys=False)
            raise typer.Exit(ExitCode.NEGATIVE)
        fail("; ".join(result), code=ExitCode.NEGATIVE)
    if as_json:
        emit_json(verdict_json(result), sort_keys=False)
    else:
        _show_verdict(result, board, ruleset)
    raise typer.Exit(ExitCode.OK if result.valid else ExitCode.NEGATIVE)


def _score_batch(path: Path, ruleset: Ruleset, dictionary: Dictionary | None) -> bool:
    """Score every line; True when every line could be judged (an invalid move is judged)."""
    judged = True
    for line in read_batch(path):
        if line.error is not None:
            result: dict[str, Any] = _unreadable_json([line.error])
        else:
            data = line.data or {}
            result = _score_batch_line(data, line.source, ruleset, dictionary)
        judged = judged and "move" in result
        result["line"] = line.number
        emit_json(result, sort_keys=False)
    return judged


def _score_batch_line(
    data: dict[str, Any], source: str, ruleset: Ruleset, dictionary: Dictionary | None
) -> dict[str, Any]:
    move_text, rack_text = data.get("move"), data.get("rack")
    if not isinstance(move_text, str):
        return _unreadable_json([f"{source}: 'move' must be a string such as \"H8: VARA\""])
    if rack_text is not None and not isinstance(rack_text, str):
        return _unreadable_json([f"{source}: 'rack' must be a string such as \"EIR?\""])
    try:
        board = board_from_json(data.get("board"), ruleset, source)
    except BoardError as exc:
        return _unreadable_json([str(exc)])
    try:
        result = _score_one(board, move_text, rack_text, ruleset, dictionary)
    except _Unusable as exc:
        return _unreadable_json([f"{source}: {exc}"])
    if isinstance(result, list):
        return _unreadable_json([f"{source}: {e}" for e in result])
    return verdict_json(result)
