"""The ledger's exceptions: one base class, so that callers can catch everything the ledger
refuses, and one subclass per thing a caller can act on differently."""

from __future__ import annotations


class LedgerError(Exception):
    """Anything the ledger refuses or cannot do."""


class EnvelopeError(LedgerError):
    """An event whose envelope is malformed; `problems` lists every defect found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


class StreamStructureError(LedgerError):
    """An event that would break a stream's structure, such as a game stream not opened by
    `GameCreated`, or an event type that does not belong on that kind of stream."""


class VersionConflict(LedgerError):
    """An append whose expected version is stale: someone else wrote to the stream first."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        self.stream = stream
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"version conflict on stream {stream}: expected it at version {expected}, "
            f"but it is at version {actual}; re-read the stream and decide again"
        )


class EventIdConflict(LedgerError):
    """An `event_id` already recorded with a different stream, type, schema, payload or meta:
    not a retry of the same event but a second event reusing its id."""

    def __init__(self, event_id: str, differences: list[str]) -> None:
        self.event_id = event_id
        self.differences = differences
        super().__init__(
            f"event_id {event_id} is already recorded with a different "
            + ", ".join(differences)
            + "; a retried event must be identical, a new event needs a new event_id"
        )


class DatabaseError(LedgerError):
    """The database cannot be opened or used: a bad URL, an unreachable server, a file that is
    not an Arbitru ledger. The message says what to do."""


class NoLedger(DatabaseError):
    """The database holds no Arbitru ledger (no events table) and was opened only to read it:
    nothing was created. The message says how to create one."""


class CheckpointError(LedgerError):
    """A checkpoint or a proof that cannot be made: no events, no checkpoint, an unknown
    seq or size. The message says what to do."""


class LedgerAltered(CheckpointError):
    """The ledger no longer matches what a checkpoint signed, or its events no longer form
    an intact chain: nothing is signed or proved over it (`ledger.checkpoints`). Here, with
    the other errors, so that a command naming it in an `except` loads no database layer."""

    @classmethod
    def not_hexadecimal(cls, seq: int) -> LedgerAltered:
        """A stored hash that is not hexadecimal (or missing), found by the full and the
        incremental checks alike."""
        return cls(
            f"seq {seq}: the stored hash is not hexadecimal: the ledger was altered; run "
            "`arbitru ledger verify`"
        )
