"""What `arbitru game` shows: the events a command appended (or would append), a round's
results, the standings, and the game replayed to a moment, as Rich views or stable JSON.

Every number shown is read off a folded state by the engine's projections; nothing here
decides anything.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ledger import NewEvent, RecordedEvent
from pipelines.game_service import Outcome

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def emit_json(value: Any) -> None:
    """One JSON document on stdout, keys sorted, non-ASCII kept."""
    typer.echo(json.dumps(value, ensure_ascii=False, sort_keys=True))


def event_json(new: NewEvent, recorded: RecordedEvent | None) -> dict[str, Any]:
    """An appended (or proposed) event: type, payload, meta, id, and where it landed."""
    value: dict[str, Any] = {
        "type": new.type,
        "payload": new.payload,
        "meta": new.meta,
        "event_id": new.event_id,
    }
    if recorded is not None:
        value["seq"] = recorded.seq
        value["version"] = recorded.version
    return value


def show_outcome(outcome: Outcome, *, as_json: bool, round_number: int | None) -> None:
    """The events a command appended, or in a dry run would append."""
    recorded: list[RecordedEvent | None] = list(outcome.recorded) or [None] * len(outcome.events)
    events = [event_json(n, r) for n, r in zip(outcome.events, recorded, strict=True)]
    if as_json:
        emit_json(
            {
                "game_id": outcome.stream.split("/", 1)[1],
                "stream": outcome.stream,
                "dry_run": outcome.dry_run,
                "conflicts": outcome.conflicts,
                "events": events,
            }
        )
        return
    if outcome.conflicts:
        err.print(
            f"[yellow]note:[/] another terminal wrote to {outcome.stream} first; the command "
            f"was decided again on what it recorded ({outcome.conflicts} time(s))"
        )
    verb = "would append" if outcome.dry_run else "appended"
    table = Table(title=f"{outcome.stream}: {verb} {len(events)} event(s)", title_justify="left")
    for column in ("version", "type", "payload"):
        table.add_column(column)
    for event in events:
        payload = json.dumps(event["payload"], ensure_ascii=False, sort_keys=True)
        table.add_row(str(event.get("version", "-")), event["type"], escape(payload))
    out.print(table)
    if outcome.dry_run:
        out.print("[bold]dry run[/]: nothing was written")


def show_seed_note(seed: str, path: Path | None, new: bool, *, shown: bool) -> None:
    """Where a seeded game's seed is kept (never the seed itself unless asked)."""
    if path is None:
        out.print("dry run: a new seed would be generated and kept")
    elif new:
        out.print(f"a new secret seed was written to {path}: keep it safe, reveal it at the end")
    else:
        out.print(f"the seed in {path} was committed to")
    if shown:
        out.print(f"seed: {seed}")
