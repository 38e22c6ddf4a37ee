"""Recompute: every game replayed from the ledger into the read models
(`pipelines.season.readmodels`).

    plan(store, selection, follow) -> Plan
        Which games to replay: each game stream's last `seq`, the season and tournament it is
        filed under (from the tournament streams' TournamentCreated and GameAdded, or its
        GameCreated), compared with what the read models were computed from. Nothing changed
        in the selection: nothing to do. Otherwise every selected game is replayed, or with
        `follow` only the games whose events (or filing) changed since the last run. Read
        models are fresh only for the same `seq` AND hash: when the ledger's event at the
        recorded head now has another hash (or is gone), the ledger changed under them, and
        every game is replayed, whatever the selection.
    recompute(store, plan, on_game, verify=True) -> Summary
        The ledger's quick check first (`ledger.integrity.check_recent`) and every replayed
        game's events checked against their hashes (`check_events`): `LedgerAltered`, and
        nothing written, when the ledger was altered (`verify=False`: for forensic work). Then
        the games replayed (`pipelines.games.service.fold`) and turned into rows
        (`pipelines.season.rows`) in worker processes, each task a batch of games that the
        worker reads from the ledger itself in one query and sends back as rows of plain tuples
        (in-process for small jobs), then written in ONE transaction: the games' old rows
        deleted, the new inserted in bulk (COPY on PostgreSQL), `read_games` and the ledger
        head read up to recorded. A run killed at any point leaves the previous read models as
        they were.
    recompute(..., rebuild=True)
        The same, after dropping the read-model tables and creating them again by their
        migration (0005), in the same transaction.

Games are read up to the ledger head taken when the plan was made, so that the rows, the
per-game `last_seq` and the recorded head describe the same snapshot of the ledger.

Workers are as many as the work and the cores can use (`workers_for`), never more, and they
die with the recompute that started them: a worker whose parent is gone, even killed with
SIGKILL, holds the database open for nothing. On Linux the kernel kills it at once
(PR_SET_PDEATHSIG); everywhere, a thread of the worker watches its parent and ends it when
the parent is gone (`_die_with_parent`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from ledger import EventStore, Head, RecordedEvent
from ledger.catalogue import naming_problem
from ledger.database import migrations_config, write_transaction
from ledger.integrity import check_events, check_recent
from ledger.schema import events as events_table
from pipelines.games.limits import NUMBERS
from pipelines.games.service import ServiceError, fold
from pipelines.season import readmodels as rm
from pipelines.season.rows import TABLES, game_rows

RECOMPUTE_LOCK_KEY = 0x4172626974727533
"""PostgreSQL advisory lock held while a recompute writes ("Arbitru3"): runs never interleave."""

IN_PROCESS_EVENTS = 20_000
"""Below this many events to replay, worker processes cost more than they save."""

GAMES_PER_TASK = 8
"""Games a worker reads in one query and replays per task: a game per task spent more on
queries and messages between processes than a batch does, and batches this small still share
the work evenly between the workers and keep the progress bar moving."""

MAX_WORKERS = NUMBERS["workers"].most
"""More worker processes than this is not a number of cores but a typo: refused
(`pipelines.games.limits`)."""

PARENT_WATCH_S = 0.5
"""How often a worker's watch thread checks that the recompute that started it is alive."""

DELETE_CHUNK = 500
"""Games whose old rows one DELETE removes (`game_id IN (...)`)."""


@dataclass(frozen=True)
class Selection:
    """Which games a run covers: all, or those of a season, a tournament or one game."""

    season: str | None = None
    tournament: str | None = None
    game: str | None = None

    def covers(self, game: GameSource) -> bool:
        return (
            (self.season is None or game.season == self.season)
            and (self.tournament is None or game.tournament_id == self.tournament)
            and (self.game is None or game.game_id == self.game)
        )


@dataclass(frozen=True)
class GameSource:
    """A game stream as the ledger holds it at the plan's head, and where it is filed."""

    stream: str
    last_seq: int
    events: int
    season: str | None
    tournament_id: str | None

    @property
    def game_id(self) -> str:
        return self.stream.split("/", 1)[1]


@dataclass(frozen=True)
class Plan:
    """What a run replays at `head`; `moved`: the ledger changed under the read models (the
    head they were computed at has another hash now), so `todo` is every game."""

    head: Head
    selected: tuple[GameSource, ...]
    todo: tuple[GameSource, ...]
    moved: bool = False

    @property
    def events(self) -> int:
        return sum(g.events for g in self.todo)


