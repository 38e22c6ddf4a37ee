"""A server that signs a checkpoint whenever a round closes: a federation key made by
`arbitru keys new`, named to the server process by ARBITRU_CHECKPOINT_KEY."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ledger import EventStore
from tests.server.conftest import Server, arbitru_command, start_server


def new_key(folder: Path) -> tuple[Path, Path]:
    """A key pair made as a federation makes it: the private key file and its `.pub`."""
    private = folder / "federation.key"
    made = [*arbitru_command(), "keys", "new", str(private)]
    subprocess.run(made, check=True, capture_output=True)
    return private, Path(f"{private}.pub")


@contextmanager
def signing_server(folder: Path) -> Iterator[tuple[Server, Path]]:
    """`arbitru serve` on a new SQLite ledger with a checkpoint key; the server and the
    public key that checks its proofs."""
    private, public = new_key(folder)
    db = f"sqlite:///{folder / 'ledger.db'}"
    with EventStore(db):
        pass
    running = start_server(db, folder / "server.log", env={"ARBITRU_CHECKPOINT_KEY": str(private)})
    try:
        yield running, public
    finally:
        running.stop()
