"""A checkpoint as recorded, listed, exported and carried in proofs: a signed Merkle tree head,
and the exact text its signature covers.

A checkpoint says "the ledger's first `tree_size` events have the Merkle tree head `root`,
as of `created_at`". The signed bytes are this UTF-8 text, each line ending in a newline:

    arbitru checkpoint v1
    tree_size <decimal>
    root <64 lowercase hexadecimal digits>
    created_at <the moment, as recorded_at is written>

Signing it and checking its signature are `ledger.signing`'s; this module stays apart from that
one so that listing checkpoints and making proofs do not load `cryptography`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

STATEMENT_HEADER = "arbitru checkpoint v1"


@dataclass(frozen=True)
class Checkpoint:
    """A signed tree head: the first `tree_size` events have Merkle root `root` (hex)."""

    tree_size: int
    root: str
    created_at: str
    key_id: str
    signature: str
    """Base64 of the 64-byte Ed25519 signature of `statement()`."""

    def statement(self) -> bytes:
        """The signed bytes."""
        return statement(self.tree_size, self.root, self.created_at)

    def to_dict(self) -> dict[str, Any]:
        """The checkpoint as it appears in proofs and in `--json` output, and as its row is
        inserted: every field, in their order."""
        return asdict(self)


def statement(tree_size: int, root: str, created_at: str) -> bytes:
    """The bytes a checkpoint's signature covers (module docstring)."""
    return (
        f"{STATEMENT_HEADER}\ntree_size {tree_size}\nroot {root}\ncreated_at {created_at}\n"
    ).encode()
