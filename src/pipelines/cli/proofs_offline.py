"""The proof commands that need no database: `arbitru keys new FILE` (a federation key pair)
and `arbitru verify-proof PROOF --pubkey KEY` (check a proof offline). Neither loads the
ledger's SQLAlchemy: a checker of proofs may have no database at all, and should not wait
for one to load (tests/pipelines/test_startup.py). Signing loads `cryptography` on use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ledger import LedgerError
from ledger.input_files import PROOF, InputFileError, read_input
from ledger.proofs import verify_document
from pipelines.cli.exits import ExitCode
from pipelines.cli.inputs import JsonOption, emit_json, fail
from pipelines.cli.inputs import console as _out
from pipelines.cli.inputs import err_console as _err
from pipelines.files.errors import system_refused

keys_app = typer.Typer(help="The federation's signing keys.", no_args_is_help=True)


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
    except LedgerError as exc:  # a full disk or a read-only folder is exit 3, as for any output
        fail(str(exc), ExitCode.UNWRITTEN if system_refused(exc) else ExitCode.UNUSABLE)
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
