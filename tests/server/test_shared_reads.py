"""Reads shared by the requests asking at the same moment (`pipelines.server.shared_reads`):
one read answers every request waiting for it, and never with a read that began before the
request asked (a token revoked, a role taken away, just before it counts)."""

from __future__ import annotations

import threading

import pytest

from pipelines.server.shared_reads import SharedRead


class Ledger:
    """A stand-in for what the reads ask: a value that writes change, and a read that can
    be held open (as a slow query is) until the test lets it end."""

    def __init__(self) -> None:
        self.value = "before"
        self.reads: list[frozenset[str]] = []
        self.hold = threading.Event()
        self.hold.set()
        self.reading = threading.Event()

    def read(self, keys: frozenset[str]) -> dict[str, str]:
        seen = self.value  # what the ledger holds when the read begins
        self.reads.append(keys)
        self.reading.set()
        self.hold.wait(30)
        return {key: f"{key}:{seen}" for key in keys if key != "unknown"}


def asking(shared: SharedRead, key: str, answers: dict[str, object]) -> threading.Thread:
    def ask() -> None:
        try:
            answers[key] = shared(key)
        except Exception as exc:
            answers[key] = exc

    thread = threading.Thread(target=ask)
    thread.start()
    return thread


def wait_until(condition, what: str) -> None:
    for _ in range(1500):  # 30 s at most
        if condition():
            return
        threading.Event().wait(0.02)
    raise AssertionError(what)


def test_a_request_is_never_answered_by_a_read_that_began_before_it_asked() -> None:
    ledger = Ledger()
    shared = SharedRead(ledger.read)
    ledger.hold.clear()
    answers: dict[str, object] = {}
    first = asking(shared, "ana", answers)
    assert ledger.reading.wait(30)  # ana's read is under way, held
    ledger.value = "after"  # written while it runs: ana's read may miss it
    later = asking(shared, "bob", answers)  # bob asks after the write
    wait_until(lambda: len(shared._waiting) == 1, "bob did not queue behind the read")
    ledger.hold.set()
    first.join(30)
    later.join(30)
    assert answers == {"ana": "ana:before", "bob": "bob:after"}
    assert ledger.reads == [frozenset({"ana"}), frozenset({"bob"})]


def test_the_requests_waiting_behind_a_read_share_the_next_one() -> None:
    ledger = Ledger()
    shared = SharedRead(ledger.read)
    ledger.hold.clear()
    answers: dict[str, object] = {}
    threads = [asking(shared, "ana", answers)]
    assert ledger.reading.wait(30)
    waiting = ["bob", "cy", "dan", "unknown"]
    threads += [asking(shared, key, answers) for key in waiting]
    wait_until(lambda: len(shared._waiting) == len(waiting), "the four did not queue")
    ledger.hold.set()
    for thread in threads:
        thread.join(30)
    assert ledger.reads == [frozenset({"ana"}), frozenset(waiting)]  # two reads for five
    assert answers["cy"] == "cy:before" and answers["unknown"] is None
    assert not shared._reading and not shared._waiting


def test_a_failed_read_fails_every_request_in_it_and_the_next_read_is_tried_anew() -> None:
    calls: list[frozenset[str]] = []

    def read(keys: frozenset[str]) -> dict[str, str]:
        calls.append(keys)
        if len(calls) == 1:
            raise ConnectionError("the database went away")
        return dict.fromkeys(keys, "found")

    shared = SharedRead(read)
    with pytest.raises(ConnectionError, match="went away"):
        shared("ana")
    assert shared("ana") == "found"
    assert calls == [frozenset({"ana"}), frozenset({"ana"})]
