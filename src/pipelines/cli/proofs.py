"""Signed checkpoints and proofs on the command line (docs/proofs.md):

    arbitru keys new FILE                       a key pair (pipelines.cli.proofs_offline)
    arbitru ledger checkpoint --key FILE        sign the ledger's Merkle tree head now
    arbitru ledger checkpoints                  list the recorded checkpoints
    arbitru ledger prove SEQ [--checkpoint N]   an inclusion proof for one event
    arbitru ledger consistency OLD NEW          a proof that the ledger only grew
    arbitru verify-proof PROOF --pubkey KEY     check a proof offline (pipelines.cli.proofs_offline)

A proof that fails, or a ledger altered behind a checkpoint, exits 1 with the reason; a
command that cannot run (no checkpoint, a bad key file) exits 2. Only the commands that sign
or check a signature import `ledger.signing` (and `cryptography`): every `arbitru ledger`
command loads this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from ledger.default_url import DEFAULT_URL
from ledger.errors import LedgerAltered, LedgerError
from ledger.proofs import consistency_document, inclusion_document
from pipelines.cli.exits import ExitCode
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.ledger import _err, _out, _store
from pipelines.cli.ledger_verify import ledger_app  # with verify and head added before the proofs
from pipelines.files.whole import output_target, write_whole
from pipelines.games.checkpoints import CHECKPOINT_KEY_ENV

if TYPE_CHECKING:
    from ledger import EventStore
    from ledger.signing import Ed25519PrivateKey

OutOption = Annotated[
    Path | None, typer.Option("--out", help="Write the proof to this file instead of stdout.")
]


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
            "and its last block) and its signature, as the end of a round does, instead of "
            "the whole ledger.",
        ),
    ] = False,
) -> None:
    """Sign and record a checkpoint: the Merkle tree head of every event so far.

    The ledger is verified first, as `ledger verify` does (every hash and link, every
    recorded checkpoint's root), and every checkpoint must be signed by this key; with
    --quick, only the events since the latest checkpoint and its signature. Nothing is
    signed over a broken ledger (exit 1, naming what is wrong), even when no event is new."""
    # The ledger's checkpoints are imported when the command runs, not by its help.
    from ledger.checkpoints import make_checkpoint
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
    link, every recorded checkpoint's size and root, and every checkpoint signed by this key:
    one made by another key may vouch for a forged history, and is never signed over."""
    from ledger import verify_rows
    from ledger.checkpoints import list_checkpoints
    from ledger.signing import signature_problem

    recorded = list_checkpoints(store)
    result = verify_rows(store.iter_rows(), checkpoints=recorded)
    reason = result.problem.describe() if result.problem else None
    for checkpoint in recorded if reason is None else ():
        problem = signature_problem(checkpoint, private_key.public_key())
        if problem is not None:
            reason = f"checkpoint {checkpoint.tree_size} was not made by this key: {problem}"
            break
    if reason is not None:
        fail(
            f"nothing was signed: the ledger fails verification: {reason}; run "
            "`arbitru ledger verify` for details",
            ExitCode.NEGATIVE,
        )


def checkpoints_command(db: DbOption = DEFAULT_URL, as_json: JsonOption = False) -> None:
    """List the recorded checkpoints, smallest first."""
    from ledger.checkpoints import list_checkpoints

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
    from ledger.proving import prove_inclusion

    with _proving(db) as store:
        proof = prove_inclusion(store, seq, checkpoint)
    _write_document(inclusion_document(proof), out)


def consistency_command(
    old: Annotated[int, typer.Argument(help="Tree size of the older checkpoint.")],
    new: Annotated[int, typer.Argument(help="Tree size of the newer checkpoint.")],
    out: OutOption = None,
    db: DbOption = DEFAULT_URL,
) -> None:
    """Write a consistency proof between two checkpoints, as JSON: that the ledger signed by
    the newer one begins with the events signed by the older one, unchanged."""
    from ledger.proving import prove_consistency

    with _proving(db) as store:
        proof = prove_consistency(store, old, new)
    _write_document(consistency_document(proof), out)


@contextmanager
def _proving(db: str) -> Iterator[EventStore]:
    """The ledger a proof is made from; a proof it refuses because the ledger fails its check
    against the checkpoint (`LedgerAltered`) exits 1 with the reason."""
    with _store(db) as store:
        try:
            yield store
        except LedgerAltered as exc:
            fail(str(exc), ExitCode.NEGATIVE)


def _write_document(document: dict[str, Any], out: Path | None) -> None:
    """Print the proof, or write it to `out` whole (`pipelines.files.whole`): a failure
    leaves no half-written proof behind (exit 3), and a FIFO or a directory at `out` is
    refused (exit 2)."""
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if out is None:
        typer.echo(text, nl=False)
        return
    write_whole([text.encode("utf-8")], out, output_target(out))
    _err.print(f"proof written to {out}", soft_wrap=True)


# `arbitru ledger` gains these commands wherever the ledger's app is loaded from here
# (`pipelines.cli.arbitru` loads `pipelines.cli.proofs:ledger_app`).
ledger_app.command("checkpoint")(checkpoint_command)
ledger_app.command("checkpoints")(checkpoints_command)
ledger_app.command("prove")(prove_command)
ledger_app.command("consistency")(consistency_command)
