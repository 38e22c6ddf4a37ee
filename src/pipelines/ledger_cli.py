"""`arbitru ledger` and `arbitru db`: import, export, verify and publish the head of the event
ledger, and upgrade its database schema.

Every reporting command has `--json` with stable keys (DESIGN.md) and a rich view by default.
Errors go to stderr with exit code 2 and say what to do; a broken chain or a rejected import
exits with 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated, Any, NoReturn

import sqlalchemy as sa
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ledger import (
    EventStore,
    ImportReport,
    LedgerError,
    VerifyResult,
    import_events,
    verify_file,
    verify_store,
)
from ledger.database import DEFAULT_URL, create_db_engine, upgrade
from ledger.envelope import STREAM_FORMAT, check_stream
from ledger.jsonl import row_line, write_rows
from pipelines.game_records import check_payload

ledger_app = typer.Typer(help="The event ledger.", no_args_is_help=True)
db_app = typer.Typer(help="The ledger's database.", no_args_is_help=True)

_out = Console(highlight=False)
_err = Console(stderr=True, highlight=False)

DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="ARBITRU_DB",
        help="Database URL: sqlite:///FILE or postgresql+psycopg://USER@HOST:PORT/DB.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _fail(message: str, code: int = 2) -> NoReturn:
    _err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


def _emit_json(value: dict[str, Any]) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, sort_keys=True))


@contextmanager
def _store(url: str, *, create: bool = False) -> Iterator[EventStore]:
    """The ledger at `url`, with every database failure turned into a message on stderr.
    Only `create` (import) creates or migrates it; the read-only commands open an existing
    ledger as it is, so that a mistyped path is an error rather than a new empty ledger."""
    try:
        with EventStore(url, upgrade=create) as store:
            yield store
    except LedgerError as exc:
        _fail(str(exc))
    except sa.exc.SQLAlchemyError as exc:
        _fail(f"the database failed: {str(getattr(exc, 'orig', exc)).strip()}")


@contextmanager
def _open_input(file: Path) -> Iterator[IO[bytes]]:
    if file == Path("-"):
        yield sys.stdin.buffer
        return
    if file.is_dir():
        _fail(f"{file} is a directory; give the path of a JSON Lines file")
    if not file.is_file():
        _fail(f"{file}: no such file; give the path of a JSON Lines file")
    try:
        with file.open("rb") as handle:
            yield handle
    except PermissionError:
        _fail(f"{file}: permission denied")


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
    Events already stored (same event_id) are skipped."""
    with _open_input(file) as source, _store(db, create=True) as store:
        report = import_events(
            store, source, require_same_hashes=require_same_hashes, payload_check=check_payload
        )
    if as_json:
        _emit_json(report.to_dict())
    else:
        _show_import(report, file)
    if not report.ok:
        raise typer.Exit(1)


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
        Path | None, typer.Option("--out", help="Write to this file instead of stdout.")
    ] = None,
) -> None:
    """Export events as JSON Lines with every envelope field, in seq order.

    Each line holds the event as stored, so an altered row stays detectable in the export."""
    if stream is not None and check_stream(stream):
        _fail(
            f"{stream!r} is not a stream id: expected tournament/<id> or game/<id>, matching "
            f"{STREAM_FORMAT}"
        )
    with _store(db) as store:
        lines = (row_line(row) for row in store.iter_rows(stream=stream))
        if out is None:
            count = _export_to_stdout(lines)
            if count is None:
                return
        else:
            count = _export_to_file(lines, out)
    _err.print(f"exported {count} event(s)" + (f" of {stream}" if stream else ""))


def _export_to_stdout(lines: Iterator[bytes]) -> int | None:
    """Write to stdout; `None` when the reader went away (`export | head`): that is a normal
    end, so exit quietly without the error Python would print at exit."""
    try:
        count = write_rows(lines, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return None
    return count


def _export_to_file(lines: Iterator[bytes], out: Path) -> int:
    """Write to a temporary file beside `out`, renamed over it once complete: a failure
    leaves no half-written export behind (and an earlier file at `out` untouched)."""
    partial = out.with_name(f".{out.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as handle:
            count = write_rows(lines, handle)
            handle.flush()
            os.fsync(handle.fileno())
        partial.replace(out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        _fail(f"cannot write {out}: {exc.strerror or exc}")
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return count


@ledger_app.command("verify")
def verify_command(
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    file: Annotated[
        Path | None,
        typer.Option("--file", help="Verify this export file instead of the database."),
    ] = None,
    partial: Annotated[
        bool,
        typer.Option(
            "--partial",
            help="With --file: the export holds some streams only (export --stream), so seqs "
            "may jump.",
        ),
    ] = False,
) -> None:
    """Check the hash chain of the database or of an export file.

    Exit 0 when intact; otherwise exit 1, naming the first broken seq and what is wrong."""
    if file is not None:
        with _open_input(file) as source:
            result = verify_file(source, complete=not partial)
        source_name = str(file)
    else:
        if partial:
            _fail("--partial applies to --file only: a database always holds the whole chain")
        with _store(db) as store:
            result = verify_store(store)
        source_name = _safe_url(db)
    if as_json:
        _emit_json({"source": source_name, **result.to_dict()})
    else:
        _show_verify(result, source_name)
    if not result.ok:
        raise typer.Exit(1)


def _show_verify(result: VerifyResult, source: str) -> None:
    if result.ok:
        _out.print(
            f"[bold green]chain intact[/]: {result.checked} event(s) in {source}; "
            f"head seq {result.last_seq} hash {result.last_hash}",
            soft_wrap=True,
        )
        return
    assert result.problem is not None
    intact = (
        f"the {result.checked} event(s) before it are intact, up to seq {result.last_seq} "
        f"hash {result.last_hash}"
        if result.checked
        else "no event before it"
    )
    _out.print(
        f"[bold red]chain broken[/] in {source} at {result.problem.describe()}\n{intact}",
        soft_wrap=True,
    )


@ledger_app.command("head")
def head_command(db: DbOption = DEFAULT_URL, as_json: JsonOption = False) -> None:
    """The last seq and its hash: the digest a federation publishes."""
    with _store(db) as store:
        head = store.head()
    if as_json:
        _emit_json({"seq": head.seq, "hash": head.hash})
        return
    table = Table(show_header=False)
    table.add_row("seq", str(head.seq))
    table.add_row("hash", head.hash)
    _out.print(table)


@db_app.command("upgrade")
def upgrade_command(db: DbOption = DEFAULT_URL, as_json: JsonOption = False) -> None:
    """Create or migrate the ledger's tables to the newest schema."""
    try:
        engine = create_db_engine(db)
        try:
            before, after = upgrade(engine)
        finally:
            engine.dispose()
    except LedgerError as exc:
        _fail(str(exc))
    if as_json:
        _emit_json({"database": _safe_url(db), "from": before, "to": after})
    elif before == after:
        _out.print(f"{_safe_url(db)} is already at the newest schema ({after})")
    else:
        _out.print(f"upgraded {_safe_url(db)} from {before or 'an empty database'} to {after}")


def _safe_url(url: str) -> str:
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        return url
