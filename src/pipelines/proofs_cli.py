"""Signed checkpoints and proofs on the command line (docs/proofs.md):

    arbitru keys new FILE                       a federation key pair
    arbitru ledger checkpoint --key FILE        sign the ledger's Merkle tree head now
    arbitru ledger checkpoints                  list the recorded checkpoints
    arbitru ledger prove SEQ [--checkpoint N]   an inclusion proof for one event
    arbitru ledger consistency OLD NEW          a proof that the ledger only grew
    arbitru verify-proof PROOF --pubkey KEY     check a proof offline, without a database

A proof that fails, or a ledger altered behind a checkpoint, exits 1 with the reason; a
command that cannot run (no checkpoint, a bad key file) exits 2. Only the commands that sign
or check a signature import `ledger.signing` (and `cryptography`): every `arbitru ledger`
command loads this module.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from ledger import EventStore, LedgerError, verify_rows
from ledger.checkpoints import (
    LedgerAltered,
    list_checkpoints,
    make_checkpoint,
    prove_consistency,
    prove_inclusion,
)
from ledger.database import DEFAULT_URL
from ledger.input_files import PROOF, InputFileError, read_input
from ledger.proofs import consistency_document, inclusion_document, verify_document
from pipelines.checkpoints import CHECKPOINT_KEY_ENV
from pipelines.exits import ExitCode
from pipelines.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.ledger_cli import (
    _err,
    _out,
    _store,
    ledger_app,
)
from pipelines.output_file import output_target, write_whole

if TYPE_CHECKING:
    from ledger.signing import Ed25519PrivateKey

keys_app = typer.Typer(help="The federation's signing keys.", no_args_is_help=True)

OutOption = Annotated[
    Path | None, typer.Option("--out", help="Write the proof to this file instead of stdout.")
]


@keys_app.command("new")
def keys_new_command(
    file: Annotated[Path, typer.Argument(help="Where to write the private key.")],
    as_json: JsonOption = False,
) -> None:
    """Create an Ed25519 key pair for signing checkpoints.

    The private key goes to FILE, readable by you only; keep it outside the database and its
    backups. The public key goes to FILE.pub and is printed: publish it, so that anyone can
    check proofs. Existing files are never overwritten."""
    from ledger.signing import key_id, new_key_files, public_pem  # loads `cryptography`

    try:
        public_key, public_path = new_key_files(file)
    except LedgerError as exc:
        fail(str(exc))
    pem = public_pem(public_key)
    if as_json:
        emit_json(
            {
                "private_key": str(file),
                "public_key": str(public_path),
                "key_id": key_id(public_key),
                "public_key_pem": pem,
            }
        )
        return
    _err.print(f"private key written to {file} (readable by you only)", soft_wrap=True)
    _err.print(f"public key written to {public_path}; publish it:", soft_wrap=True)
    typer.echo(pem + f"key id: {key_id(public_key)}")


def checkpoint_command(
    key: Annotated[
        Path,
        typer.Option(
            "--key",
            envvar=CHECKPOINT_KEY_ENV,
            help="Private key file (from `arbitru keys new`).",
        ),
    ],
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Check only what the latest checkpoint does not cover (the events since it "
            "and its last block), as the end of a round does, instead of the whole ledger.",
        ),
    ] = False,
) -> None:
    """Sign and record a checkpoint: the Merkle tree head of every event so far.

    The ledger is verified first, as `ledger verify` does (every hash and link, every
    recorded checkpoint's root, and the signatures of those this key made); with --quick,
    only the events since the latest checkpoint. Nothing is signed over a broken ledger
    (exit 1, naming what is wrong), even when no event is new."""
    from ledger.signing import load_private_key  # loads `cryptography`

    try:
        private_key = load_private_key(key)
    except LedgerError as exc:
        fail(str(exc))
    with _store(db):
        pass  # an existing ledger only: a mistyped URL must not create an empty one
    with _store(db, create=True) as store:
        if not quick:
            _verify_before_signing(store, private_key)
        try:
            checkpoint, created = make_checkpoint(store, private_key)
        except LedgerAltered as exc:
            fail(f"nothing was signed: {exc}", ExitCode.NEGATIVE)
    if as_json:
        emit_json({**checkpoint.to_dict(), "created": created})
        return
    if not created:
        _out.print(
            f"no new events since checkpoint {checkpoint.tree_size}, made at "
            f"{checkpoint.created_at}: nothing to sign",
            soft_wrap=True,
        )
        return
    _out.print(
        f"checkpoint of [bold]{checkpoint.tree_size}[/] event(s) signed and recorded\n"
        f"root {checkpoint.root}\nkey id {checkpoint.key_id}",
        soft_wrap=True,
    )


def _verify_before_signing(store: EventStore, private_key: Ed25519PrivateKey) -> None:
    """Leave with exit 1, signing nothing, unless the whole ledger verifies: every hash and
    link, every recorded checkpoint's size and root, and the signature of each checkpoint
    this key made (those of other keys cannot be checked with it)."""
    from ledger.signing import key_id, signature_problem

    recorded = list_checkpoints(store)
    result = verify_rows(store.iter_rows(), checkpoints=recorded)
    reason = result.problem.describe() if result.problem else None
    own = key_id(private_key.public_key())
    for checkpoint in recorded if reason is None else ():
        if checkpoint.key_id == own:
            problem = signature_problem(checkpoint, private_key.public_key())
            if problem is not None:
                reason = f"checkpoint {checkpoint.tree_size}: {problem}"
                break
    if reason is not None:
        fail(
            f"nothing was signed: the ledger fails verification: {reason}; run "
            "`arbitru ledger verify` for details",
            ExitCode.NEGATIVE,
        )


def checkpoints_command(db: DbOption = DEFAULT_URL, as_json: JsonOption = False) -> None:
    """List the recorded checkpoints, smallest first."""
    with _store(db) as store:
        recorded = list_checkpoints(store)
    if as_json:
        emit_json({"checkpoints": [c.to_dict() for c in recorded]})
        return
    if not recorded:
        _out.print("no checkpoint yet: make one with `arbitru ledger checkpoint --key FILE`")
        return
    table = Table()
    for column in ("tree size", "created at", "root", "key id"):
        table.add_column(column)
    for c in recorded:
        table.add_row(str(c.tree_size), c.created_at, c.root, c.key_id[:16] + "…")
    _out.print(table)


def prove_command(
    seq: Annotated[int, typer.Argument(help="The seq of the event to prove.")],
    checkpoint: Annotated[
        int | None,
        typer.Option("--checkpoint", help="Prove against the checkpoint of this tree size."),
    ] = None,
    out: OutOption = None,
    db: DbOption = DEFAULT_URL,
) -> None:
    """Write an inclusion proof for one event: its export line, its audit path and the signed
    checkpoint (the latest one unless --checkpoint), as JSON.

    Anyone holding the federation's public key checks it with `arbitru verify-proof`."""
    with _store(db) as store:
        try:
            proof = prove_inclusion(store, seq, checkpoint)
        except LedgerAltered as exc:
            fail(str(exc), ExitCode.NEGATIVE)
    _write_document(inclusion_document(proof), out)


def consistency_command(
    old: Annotated[int, typer.Argument(help="Tree size of the older checkpoint.")],
    new: Annotated[int, typer.Argument(help="Tree size of the newer checkpoint.")],
    out: OutOption = None,
    db: DbOption = DEFAULT_URL,
) -> None:
    """Write a consistency proof between two checkpoints, as JSON: that the ledger signed by
    the newer one begins with the events signed by the older one, unchanged."""
    with _store(db) as store:
        try:
            proof = prove_consistency(store, old, new)
        except LedgerAltered as exc:
            fail(str(exc), ExitCode.NEGATIVE)
    _write_document(consistency_document(proof), out)


def verify_proof_command(
    proof: Annotated[Path, typer.Argument(help="The proof file ('-' for stdin).")],
    pubkey: Annotated[
        Path, typer.Option("--pubkey", help="The federation's public key (FILE.pub).")
    ],
    as_json: JsonOption = False,
) -> None:
    """Check an inclusion or consistency proof offline, with the federation's public key.

    Exit 0 when it holds, 1 with the reason when it does not. No database is needed."""
    from ledger.signing import load_public_key  # loads `cryptography`

    try:
        public_key = load_public_key(pubkey)
    except LedgerError as exc:
        fail(str(exc))
    document = _read_proof(proof)
    verdict = verify_document(document, public_key)
    if as_json:
        emit_json({"proof": str(proof), **verdict.to_dict()})
    elif verdict.ok:
        _out.print(f"[bold green]proof holds[/] ({verdict.kind}): {verdict.detail}", soft_wrap=True)
    else:
        _out.print(
            f"[bold red]proof rejected[/] ({verdict.kind}): {verdict.detail}", soft_wrap=True
        )
    if not verdict.ok:
        raise typer.Exit(ExitCode.NEGATIVE)


def _read_proof(proof: Path) -> Any:
    try:
        raw = read_input(proof, PROOF, stdin=True)
    except InputFileError as exc:
        if exc.missing:
            fail(f"{proof}: no such file; give the proof file written by `arbitru ledger prove`")
        fail(str(exc))
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        fail(f"{proof} is not a JSON proof file ({exc})")
    except RecursionError:
        fail(f"{proof} is not a proof file: its JSON is nested too deeply")


def _write_document(document: dict[str, Any], out: Path | None) -> None:
    """Print the proof, or write it to `out` whole (`pipelines.output_file`): a failure
    leaves no half-written proof behind (exit 3), and a FIFO or a directory at `out` is
    refused (exit 2)."""
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if out is None:
        typer.echo(text, nl=False)
        return
    write_whole([text.encode("utf-8")], out, output_target(out))
    _err.print(f"proof written to {out}", soft_wrap=True)


# `arbitru ledger` gains these commands wherever the ledger's app is loaded from here
# (`pipelines.cli` loads `pipelines.proofs_cli:ledger_app`).
ledger_app.command("checkpoint")(checkpoint_command)
ledger_app.command("checkpoints")(checkpoints_command)
ledger_app.command("prove")(prove_command)
ledger_app.command("consistency")(consistency_command)
