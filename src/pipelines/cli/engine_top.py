"""`arbitru engine top`: the best moves for a board and a rack, one position or a batch.

Without `--limit` it lists every move reaching the top score; `--limit N` lists the N best
legal moves whatever their score, found by a pruned search (the N-th best score so far bounds
it), ties at the N-th score cut in canonical order. `elapsed_ms` is the search alone: the
dictionary is loaded once, before the first position, and a batch reuses it (and its
cross-checks) for every line. Without the compiled generator (`engine.kernel`), one line on
stderr says so and the pure-Python one gives the same moves, more slowly.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from engine import kernel
from engine.board import Board, BoardError
from engine.dictionary import Dictionary
from engine.movegen import MoveGenerator, ScoredMove
from engine.notation import format_move
from engine.rack import Rack, RackError
from engine.ruleset import Ruleset
from pipelines.cli.board import board_table
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
from pipelines.files.errors import tell
from pipelines.games.limits import NUMBERS


def _search(
    generator: MoveGenerator, board: Board, rack: Rack, limit: int | None
) -> dict[str, Any]:
    """The contract's result for one position: top score, moves, and the search time."""
    started = time.perf_counter()
    if limit is None:
        found = generator.top(board, rack)
        top_score, moves = found.top_score, list(found.moves)
    else:
        moves = generator.best(board, rack, limit)
        top_score = moves[0].score if moves else 0
    elapsed = (time.perf_counter() - started) * 1000
    return {
        "top_score": top_score,
        "moves": [{"move": format_move(m.move), "score": m.score} for m in moves],
        "elapsed_ms": round(elapsed, 3),
        "_found": moves,
    }


def generator_for(ruleset: Ruleset, dictionary: Dictionary) -> MoveGenerator:
    """The move generator, compiled when it can be; otherwise one notice line on stderr."""
    generator = MoveGenerator(ruleset, dictionary)
    if generator.kernel is None:
        why = kernel.UNAVAILABLE or f"ruleset {ruleset.name} is beyond its limits"
        tell(
            f"notice: the compiled move generator is not in use ({why}); the pure-Python one "
            "gives the same moves, more slowly"
        )
    return generator


def _public(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if not key.startswith("_")}


HUMAN_ROWS = 20
"""How many moves the human view lists without `--limit`: a rack with jokers can tie
thousands of moves at the top, and printing them all takes longer than finding them."""


def _show(board: Board, rack: Rack, result: dict[str, Any], ruleset: Ruleset, rows: int) -> None:
    found: list[ScoredMove] = result["_found"]
    highlight = []
    if found:
        best = found[0].move
        jokers = set(best.jokers)
        highlight = [
            (r, c, best.word[i].lower() if i in jokers else best.word[i])
            for i, (r, c) in enumerate(best.squares())
            if not board.occupied(r, c)
        ]
    console.print(board_table(board, ruleset, highlight))
    if not found:
        console.print(f"rack {rack.letters}: no legal move")
        return
    title = f"rack {rack.letters}: top {result['top_score']} points"
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("points", justify="right")
    for number, item in enumerate(result["moves"][:rows], start=1):
        table.add_row(str(number), item["move"], str(item["score"]))
    console.print(table)
    hidden = len(result["moves"]) - rows
    if hidden > 0:
        console.print(
            f"… and {hidden:,} more move(s) at the top score: --limit N lists the N best, "
            "--json lists them all"
        )
    console.print(f"[dim]searched in {result['elapsed_ms']:.1f} ms[/]")


def _batch(path: Path, generator: MoveGenerator, ruleset: Ruleset, limit: int | None) -> bool:
    """One result per line, in order; True when no line was in error."""
    clean = True
    for line in read_batch(path):
        source = line.source
        if line.error is not None:
            clean = False
            emit_json({"line": line.number, "error": line.error}, sort_keys=False)
            continue
        data = line.data or {}
        try:
            board = board_from_json(data.get("board"), ruleset, source)
            rack_text = data.get("rack")
            if not isinstance(rack_text, str):
                raise RackError(f"{source}: 'rack' must be a string such as \"EIR?\"")
            rack = Rack.parse(rack_text, ruleset)
            result = _public(_search(generator, board, rack, limit))
        except (BoardError, RackError) as exc:
            clean = False
            message = str(exc) if str(exc).startswith(source) else f"{source}: {exc}"
            emit_json({"line": line.number, "error": message}, sort_keys=False)
            continue
        emit_json({"line": line.number, **result}, sort_keys=False)
    return clean


MOST_LISTED = 1_000_000
"""The most moves `--limit` lists at once: enough for any position seen in play, and small
enough for the compiled generator's counters."""


def top(
    board_file: BoardOption = None,
    rack: RackOption = None,
    dict_spec: DictOption = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            max=NUMBERS["limit"].most,
            help="List the N best legal moves, not only the top.",
        ),
    ] = None,
    batch: Annotated[
        Path | None, typer.Option("--batch", help="JSON Lines of {board, rack}.")
    ] = None,
    as_json: JsonOption = False,
    ruleset_name: RulesetOption = "ro-frs",
    variant: VariantOption = "duplicate",
) -> None:
    """Find the top: the best score for a rack on a board, and every move reaching it."""
    ruleset = resolve_ruleset(ruleset_name, variant)
    when_batch(
        batch,
        {"--board": board_file, "--rack": rack},
        lambda path: _batch(
            path, generator_for(ruleset, resolve_dictionary(dict_spec)), ruleset, limit
        ),
    )
    if board_file is None or rack is None:
        fail("give --board FILE and --rack LETTERS (or --batch FILE.jsonl)")
    board = read_board_file(board_file, ruleset)
    try:
        parsed = Rack.parse(rack, ruleset)
    except RackError as exc:
        fail(str(exc))
    if not parsed.letters:
        fail("the rack is empty: give the letters to play, '?' for a joker")
    generator = generator_for(ruleset, resolve_dictionary(dict_spec, as_json=as_json))
    try:
        result = _search(generator, board, parsed, limit)
    except RackError as exc:
        fail(str(exc))
    if as_json:
        emit_json(_public(result), sort_keys=False)
    else:
        _show(board, parsed, result, ruleset, limit or HUMAN_ROWS)
