"""A word list as a minimised DAWG: small on disk, quick to load, quick to walk letter by letter.

The move generator asks one question millions of times: from this prefix, which letters may
follow, and does the prefix end a word? A directed acyclic word graph answers both by walking
edges, and minimising it (sharing identical suffix graphs) keeps the Romanian list of about
680,000 forms to roughly a hundred thousand nodes. Letters are the 26 folded capitals A-Z,
numbered 0-25 on edges.

`to_bytes` / `from_bytes` are the cache format (a header with a version and a CRC of the
payload, then flat little-endian arrays); corrupt or foreign bytes raise `LexiconError` so that
a cache can rebuild. In memory each node is a small dict `{letter: child}` plus a terminal flag.
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator
from itertools import islice

from engine.tiles import fold_word

_MAGIC = b"ARBDAWG\x00"
_VERSION = 1
_HEADER = struct.Struct("<8sIIIII")  # magic, version, nodes, edges, words, crc32 of payload
_A = ord("A")


class LexiconError(ValueError):
    """Bytes that are not a lexicon of this version, or a word that cannot be stored."""


def _letters(word: str) -> tuple[int, ...]:
    return tuple(ord(ch) - _A for ch in word)


def _build(words: list[str]) -> tuple[list[bool], list[dict[int, int]]]:
    """Daciuk's incremental construction of the minimal DAWG over sorted, distinct words."""
    terminal: list[bool] = [False]
    edges: list[dict[int, int]] = [{}]
    register: dict[tuple[bool, tuple[tuple[int, int], ...]], int] = {}
    # The path of the previous word, not yet minimised: (parent, letter, child) triples.
    unchecked: list[tuple[int, int, int]] = []

    def minimise(down_to: int) -> None:
        while len(unchecked) > down_to:
            parent, letter, child = unchecked.pop()
            key = (terminal[child], tuple(sorted(edges[child].items())))
            same = register.get(key)
            if same is None:
                register[key] = child
            else:
                edges[parent][letter] = same

    previous: tuple[int, ...] = ()
    for word in words:
        letters = _letters(word)
        common = 0
        for a, b in zip(letters, previous, strict=False):
            if a != b:
                break
            common += 1
        minimise(common)
        node = unchecked[-1][2] if unchecked else 0
        for letter in letters[common:]:
            child = len(terminal)
            terminal.append(False)
            edges.append({})
            edges[node][letter] = child
            unchecked.append((node, letter, child))
            node = child
        terminal[node] = True
        previous = letters
    minimise(0)
    return terminal, edges


