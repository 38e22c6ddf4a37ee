"""A small signed ledger and the four ways of altering it behind Arbitru's back, for the tests
of the rule that every command enforces the chain. Imported as a plain module: pytest puts
this folder on sys.path.

The ledger (`signed_ledger`) is the start of the Cupa Bucureștiului's first game
(fixtures/games/duplicate-game.jsonl): rounds 1 and 2 closed, round 3 open with eight
submissions, 73 events; a checkpoint signed after round 2 (seq 64), the read models
recomputed at the head. Each scenario leaves the ledger at the URL altered so that both
implementations of `ledger.integrity` see it: the payload edit is in the game the commands
read and after the latest checkpoint; the truncation cuts events a signed checkpoint covers;
the rewrite and the forged import give the last events other hashes under a checkpoint that
signed the old ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from game_cli_helpers import cli

from ledger import EventStore
from ledger.canonical import canonical_json, chain_hash, envelope_bytes
from ledger.checkpoints import make_checkpoint
from ledger.schema import checkpoints, merkle_subtrees

FIXTURE = Path(__file__).parents[2] / "fixtures" / "games" / "duplicate-game.jsonl"
GAME = "cb26-p1"
EVENTS = 73
SIGNED_AT = 64
"""The ledger's size and the seq its first checkpoint covers (round 2 closed)."""

OPEN_SLIP = ("--player", "p14", "--text", "J5: HALI = 35 p", "--late")
"""A slip of round 3 the intact ledger takes (p14 has not played it yet); typed after the
round's deadline, so recorded late on purpose (`--late`), as a slip given no time must be."""

KEY = Ed25519PrivateKey.generate()


def _lines(start: int, end: int, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    with FIXTURE.open("rb") as source:
        lines = source.readlines()[start:end]
    path.write_bytes(b"".join(lines))
    return path


def signed_ledger(url: str, tmp_path: Path) -> None:
    """The ledger of the module docstring at `url`."""
    cli("ledger", "import", str(_lines(0, SIGNED_AT, tmp_path, "first.jsonl")), "--db", url)
    sign(url)
    cli("ledger", "import", str(_lines(SIGNED_AT, EVENTS, tmp_path, "rest.jsonl")), "--db", url)
    cli("recompute", "--db", url, "--json")


def sign(url: str) -> int:
    """A checkpoint of the ledger as it is now; its size."""
    with EventStore(url, upgrade=False) as store:
        return make_checkpoint(store, KEY)[0].tree_size


def _raw(store: EventStore, statement: str, **values: object) -> None:
    with store.engine.begin() as connection:
        connection.execute(sa.text(statement), values)


def _drop_event_triggers(store: EventStore) -> None:
    if store.engine.dialect.name == "postgresql":
        _raw(store, "DROP TRIGGER events_refuse_update_delete ON events")
    else:
        _raw(store, "DROP TRIGGER events_refuse_update")
        _raw(store, "DROP TRIGGER events_refuse_delete")


def _payload_sql(store: EventStore) -> str:
    return "CAST(:payload AS jsonb)" if store.engine.dialect.name == "postgresql" else ":payload"


def _slip_changed(payload: dict) -> dict:
    """A submission whose text says another move (the player's round then scores otherwise)."""
    return {**payload, "text": "2I: CHILA = 45 p"}


def payload_edit(url: str, tmp_path: Path) -> None:
    """Round 3's slip at seq 69 ("2F: HARCI = 47 p") made to say another move, with the
    triggers dropped and the stored hash left as it was."""
    with EventStore(url, upgrade=False) as store:
        _drop_event_triggers(store)
        (event,) = [e for e in store.read_stream(f"game/{GAME}") if e.seq == 69]
        payload = canonical_json(_slip_changed(event.payload))
        _raw(store, f"UPDATE events SET payload = {_payload_sql(store)} WHERE seq = 69",
             payload=payload)  # fmt: skip


def truncation(url: str, tmp_path: Path) -> None:
    """The last three events (round 3's latest slips) deleted after a checkpoint signed all
    73: an intact chain, shorter than what was signed."""
    sign(url)
    with EventStore(url, upgrade=False) as store:
        _drop_event_triggers(store)
        _raw(store, "DELETE FROM events WHERE seq > :last", last=EVENTS - 3)


def rewrite(url: str, tmp_path: Path) -> None:
    """History rewritten in place after a checkpoint signed all 73 events: round 2's first
    slip (seq 49, 65 points) made to say another move, and every event from it on given the
    hash its content now gives, so that the chain holds together; the checkpoint row stays,
    signing the old hashes."""
    sign(url)
    with EventStore(url, upgrade=False) as store:
        _drop_event_triggers(store)
        rows = list(store.iter_rows(from_seq=49))
        prev_hash = rows[0][9]
        for row in rows:
            payload = row[6]
            if row[0] == 49:
                payload = canonical_json(_slip_changed(json.loads(payload))).encode()
            altered = (*row[:6], payload, row[7], row[8], prev_hash)
            digest = chain_hash(prev_hash, envelope_bytes(altered))
            _raw(store, f"UPDATE events SET payload = {_payload_sql(store)}, prev_hash = :prev,"
                 " hash = :hash WHERE seq = :seq", payload=payload.decode(), prev=prev_hash,
                 hash=digest, seq=row[0])  # fmt: skip
            prev_hash = digest


def forged_import(url: str, tmp_path: Path) -> None:
    """A forged ledger at `url`: the signed ledger exported, round 2's first slip edited in
    the file, the file imported into an empty database (the import chains it with fresh
    hashes), and the original's checkpoint rows (a checkpoint of all 73, with its subtrees)
    copied into it."""
    original = f"sqlite:///{tmp_path / 'original.db'}"
    signed_ledger(original, tmp_path)
    sign(original)
    exported = tmp_path / "export.jsonl"
    cli("ledger", "export", "--db", original, "--out", str(exported))
    lines = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    lines[48]["payload"] = _slip_changed(lines[48]["payload"])
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    cli("ledger", "import", str(forged), "--db", url)
    with EventStore(original, upgrade=False) as source, source.engine.connect() as connection:
        copied = {
            table: [dict(row._mapping) for row in connection.execute(sa.select(table))]
            for table in (checkpoints, merkle_subtrees)
        }
    with EventStore(url, upgrade=False) as store, store.engine.begin() as connection:
        for table, rows in copied.items():
            if rows:
                connection.execute(sa.insert(table), rows)


SCENARIOS: dict[str, Callable[[str, Path], None]] = {
    "payload edit": payload_edit,
    "truncation": truncation,
    "rewrite": rewrite,
    "forged import": forged_import,
}
"""Each way of altering the ledger, by name (the tests' ids)."""


def altered_ledger(scenario: str, url: str, tmp_path: Path) -> None:
    """The signed ledger at `url` (for a forged import: its forgery), altered by `scenario`."""
    if scenario != "forged import":
        signed_ledger(url, tmp_path)
    SCENARIOS[scenario](url, tmp_path)
