"""Verification of the hash chain, for a database and for an exported file alike.

The chain is intact when, in `seq` order: seqs run 1, 2, 3… without gaps; each `prev_hash` is
the previous event's `hash` (the genesis hash for seq 1); each `hash` is recomputed from the
canonical encoding; each stream's versions run 1, 2, 3…; no `event_id` appears twice.
Verification stops at the first break and names its `seq`, because everything after a break
is unproven anyway.

A database also holds signed checkpoints (`ledger.checkpoints`), and its chain is verified
against every one of them as well: a checkpoint may not cover more events than the chain
holds (the chain was cut below it), and the Merkle root of the verified event hashes up to
its size must be the one it signed (history was rewritten, even with fresh hashes). Given
the federation's public key, each checkpoint's signature is checked too; without it, a
rewrite that came with checkpoints of its own, signed by another key, passes.

An intact chain can still have lost the events after its latest checkpoint: cutting them
leaves a shorter chain that holds together. Only a head published earlier tells, so
verification optionally takes an expected head (`seq`, `hash`): the chain must reach that
`seq` and carry that `hash` there.
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ledger.canonical import GENESIS_HASH, envelope_bytes
from ledger.checkpoints import list_checkpoints
from ledger.envelope import RecordedEvent
from ledger.jsonl import JsonlError, event_row, exported_event, parse_line, row_line
from ledger.merkle import CompactRange
from ledger.store import EventStore, Head
from ledger.tree_head import Checkpoint

if TYPE_CHECKING:
    from ledger.signing import Ed25519PublicKey


@dataclass(frozen=True)
class VerifyProblem:
    """Where the chain breaks: the `seq` (when it could be read), the file line (when
    verifying a file) and what is wrong."""

    seq: int | None
    line: int | None
    reason: str

    def describe(self) -> str:
        """One sentence naming the place and the defect."""
        where = []
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        if self.line is not None:
            where.append(f"line {self.line}")
        return (", ".join(where) + ": " if where else "") + self.reason


@dataclass(frozen=True)
class VerifyResult:
    """The outcome of a verification. `last_seq` and `last_hash` are the head of the verified
    prefix: when `ok`, the digest to compare with the one the federation published."""

    ok: bool
    checked: int
    last_seq: int
    last_hash: str
    problem: VerifyProblem | None = None
    checkpoints: int = 0
    """How many checkpoints the chain was found to match (0 for a file)."""
    signatures_checked: bool = False
    """Whether their signatures were checked (only with a trusted public key)."""

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape of `arbitru ledger verify --json`."""
        problem = self.problem
        return {
            "ok": self.ok,
            "checked": self.checked,
            "last_seq": self.last_seq,
            "last_hash": self.last_hash,
            "first_broken_seq": problem.seq if problem else None,
            "line": problem.line if problem else None,
            "error": problem.reason if problem else None,
            "checkpoints_matched": self.checkpoints,
            "signatures_checked": self.signatures_checked,
        }


@dataclass(frozen=True)
class Unreadable:
    """A record that could not even be read (malformed line, undecodable row): verification
    reports it as the break when it reaches it."""

    seq: int | None
    line: int | None
    reason: str


_Row = tuple
"""An envelope as a tuple in column order (seq, event_id, stream, version, type, schema,
payload, meta, recorded_at, prev_hash, hash), `payload` and `meta` as canonical JSON bytes
(`EventStore.iter_rows`), followed by its file line when read from a file."""


def verify_chain(
    events: Iterable[RecordedEvent | Unreadable],
    *,
    complete: bool = True,
    expected_head: Head | None = None,
) -> VerifyResult:
    """Verify events given in `seq` order. With `complete=False` (an export of some whole
    streams) gaps in `seq` are allowed and links are checked only between consecutive seqs;
    every stream's versions must still run 1, 2, 3… With `expected_head`, the chain must
    hold that head (see the module docstring)."""
    rows = (e if isinstance(e, Unreadable) else event_row(e) for e in events)
    return _verify(rows, complete, expected_head)


def verify_file(
    source: Iterable[bytes], *, complete: bool = True, expected_head: Head | None = None
) -> VerifyResult:
    """Verify an export file on its own, without any database. Beyond the chain, every line
    must be byte for byte the export form of its envelope, so that a change to any byte of
    the file is caught, and no line may be blank (only an empty last line is tolerated)."""
    hint = _PARTIAL_HINT if complete else ""
    return _verify(_file_rows(source), complete, expected_head, hint)