@dataclass(frozen=True)
class GameResult:
    """A game's rows as tuples in column order (cheap to send between processes)."""

    source: GameSource
    variant: str | None
    rows: dict[str, list[tuple]]
    problem: str | None


@dataclass(frozen=True)
class Summary:
    head: Head
    games: int
    events: int
    rows: dict[str, int]
    problems: tuple[tuple[str, str], ...]


def game_sources(connection: sa.Connection, head: Head) -> list[GameSource]:
    e = events_table
    upto = e.c.seq <= head.seq
    filing = connection.execute(
        sa.select(e.c.stream, e.c.type, e.c.payload).where(
            upto, e.c.type.in_(("TournamentCreated", "GameAdded", "GameCreated"))
        )
    ).all()
    seasons: dict[str, str] = {}
    added: dict[str, str] = {}
    created: dict[str, str] = {}
    decoded = [
        (stream, type_name, json.loads(payload) if isinstance(payload, str | bytes) else payload)
        for stream, type_name, payload in filing
    ]
    misnamed = {s for s, t, p in decoded if isinstance(p, dict) and naming_problem(s, t, p)}
    for stream, type_name, payload in decoded:
        if not isinstance(payload, dict) or stream in misnamed:
            continue
        tournament = stream.split("/", 1)[1]
        if type_name == "TournamentCreated" and isinstance(payload.get("season"), str):
            seasons.setdefault(tournament, payload["season"])
        elif type_name == "GameAdded" and isinstance(payload.get("game_id"), str):
            added.setdefault(payload["game_id"], tournament)
        elif type_name == "GameCreated" and isinstance(payload.get("tournament_id"), str):
            created.setdefault(stream.split("/", 1)[1], payload["tournament_id"])
    streams = connection.execute(
        sa.select(e.c.stream, sa.func.max(e.c.seq), sa.func.count())
        .where(upto, e.c.stream.like("game/%"))
        .group_by(e.c.stream)
        .order_by(e.c.stream)
    ).all()
    found = []
    for stream, last_seq, count in streams:
        game_id = stream.split("/", 1)[1]
        tournament = created.get(game_id) or added.get(game_id)
        season = seasons.get(tournament) if tournament is not None else None
        found.append(GameSource(stream, int(last_seq), int(count), season, tournament))
    return found


def plan(
    store: EventStore, selection: Selection, *, follow: bool = False, everything: bool = False
) -> Plan:
    """The games a run replays (see the module docstring); `everything`: all selected games,
    whether or not they changed (a rebuild)."""
    head = store.head()
    with store.engine.connect() as connection, connection.begin():
        every = game_sources(connection, head)
        sources = [s for s in every if selection.covers(s)]
        moved = models_moved(connection)
        done = {
            row.game_id: (row.last_seq, row.season, row.tournament_id)
            for row in connection.execute(
                sa.select(rm.games.c.game_id, rm.games.c.last_seq, rm.games.c.season,
                          rm.games.c.tournament_id)
            )
        }  # fmt: skip
    changed = [s for s in sources if done.get(s.game_id) != (s.last_seq, s.season, s.tournament_id)]
    if moved:
        return Plan(head, tuple(sources), tuple(every), moved=True)
    if everything:
        return Plan(head, tuple(sources), tuple(sources))
    if not changed:
        return Plan(head, tuple(sources), ())
    return Plan(head, tuple(sources), tuple(changed if follow else sources))


def models_moved(connection: sa.Connection) -> bool:
    """Whether the ledger changed under the read models: the event at the head they were
    computed at has another hash now, or is gone (a `seq` alone does not say they are fresh)."""
    recorded = connection.execute(
        sa.select(rm.state.c.seq, rm.state.c.hash).where(rm.state.c.name == rm.STATE_NAME)
    ).first()
    if recorded is None or recorded.seq == 0:
        return False
    now = connection.execute(
        sa.select(events_table.c.hash).where(events_table.c.seq == recorded.seq)
    ).scalar()
    return now != recorded.hash


_worker_store: EventStore | None = None


def _open_worker(url: str, parent: int | None = None) -> None:
    """A worker's (or the in-process replay's) ledger; a worker, told its `parent`'s pid,
    first makes sure it dies with it."""
    global _worker_store
    if parent is not None:
        _die_with_parent(parent)
    _worker_store = EventStore(url, upgrade=False)


