"""What an imported record must be beyond a valid envelope: a payload the engine can read.

The ledger stores envelopes and never reads a payload's fields; the engine's typed events know
them. `check_payload` is the bridge the `ledger import` command hands to the importer: a line
whose payload does not decode into its event type (a `GameCreated` without `game_id`, a round
that is not a whole number), or that holds a value outside the limits of what may be recorded
(`pipelines.games.limits`: a 10,000-point penalty, a season no export folder can be named after), is
refused with the field named, and nothing of the file is written.
Whether the event makes sense in its game (a draw of tiles not in the bag) is not asked here: a
replay keeps such an event and shows it as ignored with its reason.
"""

from __future__ import annotations

from typing import Any

from engine.games.payloads import EventDecodeError, decode_event
from pipelines.games.limits import event_problem


def check_payload(
    type_name: str, schema: int, payload: dict[str, Any], meta: dict[str, Any] | None = None
) -> str | None:
    """The problem with a payload of `type_name` written in `schema`, or None when it decodes
    and every value of it and of its meta is within the limits of what may be recorded
    (`pipelines.games.limits`, the same the commands hold to)."""
    problem = event_problem(payload, meta or {}) if isinstance(payload, dict) else None
    if problem is not None:
        return f"{problem} (an event of {type_name})"
    try:
        decode_event(type_name, schema, payload)
    except EventDecodeError as exc:
        where = exc.field if exc.field == "schema" else f"payload.{exc.field}".rstrip(".")
        return f"{where}: {exc.problem} (the payload of {type_name} does not decode)"
    return None
