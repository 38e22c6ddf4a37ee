"""Every write of the API goes through `write`: the same service call the command line makes,
with what only a server adds around it.

- **Receipts.** A write that recorded something answers 201 with a receipt: the last event it
  appended (`event_id`, `stream`, `version`, `seq`, `hash`), when it arrived (`received_at`:
  the server's clock, stamped into every event's `meta.received_at`, or the arrival an arbiter
  gave for a paper slip), and every event as `arbitru game ... --json` shows them. The game's
  version is also the `ETag`. A receipt is read from the ledger alone, so a retry answers the
  same one.
- **Retries.** With an `Idempotency-Key` header, the events' ids are derived from the caller's
  account and the key (`ids_for`): a retry of a write that was recorded (its answer lost with
  a dropped connection, a killed server) finds the events of the first try and answers the
  same receipt; nothing is recorded twice, even if the first try's process died between
  appending and answering; a retry racing its first try (the same key at the same moment)
  loses the append and answers the receipt of the one that won. The key is remembered with a
  digest of the request, in the transaction that appends the write (`pipelines.server.batches`),
  so that the same key with another request is refused (422) instead of answering for the
  wrong write.
- **Races.** With `If-Match: "VERSION"` (the `ETag` the arbiter looked at), a game that moved
  since is refused with 412 and its current version in the `ETag`; without it, a write that
  lost a race is decided again on what the other wrote (the service layer's rule).
- **Dry runs.** `?dry_run=true` answers 200 with the events it would append and how results and
  standings would change; nothing is written, no key remembered.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from anyio import to_thread
from fastapi import Request
from fastapi.responses import JSONResponse

from ledger.errors import LedgerError
from pipelines.games.service import Commands, EventIds, GameMoved, ServiceError, execute
from pipelines.games.shapes import event_json, outcome_json
from pipelines.server.batches import Write, key_reused, recorded_by
from pipelines.server.callers import server_of
from pipelines.server.problems import Problem

if TYPE_CHECKING:
    from pydantic import BaseModel

    from engine.games.commands import Command
    from ledger import EventStore, RecordedEvent
    from pipelines.server.access import Access

_NAMESPACE = uuid.UUID("6f1d3c4e-2a8b-5e7f-9c0d-1b2a3c4d5e6f")
_KEY = re.compile(r"^[\x21-\x7e]{1,200}$")
_IF_MATCH = re.compile(r'^\s*(?:W/)?"?(\d{1,12})"?\s*$')
_CLOSING = frozenset({"RoundClosed", "GameEnded"})


def now() -> datetime:
    """The server's clock: when a request was accepted (a slip's arrival)."""
    return datetime.now(UTC)


def ids_for(account: str, key: str) -> EventIds:
    """The ids of the events a write keyed `key` by `account` appends, the same on a retry."""
    return lambda n: str(uuid.uuid5(_NAMESPACE, f"{account}\n{key}\n{n}"))


def etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


def write(request: Request, asked: Write | JSONResponse) -> JSONResponse:
    """The answer to a write `asked_write` made (see the module docstring): recorded with the
    writes other requests of this process ask for at the same moment, in one transaction
    (`pipelines.server.batches`). Blocks its thread until the batch is committed."""
    if isinstance(asked, JSONResponse):
        return asked
    try:
        return answer(request, server_of(request).batches.run(asked))
    except (ServiceError, LedgerError) as exc:
        return _refused(server_of(request).store, asked, exc)


async def written(request: Request, asked: Write | JSONResponse) -> JSONResponse:
    """`write`'s end from the event loop, for a write `asked_write` made in a thread: the
    request waits for its batch holding no thread, so that a rush's slips are committed
    together however many threads the process has."""
    if isinstance(asked, JSONResponse):
        return asked
    done = await server_of(request).batches.settled(asked)
    if done.error is not None:  # perhaps a retry that raced its first try: read in a thread
        return await to_thread.run_sync(_refused, server_of(request).store, done, done.error)
    return answer(request, done)


def asked_write(
    request: Request,
    access: Access,
    game: str,
    commands: Commands,
    body: BaseModel | None,
    *,
    dry_run: bool,
    accepted: datetime,
) -> Write | JSONResponse:
    """The write a request asks for, ready for its batch, after the ledger's check; or the
    answer of a dry run (nothing written, no key remembered). Blocking: reads the ledger."""
    server = server_of(request)
    account = access.account or "-"
    key = None if dry_run else _idempotency_key(request)
    ids = None if key is None else ids_for(account, key)
    expected = _if_match(request)
    if dry_run:
        server.check_ledger(full=_closes(commands))
    elif _closes(commands) or server.full_check_due():
        # a close always; else the check due, which the threads queued behind the first
        # one to run it find done (else each batch checks what is new: `check_in`)
        server.check_ledger(full=_closes(commands))
    if dry_run:
        stamped = _arrived(commands, accepted)
        try:
            outcome = execute(
                server.store, game, stamped, dry_run=True, kept=server.games, expected=expected
            )
        except GameMoved as exc:
            raise _moved(exc) from exc
        return JSONResponse(outcome_json(outcome), status_code=200)
    keyed = None if key is None else (account, key, _digest(request, body))
    return Write(game, _arrived(commands, accepted), ids=ids, expected=expected, key=keyed)


def answer(request: Request, done: Write) -> JSONResponse:
    """The answer to a write its batch committed: the receipt of what it recorded (or of
    what its first try recorded), or the outcome of a write that recorded nothing."""
    if done.earlier:
        return receipt(done.earlier)
    outcome = done.outcome
    assert outcome is not None
    if not outcome.recorded:
        return JSONResponse(outcome_json(outcome), status_code=200)
    if any(e.type in _CLOSING for e in outcome.recorded):
        _checkpoint(server_of(request).store)
    server_of(request).wake()
    return receipt(list(outcome.recorded))


def _refused(store: EventStore, asked: Write, exc: Exception) -> JSONResponse:
    """A write its batch refused: the receipt of its first try if a retry raced it and lost
    (the first recorded it), 412 if the game moved past its If-Match; else the refusal."""
    if isinstance(exc, ServiceError | LedgerError):
        earlier = recorded_by(store, asked.ids) if asked.ids is not None else []
        if earlier:
            return receipt(earlier)
        if isinstance(exc, GameMoved):
            raise _moved(exc) from exc
    raise exc


def _moved(exc: GameMoved) -> Problem:
    return Problem(412, str(exc), "precondition_failed", headers=etag(exc.version))


def _closes(commands: Commands) -> bool:
    """Whether the commands close a round or end the game: a checkpoint is signed after
    them, and the ledger gets its full quick check before them (`Server.check_ledger`)."""
    from engine.games.commands import CloseRound, EndGame

    return not callable(commands) and any(isinstance(c, CloseRound | EndGame) for c in commands)


def _arrived(commands: Commands, accepted: datetime) -> Commands:
    """The commands stamped with when the server accepted the request (`meta.received_at`),
    unless an arbiter gave a paper slip's own arrival: the ledger then holds everything a
    receipt says, so that a retry answers the first try's receipt from the ledger alone."""

    def stamped(made: list[Command]) -> list[Command]:
        return [c if c.received_at is not None else replace(c, received_at=accepted) for c in made]

    if callable(commands):
        return lambda game: stamped(list(commands(game)))
    return stamped(list(commands))


