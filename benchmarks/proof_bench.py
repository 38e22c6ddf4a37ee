"""Checkpoints and proofs on a large ledger: the time to sign a checkpoint, to run the quick
check, to make an inclusion proof and to verify one, on SQLite.

    python benchmarks/proof_bench.py [--events N] [--proofs K] [--rounds R] [--cache DIR]

Targets, on a ledger of 1,000,000 events: a checkpoint over 1,000 new events in under 100 ms
and `check_recent` with a checkpoint a few events behind the head in under 5 ms (issue 19),
each timed in a fresh process, as a round close or a command runs them (the time of the call
itself; the process start is printed apart); `check_recent` before any checkpoint, which
reads the last `UNSIGNED_TAIL` events only, in under 100 ms whatever the ledger's length; a
proof in under 50 ms, a verification in under 5 ms (issue 12). Building the ledger through
the store would take long, so it is built once by bulk insert of properly chained rows (the
same encoder and hash as every append; the database's insert triggers check each link) and
cached in DIR (a folder under the system's temporary directory by default); each run works on
a copy.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tail import p95  # benchmarks/tail.py

from ledger import EventStore, NewEvent
from ledger.canonical import GENESIS_HASH, canonical_json, chain_hash, envelope_bytes
from ledger.checkpoints import (
    UNSIGNED_TAIL,
    make_checkpoint,
)
from ledger.integrity import check_recent
from ledger.proofs import consistency_document, inclusion_document, verify_document
from ledger.proving import prove_consistency, prove_inclusion

GAME_EVENTS = 1000
INSERT_SQL = (
    "INSERT INTO events (seq, event_id, stream, version, type, schema, payload, meta,"
    " recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def build_ledger(path: Path, events: int) -> None:
    """A ledger of `events` events in games of `GAME_EVENTS`, chained as appends chain them."""
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    EventStore(f"sqlite:///{partial}").close()
    connection = sqlite3.connect(partial, isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    meta = canonical_json({"actor": "bench"})
    prev_hash, rows = GENESIS_HASH, []
    for seq in range(1, events + 1):
        game, version = divmod(seq - 1, GAME_EVENTS)
        version += 1
        if version == 1:
            kind, payload = "GameCreated", {"game_id": f"b{game}", "variant": "duplicate"}
        else:
            kind, payload = "RackDrawn", {"round": version - 1, "drawn": "AEIR?"}
        key = (seq, str(uuid.UUID(int=seq, version=4)), f"game/b{game}", version, kind, 1)
        payload_json = canonical_json(payload)
        recorded_at = (
            f"2026-11-30T08:{seq // 60_000 % 60:02d}:{seq // 1000 % 60:02d}.{seq % 1_000_000:06d}Z"
        )
        hashed = envelope_bytes(
            (*key, payload_json.encode(), meta.encode(), recorded_at, prev_hash)
        )
        digest = chain_hash(prev_hash, hashed)
        rows.append((*key, payload_json, meta, recorded_at, prev_hash, digest))
        prev_hash = digest
        if len(rows) == 50_000:
            connection.executemany(INSERT_SQL, rows)
            rows = []
            print(f"\r  built {seq:,} events", end="", flush=True)
    connection.executemany(INSERT_SQL, rows)
    connection.execute("COMMIT")
    connection.close()
    partial.replace(path)
    print()


def timed(work):
    """The value of `work()` and its wall-clock seconds."""
    value, seconds, _ = timed_cpu(work)
    return value, seconds


def timed_cpu(work):
    """The value of `work()`, its wall-clock seconds and the CPU seconds this process spent:
    on a shared machine the second is what the work itself costs."""
    cpu, start = time.process_time(), time.perf_counter()
    value = work()
    return value, time.perf_counter() - start, time.process_time() - cpu


CHILD = """
import sys, time
start = time.perf_counter()
from ledger import EventStore
from ledger.checkpoints import make_checkpoint
from ledger.integrity import check_recent
from ledger.signing import load_private_key
store = EventStore(sys.argv[2], read_only=sys.argv[1] == "check")
key = load_private_key(__import__("pathlib").Path(sys.argv[3]))
ready, cpu = time.perf_counter(), time.process_time()
if sys.argv[1] == "check":
    check_recent(store)
else:
    checkpoint, created = make_checkpoint(store, key)
    assert created
