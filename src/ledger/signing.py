"""Signing checkpoints and checking their signatures, and Ed25519 key files.

A checkpoint's statement (`ledger.tree_head`) is signed with Ed25519 (RFC 8032). A key is
named by its key id: the SHA-256, in hexadecimal, of its 32 raw public-key bytes. Keys are
kept in PEM files (PKCS #8 for the private key, SubjectPublicKeyInfo for the public one),
which OpenSSL reads as they are. Only this module and `ledger.published_head` load
`cryptography`: the commands that neither sign nor check a signature never import it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import stat
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ledger.errors import LedgerError
from ledger.input_files import KEY, InputFileError, Kind, read_input
from ledger.tree_head import Checkpoint, statement

_Key = TypeVar("_Key", Ed25519PrivateKey, Ed25519PublicKey)


class KeyFileError(LedgerError):
    """A key file that cannot be written, read or used; the message says what to do."""


def key_id(public_key: Ed25519PublicKey) -> str:
    """SHA-256 of the raw public key, in hexadecimal."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def sign(private_key: Ed25519PrivateKey, tree_size: int, root: str, created_at: str) -> Checkpoint:
    """A checkpoint of `tree_size` events with head `root`, signed now."""
    signature = private_key.sign(statement(tree_size, root, created_at))
    return Checkpoint(
        tree_size,
        root,
        created_at,
        key_id(private_key.public_key()),
        base64.b64encode(signature).decode("ascii"),
    )


def signature_problem(checkpoint: Checkpoint, public_key: Ed25519PublicKey) -> str | None:
    """Why the checkpoint is not signed by `public_key`, or None when it is."""
    expected = key_id(public_key)
    if checkpoint.key_id != expected:
        return (
            f"the checkpoint names key {checkpoint.key_id}, not the given public key "
            f"{expected}: it was signed by another key"
        )
    try:
        raw = base64.b64decode(checkpoint.signature, validate=True)
    except (binascii.Error, ValueError):
        return "the checkpoint's signature is not base64"
    try:
        public_key.verify(raw, checkpoint.statement())
    except InvalidSignature:
        return (
            "the checkpoint's signature does not verify with the given public key: its size, "
            "root or time was altered, or another key signed it"
        )
    return None


def new_key_files(path: Path) -> tuple[Ed25519PublicKey, Path]:
    """Create a new key: the private key in `path`, readable by its owner only, and the public
    key in `path` + `.pub`. Refuses to replace either file. Returns the public key and the
    public key's path."""
    public_path = path.with_name(path.name + ".pub")
    for existing in (path, public_path):
        if existing.exists() or existing.is_symlink():
            raise KeyFileError(
                f"{existing} already exists; a key is never overwritten: choose another name, "
                "or move the old key away first (checkpoints it signed stay verifiable only "
                "with its public key)"
            )
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    _write_new(path, private_pem, 0o600)
    try:
        _write_new(public_path, public_pem(key.public_key()).encode("ascii"), 0o644)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return key.public_key(), public_path


def _write_new(path: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise KeyFileError(f"{path} already exists; a key is never overwritten") from None
    except OSError as exc:
        raise KeyFileError(f"cannot create {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(path, mode)
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise KeyFileError(f"cannot write {path}: {exc.strerror or exc}") from None


def public_pem(public_key: Ed25519PublicKey) -> str:
    """The public key as the PEM text of a `.pub` file."""
    return public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The federation's private key from a file written by `new_key_files`. A file others may
    read is refused, as ssh does: the key signs what the federation vouches for."""
    key = _pem_key(
        path,
        "private key",
        partial(serialization.load_pem_private_key, password=None),
        Ed25519PrivateKey,
        "is not an unencrypted Ed25519 private key in PEM form; create one with "
        "`arbitru keys new FILE`",
    )
    mode = path.stat().st_mode
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyFileError(
            f"{path} can be read by other users (mode {stat.S_IMODE(mode):04o}); make it "
            f"private with `chmod 600 {path}`"
        )
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """A public key from a `.pub` file (PEM SubjectPublicKeyInfo)."""
    return _pem_key(
        path,
        "public key",
        serialization.load_pem_public_key,
        Ed25519PublicKey,
        "is not an Ed25519 public key in PEM form (the FILE.pub written by "
        "`arbitru keys new FILE`)",
    )


def _pem_key(
    path: Path, what: str, load: Callable[[bytes], object], wanted: type[_Key], refusal: str
) -> _Key:
    """The key of type `wanted` in the PEM file at `path` (`load` reads it), or a
    `KeyFileError` naming the file and what it is not (`refusal`)."""
    data = _read(path, what)
    try:
        key = load(data)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, wanted):
        raise KeyFileError(f"{path} {refusal}")
    return key


def _read(path: Path, what: str) -> bytes:
    try:
        return read_input(path, Kind(what + " file", KEY.cap))
    except InputFileError as exc:
        raise KeyFileError(str(exc)) from None
