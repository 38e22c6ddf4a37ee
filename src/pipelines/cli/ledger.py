"""`arbitru ledger import` and `arbitru ledger export`: events in and out of the ledger, and what
the other ledger commands share (the ledger's app, opening a store, the consoles). Checking
the chain and publishing its head are `pipelines.cli.ledger_verify`; upgrading the database
is `pipelines.cli.db`.

Every reporting command has `--json` with stable keys (README.md) and a rich view by default.
Errors go to stderr with exit code 2 and say what to do; a broken chain or a rejected import
exits with 1. Long work shows a progress bar on a terminal (`pipelines.cli.ledger_progress`).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from engine.echo import echo
from ledger.default_url import DEFAULT_URL
from ledger.envelope import STREAM_FORMAT, check_stream
from ledger.errors import LedgerError
from ledger.input_files import (
    EVENTS,
)
from ledger.jsonl import PayloadCheck, row_line, write_rows
from pipelines.cli.exits import ExitCode
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail, opened_input
from pipelines.cli.inputs import console as _out
from pipelines.cli.inputs import err_console as _err
from pipelines.cli.ledger_progress import file_size, lines_read, rows_read, shows_progress
from pipelines.files.errors import OutputNotWritten, say_if_output_fails, system_refused
from pipelines.files.whole import output_target, write_whole

if TYPE_CHECKING:
    from ledger import EventStore, ImportReport


ledger_app = typer.Typer(help="The event ledger.", no_args_is_help=True)


@contextmanager
def _store(url: str, *, create: bool = False) -> Iterator[EventStore]:
    """The ledger at `url`, with every database failure turned into a message on stderr.
    Only `create` (import) creates or migrates it; the reading commands open an existing
    ledger read-only, as it is, so that a mistyped path is an error rather than a new empty
    ledger and a copy nobody may write can still be verified."""
    # The database layer is imported by the commands that open a ledger, not by their help.
    import sqlalchemy as sa

    from ledger import EventStore
    from pipelines.cli.new_ledger import removed_if_unwritten

    with removed_if_unwritten(url) if create else nullcontext():
        try:
            store = EventStore(url, read_only=not create)
        except LedgerError as exc:
            fail(str(exc), 3 if system_refused(exc) else 2)
        except sa.exc.SQLAlchemyError as exc:
            fail(f"the database failed: {str(getattr(exc, 'orig', exc)).strip()}")
        with _reported(store):
            yield store


@contextmanager
def _reported(store: EventStore) -> Iterator[None]:
    """The failures of a command on an open ledger as messages on stderr, the store closed."""
    import sqlalchemy as sa

    from ledger.database import driver_error

    with store:
        try:
            yield
        except LedgerError as exc:
            fail(str(exc), 3 if system_refused(exc) else 2)
        except sa.exc.DBAPIError as exc:
            fail(str(driver_error(store.engine, exc, "failed")), 3 if system_refused(exc) else 2)
        except sa.exc.SQLAlchemyError as exc:
            fail(f"the database failed: {str(getattr(exc, 'orig', exc)).strip()}")


@contextmanager
def _readable_at_once(source: IO[bytes]) -> Iterator[IO[bytes]]:
    """`source` when it is a regular file; otherwise (a pipe, a terminal) its content copied
    to a temporary file first. An import reads its input while it holds the ledger's write
    lock: a slow producer at the other end of a pipe must not keep other writers waiting."""
    if file_size(source) is not None:
        yield source
        return
    with tempfile.TemporaryFile() as spool:
        try:
            shutil.copyfileobj(source, spool, 1 << 20)
            spool.seek(0)
        except OSError as exc:
            fail(f"cannot copy the input to a temporary file: {exc.strerror or exc}")
        yield spool


@ledger_app.command("import")
def import_command(
    file: Annotated[Path, typer.Argument(help="JSON Lines file of events ('-' for stdin).")],
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    require_same_hashes: Annotated[
        bool,
        typer.Option(
            "--require-same-hashes",
            help="Refuse the import unless every line's hash is reproduced (restoring an "
            "archive into an empty ledger).",
        ),
    ] = False,
) -> None:
    """Import events from a JSON Lines file, all or nothing.

    Every line is checked first, payloads included, and every bad line is listed.
    Nothing is written unless the whole file is valid.
    Events already stored (same event_id) are skipped. A ledger failing its quick check
    is refused first (exit 1), as an append is."""
    from ledger import LedgerAltered, check_recent, import_events

    with (
        opened_input(file, EVENTS) as given,
        _readable_at_once(given) as source,
        _store(db, create=True) as store,
    ):
        try:
            check_recent(store)
        except LedgerAltered as exc:
            fail(
                f"refused, nothing was written: the ledger fails its integrity check: {exc}",
                ExitCode.NEGATIVE,
            )
        payload_check = _payload_check(store)
        shown = shows_progress(_err, as_json)
        with lines_read(_err, "importing", source, shown=shown) as lines:
            report = import_events(
                store,
                lines,
                require_same_hashes=require_same_hashes,
                payload_check=payload_check,
            )
    if report.ok:
        say_if_output_fails(
            f"the import itself succeeded and is committed: {report.imported} event(s) "
            f"imported, {report.skipped} skipped, head seq {report.head.seq if report.head else 0}"
        )
    if as_json:
        emit_json(report.to_dict())
    else:
        _show_import(report, file)
    if not report.ok:
        raise typer.Exit(1)


def _payload_check(store: EventStore) -> PayloadCheck:
    """`check_payload` (an account event's or a game's), and an opening event refused when the
    id it names is one another stream of the ledger already claims
    (`pipelines.games.stream_names`), as `game create` does."""
    from pipelines.accounts.events import check_payload
    from pipelines.games.stream_names import claim_problem, claimed_ids

    claimed = claimed_ids(store)

    def check(type_name: str, schema: int, payload: dict, meta: dict) -> str | None:
        return check_payload(type_name, schema, payload, meta) or claim_problem(
            claimed, type_name, payload
        )

    return check


def _show_import(report: ImportReport, file: Path) -> None:
    if not report.ok:
        table = Table(title=f"{file}: {len(report.errors)} bad line(s); nothing was imported")
        table.add_column("line", justify="right")
        table.add_column("problem")
        for error in report.errors:
            for problem in error.problems:
                table.add_row(str(error.line), problem)
        _err.print(table)
        return
    _out.print(
        f"imported [bold]{report.imported}[/] event(s), skipped {report.skipped} already "
        f"stored; head seq {report.head.seq if report.head else 0}",
        soft_wrap=True,
    )
    if report.hash_mismatches:
        first = report.hash_mismatches[0]
        _err.print(
            f"[yellow]warning:[/] {len(report.hash_mismatches)} line(s) got a different hash "
            f"than the file's (first: line {first.line}, seq {first.seq}): the events sit at "
            "other places in this ledger's chain. Use --require-same-hashes to refuse that."
        )


@ledger_app.command("export")
def export_command(
    db: DbOption = DEFAULT_URL,
    stream: Annotated[
        str | None, typer.Option("--stream", help="Only this stream, e.g. game/g1.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write to this file instead of stdout (a new path or a regular file, "
            "replaced whole once complete; a symbolic link is followed).",
        ),
    ] = None,
) -> None:
    """Export events as JSON Lines with every envelope field, in seq order.

    Each line holds the event as stored, so an altered row stays detectable in the export.
    A ledger failing the quick check is said on stderr first; the export is written and the
    command exits 1."""
    if stream is not None and check_stream(stream):
        fail(
            f"{echo(stream)} is not a stream id: expected tournament/<id> or game/<id>, matching "
            f"{STREAM_FORMAT}"
        )
    target = None if out is None else output_target(out)
    with _store(db) as store:
        if stream is not None and store.stream_version(stream) == 0:
            fail(f"no stream {stream} in this ledger: check the id and --db; nothing was exported")
        altered = _said_if_altered(store, "this export")
        rows = store.iter_rows(stream=stream)
        if target is None:
            count = _export_to_stdout(row_line(row) for row in rows)
            if count is None:
                raise typer.Exit(ExitCode.NEGATIVE if altered else 0)
        else:
            total = store.stream_version(stream) if stream else store.head().seq
            with rows_read(_err, "exporting", rows, total, shown=shows_progress(_err)) as read:
                count = write_whole((row_line(row) for row in read), out, target)
    _err.print(f"exported {count} event(s)" + (f" of {stream}" if stream else ""))
    if altered:
        raise typer.Exit(ExitCode.NEGATIVE)


def _said_if_altered(store: EventStore, what: str) -> bool:
    """Whether the ledger fails the quick check (`check_recent`); when it does, one line on
    stderr says so before the output, which is still written (the events as stored, for
    forensic work) and the command exits 1 after it, as the game views do."""
    from ledger import LedgerAltered, check_recent

    try:
        check_recent(store)
    except LedgerAltered as exc:
        _err.print(
            f"[bold red]error:[/] the ledger fails its integrity check, so {what} is not "
            f"vouched for: {escape(str(exc))}",
            soft_wrap=True,
        )
        return True
    return False


def _export_to_stdout(lines: Iterator[bytes]) -> int | None:
    """Write to stdout; `None` when the reader went away (`export | head`): that is a normal
    end, so exit quietly (any other failure to write is `arbitru`'s exit code 3)."""
    try:
        count = write_rows(lines, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    except OutputNotWritten as exc:
        if not exc.reader_gone:
            raise
        return None
    return count


def _safe_url(url: str) -> str:
    import sqlalchemy as sa

    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        return url
