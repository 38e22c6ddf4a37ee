"""The checks an append runs on the events it is given before it stores any: each event's
envelope, no id twice in one batch, and an id already stored only for the very same event
(`ledger.store`'s writer runs them)."""

from __future__ import annotations

from ledger.canonical import canonical_json
from ledger.envelope import NewEvent, RecordedEvent, check_new_event
from ledger.errors import EnvelopeError, EventIdConflict


def check_batch(stream: str, events: list[NewEvent]) -> None:
    problems: list[str] = []
    seen: set[str] = set()
    for index, event in enumerate(events):
        prefix = f"event {index + 1}: " if len(events) > 1 else ""
        problems += [prefix + p for p in check_new_event(stream, event)]
        if event.event_id in seen:
            problems.append(f"{prefix}event_id {event.event_id} appears twice in the batch")
        seen.add(event.event_id)
    if problems:
        raise EnvelopeError(problems)


def check_same(stream: str, event: NewEvent, stored: RecordedEvent) -> None:
    """Refuse an `event_id` already stored for a different event. Payload and meta are
    compared by canonical encoding, which (unlike `==`) tells `true` from `1`."""
    differences = [
        name
        for name, wanted, found in (
            ("stream", stream, stored.stream),
            ("type", event.type, stored.type),
            ("schema", event.schema, stored.schema),
            ("payload", canonical_json(event.payload), canonical_json(stored.payload)),
            ("meta", canonical_json(event.meta), canonical_json(stored.meta)),
        )
        if wanted != found
    ]
    if differences:
        raise EventIdConflict(event.event_id, differences)
