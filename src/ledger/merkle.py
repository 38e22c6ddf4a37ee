"""The ledger's Merkle tree, as RFC 9162 (Certificate Transparency 2.0, section 2.1) defines it.

The leaves are the events' hashes in `seq` order: leaf `i` (0-based) is event `seq = i + 1`.

    leaf hash  = SHA-256(0x00 || the 32 bytes of the event's hash)
    node hash  = SHA-256(0x01 || left || right)
    MTH(D[n])  = the leaf hash when n = 1; otherwise, with k the largest power of two below n,
                 node(MTH(D[0:k]), MTH(D[k:n]))

An inclusion proof (audit path) lets anyone holding one event and a tree head check that the
event is leaf `i` of the tree; a consistency proof lets anyone holding two tree heads check
that the larger tree only appended to the smaller. Proof construction asks a `Subtree`
function for the hash of a range of leaves, so that a caller can answer from stored subtrees
instead of rehashing the whole log; verification needs nothing but the proof.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

Subtree = Callable[[int, int], bytes]
"""The hash MTH(D[a:b]) of the leaves `a` (included) to `b` (excluded)."""


def leaf_hash(event_hash: str) -> bytes:
    """The leaf of an event, from its `hash` (64 hexadecimal digits)."""
    return hashlib.sha256(b"\x00" + bytes.fromhex(event_hash)).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The interior node over two subtrees."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split_point(size: int) -> int:
    """The largest power of two smaller than `size` (at least 2): RFC 9162's `k`."""
    return 1 << ((size - 1).bit_length() - 1)


def is_perfect(start: int, end: int) -> bool:
    """True when D[start:end] is a whole subtree of any larger tree: a power-of-two number of
    leaves starting at a multiple of that power."""
    size = end - start
    return size > 0 and size & (size - 1) == 0 and start % size == 0


def levels(leaves: Sequence[bytes], up_to: int | None = None) -> list[list[bytes]]:
    """Every level of the tree over `leaves` (up to height `up_to`, when given), bottom up,
    pairing neighbours and carrying an odd last node up unchanged, which builds exactly RFC
    9162's tree. `levels[h][j]` is the hash of leaves `j * 2**h` to `(j + 1) * 2**h` whenever
    that range is complete."""
    sha256 = hashlib.sha256
    level = list(leaves)
    out = [level]
    while len(level) > 1 and (up_to is None or len(out) <= up_to):
        paired = [
            sha256(b"\x01" + level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)
        ]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
        out.append(level)
    return out


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH over `leaves` (at least one)."""
    if not leaves:
        raise ValueError("a tree head needs at least one leaf")
    return levels(leaves)[-1][0]


def compact_range(size: int) -> list[tuple[int, int]]:
    """RFC 9162's compact range of the first `size` leaves: the (height, position) of the
    perfect subtrees they split into, largest first, one per bit set in `size`. Their hashes
    are all that extending the tree, or computing its head, needs from the leaves before."""
    nodes, start = [], 0
    for height in range(size.bit_length() - 1, -1, -1):
        if size >> height & 1:
            nodes.append((height, start >> height))
            start += 1 << height
    return nodes


def fold(hashes: Sequence[bytes]) -> bytes:
    """MTH of the tree whose compact range has these hashes (largest subtree first)."""
    node = hashes[-1]
    for left in reversed(hashes[:-1]):
        node = node_hash(left, node)
    return node


class CompactRange:
    """The tree head of a growing list of leaves in O(log n) memory: appending a leaf merges
    equal-sized subtrees as binary addition carries, so that `root()` is MTH at any size."""

    def __init__(self) -> None:
        self.size = 0
        self._heights: list[int] = []
        self._hashes: list[bytes] = []

    def append(self, leaf: bytes) -> None:
        """Add the next leaf (its leaf hash)."""
        heights, hashes, height = self._heights, self._hashes, 0
        while heights and heights[-1] == height:
            heights.pop()
            leaf = hashlib.sha256(b"\x01" + hashes.pop() + leaf).digest()
            height += 1
        heights.append(height)
        hashes.append(leaf)
        self.size += 1

    def root(self) -> bytes:
        """MTH over the leaves appended so far (at least one)."""
        if not self._hashes:
            raise ValueError("a tree head needs at least one leaf")
        return fold(self._hashes)


def inclusion_path(index: int, size: int, subtree: Subtree) -> list[bytes]:
    """PATH(index, D[size]): the sibling hashes from the leaf up to the root."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    siblings: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        middle = start + split_point(end - start)
        if index < middle:
            siblings.append(subtree(middle, end))
            end = middle
        else:
            siblings.append(subtree(start, middle))
            start = middle
    return siblings[::-1]


def consistency_path(old_size: int, new_size: int, subtree: Subtree) -> list[bytes]:
    """PROOF(old_size, D[new_size]): the hashes that show D[new_size] extends D[old_size]."""
    if not 0 < old_size <= new_size:
        raise ValueError(f"no consistency proof from {old_size} leaves to {new_size}")
    siblings: list[bytes] = []
    start, end, whole = 0, new_size, True
    while old_size - start != end - start:
        middle = start + split_point(end - start)
        if old_size <= middle:
            siblings.append(subtree(middle, end))
            end = middle
        else:
            siblings.append(subtree(start, middle))
            start, whole = middle, False
    head = [] if whole else [subtree(start, end)]
    return head + siblings[::-1]


def root_from_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> bytes | None:
    """The root an audit path leads to from `leaf` (RFC 9162, 2.1.3.2), or None when the path
    has the wrong length for leaf `index` of a tree of `size` leaves."""
    if not 0 <= index < size:
        return None
    fn, sn, node = index, size - 1, leaf
    for sibling in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            node = node_hash(sibling, node)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            node = node_hash(node, sibling)
        fn, sn = fn >> 1, sn >> 1
    return node if sn == 0 else None


def roots_from_consistency(
    old_size: int, new_size: int, old_root: bytes, path: Sequence[bytes]
) -> tuple[bytes, bytes] | None:
    """The (old, new) roots a consistency proof leads to (RFC 9162, 2.1.4.2), or None when
    its shape does not fit the two sizes. Equal sizes take an empty proof."""
    if not 0 < old_size <= new_size:
        return None
    if old_size == new_size:
        return (old_root, old_root) if not path else None
    if not path:
        return None
    path = list(path)
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    old, new = path[0], path[0]
    for sibling in path[1:]:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            old, new = node_hash(sibling, old), node_hash(sibling, new)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            new = node_hash(new, sibling)
        fn, sn = fn >> 1, sn >> 1
    return (old, new) if sn == 0 else None
