"""One id, one stream: the streams of a ledger whose opening event names another id.

`ledger import` and the service refuse such an event (`ledger.catalogue.naming_problem`), but a
ledger written by an older Arbitru may hold one: `GameCreated` on game/g2 saying game g1, or a
second tournament stream saying an existing tournament's id. Every read that files rows by id
(recompute, export, standings) leaves these streams out and names them, so that no row of one
game is credited to another.

    misnamed_streams(store, up_to_seq=None) -> dict[stream, Misnamed]
        Every such stream (up to a seq, for a snapshot), with the id it names and the problem.
    claimants(store, stream) -> list[stream]
        The other streams whose opening event names this stream's id (`game create` refuses
        an id already claimed).
    claimed_ids(store) -> Claimed;  claim_problem(claimed, type, payload) -> str | None
        The same for the opening events of an import, read once before it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.catalogue import STREAM_KINDS, naming_problem, stream_kind

if TYPE_CHECKING:
    from ledger import EventStore

OPENING_TYPES = tuple(kind.opened_by for kind in STREAM_KINDS.values())
"""The event types that open a stream and name its id."""


@dataclass(frozen=True)
class Misnamed:
    """A stream left out of every read: the id its opening event names instead of the
    stream's, and what is wrong, as one sentence."""

    stream: str
    named: object
    problem: str

    @property
    def line(self) -> str:
        """The line the reading commands print on stderr for it."""
        return f"left out {self.stream}: {self.problem}"

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape of a stream left out (`--json` of the commands that read)."""
        return {"stream": self.stream, "problem": self.problem}


def _openings(store: EventStore, up_to_seq: int | None) -> list[tuple[str, str, dict[str, Any]]]:
    """(stream, type, payload) of every opening event, up to `up_to_seq` when given."""
    # The database layer is imported where the ledger is read: a command's help needs none.
    import sqlalchemy as sa

    from ledger.database import read_transaction
    from ledger.schema import events as events_table

    e = events_table
    query = sa.select(e.c.stream, e.c.type, e.c.payload).where(e.c.type.in_(OPENING_TYPES))
    if up_to_seq is not None:
        query = query.where(e.c.seq <= up_to_seq)
    with read_transaction(store.engine) as connection:
        rows = connection.execute(query.order_by(e.c.seq)).all()
    found = []
    for stream, type_name, payload in rows:
        decoded = json.loads(payload) if isinstance(payload, str | bytes) else payload
        found.append((stream, type_name, decoded if isinstance(decoded, dict) else {}))
    return found


def misnamed_streams(store: EventStore, up_to_seq: int | None = None) -> dict[str, Misnamed]:
    """Every stream whose opening event names another id than the stream's, in seq order."""
    found = {}
    for stream, type_name, payload in _openings(store, up_to_seq):
        problem = naming_problem(stream, type_name, payload)
        if problem is not None:
            named = payload.get(stream_kind(stream).named_by)
            found[stream] = Misnamed(stream, named, problem)
    return found


def claimants(store: EventStore, stream: str) -> list[str]:
    """The other streams of the same kind whose opening event names `stream`'s id."""
    kind, own = stream.split("/", 1)
    return [
        m.stream
        for m in misnamed_streams(store).values()
        if m.named == own and m.stream.split("/", 1)[0] == kind
    ]


Claimed = dict[tuple[str, str, object], str]
"""(opening event type, its field naming the id, the id) -> the stream that claims the id."""


def claimed_ids(store: EventStore) -> Claimed:
    """The ids the misnamed streams of the ledger claim, each with the stream claiming it."""
    found: Claimed = {}
    for m in misnamed_streams(store).values():
        kind = stream_kind(m.stream)
        found[(kind.opened_by, kind.named_by, m.named)] = m.stream
    return found


def claim_problem(claimed: Claimed, type_name: str, payload: dict[str, Any]) -> str | None:
    """Why an event of `type_name` may not open a stream of the id it names, or None: another
    stream already claims that id."""
    for (opened_by, named_by, named), stream in claimed.items():
        if opened_by == type_name and payload.get(named_by) == named:
            return (
                f"{stream} already claims the id {named} (its {type_name} names it, as an "
                "older Arbitru allowed): a new stream of that id would make two streams of one id"
            )
    return None
