"""Worker processes for the reliability tests, run as `python ledger_workers.py ROLE ...`.

They are separate programs (not threads) because the guarantees under test are between
processes: serialised writers, readers racing them, a writer killed with SIGKILL.

Roles:
  writer URL NAME BATCHES BATCH_SIZE ACK_FILE   append to game/NAME and to game/shared
  tail URL TOTAL SEEN_FILE                     follow the log until TOTAL events were seen
  hold URL STREAM                              append half a batch, say so, wait to be killed
  churn URL STREAM BATCH_SIZE                  append batches until killed
  first-use URL NAME                           open a ledger (maybe migrating it), append once
"""

from __future__ import annotations

import json
import sys
import time

from ledger import EventStore, NewEvent, VersionConflict


def _rack(i: int, name: str) -> NewEvent:
    return NewEvent("RackDrawn", {"round": i, "drawn": "AEIR?", "by": name})


def writer(url: str, name: str, batches: int, batch_size: int, ack_file: str) -> None:
    """Alternate batches between an own stream (created first) and the shared stream, which
    the test created; on the shared stream use optimistic concurrency and retry conflicts.
    Every acknowledged batch's event ids go to ACK_FILE, one JSON line per batch."""
    with EventStore(url) as store, open(ack_file, "a", encoding="utf-8") as acks:
        own = f"game/{name}"
        store.append(own, [NewEvent("GameCreated", {"game_id": name, "variant": "duplicate"})], 0)
        for b in range(batches):
            events = [_rack(b * batch_size + i, name) for i in range(batch_size)]
            if b % 2 == 0:
                recorded = store.append(own, events)
            else:
                while True:
                    seen = store.stream_version("game/shared")
                    try:
                        recorded = store.append("game/shared", events, expected_version=seen)
                        break
                    except VersionConflict:
                        continue
            acks.write(json.dumps([e.event_id for e in recorded]) + "\n")
            acks.flush()


def tail(url: str, total: int, seen_file: str) -> None:
    """Follow the log with read_all(from_seq=last + 1), as pipelines do, and record every
    seq in the order it was seen; stops once TOTAL seqs were seen or after 60 s."""
    deadline = time.monotonic() + 60
    last = 0
    seen: list[int] = []
    with EventStore(url) as store:
        while last < total and time.monotonic() < deadline:
            page = store.read_all(from_seq=last + 1, limit=500)
            for event in page:
                seen.append(event.seq)
                last = event.seq
    with open(seen_file, "w", encoding="utf-8") as out:
        json.dump(seen, out)


def hold(url: str, stream: str) -> None:
    """Open a write transaction, insert half of a batch, announce it, then wait."""
    with EventStore(url) as store, store.writer() as w:
        w.append(stream, [NewEvent("GameCreated", {"game_id": "held", "variant": "duplicate"})])
        w.append(stream, [_rack(i, "held") for i in range(200)])
        w.flush()
        print("mid-batch", flush=True)
        time.sleep(120)
        w.append(stream, [_rack(i, "held") for i in range(200, 400)])


def churn(url: str, stream: str, batch_size: int) -> None:
    """Append batches of BATCH_SIZE forever; the first opens the stream."""
    with EventStore(url) as store:
        opening = NewEvent("GameCreated", {"game_id": "churn", "variant": "duplicate"})
        store.append(stream, [opening] + [_rack(i, "churn") for i in range(batch_size - 1)], 0)
        print("started", flush=True)
        i = 0
        while True:
            store.append(stream, [_rack(i + k, "churn") for k in range(batch_size)])
            i += batch_size


def first_use(url: str, name: str) -> None:
    """Open the ledger, which migrates it if nobody has yet, and open one game stream."""
    with EventStore(url) as store:
        store.append(f"game/{name}", [NewEvent("GameCreated", {"game_id": name})], 0)


if __name__ == "__main__":
    role, *args = sys.argv[1:]
    if role == "writer":
        writer(args[0], args[1], int(args[2]), int(args[3]), args[4])
    elif role == "tail":
        tail(args[0], int(args[1]), args[2])
    elif role == "hold":
        hold(args[0], args[1])
    elif role == "churn":
        churn(args[0], args[1], int(args[2]))
    elif role == "first-use":
        first_use(args[0], args[1])
    else:
        raise SystemExit(f"unknown role {role}")
