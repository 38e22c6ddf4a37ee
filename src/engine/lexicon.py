"""A word list as a minimised DAWG: small on disk, quick to load, quick to walk letter by letter.

The move generator asks one question millions of times: from this prefix, which letters may
follow, and does the prefix end a word? A directed acyclic word graph answers both by walking
edges, and minimising it (sharing identical suffix graphs) keeps the Romanian list of about
680,000 forms to roughly a hundred thousand nodes. Letters are the 26 folded capitals A-Z,
numbered 0-25 on edges.

Per node it also keeps what the generator and the top finder's bounds need: the letters on its
own edges (so the generator visits only the letters a square allows, not every edge), the
letters reachable below it, the most letters a word can still add, and at which exact distances
a word can end. For the whole list it keeps a Bloom filter of the letter multisets of its words
(`multiset_key`), so the top finder can tell at once that a rack, with the board letters a span
would cross, makes no word at all (then no bingo is possible there; a rack with two jokers asks
351 times, hence a filter that rarely says "perhaps" wrongly).

`to_bytes` / `from_bytes` are the cache format (a header with a version and a CRC of the
payload, then flat little-endian arrays); corrupt or foreign bytes raise `LexiconError` so that
a cache can rebuild. In memory each node is a small dict `{letter: child}` plus a terminal flag.
"""

from __future__ import annotations

import hashlib
import struct
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator
from itertools import islice

from engine.tiles import fold_word

try:
    from engine._kernel import build_lexicon as _compiled_build
except ImportError:  # built without a compiler: this module's builder serves
    _compiled_build = None

_MAGIC = b"ARBDAWG\x00"
_VERSION = 5
# magic, version, nodes, edges, words, multiset filter bytes, crc32 of the payload
_HEADER = struct.Struct("<8sIIIIII")
_A = ord("A")
_LETTERS = bytes(range(26))
"""The labels an edge may carry: the letters A-Z as 0-25."""
_KEY_MASK = (1 << 64) - 1
_LENGTHS_MASK = (1 << 32) - 1
# The multiset filter: a power of two of bits, at least 64 per word, between 2**10 and 2**26
# (8 MiB for the Romanian list); a key sets three bits, taken from three scramblings of it. A
# key without a word then passes about once in 100,000.
_FILTER_MIN_BITS = 10
_FILTER_MAX_BITS = 26
_FILTER_PROBES = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)


def _filter_bits(words: int) -> int:
    return min(_FILTER_MAX_BITS, max(_FILTER_MIN_BITS, (64 * words - 1).bit_length()))


def _filter_slots(key: int, shift: int) -> tuple[int, ...]:
    return tuple(((key * probe) & _KEY_MASK) >> shift for probe in _FILTER_PROBES)


# A fixed 64-bit weight per letter: a multiset of letters is keyed by the sum of its weights,
# so adding one letter to a key (a joker's choice, a board tile) is one addition.
LETTER_WEIGHTS: tuple[int, ...] = tuple(
    int.from_bytes(hashlib.sha256(f"arbitru-letter-{i}".encode()).digest()[:8], "little")
    for i in range(26)
)


def multiset_key(letters: Iterable[int]) -> int:
    """The key of a multiset of letters 0-25 (order does not matter)."""
    return sum(LETTER_WEIGHTS[x] for x in letters) & _KEY_MASK


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


def _parents_first(edges: list[dict[int, int]]) -> list[int]:
    """The nodes reachable from the root, each before all its children (reverse postorder)."""
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
    return postorder[::-1]


def _what_follows(
    children: list[dict[int, int]], terminal: bytes
) -> tuple[list[int], list[int], bytes, list[int]]:
    """Per node: letters on its edges, letters reachable below it, most letters still to come,
    word-end distances."""
    edges = [sum(1 << letter for letter in node) for node in children]
    reach = [0] * len(children)
    height = bytearray(len(children))
    lengths = list(terminal)
    for n in range(len(children) - 1, -1, -1):
        for child in children[n].values():
            reach[n] |= reach[child]
            height[n] = max(height[n], min(255, height[child] + 1))
            lengths[n] |= (lengths[child] << 1) & _LENGTHS_MASK
        reach[n] |= edges[n]
    return edges, reach, bytes(height), lengths


def _multiset_filter(words: list[str]) -> bytes:
    """The Bloom filter of the words' letter multisets (see `may_have_multiset`)."""
    bits = _filter_bits(len(words))
    bitmap = bytearray(1 << (bits - 3))
    by_byte = [0] * _A + list(LETTER_WEIGHTS)
    for word in words:
        key = sum(map(by_byte.__getitem__, word.encode("ascii"))) & _KEY_MASK
        for slot in _filter_slots(key, 64 - bits):
            bitmap[slot >> 3] |= 1 << (slot & 7)
    return bytes(bitmap)