def _kernel_kills_orphans() -> bool:
    """On Linux, ask the kernel to SIGKILL this process when its parent dies
    (prctl PR_SET_PDEATHSIG); False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        pr_set_pdeathsig = 1
        return libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _die_with_parent(parent: int) -> None:
    """End this worker when the process `parent` is gone: by the kernel where it can (Linux),
    and by a daemon thread that checks every PARENT_WATCH_S that this process is still its
    child (an orphan is handed to another parent). Checked once more after asking the kernel,
    for a parent that died before the ask."""
    _kernel_kills_orphans()
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_WATCH_S)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _replay(source: GameSource, stored: list[RecordedEvent]) -> GameResult:
    """One game folded and turned into rows; none for a stream whose GameCreated names
    another game (`pipelines.games.stream_names`): its rows would be credited to that game."""
    misnamed = naming_problem(source.stream, stored[0].type, stored[0].payload) if stored else None
    if misnamed is not None:
        return GameResult(source, None, {name: [] for name in TABLES}, misnamed)
    try:
        _, state = fold(stored)
    except ServiceError as exc:
        return GameResult(source, None, {name: [] for name in TABLES}, str(exc))
    found = game_rows(state, source.season, source.tournament_id)
    # Plain tuples: a named tuple is pickled with its class, four times as slow to send.
    rows = {name: [tuple(row) for row in getattr(found, name)] for name in TABLES}
    variant = state.created.variant if state.created is not None else None
    problem = None if state.context is not None else "not a game that can be judged here"
    return GameResult(source, variant, rows, problem)


def replay_games(
    store: EventStore, batch: Sequence[GameSource], up_to_seq: int, *, verify: bool = True
) -> list[GameResult]:
    """A batch of games read from `store` in one query (up to `up_to_seq`), each replayed:
    what a worker does per task, and the export where the read models are not fresh. With
    `verify`, `LedgerAltered` when an event read no longer gives its hash."""
    stored = store.read_streams([source.stream for source in batch], up_to_seq)
    if verify:
        for events in stored.values():
            check_events(events)
    return [_replay(source, stored.get(source.stream, [])) for source in batch]


def _replay_batch(batch: Sequence[GameSource], up_to_seq: int, verify: bool) -> list[GameResult]:
    assert _worker_store is not None
    return replay_games(_worker_store, batch, up_to_seq, verify=verify)


def _replay_all(
    url: str, todo: Sequence[GameSource], up_to_seq: int, workers: int, verify: bool
) -> Iterator[GameResult]:
    batches = [todo[i : i + GAMES_PER_TASK] for i in range(0, len(todo), GAMES_PER_TASK)]
    if workers <= 1:
        _open_worker(url)
        try:
            for batch in batches:
                yield from _replay_batch(batch, up_to_seq, verify)
        finally:
            assert _worker_store is not None
            _worker_store.close()
        return
    # Started directly by this process (fork, or spawn where there is no fork), never by a
    # fork server: the parent a worker watches is then the recompute itself.
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    )
    opening = (url, os.getpid())
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_open_worker, initargs=opening
    ) as pool:
        rest = (itertools.repeat(up_to_seq), itertools.repeat(verify))
        for results in pool.map(_replay_batch, batches, *rest):
            yield from results


def useful_workers(plan: Plan) -> int:
    """The most processes that can replay the plan at once: one per task (a batch of
    GAMES_PER_TASK games), at most one per core."""
    tasks = -(-len(plan.todo) // GAMES_PER_TASK)
    return max(1, min(os.cpu_count() or 1, tasks))


def workers_for(plan: Plan, wanted: int | None = None) -> int:
    """How many processes replay the plan: one for small jobs, else one per core; `wanted`
    (--workers) is capped at what is useful (`useful_workers`)."""
    if wanted is not None:
        if not 1 <= wanted <= MAX_WORKERS:
            raise ValueError(f"workers must be between 1 and {MAX_WORKERS}, not {wanted}")
        return min(wanted, useful_workers(plan))
    if plan.events < IN_PROCESS_EVENTS or len(plan.todo) < 2:
        return 1
    return useful_workers(plan)


def _insert(connection: sa.Connection, table: sa.Table, rows: list[tuple]) -> None:
    """Rows (tuples in column order) added to a table in bulk, straight through the driver:
    COPY on PostgreSQL, one prepared INSERT run for every row on SQLite."""
    if not rows:
        return
    names = ", ".join(c.name for c in table.columns)
    if connection.dialect.name == "postgresql":
        copying = f"COPY {table.name} ({names}) FROM STDIN"
        with (
            connection.connection.driver_connection.cursor() as cursor,
            cursor.copy(copying) as copy,
        ):
            for row in rows:
                copy.write_row(row)
        return
    marks = ", ".join("?" * len(table.columns))
    connection.exec_driver_sql(f"INSERT INTO {table.name} ({names}) VALUES ({marks})", rows)


def _write(
    connection: sa.Connection, results: list[GameResult], *, rebuild: bool, moved: bool
) -> tuple[dict[str, int], list]:
    """The games' old rows deleted (none after a rebuild: the tables are new; all of them
    when the ledger changed under them: a game may be gone) and their new rows inserted, a
    table at a time."""
    if moved and not rebuild:
        for table in (*rm.ROW_TABLES.values(), rm.games):
            connection.execute(table.delete())
    elif not rebuild:
        ids = [result.source.game_id for result in results]
        for table in (*rm.ROW_TABLES.values(), rm.games):
            for start in range(0, len(ids), DELETE_CHUNK):
                chunk = ids[start : start + DELETE_CHUNK]
                connection.execute(table.delete().where(table.c.game_id.in_(chunk)))
    counts = {}
    for name, table in rm.ROW_TABLES.items():
        rows = [row for result in results for row in result.rows[name]]
        _insert(connection, table, rows)
        counts[name] = len(rows)
    games = [
        (r.source.game_id, r.source.stream, r.source.season, r.source.tournament_id, r.variant,
         r.source.last_seq, r.source.events, r.problem)
        for r in results
    ]  # fmt: skip
    _insert(connection, rm.games, games)
    problems = [(r.source.game_id, r.problem) for r in results if r.problem is not None]
    return counts, problems


def recompute(
    store: EventStore,
    plan: Plan,
    *,
    workers: int | None = None,
    on_game: Callable[[GameSource], None] = lambda _source: None,
    rebuild: bool = False,
    verify: bool = True,
) -> Summary:
    """Replay the plan's games and replace their rows, all in one transaction (see above);
    with `rebuild`, the same transaction first drops the read-model tables and creates them
    again. A plan with nothing to do writes nothing (unless it rebuilds). `verify` checks
    the ledger first and each game's events as they are replayed (`LedgerAltered`)."""
    if verify:
        check_recent(store)
    if not plan.todo and not rebuild and not plan.moved:
        return Summary(plan.head, 0, 0, dict.fromkeys(TABLES, 0), ())
    results = []
    count = workers_for(plan, workers)
    for result in _replay_all(store.url, plan.todo, plan.head.seq, count, verify):
        results.append(result)
        on_game(result.source)
    with write_transaction(store.engine, RECOMPUTE_LOCK_KEY) as connection:
        if rebuild:
            _recreate(connection)
        counts, problems = _write(connection, results, rebuild=rebuild, moved=plan.moved)
        values = {
            "seq": plan.head.seq,
            "hash": plan.head.hash,
            "recomputed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        updated = connection.execute(
            rm.state.update().where(rm.state.c.name == rm.STATE_NAME).values(**values)
        )
        if updated.rowcount == 0:
            connection.execute(rm.state.insert().values(name=rm.STATE_NAME, **values))
    return Summary(plan.head, len(plan.todo), plan.events, counts, tuple(problems))


def recorded_head(store: EventStore) -> Head | None:
    """The ledger head the read models were last computed at (None: never)."""
    with store.engine.connect() as connection:
        row = connection.execute(
            sa.select(rm.state.c.seq, rm.state.c.hash).where(rm.state.c.name == rm.STATE_NAME)
        ).first()
    return Head(row.seq, row.hash) if row is not None else None


def _recreate(connection: sa.Connection) -> None:
    """Drop the read-model tables and create them again, empty, by their migration. Alembic
    is imported here: only a rebuild needs it, and the export, which shares this module's
    replay, must not load it."""
    from alembic import command

    config = migrations_config(connection)
    command.downgrade(config, "0004")
    command.upgrade(config, "head")