class Lexicon:
    """A minimised DAWG over folded upper-case words; node 0 is the root."""

    __slots__ = ("_children", "_edge_count", "_height", "_reach", "_terminal", "_words")

    def __init__(
        self,
        terminal: bytes,
        children: list[dict[int, int]],
        words: int,
        reach: array,
        height: bytes,
    ) -> None:
        self._terminal = terminal
        self._children = children
        self._words = words
        self._reach = reach
        self._height = height
        self._edge_count = sum(len(c) for c in children)

    @classmethod
    def from_words(cls, words: Iterable[str]) -> Lexicon:
        """Build from any word list; entries are folded (Ș → S) and upper-cased.

        A word with a character outside A-Z after folding raises `LexiconError`: the caller
        decides what a word list may contain, the lexicon only stores letters.
        """
        folded = set()
        for raw in words:
            if not raw.strip():
                continue
            word = fold_word(raw)
            if word is None:
                raise LexiconError(f"word {raw!r}: only letters A-Z (after folding) can be stored")
            folded.add(word)
        terminal, edges = _build(sorted(folded))
        postorder: list[int] = []
        seen = {0}
        stack: list[tuple[int, Iterator[int]]] = [(0, iter(sorted(edges[0].values())))]
        while stack:
            node, pending = stack[-1]
            for child in pending:
                if child not in seen:
                    seen.add(child)
                    stack.append((child, iter(sorted(edges[child].values()))))
                    break
            else:
                stack.pop()
                postorder.append(node)
        order = {node: i for i, node in enumerate(reversed(postorder))}
        nodes = sorted(order, key=order.__getitem__)
        children = [
            {letter: order[child] for letter, child in sorted(edges[node].items())}
            for node in nodes
        ]
        flags = bytes(terminal[node] for node in nodes)
        reach = [0] * len(nodes)
        height = bytearray(len(nodes))
        for n in range(len(nodes) - 1, -1, -1):
            for letter, child in children[n].items():
                reach[n] |= (1 << letter) | reach[child]
                height[n] = max(height[n], min(255, height[child] + 1))
        return cls(flags, children, len(folded), array("I", reach), bytes(height))

    def to_bytes(self) -> bytes:
        first = array("I", [0])
        labels = bytearray()
        targets = array("I")
        for node in self._children:
            labels.extend(node.keys())
            targets.extend(node.values())
            first.append(len(labels))
        reach = array("I", self._reach)
        if sys.byteorder != "little":
            first.byteswap()
            targets.byteswap()
            reach.byteswap()
        payload = b"".join(
            (
                first.tobytes(),
                self._terminal,
                self._height,
                reach.tobytes(),
                bytes(labels),
                targets.tobytes(),
            )
        )
        header = _HEADER.pack(
            _MAGIC,
            _VERSION,
            len(self._children),
            len(labels),
            self._words,
            zlib.crc32(payload),
        )
        return header + payload

    @classmethod
    def from_bytes(cls, data: bytes) -> Lexicon:
        """Read `to_bytes` output; anything else (truncated, altered, older) is a LexiconError."""
        if len(data) < _HEADER.size:
            raise LexiconError("lexicon bytes truncated: no complete header")
        magic, version, nodes, edge_count, words, crc = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise LexiconError("not a lexicon: wrong magic bytes")
        if version != _VERSION:
            raise LexiconError(f"lexicon format version {version}, this engine reads {_VERSION}")
        payload = memoryview(data)[_HEADER.size :]
        expected = 4 * (nodes + 1) + 6 * nodes + 5 * edge_count
        if nodes < 1 or len(payload) != expected:
            raise LexiconError(
                f"lexicon bytes have the wrong length ({len(payload)} payload bytes, "
                f"header says {expected})"
            )
        if zlib.crc32(payload) != crc:
            raise LexiconError("lexicon bytes corrupt: checksum mismatch")
        first = array("I")
        first.frombytes(payload[: 4 * (nodes + 1)])
        at = 4 * (nodes + 1)
        terminal = bytes(payload[at : at + nodes])
        at += nodes
        height = bytes(payload[at : at + nodes])
        at += nodes
        reach = array("I")
        reach.frombytes(payload[at : at + 4 * nodes])
        at += 4 * nodes
        labels = bytes(payload[at : at + edge_count])
        at += edge_count
        targets = array("I")
        targets.frombytes(payload[at:])
        if sys.byteorder != "little":
            first.byteswap()
            targets.byteswap()
            reach.byteswap()
        if (
            first[0] != 0
            or first[-1] != edge_count
            or any(a > b for a, b in zip(first, first[1:], strict=False))
            or (edge_count and (max(labels) > 25 or max(targets) >= nodes))
        ):
            raise LexiconError("lexicon bytes inconsistent: edges out of range")
        pairs = zip(labels, targets, strict=True)
        children = [dict(islice(pairs, first[n + 1] - first[n])) for n in range(nodes)]
        return cls(terminal, children, words, reach, height)

    def __len__(self) -> int:
        return self._words

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        node = self.walk(word)
        return node is not None and self._terminal[node] == 1

    def __iter__(self) -> Iterator[str]:
        """Every word, in alphabetical order."""
        stack: list[tuple[int, str]] = [(0, "")]
        while stack:
            node, prefix = stack.pop()
            if self._terminal[node] and prefix:
                yield prefix
            for letter, child in sorted(self._children[node].items(), reverse=True):
                stack.append((child, prefix + chr(_A + letter)))

    @property
    def node_count(self) -> int:
        return len(self._children)

    @property
    def edge_count(self) -> int:
        return self._edge_count

    @property
    def children(self) -> list[dict[int, int]]:
        """Per node, its edges `{letter 0-25: child node}`; the generator walks these directly."""
        return self._children

    @property
    def terminal(self) -> bytes:
        """Per node, 1 when the path from the root to it spells a word."""
        return self._terminal

    @property
    def reach(self) -> array:
        """Per node, the 26-bit mask of letters on some path from it to a word's end."""
        return self._reach

    @property
    def height(self) -> bytes:
        """Per node, the most letters a word can still add after it."""
        return self._height

    def walk(self, word: str, node: int = 0) -> int | None:
        """The node reached from `node` by the letters of `word` (A-Z), or None."""
        children = self._children
        for ch in word:
            nxt = children[node].get(ord(ch) - _A)
            if nxt is None:
                return None
            node = nxt
        return node

