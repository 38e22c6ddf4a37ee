"""`arbitru ledger` and `arbitru db`: import, export, verify and publish the head of the event
ledger, and upgrade its database schema.

Every reporting command has `--json` with stable keys (README.md) and a rich view by default.
Errors go to stderr with exit code 2 and say what to do; a broken chain or a rejected import
exits with 1. Long work shows a progress bar on a terminal (`pipelines.ledger_progress`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import sqlalchemy as sa
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.echo import echo
from ledger import (
    EventStore,
    Head,
    ImportReport,
    LedgerAltered,
    LedgerError,
    VerifyResult,
    check_recent,
    import_events,
    verify_file,
    verify_rows,
)
from ledger.canonical import now_recorded_at
from ledger.checkpoints import list_checkpoints, recent_stretch, refuse_other_key
from ledger.database import DEFAULT_URL, create_db_engine, driver_error, upgrade
from ledger.envelope import STREAM_FORMAT, check_stream
from ledger.input_files import (
    EVENTS,
    PUBLISHED_HEAD,
    STDIN,
    InputFileError,
    open_input,
    read_input,
    standard_input,
)
from ledger.jsonl import PayloadCheck, row_line, write_rows
from pipelines.checkpoints import CHECKPOINT_KEY_ENV
from pipelines.exits import ExitCode, OutputNotWritten, say_if_output_fails, system_refused
from pipelines.game_records import check_payload
from pipelines.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.ledger_progress import (
    counted_lines,
    counted_rows,
    file_size,
    progress,
    shows_progress,
)
from pipelines.new_ledger import removed_if_unwritten
from pipelines.output_file import output_target, write_whole
from pipelines.stream_names import claim_problem, claimed_ids

if TYPE_CHECKING:
    from ledger.signing import Ed25519PrivateKey, Ed25519PublicKey

ledger_app = typer.Typer(help="The event ledger.", no_args_is_help=True)
db_app = typer.Typer(help="The ledger's database.", no_args_is_help=True)

_out = Console(highlight=False)
_err = Console(stderr=True, highlight=False)


@contextmanager
def _store(url: str, *, create: bool = False) -> Iterator[EventStore]:
    """The ledger at `url`, with every database failure turned into a message on stderr.
    Only `create` (import) creates or migrates it; the reading commands open an existing
    ledger read-only, as it is, so that a mistyped path is an error rather than a new empty
    ledger and a copy nobody may write can still be verified."""
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
def _open_input(file: Path) -> Iterator[IO[bytes]]:
    try:
        handle = standard_input(EVENTS) if file == STDIN else open_input(file, EVENTS)
    except InputFileError as exc:
        fail(str(exc))
    if file == STDIN:  # stays open: it is not ours
        yield handle
        return
    with handle:
        yield handle


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
    with (
        _open_input(file) as given,
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
        total = file_size(source)
        with progress(_err, "importing", total, in_bytes=True, shown=shown) as advance:
            lines = counted_lines(source, advance) if shown else source
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
    """`check_payload`, and an opening event refused when the id it names is one another
    stream of the ledger already claims (`pipelines.stream_names`), as `game create` does."""
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
            with progress(
                _err, "exporting", total, in_bytes=False, shown=shows_progress(_err)
            ) as advance:
                lines = (row_line(row) for row in counted_rows(rows, advance))
                count = write_whole(lines, out, target)
    _err.print(f"exported {count} event(s)" + (f" of {stream}" if stream else ""))
    if altered:
        raise typer.Exit(ExitCode.NEGATIVE)


def _said_if_altered(store: EventStore, what: str) -> bool:
    """Whether the ledger fails the quick check (`check_recent`); when it does, one line on
    stderr says so before the output, which is still written (the events as stored, for
    forensic work) and the command exits 1 after it, as the game views do."""
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
    expect_head: Annotated[
        str | None,
        typer.Option(
            "--expect-head",
            metavar="SEQ:HASH|FILE",
            help="The head published earlier: SEQ:HASH as `ledger head` prints it, or the "
            "signed file `ledger head --publish` wrote (its signature is checked). The chain "
            "must hold it, so that events cut from its end are caught.",
        ),
    ] = None,
    pubkey: Annotated[
        Path | None,
        typer.Option(
            "--pubkey",
            help="The federation's public key (FILE.pub): check the signature of every "
            f"checkpoint and of a published head file. Without it, the public key of the "
            f"private key named by {CHECKPOINT_KEY_ENV}, if set.",
        ),
    ] = None,
) -> None:
    """Check the hash chain of the database or of an export file.

    A database is also checked against every checkpoint recorded in it: none may cover more
    events than the chain holds, and the event hashes must give each one's signed root.
    Exit 0 when intact; otherwise exit 1, naming the first broken seq and what is wrong."""
    trusted = _trusted_key(pubkey)
    expected = None if expect_head is None else _expected_head(expect_head, trusted)
    shown = shows_progress(_err, as_json)
    if file is not None:
        if partial and expected is not None:
            fail("--expect-head needs the whole chain: a partial export does not hold the head")
        with _open_input(file) as source:
            total = file_size(source)
            with progress(_err, "verifying", total, in_bytes=True, shown=shown) as advance:
                lines = counted_lines(source, advance) if shown else source
                result = verify_file(lines, complete=not partial, expected_head=expected)
        if result.ok and result.checked == 0:
            fail(f"{file} holds no event: give a file written by `arbitru ledger export`")
        source_name = str(file)
    else:
        if partial:
            fail("--partial applies to --file only: a database always holds the whole chain")
        with _store(db) as store:
            recorded = list_checkpoints(store)
            total = store.head().seq if shown else None
            with progress(_err, "verifying", total, in_bytes=False, shown=shown) as advance:
                rows = store.iter_rows()
                result = verify_rows(
                    counted_rows(rows, advance) if shown else rows,
                    expected_head=expected,
                    checkpoints=recorded,
                    public_key=trusted,
                )
        source_name = _safe_url(db)
    if as_json:
        published = None if expected is None else {"seq": expected.seq, "hash": expected.hash}
        emit_json({"source": source_name, **result.to_dict(), "expected_head": published})
    else:
        _show_verify(result, source_name, expected)
        if result.ok and file is None:
            _show_checkpoints_matched(result, expected)
    if not result.ok:
        raise typer.Exit(1)


_HEAD_FORMAT = re.compile(r"^(\d{1,19}):([0-9a-f]{64})\Z")


def _trusted_key(pubkey: Path | None) -> Ed25519PublicKey | None:
    """The public key that signatures are checked with: `--pubkey`, else the public half of
    the private key that `ARBITRU_CHECKPOINT_KEY` names, else none."""
    private = os.environ.get(CHECKPOINT_KEY_ENV, "").strip()
    if pubkey is None and not private:
        return None
    from ledger.signing import load_private_key, load_public_key  # loads `cryptography`

    try:
        if pubkey is not None:
            return load_public_key(pubkey)
        return load_private_key(Path(private)).public_key()
    except LedgerError as exc:
        fail(str(exc) if pubkey is not None else f"{CHECKPOINT_KEY_ENV}: {exc}")


def _expected_head(text: str, trusted: Ed25519PublicKey | None) -> Head:
    """The head `--expect-head` names: SEQ:HASH, or a published head file whose signature
    the trusted key checks (a bad signature is a negative verdict, exit 1)."""
    match = _HEAD_FORMAT.match(text.strip())
    if match is not None:
        return Head(int(match[1]), match[2])
    path = Path(text)
    if not path.is_file():
        fail(
            f"--expect-head takes SEQ:HASH, the head published earlier as `arbitru ledger "
            f"head` prints it (a seq, a colon, 64 lowercase hexadecimal digits), or the file "
            f"`arbitru ledger head --publish FILE` wrote; got {text!r}, which is neither"
        )
    from ledger.published_head import PublishedHeadError, parse_published  # `cryptography`

    try:
        published = parse_published(json.loads(read_input(path, PUBLISHED_HEAD).decode("utf-8")))
    except InputFileError as exc:
        fail(str(exc))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        fail(f"{path}: cannot read it as a published head file ({exc})")
    except PublishedHeadError as exc:
        fail(f"{path}: {exc}")
    if trusted is None:
        fail(
            f"{path} is a signed head: give the federation's public key with --pubkey FILE "
            f"(or set {CHECKPOINT_KEY_ENV}) so that its signature is checked"
        )
    problem = published.signature_problem(trusted)
    if problem is not None:
        fail(f"{path}: {problem}; it is not trusted", ExitCode.NEGATIVE)
    return published.head


def _show_checkpoints_matched(result: VerifyResult, expected: Head | None) -> None:
    """What an intact database was checked against, and what it was not."""
    if not result.checkpoints:
        _out.print(
            "no checkpoint is recorded: only a head published earlier (--expect-head) shows "
            "that no history was rewritten and no events were cut from the end",
            soft_wrap=True,
        )
        return
    signatures = (
        "their signatures checked with the trusted key"
        if result.signatures_checked
        else "signatures NOT checked: give --pubkey FILE (the federation's public key) to "
        "check them"
    )
    unvouched = (
        ""
        if expected
        else "; the events after the latest one are vouched for only by a published head "
        "(--expect-head)"
    )
    _out.print(
        f"it matches the {result.checkpoints} checkpoint(s) recorded with it ({signatures})"
        f"{unvouched}",
        soft_wrap=True,
    )


def _show_verify(result: VerifyResult, source: str, expected: Head | None = None) -> None:
    if result.ok:
        _out.print(
            f"[bold green]chain intact[/]: {result.checked} event(s) in {source}; "
            f"head seq {result.last_seq} hash {result.last_hash}",
            soft_wrap=True,
        )
        if expected is not None:
            since = result.last_seq - expected.seq
            _out.print(
                f"it holds the published head seq {expected.seq}"
                + (f"; {since} event(s) recorded since" if since else ""),
                soft_wrap=True,
            )
        return
    problem = result.problem
    assert problem is not None
    placed = problem.seq is not None or problem.line is not None
    intact = (
        f"the {result.checked} event(s) {'before it' if placed else 'read'} are intact, up to "
        f"seq {result.last_seq} hash {result.last_hash}"
        if result.checked
        else "no event before it"
    )
    where = f" at {problem.describe()}" if placed else f": {problem.reason}"
    _out.print(f"[bold red]chain broken[/] in {source}{where}\n{intact}", soft_wrap=True)


@ledger_app.command("head")
def head_command(
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    publish: Annotated[
        Path | None,
        typer.Option(
            "--publish",
            help="Also write the head, signed and dated, to this JSON file for an auditor to "
            "keep outside the system (`ledger verify --expect-head FILE` checks it).",
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option("--key", help="With --publish: the private key file that signs it."),
    ] = None,
) -> None:
    """The last seq and its hash, as SEQ:HASH: the digest a federation publishes, exactly as
    `ledger verify --expect-head` takes it.

    With --publish FILE --key KEY the ledger is first checked as a checkpoint checks it
    before signing, and its latest checkpoint must be signed by KEY (exit 1 otherwise); then
    the head is signed and written to FILE. Without --publish, a ledger failing the quick
    check is said on stderr first and the command exits 1 after printing the head."""
    if publish is None and key is not None:
        fail("--key signs a published head: give --publish FILE too")
    if publish is not None and key is None:
        fail("--publish needs --key FILE, the private key that signs the head")
    if publish is None:
        with _store(db) as store:
            altered = _said_if_altered(store, "this head")
            head = store.head()
        if as_json:
            emit_json({"seq": head.seq, "hash": head.hash})
        else:
            typer.echo(f"{head.seq}:{head.hash}")
        if altered:
            raise typer.Exit(ExitCode.NEGATIVE)
        return
    assert key is not None
    from ledger.published_head import publish as sign_head  # loads `cryptography`
    from ledger.signing import load_private_key

    try:
        private_key = load_private_key(key)
    except LedgerError as exc:
        fail(str(exc))
    target = output_target(publish)
    with _store(db) as store:
        try:
            _check_before_publishing(store, private_key)
        except LedgerAltered as exc:
            fail(f"nothing was published: {exc}", ExitCode.NEGATIVE)
        head = store.head()
    published = sign_head(private_key, head, now_recorded_at())
    document = published.to_dict()
    write_whole([(json.dumps(document, indent=2) + "\n").encode()], publish, target)
    if as_json:
        emit_json(document)
        return
    typer.echo(f"{head.seq}:{head.hash}")
    _err.print(
        f"head seq {head.seq} signed by key {published.key_id} at {published.published_at}, "
        f"written to {publish}: keep it outside this system",
        soft_wrap=True,
    )


def _check_before_publishing(store: EventStore, private_key: Ed25519PrivateKey) -> None:
    """Raise `LedgerAltered` unless the ledger passes the check a checkpoint makes before it
    signs: the events since the latest checkpoint (the whole ledger when there is none), and
    the latest checkpoint signed by this key, so that a head is never signed over a history
    another key vouches for."""
    stretch = recent_stretch(store)
    if stretch.previous is not None:
        refuse_other_key(stretch.previous, private_key.public_key())


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
        fail(str(exc))
    if as_json:
        emit_json({"database": _safe_url(db), "from": before, "to": after})
    elif before == after:
        _out.print(f"{_safe_url(db)} is already at the newest schema ({after})")
    else:
        _out.print(f"upgraded {_safe_url(db)} from {before or 'an empty database'} to {after}")


def _safe_url(url: str) -> str:
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        return url
