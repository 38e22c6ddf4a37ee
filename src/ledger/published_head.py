"""A published head: the ledger's last seq and its hash, signed and dated, in a small JSON
file that an auditor keeps outside the system. `arbitru ledger verify --expect-head FILE`
checks the signature and that the ledger still holds that head, which catches what the
checkpoints in the database cannot: events removed after the latest checkpoint, and a
history rewritten together with checkpoints signed by a fresh key (docs/proofs.md).

    {"format": "arbitru-published-head/1", "seq": 1234, "hash": "<64 hex digits>",
     "published_at": "2026-12-01T20:15:00.123456Z", "key_id": "<64 hex digits>",
     "signature": "<base64>"}

The signature is Ed25519 over this UTF-8 text, every line ending in a line feed:

    arbitru head v1
    seq <decimal>
    hash <64 lowercase hexadecimal digits>
    published_at <the moment, as recorded_at is written>
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ledger.envelope import MAX_SEQ, check_hash, check_recorded_at
from ledger.errors import LedgerError
from ledger.signing import key_id, other_key
from ledger.store import Head

FORMAT = "arbitru-published-head/1"
HEADER = "arbitru head v1"


class PublishedHeadError(LedgerError):
    """A file that is not a published head; the message says what is wrong with it."""


@dataclass(frozen=True)
class PublishedHead:
    """A head as published: seq and hash, when, and the key that signed it."""

    head: Head
    published_at: str
    key_id: str
    signature: str

    def statement(self) -> bytes:
        """The signed bytes (module docstring)."""
        return statement(self.head, self.published_at)

    def to_dict(self) -> dict[str, Any]:
        """The file's JSON object."""
        return {
            "format": FORMAT,
            "seq": self.head.seq,
            "hash": self.head.hash,
            "published_at": self.published_at,
            "key_id": self.key_id,
            "signature": self.signature,
        }

    def signature_problem(self, public_key: Ed25519PublicKey) -> str | None:
        """Why this head is not signed by `public_key`, or None when it is."""
        problem = other_key(public_key, "the published head", self.key_id, "trusted")
        if problem:
            return problem
        try:
            raw = base64.b64decode(self.signature, validate=True)
            public_key.verify(raw, self.statement())
        except (binascii.Error, ValueError, InvalidSignature):
            return (
                "the published head's signature does not verify with the trusted public key: "
                "its seq, hash or time was altered, or another key signed it"
            )
        return None


def statement(head: Head, published_at: str) -> bytes:
    """The bytes a published head's signature covers."""
    return (f"{HEADER}\nseq {head.seq}\nhash {head.hash}\npublished_at {published_at}\n").encode()


def publish(private_key: Ed25519PrivateKey, head: Head, published_at: str) -> PublishedHead:
    """The head, signed as of `published_at`."""
    signature = private_key.sign(statement(head, published_at))
    return PublishedHead(
        head,
        published_at,
        key_id(private_key.public_key()),
        base64.b64encode(signature).decode("ascii"),
    )


def parse_published(document: Any) -> PublishedHead:
    """A published head from the file's parsed JSON; `PublishedHeadError` listing what is
    wrong when it is not one."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise PublishedHeadError(
            f'not a published head: a JSON object with "format": "{FORMAT}" (written by '
            "`arbitru ledger head --publish FILE --key KEY`) was expected"
        )
    problems: list[str] = []
    seq = document.get("seq")
    if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
        problems.append(f"seq must be an integer from 0 to {MAX_SEQ}, got {seq!r}")
    problems += check_hash("hash", document.get("hash"))
    problems += [
        p.replace("recorded_at", "published_at", 1)
        for p in check_recorded_at(document.get("published_at"))
    ]
    problems += check_hash("key_id", document.get("key_id"))
    if not isinstance(document.get("signature"), str):
        problems.append("signature must be a base64 string")
    if problems:
        raise PublishedHeadError("the published head is malformed: " + "; ".join(problems))
    return PublishedHead(
        Head(seq, document["hash"]),
        document["published_at"],
        document["key_id"],
        document["signature"],
    )