def verify_store(
    store: EventStore,
    page_size: int = 5000,
    *,
    expected_head: Head | None = None,
    public_key: Ed25519PublicKey | None = None,
) -> VerifyResult:
    """Verify the whole chain held in a database, over the stored bytes themselves (the very
    rows an export writes), and against every checkpoint recorded there (module docstring)."""
    return verify_rows(
        store.iter_rows(page_size=page_size),
        expected_head=expected_head,
        checkpoints=list_checkpoints(store),
        public_key=public_key,
    )


def verify_rows(
    rows: Iterable[_Row | Unreadable],
    *,
    expected_head: Head | None = None,
    checkpoints: Sequence[Checkpoint] = (),
    public_key: Ed25519PublicKey | None = None,
) -> VerifyResult:
    """Verify a whole chain given as stored rows (`EventStore.iter_rows`), and against
    `checkpoints` (their signatures too, with `public_key`): `verify_store` for a caller
    that watches the rows go by (a progress bar)."""
    sizes = {c.tree_size for c in checkpoints}
    roots: dict[int, bytes] = {}
    result = _verify(_tree_tap(rows, sizes, roots), True, expected_head)
    if not result.ok or not checkpoints:
        return result
    for checkpoint in sorted(checkpoints, key=lambda c: c.tree_size):
        reason = _checkpoint_problem(checkpoint, result.last_seq, roots, public_key)
        if reason is not None:
            return replace(result, ok=False, problem=VerifyProblem(None, None, reason))
    return replace(result, checkpoints=len(checkpoints), signatures_checked=bool(public_key))


def _tree_tap(
    rows: Iterable[_Row | Unreadable], sizes: set[int], roots: dict[int, bytes]
) -> Iterator[_Row | Unreadable]:
    """The rows as they are, while the Merkle tree of their hashes grows alongside: its root
    goes in `roots` at each checkpoint size. Only what verification then accepts counts."""
    if not sizes:
        yield from rows
        return
    tree, sha256, fromhex = CompactRange(), hashlib.sha256, bytes.fromhex
    for row in rows:
        yield row
        if isinstance(row, Unreadable):
            return
        try:
            tree.append(sha256(b"\x00" + fromhex(row[10])).digest())
        except (TypeError, ValueError):
            return  # not a hash: verification stops at this row
        if tree.size in sizes:
            roots[tree.size] = tree.root()


def _checkpoint_problem(
    checkpoint: Checkpoint,
    last_seq: int,
    roots: dict[int, bytes],
    public_key: Ed25519PublicKey | None,
) -> str | None:
    """What is wrong between an intact chain and one of its checkpoints, if anything."""
    size = checkpoint.tree_size
    if size > last_seq:
        return (
            f"checkpoint {size} covers {size} events, but the chain holds only {last_seq}: "
            f"{size - last_seq} event(s) were removed from its end"
        )
    root = roots[size].hex()
    if root != checkpoint.root:
        return (
            f"the event hashes of seqs 1 to {size} give the Merkle root {root}, not the root "
            f"{checkpoint.root} signed by checkpoint {size}: events it covers were altered or "
            "rewritten after it was signed"
        )
    if public_key is not None:
        from ledger.signing import signature_problem  # only signing loads `cryptography`

        problem = signature_problem(checkpoint, public_key)
        if problem is not None:
            return f"checkpoint {size}: {problem}"
    return None


_PARTIAL_HINT = (
    "; if this file is an export of some streams only (export --stream), verify it with --partial"
)


