"""Where the Parquet export's rows come from: the read models when they are fresh, otherwise
the games replayed, the same rows either way.

    snapshot(store) -> Snapshot
        The ledger head the export is taken at, every game stream up to it with the season
        and tournament it is filed under (the filing `arbitru recompute` uses), each game's
        GameCreated (variant, ruleset, word list), and whether the read models are fresh:
        computed at exactly these games' last events and filing.
    season_rows(store, snapshot, season, verify=True) -> dict[table, list[tuple]]
        The `player_rounds`, `rounds` and game `standings` rows of one season's games, as
        tuples in `rows.COLUMNS` order, in the export's order (`ORDER`): read from the
        read-model tables when fresh, else each game folded and turned into rows
        (`pipelines.season.rows`), as `arbitru recompute` would store them.

Read models are used only when they match the snapshot's games exactly, and a season's rows
only when the recompute state read after them is still the one the snapshot saw: should a
recompute commit during the export, the seasons read after it are replayed instead, so that
every row describes the snapshot's head.

The order is fixed here, in Python, rather than by the database: SQLite and PostgreSQL sort
nulls and text differently, and an export must not depend on which one holds the ledger.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from engine.games.events import GameCreated
from engine.games.payloads import EventDecodeError, decode_event
from engine.ruleset import RulesetError, load_ruleset
from ledger import EventStore, Head
from ledger.database import read_transaction
from ledger.schema import events as events_table
from pipelines.lexicons.registry import default_sha256
from pipelines.season import readmodels as rm
from pipelines.season.recompute import (
    GAMES_PER_TASK,
    GameSource,
    game_sources,
    models_moved,
    replay_games,
)
from pipelines.season.rows import COLUMNS, TABLES

ORDER: dict[str, tuple[str, ...]] = {
    "player_rounds": ("tournament_id", "game_id", "round", "player_id"),
    "rounds": ("tournament_id", "game_id", "round"),
    "standings": ("tournament_id", "game_id", "rank", "player_id"),
}
"""The sort key of each table's rows (a null tournament sorts first)."""


@dataclass(frozen=True)
class GameFacts:
    """What a game's GameCreated says it is judged with (None where it says nothing usable)."""

    variant: str | None
    ruleset: str | None
    ruleset_sha256: str | None
    dictionary: str | None
    dictionary_sha256: str | None


@dataclass(frozen=True)
class Snapshot:
    """The head the export is taken at, its games and what their GameCreated say, and the
    read models' recorded state when they are fresh (None: the games are replayed)."""

    head: Head
    games: tuple[GameSource, ...]
    facts: dict[str, GameFacts]
    models: tuple[Any, ...] | None

    @property
    def fresh(self) -> bool:
        return self.models is not None


def snapshot(store: EventStore) -> Snapshot:
    """The head, the games filed at it, and whether the read models match them exactly."""
    head = store.head()
    with read_transaction(store.engine) as connection:
        games = tuple(game_sources(connection, head))
        created = connection.execute(
            sa.select(events_table.c.stream, events_table.c.schema, events_table.c.payload).where(
                events_table.c.seq <= head.seq, events_table.c.type == "GameCreated"
            )
        ).all()
    facts = {
        stream.split("/", 1)[1]: _facts(schema, payload) for stream, schema, payload in created
    }
    return Snapshot(head, games, facts, _fresh_models(store, games))


def _facts(schema: int, payload: Any) -> GameFacts:
    try:
        event = decode_event("GameCreated", schema, payload)
    except EventDecodeError:
        return GameFacts(None, None, None, None, None)
    assert isinstance(event, GameCreated)
    ref = event.dictionary
    dictionary_sha256 = ref.sha256 if ref is not None and ref.sha256 else default_sha256()
    name = ref.name if ref is not None else None
    return GameFacts(
        event.variant, event.ruleset, _ruleset_sha256(event.ruleset), name, dictionary_sha256
    )


@functools.lru_cache(maxsize=16)
def _ruleset_sha256(name: str) -> str | None:
    """The SHA-256 of a shipped ruleset by name (None when there is no such ruleset)."""
    try:
        return load_ruleset(name).sha256
    except RulesetError:
        return None


def _models_state(connection: sa.Connection) -> tuple[Any, ...] | None:
    """What the last recompute recorded (its head and time): any recompute that writes
    changes it."""
    row = connection.execute(sa.select(rm.state).where(rm.state.c.name == rm.STATE_NAME)).first()
    return tuple(row) if row is not None else None


def _fresh_models(store: EventStore, games: Sequence[GameSource]) -> tuple[Any, ...] | None:
    """The read models' recorded state when they hold every game, and only them, as of these
    last events and filing, and the ledger still holds the head they were computed at (its
    seq AND hash: `recompute.models_moved`); None otherwise (also when they were never
    created). The state is read before and after the games, so that a recompute committing
    in between is seen."""
    query = sa.select(
        rm.games.c.game_id, rm.games.c.last_seq, rm.games.c.season, rm.games.c.tournament_id
    )
    try:
        with read_transaction(store.engine) as connection:
            before = _models_state(connection)
            done = {
                row.game_id: (row.last_seq, row.season, row.tournament_id)
                for row in connection.execute(query)
            }
            moved = models_moved(connection)
            after = _models_state(connection)
    except sa.exc.SQLAlchemyError:
        return None
    wanted = {g.game_id: (g.last_seq, g.season, g.tournament_id) for g in games}
    fresh = before is not None and before == after and done == wanted and not moved
    return before if fresh else None


def season_rows(
    store: EventStore, shot: Snapshot, season: str | None, *, verify: bool = True
) -> dict[str, list[tuple]]:
    """One season's rows of every table, sorted (see the module docstring). A replay checks
    every event against its hash unless not `verify` (an export with `--skip-verify`)."""
    games = [g for g in shot.games if g.season == season]
    rows = _read(store, season, shot.models) if shot.fresh else None
    if rows is None:
        rows = _replayed(store, shot.head, games, verify)
    return {name: sorted(found, key=_key(name)) for name, found in rows.items()}


def _key(table: str) -> Any:
    names = [c[0] for c in COLUMNS[table]]
    at = [names.index(column) for column in ORDER[table]]
    return lambda row: tuple("" if row[i] is None else row[i] for i in at)


def _read(
    store: EventStore, season: str | None, models: tuple[Any, ...] | None
) -> dict[str, list[tuple]] | None:
    """A season's rows from the read models; None when a recompute has written since the
    snapshot (the state, read after the rows, shows it), so that the caller replays instead:
    an export never mixes rows of two heads."""
    found = {}
    with read_transaction(store.engine) as connection:
        for name, table in rm.ROW_TABLES.items():
            where = table.c.season.is_(None) if season is None else table.c.season == season
            found[name] = [tuple(row) for row in connection.execute(sa.select(table).where(where))]
        if _models_state(connection) != models:
            return None
    return found


def _replayed(
    store: EventStore, head: Head, games: Sequence[GameSource], verify: bool
) -> dict[str, list[tuple]]:
    """The games folded and turned into rows as `arbitru recompute` does (a game that cannot
    be folded has none)."""
    found: dict[str, list[tuple]] = {name: [] for name in TABLES}
    for start in range(0, len(games), GAMES_PER_TASK):
        batch = games[start : start + GAMES_PER_TASK]
        for replayed in replay_games(store, batch, head.seq, verify=verify):
            for name in TABLES:
                found[name] += replayed.rows[name]
    return found