class Lexicon:
    """A minimised DAWG over folded upper-case words; node 0 is the root."""

    __slots__ = (
        "_children",
        "_data",
        "_edge_count",
        "_edges",
        "_flat",
        "_height",
        "_lengths",
        "_multisets",
        "_reach",
        "_shift",
        "_terminal",
        "_words",
    )

    def __init__(
        self,
        terminal: bytes,
        children: list[dict[int, int]] | None,
        words: int,
        edges: list[int] | array,
        reach: list[int] | array,
        height: bytes,
        lengths: list[int] | array,
        multisets: bytes,
        flat: tuple[array, bytes, array] | None = None,
    ) -> None:
        self._terminal = terminal
        self._multisets = multisets
        self._shift = 64 - (8 * len(multisets)).bit_length() + 1
        self._children = children
        self._words = words
        # Plain lists, not arrays: indexing an array boxes a new int on every read.
        self._edges = edges
        self._reach = reach
        self._height = height
        self._lengths = lengths
        # Read from bytes, the edges stay flat (first edge per node, labels, targets) until
        # `children` is asked for: the compiled generator and `walk` need no dicts, and
        # building 80,000 of them is most of a load.
        self._flat = flat
        self._edge_count = len(flat[1]) if flat else sum(len(c) for c in children or ())
        self._data: bytes | None = None

    @classmethod
    def from_words(cls, words: Iterable[str], compiled: bool = True) -> Lexicon:
        """Build from any word list; entries are folded (Ș → S) and upper-cased.

        A word with a character outside A-Z after folding raises `LexiconError`: the caller
        decides what a word list may contain, the lexicon only stores letters. The compiled
        builder (`engine._kernel`, when built) gives the same bytes as this module's, in a
        fraction of the time and memory; `compiled=False` asks for this module's.
        """
        folded = set()
        for raw in words:
            if not raw.strip():
                continue
            word = fold_word(raw)
            if word is None:
                raise LexiconError(f"word {raw!r}: only letters A-Z (after folding) can be stored")
            folded.add(word)
        ordered = sorted(folded)
        del folded
        if compiled and _compiled_build is not None:
            text = "\n".join(ordered).encode("ascii")
            del ordered
            nodes, edge_count, count, payload = _compiled_build(text, LETTER_WEIGHTS)
            filter_size = len(payload) - 4 * (nodes + 1) - 14 * nodes - 5 * edge_count
            header = _HEADER.pack(
                _MAGIC, _VERSION, nodes, edge_count, count, filter_size, zlib.crc32(payload)
            )
            return cls.from_bytes(header + payload)
        terminal, built = _build(ordered)
        nodes = _parents_first(built)
        order = {node: i for i, node in enumerate(nodes)}
        children = [
            {letter: order[child] for letter, child in sorted(built[node].items())}
            for node in nodes
        ]
        flags = bytes(terminal[node] for node in nodes)
        edges, reach, height, lengths = _what_follows(children, flags)
        multisets = _multiset_filter(ordered)
        return cls(flags, children, len(ordered), edges, reach, height, lengths, multisets)

    def to_bytes(self) -> bytes:
        first = array("I", [0])
        labels = bytearray()
        targets = array("I")
        for node in self.children:
            labels.extend(node.keys())
            targets.extend(node.values())
            first.append(len(labels))
        edges = array("I", self.edges)
        reach = array("I", self.reach)
        lengths = array("I", self.lengths)
        if sys.byteorder != "little":
            for numbers in (first, targets, edges, reach, lengths):
                numbers.byteswap()
        payload = b"".join(
            (
                first.tobytes(),
                self._terminal,
                self._height,
                edges.tobytes(),
                reach.tobytes(),
                lengths.tobytes(),
                bytes(labels),
                targets.tobytes(),
                self._multisets,
            )
        )
        header = _HEADER.pack(
            _MAGIC,
            _VERSION,
            len(self._terminal),
            len(labels),
            self._words,
            len(self._multisets),
            zlib.crc32(payload),
        )
        return header + payload

    @classmethod
    def from_bytes(cls, data: bytes) -> Lexicon:
        """Read `to_bytes` output; anything else (truncated, altered, older) is a LexiconError."""
        if len(data) < _HEADER.size:
            raise LexiconError("lexicon bytes truncated: no complete header")
        magic, version, nodes, edge_count, words, filter_size, crc = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise LexiconError("not a lexicon: wrong magic bytes")
        if version != _VERSION:
            raise LexiconError(f"lexicon format version {version}, this engine reads {_VERSION}")
        payload = memoryview(data)[_HEADER.size :]
        expected = 4 * (nodes + 1) + 14 * nodes + 5 * edge_count + filter_size
        filter_ok = filter_size & (filter_size - 1) == 0 and (
            1 << (_FILTER_MIN_BITS - 3) <= filter_size <= 1 << (_FILTER_MAX_BITS - 3)
        )
        if nodes < 1 or not filter_ok or len(payload) != expected:
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
        edges, reach, lengths = array("I"), array("I"), array("I")
        for numbers in (edges, reach, lengths):
            numbers.frombytes(payload[at : at + 4 * nodes])
            at += 4 * nodes
        labels = bytes(payload[at : at + edge_count])
        at += edge_count
        targets = array("I")
        targets.frombytes(payload[at : at + 4 * edge_count])
        at += 4 * edge_count
        multisets = bytes(payload[at:])
        if sys.byteorder != "little":
            for numbers in (first, targets, edges, reach, lengths):
                numbers.byteswap()
        # Every command that reads a game loads the lexicon, so these checks run in C where they
        # can: offsets that never decrease are their own sorted list, and deleting the 26
        # letters' numbers from the labels leaves nothing unless one is out of range.
        offsets = first.tolist()
        if (
            first[0] != 0
            or first[-1] != edge_count
            or offsets != sorted(offsets)
            or (edge_count and (labels.translate(None, _LETTERS) or max(targets) >= nodes))
        ):
            raise LexiconError("lexicon bytes inconsistent: edges out of range")
        flat = (first, labels, targets)
        lexicon = cls(terminal, None, words, edges, reach, height, lengths, multisets, flat)
        lexicon._data = bytes(data)
        return lexicon

    @property
    def data(self) -> bytes:
        """The cache bytes (`to_bytes`), kept from `from_bytes`: the compiled generator
        (engine.kernel) reads its arrays from them."""
        if self._data is None:
            self._data = self.to_bytes()
        return self._data

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
            for letter, child in sorted(self.children[node].items(), reverse=True):
                stack.append((child, prefix + chr(_A + letter)))

    @property
    def node_count(self) -> int:
        return len(self._terminal)

    @property
    def edge_count(self) -> int:
        return self._edge_count

    @property
    def children(self) -> list[dict[int, int]]:
        """Per node, its edges `{letter 0-25: child node}`; the generator walks these directly."""
        if self._children is None:
            first, labels, targets = self._flat  # type: ignore[misc]
            pairs = zip(labels, targets, strict=True)
            counts = (first[n + 1] - first[n] for n in range(len(self._terminal)))
            self._children = [dict(islice(pairs, count)) for count in counts]
        return self._children

    def _listed(self, slot: str) -> list[int]:
        """The per-node numbers in `slot` as a plain list, made from their array on first use
        (read from bytes they are arrays; indexing an array boxes a new int on every read)."""
        numbers = getattr(self, slot)
        if not isinstance(numbers, list):
            numbers = numbers.tolist()
            setattr(self, slot, numbers)
        return numbers

    @property
    def terminal(self) -> bytes:
        """Per node, 1 when the path from the root to it spells a word."""
        return self._terminal

    @property
    def edges(self) -> list[int]:
        """Per node, the 26-bit mask of the letters on its own edges (the keys of `children`)."""
        return self._listed("_edges")

    @property
    def reach(self) -> list[int]:
        """Per node, the 26-bit mask of letters on some path from it to a word's end."""
        return self._listed("_reach")

    @property
    def height(self) -> bytes:
        """Per node, the most letters a word can still add after it."""
        return self._height

    @property
    def lengths(self) -> list[int]:
        """Per node, bit i set when a word ends exactly i letters further (i below 32)."""
        return self._listed("_lengths")

    def may_have_multiset(self, key: int) -> bool:
        """False when no word is an anagram of the multiset with this `multiset_key`.

        True means "perhaps" (a Bloom filter: about one key in 100,000 without a word passes).
        """
        bitmap = self._multisets
        shift = self._shift
        for probe in _FILTER_PROBES:
            slot = ((key * probe) & _KEY_MASK) >> shift
            if not bitmap[slot >> 3] >> (slot & 7) & 1:
                return False
        return True

    def walk(self, word: str, node: int = 0) -> int | None:
        """The node reached from `node` by the letters of `word` (A-Z), or None."""
        if self._children is None:
            first, labels, targets = self._flat  # type: ignore[misc]
            for ch in word:
                letter = ord(ch) - _A
                if not 0 <= letter < 26:
                    return None
                edge = labels.find(letter, first[node], first[node + 1])
                if edge < 0:
                    return None
                node = targets[edge]
            return node
        children = self._children
        for ch in word:
            nxt = children[node].get(ord(ch) - _A)
            if nxt is None:
                return None
            node = nxt
        return node