def _verify(
    rows: Iterable[_Row | Unreadable],
    complete: bool,
    expected_head: Head | None = None,
    gap_hint: str = "",
) -> VerifyResult:
    """The chain rules of the module docstring, as one tight loop: this runs once per event
    of a whole ledger, so it keeps its state in locals."""
    checked, last_seq, last_hash = 0, 0, GENESIS_HASH
    expected_seq = expected_head.seq if expected_head else -1
    hash_at_expected = GENESIS_HASH if expected_seq == 0 else None
    versions: dict[Any, int] = {}
    event_ids: set[Any] = set()
    sha256, encode = hashlib.sha256, envelope_bytes
    reason: str | None = None
    row: Any = None
    for row in rows:
        if isinstance(row, Unreadable):
            problem = VerifyProblem(row.seq, row.line, row.reason)
            return VerifyResult(False, checked, last_seq, last_hash, problem)
        seq, event_id, stream, version = row[:4]
        prev_hash, stored_hash = row[9], row[10]
        if type(seq) is not int or seq <= last_seq:
            reason = f"seq {seq!r} does not follow seq {last_seq}"
        elif complete and seq != last_seq + 1:
            reason = f"seq jumps from {last_seq} to {seq}: events are missing{gap_hint}"
        elif seq == last_seq + 1 and prev_hash != last_hash:
            reason = (
                f"prev_hash of seq 1 is {prev_hash!r}, not the genesis hash"
                if seq == 1
                else f"prev_hash {prev_hash!r} is not the hash of seq {last_seq} "
                f"({last_hash}): seq {last_seq} or this link was altered"
            )
        if reason is not None:
            break
        try:
            digest = sha256(encode(row, None, prev_hash)).hexdigest()
        except (TypeError, AttributeError, UnicodeEncodeError) as exc:
            digest = f"(nothing: the row cannot be encoded, {exc})"
        if digest != stored_hash:
            reason = (
                f"stored hash {stored_hash!r} does not match the recomputed {digest}: "
                "the event was altered"
            )
            break
        expected_version = versions.get(stream, 0) + 1
        if version != expected_version:
            reason = f"{stream} version {version!r} should be {expected_version}" + (
                ": events of the stream are missing"
                if type(version) is int and version > expected_version
                else ""
            )
            break
        if event_id in event_ids:
            reason = f"event_id {event_id} appears a second time"
            break
        event_ids.add(event_id)
        versions[stream] = version
        last_seq, last_hash = seq, stored_hash
        if seq == expected_seq:
            hash_at_expected = stored_hash
        checked += 1
    if reason is None:
        problem = (
            _head_problem(expected_head, last_seq, hash_at_expected) if expected_head else None
        )
        return VerifyResult(problem is None, checked, last_seq, last_hash, problem)
    seq = row[0] if type(row[0]) is int else None
    line = row[11] if len(row) > 11 else None
    return VerifyResult(False, checked, last_seq, last_hash, VerifyProblem(seq, line, reason))


def _head_problem(expected: Head, last_seq: int, found: str | None) -> VerifyProblem | None:
    """What is wrong, if anything, between an intact chain and the head published earlier."""
    published = f"the published head is seq {expected.seq} hash {expected.hash}"
    if expected.seq > last_seq:
        return VerifyProblem(
            None,
            None,
            f"{expected.seq - last_seq} event(s) missing after seq {last_seq}: {published}; "
            "the end of the chain was cut off (or the head belongs to another ledger)",
        )
    if found is None:
        return VerifyProblem(expected.seq, None, f"seq {expected.seq} is not here: {published}")
    if found != expected.hash:
        return VerifyProblem(
            expected.seq,
            None,
            f"seq {expected.seq} has hash {found}, but {published}: this is not the chain "
            "whose head was published (history was rewritten, or the head is another ledger's)",
        )
    return None


def _file_lines(source: Iterable[bytes]) -> Iterator[tuple[int, bytes] | Unreadable]:
    """Every line of an export with its 1-based number; a blank line is a break, except one
    empty line at the very end (a file ending in an extra newline)."""
    blank: int | None = None
    for number, raw in enumerate(source, start=1):
        if blank is not None:
            break
        if raw.strip():
            yield number, raw
        else:
            blank = number
            if raw != b"\n":
                break
    else:
        return
    yield Unreadable(None, blank, f"line {blank} is blank: an export has no blank lines")


def _file_rows(source: Iterable[bytes]) -> Iterator[_Row | Unreadable]:
    for item in _file_lines(source):
        if isinstance(item, Unreadable):
            yield item
            return
        number, raw = item
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            yield Unreadable(
                None,
                1,
                "the file starts with a byte order mark (bytes EF BB BF), which an export "
                "never has: an editor re-saved it; remove those three bytes and verify again",
            )
            return
        try:
            obj = parse_line(raw, number)
        except JsonlError as exc:
            yield Unreadable(None, number, "; ".join(exc.problems))
            return
        try:
            event = exported_event(obj, number)
        except JsonlError as exc:
            seq = obj.get("seq") if type(obj.get("seq")) is int else None
            yield Unreadable(seq, number, "; ".join(exc.problems))
            return
        row = event_row(event)
        if raw != row_line(row):
            yield Unreadable(event.seq, number, _not_export_form(raw))
            return
        yield (*row, number)


def _not_export_form(raw: bytes) -> str:
    if raw.endswith(b"\r\n"):
        return (
            "the line ends with CR LF, but an export's lines end with LF alone: the file's "
            "line endings were converted (a text editor, a Windows copy, git's autocrlf); "
            "convert them back (e.g. dos2unix) and verify again"
        )
    return (
        "the line is not byte for byte the export form of its envelope "
        "(white space, key order, escapes or line ending were changed)"
    )