print(ready - start, time.perf_counter() - ready, time.process_time() - cpu)
"""


def in_fresh_process(what: str, url: str, key_file: Path) -> tuple[float, float, float]:
    """Seconds to start and open the ledger, then wall-clock and CPU seconds of the call
    itself, in a new Python process: `check` runs check_recent, `checkpoint`
    make_checkpoint. On a shared machine the CPU seconds are what the work costs."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, what, url, str(key_file)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def new_events(count: int, game: str) -> list[NewEvent]:
    return [
        NewEvent("GameCreated", {"game_id": game}),
        *(NewEvent("RackDrawn", {"round": i, "drawn": "AEIR?"}) for i in range(1, count)),
    ]


def summary(seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"median {statistics.median(ms):.2f} ms, p95 {p95(ms):.2f} ms, max {max(ms):.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--proofs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "arbitru-proof-bench"
    )
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    base = args.cache / f"ledger-{args.events}.db"
    if not base.is_file():
        print(f"building a ledger of {args.events:,} events once, in {base}")
        _, seconds = timed(lambda: build_ledger(base, args.events))
        print(f"  built in {seconds:.1f} s")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "ledger.db"
        shutil.copyfile(base, work)
        key = Ed25519PrivateKey.generate()
        public = key.public_key()
        with EventStore(f"sqlite:///{work}") as store:
            unsigned = [timed(lambda: check_recent(store))[1] for _ in range(20)]
            print(
                f"check_recent with no checkpoint yet (the last {UNSIGNED_TAIL:,} events), "
                f"20 runs: {summary(unsigned)}"
            )
            (first, _), seconds, cpu = timed_cpu(lambda: make_checkpoint(store, key))
            print(
                f"checkpoint over {first.tree_size:,} events (first, every event checked): "
                f"{seconds:.2f} s ({cpu:.2f} s CPU)"
            )
            key_file = Path(scratch) / "bench.key"
            key_file.write_bytes(
                key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                )
            )
            key_file.chmod(0o600)
            url = f"sqlite:///{work}"
            signing, signing_cpu, checking, checking_cpu, starts = [], [], [], [], []
            for round_no in range(args.rounds):
                store.append(f"game/late{round_no}", new_events(1000, f"late{round_no}"))
                started, seconds, cpu = in_fresh_process("checkpoint", url, key_file)
                signing.append(seconds)
                signing_cpu.append(cpu)
                starts.append(started)
                store.append(f"game/tail{round_no}", new_events(5, f"tail{round_no}"))
                _, seconds, cpu = in_fresh_process("check", url, key_file)
                checking.append(seconds)
                checking_cpu.append(cpu)
            second = make_checkpoint(store, key)[0]
            print(
                f"checkpoint over 1,000 new events on {first.tree_size:,} and more "
                f"({args.rounds} rounds, fresh process each): {summary(signing)}"
            )
            print(f"  CPU: {summary(signing_cpu)}")
            print(
                f"check_recent, 5 events after the latest checkpoint (fresh process each): "
                f"{summary(checking)}"
            )
            print(f"  CPU: {summary(checking_cpu)}")
            print(f"  process start and opening the ledger: {summary(starts)}")
            warm = [timed(lambda: check_recent(store))[1] for _ in range(50)]
            print(f"check_recent in one process, 50 runs: {summary(warm)}")

            randomly = random.Random(12)
            seqs = [randomly.randint(1, second.tree_size) for _ in range(args.proofs)]
            documents, proving, checking = [], [], []
            for seq in seqs:
                proof, seconds = timed(lambda seq=seq: prove_inclusion(store, seq))
                proving.append(seconds)
                documents.append(inclusion_document(proof))
            for document in documents:
                verdict, seconds = timed(lambda d=document: verify_document(d, public))
                assert verdict.ok, verdict.detail
                checking.append(seconds)
            print(f"inclusion proof ({args.proofs} random seqs): {summary(proving)}")
            print(f"verification of an inclusion proof: {summary(checking)}")
            print(f"  audit path length: {len(documents[0]['audit_path'])} hashes")
            proof, seconds = timed(
                lambda: prove_consistency(store, first.tree_size, second.tree_size)
            )
            verdict, checked = timed(lambda: verify_document(consistency_document(proof), public))
            assert verdict.ok, verdict.detail
            print(
                f"consistency proof {first.tree_size:,} -> {second.tree_size:,}: "
                f"{seconds * 1000:.2f} ms, verified in {checked * 1000:.2f} ms"
            )


if __name__ == "__main__":
    main()
