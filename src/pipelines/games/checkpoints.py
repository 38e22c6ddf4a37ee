"""Checkpoints made as a side effect of other work: the end of a round or of a game signs a
checkpoint when the federation's key is configured (docs/proofs.md).

The game commands call `checkpoint_if_configured(store)` after the events closing the round
(`RoundClosed`) or the game (`GameEnded`) are committed: the `ARBITRU_CHECKPOINT_KEY`
environment variable names the key file (they have no option for it), and without it nothing
is signed. The checkpoint runs the quick check first (`ledger.integrity.check_recent`) and
costs the events since the latest checkpoint, not the whole ledger. The closing events stay
recorded whatever happens here: a checkpoint that cannot be made is reported, never undone
with them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ledger.store import EventStore
    from ledger.tree_head import Checkpoint

CHECKPOINT_KEY_ENV = "ARBITRU_CHECKPOINT_KEY"
"""The environment variable naming the private key file that signs checkpoints."""


def configured_key(option: Path | None = None) -> Path | None:
    """The key file to sign with: `option` when a caller passes one, else the environment
    variable."""
    if option is not None:
        return option
    value = os.environ.get(CHECKPOINT_KEY_ENV, "").strip()
    return Path(value) if value else None


def checkpoint_if_configured(store: EventStore, key: Path | None = None) -> Checkpoint | None:
    """Sign and record a checkpoint of the ledger when a key is configured; None when none
    is. Raises the ledger's errors (`KeyFileError` for an unusable key file,
    `LedgerAltered` for a ledger that fails the checkpoint's checks), each saying what to do.
    When the ledger has not grown since the latest checkpoint, that one is returned."""
    path = configured_key(key)
    if path is None:
        return None
    from ledger.checkpoints import make_checkpoint  # the key's option needs no database
    from ledger.signing import load_private_key  # only signing loads `cryptography`

    return make_checkpoint(store, load_private_key(path))[0]