def sent_before(request: Request, account: str, body: BaseModel | None) -> tuple[str, bool] | None:
    """The request's Idempotency-Key and whether this same request was sent with it before
    (the key is remembered now if it is new); None without a key. A key used before for
    another request is refused (422) rather than answered for the wrong write."""
    key = _idempotency_key(request)
    if key is None:
        return None
    from pipelines.accounts.credentials import remember_request

    digest = _digest(request, body)
    remembered = remember_request(server_of(request).store, account, key, digest)
    if remembered is not None and remembered != digest:
        raise key_reused()
    return key, remembered is not None


def receipt(recorded: list[RecordedEvent], status: int = 201, **shown: Any) -> JSONResponse:
    """The receipt of a recorded write: its last event, when it arrived (the first event's
    `meta.received_at`: the server's clock, or a paper slip's arrival as its arbiter gave it;
    else when the ledger recorded it), and every event as `arbitru game ... --json` shows what
    it appended; `shown` (an account's id and name) first."""
    last = recorded[-1]
    arrived = recorded[0].meta.get("received_at") or recorded[0].recorded_at
    body = {
        **shown,
        "event_id": last.event_id,
        "stream": last.stream,
        "version": last.version,
        "seq": last.seq,
        "hash": last.hash,
        "received_at": arrived,
        "events": [event_json(e, e) for e in recorded],  # as recorded: its own envelope
    }
    return JSONResponse(body, status_code=status, headers=etag(last.version))


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    if not _KEY.match(key):
        raise Problem(
            422,
            "Idempotency-Key: give 1 to 200 printable ASCII characters without spaces, e.g. a "
            "UUID made by the client for this write",
            "invalid",
        )
    return key


def _digest(request: Request, body: BaseModel | None) -> str:
    """What a request asks, as a digest: its method, path and body as validated (so that the
    same JSON spaced otherwise is the same request)."""
    asked = {
        "method": request.method,
        "path": request.url.path,
        "body": None if body is None else body.model_dump(mode="json"),
    }
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


def _if_match(request: Request) -> int | None:
    given = request.headers.get("if-match")
    if given is None or given.strip() == "*":
        return None
    matched = _IF_MATCH.match(given)
    if matched is None:
        raise Problem(
            422,
            'If-Match: give the game\'s version as its ETag shows it, e.g. If-Match: "42"',
            "invalid",
        )
    return int(matched[1])


def _checkpoint(store: Any) -> None:
    """Sign a checkpoint after a round or game closes, when a federation key is configured
    (as the command line does); the closing events stay recorded whatever happens here."""
    from ledger.errors import LedgerError
    from pipelines.games.checkpoints import checkpoint_if_configured
    from pipelines.server.problems import log

    try:
        checkpoint_if_configured(store)
    except LedgerError as exc:
        log.warning("the round or game is closed, but no checkpoint was signed: %s", exc)
