"""The Merkle tree against RFC 9162, section 2.1, computed independently: a naive recursive
implementation written straight from the RFC's definitions (MTH, PATH, PROOF/SUBPROOF), and
a few tree heads worked out by hand from SHA-256 of literal bytes."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ledger_helpers import rfc_mth

from ledger import merkle


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def event_hash(i: int) -> str:
    """A stand-in event hash for leaf i: any 32 bytes do."""
    return sha(b"event %d" % i).hex()


def rfc_path(m: int, entries: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]) of RFC 9162 2.1.3.1."""
    n = len(entries)
    if n == 1:
        return []
    k = 1
    while k * 2 < n:
        k *= 2
    if m < k:
        return [*rfc_path(m, entries[:k]), rfc_mth(entries[k:])]
    return [*rfc_path(m - k, entries[k:]), rfc_mth(entries[:k])]


def rfc_subproof(m: int, entries: list[bytes], whole: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b) of RFC 9162 2.1.4.1."""
    n = len(entries)
    if m == n:
        return [] if whole else [rfc_mth(entries)]
    k = 1
    while k * 2 < n:
        k *= 2
    if m <= k:
        return [*rfc_subproof(m, entries[:k], whole), rfc_mth(entries[k:])]
    return [*rfc_subproof(m - k, entries[k:], False), rfc_mth(entries[:k])]


def entries_of(n: int) -> list[bytes]:
    return [bytes.fromhex(event_hash(i)) for i in range(n)]


def naive_subtree(entries: list[bytes]):
    return lambda a, b: rfc_mth(entries[a:b])


def leaves_of(n: int) -> list[bytes]:
    return [merkle.leaf_hash(event_hash(i)) for i in range(n)]


SIZES = [*range(1, 65), 127, 128, 129, 1000, 1023, 1024, 1025, 4097, 10_000]


@pytest.mark.parametrize("n", SIZES)
def test_tree_head_equals_rfc_mth(n: int) -> None:
    assert merkle.root(leaves_of(n)) == rfc_mth(entries_of(n))


@pytest.mark.parametrize("n", [*range(1, 65), 129, 1000])
def test_every_audit_path_equals_rfc_path_and_leads_to_the_head(n: int) -> None:
    entries = entries_of(n)
    head = rfc_mth(entries)
    subtree = naive_subtree(entries)
    indexes = range(n) if n <= 64 else [0, 1, 63, 64, n // 2, n - 2, n - 1]
    for m in indexes:
        path = merkle.inclusion_path(m, n, subtree)
        assert path == rfc_path(m, entries)
        leaf = sha(b"\x00" + entries[m])
        assert merkle.root_from_inclusion(m, n, leaf, path) == head


@pytest.mark.parametrize("n", [*range(1, 65), 129, 1000])
def test_every_consistency_proof_equals_rfc_proof_and_leads_to_both_heads(n: int) -> None:
    entries = entries_of(n)
    subtree = naive_subtree(entries)
    olds = range(1, n + 1) if n <= 64 else [1, 2, 3, 64, 127, 128, 129, n - 1, n]
    for m in olds:
        proof = merkle.consistency_path(m, n, subtree)
        assert proof == rfc_subproof(m, entries, True)
        old_head = rfc_mth(entries[:m])
        assert merkle.roots_from_consistency(m, n, old_head, proof) == (old_head, rfc_mth(entries))


def test_stored_levels_hold_every_complete_subtree() -> None:
    entries = entries_of(77)
    levels = merkle.levels(leaves_of(77))
    for height, level in enumerate(levels):
        width = 1 << height
        for j, node in enumerate(level):
            if (j + 1) * width <= 77:
                assert node == rfc_mth(entries[j * width : (j + 1) * width])


# Worked by hand from the definitions: d_i are the bytes of event_hash(i).
def test_one_leaf_head_is_sha256_of_zero_byte_and_the_event_hash() -> None:
    d0 = bytes.fromhex(event_hash(0))
    assert merkle.root(leaves_of(1)) == hashlib.sha256(b"\x00" + d0).digest()


def test_two_leaf_head_by_hand() -> None:
    d0, d1 = (bytes.fromhex(event_hash(i)) for i in range(2))
    l0 = hashlib.sha256(b"\x00" + d0).digest()
    l1 = hashlib.sha256(b"\x00" + d1).digest()
    assert merkle.root(leaves_of(2)) == hashlib.sha256(b"\x01" + l0 + l1).digest()


def test_three_leaf_head_splits_two_then_one() -> None:
    d = [bytes.fromhex(event_hash(i)) for i in range(3)]
    leaf = [hashlib.sha256(b"\x00" + x).digest() for x in d]
    left = hashlib.sha256(b"\x01" + leaf[0] + leaf[1]).digest()
    assert merkle.root(leaves_of(3)) == hashlib.sha256(b"\x01" + left + leaf[2]).digest()


def test_five_leaf_head_splits_four_then_one() -> None:
    d = [bytes.fromhex(event_hash(i)) for i in range(5)]
    leaf = [hashlib.sha256(b"\x00" + x).digest() for x in d]
    a = hashlib.sha256(b"\x01" + leaf[0] + leaf[1]).digest()
    b = hashlib.sha256(b"\x01" + leaf[2] + leaf[3]).digest()
    four = hashlib.sha256(b"\x01" + a + b).digest()
    assert merkle.root(leaves_of(5)) == hashlib.sha256(b"\x01" + four + leaf[4]).digest()


def test_known_digest_of_a_leaf_of_all_zero_hash() -> None:
    """SHA-256 of 0x00 followed by 32 zero bytes, a constant anyone can recompute."""
    expected = "7f9c9e31ac8256ca2f258583df262dbc7d6f68f2a03043d5c99a4ae5a7396ce9"
    assert merkle.leaf_hash("0" * 64).hex() == expected
    assert hashlib.sha256(bytes(33)).hexdigest() == expected


def test_three_leaf_audit_path_of_the_last_leaf_is_the_left_pair() -> None:
    d = [bytes.fromhex(event_hash(i)) for i in range(3)]
    leaf = [hashlib.sha256(b"\x00" + x).digest() for x in d]
    left = hashlib.sha256(b"\x01" + leaf[0] + leaf[1]).digest()
    assert merkle.inclusion_path(2, 3, naive_subtree(d)) == [left]
    assert merkle.inclusion_path(0, 3, naive_subtree(d)) == [leaf[1], leaf[2]]


@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))))
def test_path_for_one_leaf_never_proves_another(case: tuple[int, int]) -> None:
    n, m = case
    entries = entries_of(n)
    path = merkle.inclusion_path(m, n, naive_subtree(entries))
    head = rfc_mth(entries)
    for other in {0, n - 1, (m + 1) % n} - {m}:
        leaf = sha(b"\x00" + entries[other])
        assert merkle.root_from_inclusion(m, n, leaf, path) != head
        assert merkle.root_from_inclusion(other, n, sha(b"\x00" + entries[m]), path) != head


def test_hard_coded_heads_over_literal_event_hashes() -> None:
    """Heads over the event hashes 00…00, 11…11, 22…22, worked out once with SHA-256 alone:
    SHA-256(0x01 || SHA-256(0x00 || 00…00) || SHA-256(0x00 || 11…11)), then with the third
    leaf on the right of the first two."""
    hashes = ["00" * 32, "11" * 32, "22" * 32]
    leaves = [merkle.leaf_hash(h) for h in hashes]
    two = "8ab671c69294e69917042ed794e5ea9dda18710ca307a65b986226344b87552a"
    three = "cfdd57c49cf0b23df41b9ff2fce70eed9d15fd0242a185dbdb5b918f8b140cce"
    assert merkle.root(leaves[:2]).hex() == two
    assert merkle.root(leaves).hex() == three
