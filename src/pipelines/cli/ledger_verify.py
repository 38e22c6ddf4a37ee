"""`arbitru ledger verify` and `arbitru ledger head`: the chain checked (from an export file or
a database, against a published head when one is given) and its head published, signed.

They are added to the ledger's app (`pipelines.cli.ledger`); the proof commands are added
after them (`pipelines.cli.proofs`), so `arbitru ledger --help` lists import, export, verify,
head, then the proofs. A broken chain exits 1; long work shows a progress bar on a terminal.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ledger.canonical import now_recorded_at
from ledger.default_url import DEFAULT_URL
from ledger.errors import LedgerError
from ledger.input_files import (
    EVENTS,
    PUBLISHED_HEAD,
    InputFileError,
    read_input,
)
from pipelines.cli.exits import ExitCode
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail, opened_input
from pipelines.cli.ledger_progress import lines_read, rows_read, shows_progress
from pipelines.files.whole import output_target, write_whole
from pipelines.games.checkpoints import CHECKPOINT_KEY_ENV

if TYPE_CHECKING:
    from ledger import EventStore, Head, VerifyResult
    from ledger.signing import Ed25519PrivateKey, Ed25519PublicKey


from pipelines.cli.ledger import (
    _err,
    _out,
    _safe_url,
    _said_if_altered,
    _store,
    ledger_app,
)


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
    # The verifier and the database layer are imported when the command runs, not by its help.
    from ledger import verify_file, verify_rows
    from ledger.checkpoints import list_checkpoints

    trusted = _trusted_key(pubkey)
    expected = None if expect_head is None else _expected_head(expect_head, trusted)
    shown = shows_progress(_err, as_json)
    if file is not None:
        if partial and expected is not None:
            fail("--expect-head needs the whole chain: a partial export does not hold the head")
        with (
            opened_input(file, EVENTS) as source,
            lines_read(_err, "verifying", source, shown=shown) as lines,
        ):
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
            with rows_read(_err, "verifying", store.iter_rows(), total, shown=shown) as rows:
                result = verify_rows(
                    rows,
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
    from ledger import Head

    match = _HEAD_FORMAT.match(text.strip())
    if match is not None:
        return Head(int(match[1]), match[2])
    path = Path(text)
    try:
        a_file = path.is_file()
    except OSError:  # a name no file can have (too long for the system, say)
        a_file = False
    if not a_file:
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
    from ledger import LedgerAltered
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
    from ledger.checkpoints import recent_stretch, refuse_other_key

    stretch = recent_stretch(store)
    if stretch.previous is not None:
        refuse_other_key(stretch.previous, private_key.public_key())
