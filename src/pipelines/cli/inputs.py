"""Reading what users hand the CLI: the options many commands share, board files, batch JSON
Lines; failing clearly, and printing a JSON result.

Every error names the file, the line and the problem, and says what to do; a batch line that
is wrong becomes an error result for that line while the run goes on. Light on purpose: the
engine and lexicon commands use it, so it loads no database, progress bar or signing key.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from engine.board import Board, BoardError
from engine.dictionary import Dictionary
from engine.echo import echo
from engine.games.settings import VARIANT_SETTINGS, read_settings
from engine.ruleset import Ruleset, RulesetError, load_ruleset
from ledger.input_files import (
    BATCH,
    BOARD,
    InputFileError,
    Kind,
    open_input,
    read_input,
    standard_input,
)
from ledger.jsonl import JsonlError, numbered_lines, parse_line
from pipelines.cli.exits import ExitCode

console = Console(highlight=False, emoji=False)
err_console = Console(stderr=True, highlight=False, emoji=False)

DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="ARBITRU_DB",
        help="Database URL: sqlite:///FILE or postgresql+psycopg://USER@HOST:PORT/DB.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
RulesetOption = Annotated[str, typer.Option("--ruleset", help="Ruleset name.")]
DictOption = Annotated[
    str | None,
    typer.Option(
        "--dict",
        help="Word list: a file (one word per line), a registered list's SHA-256, or 'default'.",
    ),
]
BoardOption = Annotated[Path | None, typer.Option("--board", help="Board file.")]
RackOption = Annotated[str | None, typer.Option("--rack", help="Rack, '?' for a joker.")]


def fail(message: str, code: int = ExitCode.UNUSABLE) -> NoReturn:
    """Print an error to stderr and leave with a non-zero exit code. The message is plain
    text: a path or a move may hold brackets, which Rich would otherwise read as markup."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


def emit_json(value: Any, *, sort_keys: bool = True) -> None:
    """One JSON document on stdout, non-ASCII kept; keys sorted unless the shape's own order
    is part of its contract (`sort_keys=False`)."""
    typer.echo(json.dumps(value, ensure_ascii=False, sort_keys=sort_keys))


ENGINE_VARIANTS = ("duplicate", *VARIANT_SETTINGS)
"""The variants whose single moves the engine commands judge: duplicate's rack, or one with a
variant's own numbers (duplicat eliptic's rack of 8, at most 7 laid)."""
VariantOption = Annotated[
    str,
    typer.Option("--variant", help="duplicate, or eliptic: a rack of 8, at most 7 laid."),
]


def resolve_ruleset(name: str, variant: str = "duplicate") -> Ruleset:
    """The ruleset by name, with the numbers the variant plays by default."""
    if variant not in ENGINE_VARIANTS:
        fail(
            f"--variant {echo(variant)}: the engine commands judge {' or '.join(ENGINE_VARIANTS)}"
            " racks; a completiv or anticipation game's moves are judged by `arbitru game`"
        )
    try:
        return read_settings(load_ruleset(name), {}, variant)[0]
    except RulesetError as exc:
        fail(str(exc))


def resolve_dictionary(
    spec: str | None, no_words: bool = False, as_json: bool = False
) -> Dictionary | None:
    """The dictionary a command checks words against (the default list without --dict);
    None with --no-words. A first use builds the list's cache with progress on a terminal,
    none under --json."""
    if no_words:
        if spec is not None:
            fail("--dict and --no-words exclude each other: give one")
        return None
    from pipelines.cli.lexicon_progress import on_stderr  # the lexicon is loaded only when needed
    from pipelines.lexicons.cache import load_dictionary

    try:
        return load_dictionary(spec, progress=on_stderr(as_json))
    except ValueError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot read the word list {echo(str(spec))}: {exc.strerror or exc}")


def read_board_file(path: Path, ruleset: Ruleset) -> Board:
    """A board file as README.md describes it, checked against the game's tile set."""
    size = ruleset.board_size
    try:
        text = read_input(path, BOARD).decode("utf-8-sig")
    except InputFileError as exc:
        fail(f"{exc} ({size} lines of {size} characters)")
    except UnicodeDecodeError as exc:
        fail(f"board file {path} is not UTF-8 text (byte {exc.start}): save it as UTF-8")
    try:
        # Unlike a slip or a word list, a board is split on every line break Python knows
        # (a lone CR too, as an old editor saves it): nothing of it is recorded, and a break
        # hidden in a row only changes the count of rows, which Board.parse refuses by name.
        board = Board.parse(text.splitlines(), size, source=str(path))
        board.check_tiles(ruleset, source=str(path))
    except BoardError as exc:
        fail(str(exc))
    return board


def board_from_json(value: Any, ruleset: Ruleset, source: str) -> Board:
    """A board given in JSON as a list of row strings; raises BoardError naming `source`."""
    size = ruleset.board_size
    if not isinstance(value, list) or not all(isinstance(row, str) for row in value):
        raise BoardError(f"{source}: 'board' must be a list of {size} strings")
    board = Board.parse(value, size, source=f"{source}, board", unit="row")
    board.check_tiles(ruleset, source=f"{source}, board")
    return board


STDIN = Path("-")
"""The batch file name that means standard input, as for `ledger import -`."""


def when_batch(
    batch: Path | None, replaced: dict[str, Any], judged: Callable[[Path], bool]
) -> None:
    """A command judging one position given by its options, or each line of --batch: with a
    batch, none of the options it `replaced` (by flag) may be given as well; the batch is then
    `judged` and the command exits, 0 when every line could be judged, 1 otherwise."""
    if batch is None:
        return
    if any(value is not None for value in replaced.values()):
        *first, last = replaced
        fail(f"--batch replaces {', '.join(first)} and {last}: give either")
    raise typer.Exit(ExitCode.OK if judged(batch) else ExitCode.NEGATIVE)


@dataclass(frozen=True)
class BatchLine:
    """One line of a batch file: its number, where it is (`moves.jsonl, line 3`, said first
    in every error about it), and either the decoded object or an error."""

    number: int
    source: str
    data: dict[str, Any] | None
    error: str | None


def read_batch(path: Path) -> Iterator[BatchLine]:
    """The objects of a JSON Lines file ('-' for stdin), one per non-blank line, errors kept
    per line. Lines are read as the ledger reads an import (`ledger.jsonl`): UTF-8, a byte
    order mark allowed on line 1, one JSON object of unique keys, nesting within Python's
    limit, so that a batch line is refused for the same reasons an event line is."""
    name = "stdin" if path == STDIN else str(path)
    with opened_input(path, BATCH) as handle:
        for number, raw in numbered_lines(handle):
            source = f"{name}, line {number}"
            try:
                data = parse_line(raw, number)
            except JsonlError as exc:
                yield BatchLine(number, source, None, f"{source}: {'; '.join(exc.problems)}")
                continue
            yield BatchLine(number, source, data, None)


@contextmanager
def opened_input(path: Path, kind: Kind) -> Iterator[IO[bytes]]:
    """The file a user names for input of `kind` (`ledger.input_files`), '-' for stdin, open
    for reading: refused (exit 2) when it is not a regular file within the kind's size cap;
    closed afterwards unless it is stdin."""
    try:
        handle = standard_input(kind) if path == STDIN else open_input(path, kind)
    except InputFileError as exc:
        fail(str(exc))
    if path == STDIN:  # stays open: it is not ours
        yield handle
        return
    with handle:
        yield handle
