"""Reliability under real concurrency and crashes, on every backend: several writer processes,
a reader racing them, writers killed with SIGKILL, history rewritten behind the ledger's back."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from ledger_helpers import game_created

from ledger import EventStore, verify_store

WORKERS = str(Path(__file__).with_name("ledger_workers.py"))
TIMEOUT_S = 90


def _spawn(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, WORKERS, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> None:
    try:
        _, err = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError(f"worker {process.args} did not finish in {TIMEOUT_S} s") from None
    assert process.returncode == 0, err


def _assert_ledger_is_whole(store: EventStore) -> list:
    events = store.read_all()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    versions: dict[str, list[int]] = {}
    for event in events:
        versions.setdefault(event.stream, []).append(event.version)
    for stream, seen in versions.items():
        assert seen == list(range(1, len(seen) + 1)), stream
    assert len({e.event_id for e in events}) == len(events)
    result = verify_store(store)
    assert result.ok, result.problem
    return events


def test_concurrent_writer_processes_store_every_acknowledged_event_exactly_once(
    db_url: str, tmp_path: Path
) -> None:
    writers, batches, batch_size = 4, 12, 10
    with EventStore(db_url) as store:
        store.append("game/shared", [game_created("shared")], expected_version=0)
    ack_files = [tmp_path / f"acks-{n}.jsonl" for n in range(writers)]
    total = 1 + writers * (1 + batches * batch_size)
    tailer = _spawn("tail", db_url, str(total), str(tmp_path / "seen.json"), cwd=tmp_path)
    processes = [
        _spawn("writer", db_url, f"w{n}", str(batches), str(batch_size), str(ack), cwd=tmp_path)
        for n, ack in enumerate(ack_files)
    ]
    for process in [*processes, tailer]:
        _finish(process)

    acknowledged = [
        event_id
        for ack in ack_files
        for line in ack.read_text().splitlines()
        for event_id in json.loads(line)
    ]
    assert len(acknowledged) == writers * batches * batch_size
    with EventStore(db_url) as store:
        events = _assert_ledger_is_whole(store)
    counts = Counter(e.event_id for e in events)
    assert all(counts[event_id] == 1 for event_id in acknowledged)
    assert len(events) == total

    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen == list(range(1, total + 1)), "the tailing reader skipped or repeated a seq"


def test_a_writer_killed_in_the_middle_of_a_batch_leaves_none_of_it(
    db_url: str, tmp_path: Path
) -> None:
    with EventStore(db_url) as store:
        store.append("game/before", [game_created("before")])
    process = _spawn("hold", db_url, "game/held", cwd=tmp_path)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.strip() == "mid-batch", process.stderr.read() if process.stderr else ""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=TIMEOUT_S)
    with EventStore(db_url) as store:
        assert store.read_stream("game/held") == []
        _assert_ledger_is_whole(store)
        deadline = time.monotonic() + 30
        while True:
            try:
                store.append("game/after", [game_created("after")])
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert store.head().seq == 2


def test_writers_killed_at_random_moments_leave_only_whole_batches(
    db_url: str, tmp_path: Path
) -> None:
    batch_size = 25
    rng = random.Random(20261130)
    for round_no in range(3):
        stream = f"game/churn{round_no}"
        process = _spawn("churn", db_url, stream, str(batch_size), cwd=tmp_path)
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "started"
        time.sleep(rng.uniform(0.05, 0.4))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=TIMEOUT_S)
        with EventStore(db_url) as store:
            count = len(store.read_stream(stream))
            assert count > 0 and count % batch_size == 0, count
            _assert_ledger_is_whole(store)


def test_processes_opening_a_fresh_ledger_at_once_migrate_it_once(
    db_url: str, tmp_path: Path
) -> None:
    processes = [_spawn("first-use", db_url, f"g{n}", cwd=tmp_path) for n in range(4)]
    for process in processes:
        _finish(process)
    with EventStore(db_url) as store:
        assert len(_assert_ledger_is_whole(store)) == 4
