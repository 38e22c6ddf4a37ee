"""The ledger's routes, for auditors: its head, its checkpoints, its events, and the proof
that an event is in it.

Each answers what the matching command writes: `GET /ledger/head` as `arbitru ledger head
--json` (with the quick check's verdict, `ledger_altered`, as the game views carry it),
`GET /checkpoints` as `arbitru ledger checkpoints --json`, `GET /ledger/events` byte for byte
the lines `arbitru ledger export` writes (the ledger's own writer, `ledger.jsonl.row_line`,
over the rows as stored), a page at a time, and `GET /proofs/{event_id}` the document
`arbitru ledger prove SEQ` writes, which `arbitru verify-proof` checks offline.
"""

from __future__ import annotations

import io
import itertools
import json
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse, Response

from ledger.envelope import check_stream
from ledger.errors import CheckpointError
from ledger.jsonl import row_line, write_rows
from pipelines.games.service import ledger_altered
from pipelines.server.callers import access, account_of, server_of
from pipelines.server.held import API
from pipelines.server.problems import Problem

router = APIRouter(tags=["ledger"])

NDJSON = "application/x-ndjson"
PAGE_DEFAULT = 1000
PAGE_LARGEST = 10_000
NEXT_AFTER = "Arbitru-Next-After"
"""The header naming the `after` of the next page (also given as a `Link: rel="next"`)."""
ALTERED = "Arbitru-Ledger-Altered"
"""The header saying why the ledger fails its quick check, on an export it does not vouch
for (the events are still sent as stored, for forensic work, as the command line does)."""

EventId = Annotated[
    str, Path(pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
]


@router.get("/ledger/head", summary="The ledger's head")
def ledger_head(request: Request) -> JSONResponse:
    """The last seq and its hash (what a federation publishes), and why the ledger fails its
    quick check (`ledger_altered`; null when it passes)."""
    access(request, "ledger_head")
    store = server_of(request).store
    altered = ledger_altered(store)
    head = store.head()
    return JSONResponse({"seq": head.seq, "hash": head.hash, "ledger_altered": altered})


@router.get("/checkpoints", summary="The signed checkpoints")
def checkpoints(request: Request) -> JSONResponse:
    """Every recorded checkpoint, smallest first, as `arbitru ledger checkpoints --json`."""
    from ledger.checkpoints import list_checkpoints

    access(request, "checkpoints")
    recorded = list_checkpoints(server_of(request).store)
    return JSONResponse({"checkpoints": [c.to_dict() for c in recorded]})


@router.get(
    "/ledger/events",
    summary="The ledger's events as JSON Lines",
    response_class=Response,
    responses={200: {"content": {NDJSON: {}}}},
)
def ledger_events(
    request: Request,
    stream: Annotated[
        str | None, Query(max_length=80, description="Only this stream, e.g. game/g1.")
    ] = None,
    after: Annotated[int, Query(ge=0, description="Only events after this seq.")] = 0,
    limit: Annotated[
        int, Query(ge=1, le=PAGE_LARGEST, description="At most this many events.")
    ] = PAGE_DEFAULT,
) -> Response:
    """Events in seq order, each line exactly as `arbitru ledger export [--stream S]` writes
    it. When more follow, the `Link` header (`rel="next"`) and `Arbitru-Next-After` say
    where the next page starts; the pages put together are the export."""
    access(request, "ledger_events")
    store = server_of(request).store
    if stream is not None:
        problems = check_stream(stream)
        if problems:
            raise Problem(422, f"stream: {'; '.join(problems)}", "invalid")
        if store.stream_version(stream) == 0:
            raise Problem(404, f"no stream {stream} in this ledger", "not_found")
    altered = ledger_altered(store)
    rows = list(itertools.islice(store.iter_rows(stream, limit + 1, after + 1), limit + 1))
    page = rows[:limit]
    body = io.BytesIO()
    write_rows((row_line(row) for row in page), body)
    headers: dict[str, str] = {}
    if len(rows) > limit:
        following = page[-1][0]
        query = {**({"stream": stream} if stream else {}), "after": following, "limit": limit}
        headers[NEXT_AFTER] = str(following)
        headers["Link"] = f'<{API}/ledger/events?{urlencode(query)}>; rel="next"'
    if altered is not None:
        headers[ALTERED] = altered.replace("\n", " ")
    return Response(body.getvalue(), media_type=NDJSON, headers=headers)


@router.get("/proofs/{event_id}", summary="The proof that an event is in the ledger")
def proof(request: Request, event_id: EventId) -> Response:
    """The inclusion proof of the event in the latest signed checkpoint, with that
    checkpoint, as `arbitru ledger prove SEQ` writes it (`arbitru verify-proof` checks it
    offline with the federation's public key). For the event's own player (or account),
    the game's arbiters, auditors and admins; 404 until a signed checkpoint covers it."""
    from ledger.proofs import inclusion_document
    from ledger.proving import prove_inclusion

    if account_of(request) is None:
        access(request, "proof")  # the public: 401, before saying whether the event exists
    server = server_of(request)
    found = server.store.find_events([event_id]).get(event_id)
    if found is None:
        raise Problem(404, f"no event {event_id} in this ledger", "not_found")
    access(request, "proof", **_about(request, found.stream, found.payload))
    try:
        document = inclusion_document(prove_inclusion(server.store, found.seq))
    except CheckpointError as exc:
        raise Problem(
            404,
            f"event {event_id} (seq {found.seq}) is recorded, but no signed checkpoint covers "
            f"it yet: {exc}; one is signed when a round closes",
            "not_found",
        ) from exc
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    return Response(text, media_type="application/json")


def _about(request: Request, stream: str, payload: dict[str, Any]) -> dict[str, Any]:
    """What an event is about, for `access`: its game (its player, if it names one), its
    tournament, or its account."""
    kind, _, own = stream.partition("/")
    if kind == "game":
        held = server_of(request).games.current(server_of(request).store, stream)
        player = payload.get("player_id")
        return {"game": held, "player": player if isinstance(player, str) else ""}
    if kind == "tournament":
        return {"tournament": own}
    if kind == "account":
        return {"account_in_path": own}
    return {}
