"""The one layer that wires games to the ledger: load a game's stream, fold it, decide an
arbiter's command, append the new events at the version the decision was taken on.

Every `arbitru game` command goes through `execute`; the views read through `load_game`.
Appends are optimistic first: the game is read and the command decided without any lock, and
appended at the version read. When another terminal wrote to the game in between, the ledger
refuses with `VersionConflict`, and the command is decided again under the ledger's append
lock: the game read again, decided on that fresh state (it may then be refused, with the rules'
reason) and appended in the same write transaction, where no other terminal can write first.
So a command is decided at most twice and never gives up: fifty terminals typing slips at a
deadline all record, one after another, where retrying without the lock left most of them
beaten again and again (the first read has already loaded the word list, so the lock is held
only to fold and decide). A dry run decides and folds in memory and writes nothing.

A game is judged with the ruleset, settings and dictionary its `GameCreated` names
(`pipelines.games.contexts`); what is raised when a command cannot go on is in
`pipelines.games.errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from engine.echo import echo
from engine.games.events import Recorded
from engine.games.payloads import encode_event, format_time, read_recorded
from engine.games.replay import VARIANTS, decide, evolve, initial_state
from engine.games.state import GameRuleError, GameState
from ledger import NewEvent, RecordedEvent, VersionConflict
from ledger.catalogue import naming_problem
from ledger.envelope import STREAM_PATTERN
from ledger.errors import LedgerAltered
from pipelines.games.contexts import resolve_context
from pipelines.games.errors import (
    CommandRefused,
    GameMoved,
    GameNotFound,
    ServiceError,
)
from pipelines.games.limits import event_problem
from pipelines.games.stream_names import claimants

if TYPE_CHECKING:
    from engine.games.commands import Command
    from ledger import EventStore
    from ledger.store import _Writer as Writer

PLAYABLE_VARIANTS = tuple(VARIANTS)
"""The variants whose rules exist (the engine's); games of the others cannot be created."""


@dataclass(frozen=True)
class Game:
    """A game as loaded: its stream and version, its events as stored and as folded, and the
    state they fold to. `altered` says why the ledger fails its check (None: it passes): a
    view still shows the game, saying so first; a command refuses to append to it."""

    stream: str
    version: int
    stored: tuple[RecordedEvent, ...]
    history: tuple[Recorded, ...]
    state: GameState
    altered: str | None = None

    @property
    def game_id(self) -> str:
        return self.stream.split("/", 1)[1]


@dataclass(frozen=True)
class Outcome:
    """What a command did (or, in a dry run, would do): the events appended, the state before
    and after, and how many times it was decided again after a conflict."""

    stream: str
    before: GameState
    after: GameState
    events: tuple[NewEvent, ...]
    recorded: tuple[RecordedEvent, ...]
    conflicts: int
    dry_run: bool


def stream_of(game: str) -> str:
    """The stream of a game given by id (`hd1`) or by stream (`game/hd1`)."""
    stream = game if game.startswith("game/") else f"game/{game}"
    if not STREAM_PATTERN.match(stream):
        raise ServiceError(
            f"{echo(game)} is not a game id: use lowercase letters, digits and '-' (at most 64, "
            "not starting with '-'), e.g. hd1 or game/hd1"
        )
    return stream


def _decoded(stored: Iterable[RecordedEvent]) -> Iterator[Recorded]:
    for e in stored:
        yield read_recorded(
            e.type, e.schema, e.payload, e.meta, event_id=e.event_id, seq=e.seq, version=e.version
        )


def fold(stored: Sequence[RecordedEvent]) -> tuple[tuple[Recorded, ...], GameState]:
    """The stored events decoded (an undecodable one is kept, shown as ignored) and folded."""
    history = tuple(_decoded(stored))
    state = initial_state(resolve_context)
    for recorded in history:
        state = evolve(state, recorded)
    return history, state


def steps(game: Game) -> Iterator[tuple[RecordedEvent, GameState]]:
    """Each of `game`'s events as stored, with the state right after it: the game folded one
    event at a time, as `fold` folds it (the replay page shows every one of these moments)."""
    state = initial_state(resolve_context)
    for stored, recorded in zip(game.stored, game.history, strict=True):
        state = evolve(state, recorded)
        yield stored, state


def load_game(store: EventStore | None, game: str, *, must_exist: bool = True) -> Game:
    """A game's events and state; `GameNotFound` when there is none (unless `must_exist` is
    False: a game about to be created). No store stands for a ledger not created yet."""
    stream, stored = _read(store, game, must_exist)
    return _game(stream, stored, events_altered(stored))


def events_altered(stored: Iterable[RecordedEvent]) -> str | None:
    """Why some of these events no longer give their hashes (`check_events`), or None."""
    # The ledger's checks are imported where they run: a command's help needs no database layer.
    from ledger.integrity import check_events

    try:
        check_events(stored)
    except LedgerAltered as exc:
        return str(exc)
    return None


def ledger_altered(store: EventStore) -> str | None:
    """Why the ledger fails the quick check of its chain (`check_recent`: the events since
    the latest checkpoint, and the head against it), or None: what a view says first."""
    from ledger.integrity import check_recent

    try:
        check_recent(store)
    except LedgerAltered as exc:
        return str(exc)
    return None


def vouched(store: EventStore, game: Game) -> Game:
    """`game` with the ledger's quick check added to the check of its own events."""
    return game if game.altered is not None else replace(game, altered=ledger_altered(store))


def _read(
    store: EventStore | None, game: str, must_exist: bool = True
) -> tuple[str, tuple[RecordedEvent, ...]]:
    stream = stream_of(game)
    stored = tuple(store.read_stream(stream)) if store is not None else ()
    if not stored and must_exist:
        raise GameNotFound(
            f"no game {stream.split('/', 1)[1]} in this ledger: check the id and --db "
            "(`arbitru ledger export` lists the streams), or create it with `arbitru game create`"
        )
    return stream, stored


def replay_to(
    store: EventStore, game: str, *, at: int | None = None, round_number: int | None = None
) -> Game:
    """A game as it was right after the event of global seq `at`, or when round
    `round_number` closed (now, if it is still open); the whole game when neither is given.
    The events are read once and folded once, only as far as the moment asked for."""
    stream, stored = _read(store, game)
    altered = events_altered(stored)
    if at is not None:
        prefix = tuple(e for e in stored if e.seq <= at)
        if not prefix:
            first = stored[0].seq
            raise ServiceError(f"{stream} starts at seq {first}: give --at {first} or later")
        return _game(stream, prefix, altered)
    if round_number is None:
        return _game(stream, stored, altered)
    history, state = [], initial_state(resolve_context)
    for recorded in _decoded(stored):
        history.append(recorded)
        state = evolve(state, recorded)
        folded = state.round(round_number)
        if folded is not None and folded.closed:
            break
    if state.round(round_number) is None:
        raise ServiceError(
            f"round {round_number} of {stream} has not been drawn "
            f"({len(state.rounds)} round(s) so far)"
        )
    count = len(history)
    version = stored[count - 1].version
    return Game(stream, version, stored[:count], tuple(history), state, altered)


def at_last_close(store: EventStore, game: Game) -> GameState:
    """`game` as the public may see it: as it is when no round is open, else as its last
    closed round left it (as it was created, if none has closed). An open round's slips and
    provisional scores would tell who found what before the round closes; what the public is
    shown (the server's standings, the results pages, a tournament's table) stops before it."""
    current = game.state.current
    if current is None or current.closed:
        return game.state
    closed = [r.number for r in game.state.rounds if r.closed]
    if closed:
        return replay_to(store, game.stream, round_number=closed[-1]).state
    return replay_to(store, game.stream, at=game.stored[0].seq).state


def extended(game: Game, newer: Sequence[RecordedEvent]) -> Game:
    """`game` with the events recorded after it was read folded on: a game kept folded in
    memory caught up from its version. The new events are checked against their hashes as
    every read checks a game's events."""
    if not newer:
        return game
    history, state = list(game.history), game.state
    for recorded in _decoded(newer):
        history.append(recorded)
        state = evolve(state, recorded)
    altered = game.altered or events_altered(newer)
    stored = game.stored + tuple(newer)
    return Game(game.stream, newer[-1].version, stored, tuple(history), state, altered)


def _game(stream: str, stored: tuple[RecordedEvent, ...], altered: str | None) -> Game:
    history, state = fold(stored)
    return Game(stream, stored[-1].version if stored else 0, stored, history, state, altered)


def _meta(command: Command) -> dict[str, str]:
    meta = {"actor": command.actor, "source": command.source}
    if command.received_at is not None:
        meta["received_at"] = format_time(command.received_at)
    return {key: value for key, value in meta.items() if value is not None}


def _stamped(command: Command) -> Command:
    """A submission (or an anticipation replacement) without an arrival time arrived now."""
    from engine.games.commands import DeclareReplacement, Submit  # writing commands only

    if isinstance(command, Submit | DeclareReplacement) and command.received_at is None:
        return replace(command, received_at=datetime.now(UTC))
    return command


EventIds = Callable[[int], str]
"""The event id of the n-th event (from 0) a command appends: ids derived from a client's
idempotency key, so that a retry of a write that was recorded finds it instead of writing
again. Without it each event gets a new random id."""


def decide_all(
    game: Game, commands: Sequence[Command], ids: EventIds | None = None
) -> tuple[list[NewEvent], GameState]:
    """Decide each command on the state left by the ones before it; the new events and the
    state after them. Raises `GameRuleError` when the rules refuse one (nothing is kept)."""
    state = game.state
    version = game.version
    appended: list[NewEvent] = []
    for command in commands:
        for event in decide(state, command):
            type_name, schema, payload = encode_event(event)
            new = NewEvent(type_name, payload, _meta(command), schema=schema)
            if ids is not None:
                new = replace(new, event_id=ids(len(appended)))
            _within_limits(new)
            version += 1
            recorded = Recorded(
                event=event,
                event_id=new.event_id,
                version=version,
                received_at=command.received_at,
                actor=command.actor,
                source=command.source,
            )
            state = evolve(state, recorded)
            appended.append(new)
    return appended, state


def _within_limits(event: NewEvent) -> None:
    """An event holding a value outside what may be recorded (`pipelines.games.limits`) is never
    appended."""
    problem = event_problem(event.payload, event.meta)
    if problem is not None:
        raise ServiceError(f"{problem}; nothing was written")


class FoldedGames(Protocol):
    """Games kept folded by a long-running process (`pipelines.games.kept`), which a command
    is decided on instead of a fold from the first event."""

    def current(self, store: EventStore, game: str, *, must_exist: bool = True) -> Game: ...


Commands = Sequence["Command"] | Callable[[Game], Sequence["Command"]]
"""What `execute` is given: the commands, or a function of the game as read that makes them
(a command about the round open now, read from the same fold that decides it)."""


def execute(
    store: EventStore | None,
    game: str,
    commands: Commands,
    *,
    dry_run: bool = False,
    kept: FoldedGames | None = None,
    ids: EventIds | None = None,
    expected: int | None = None,
) -> Outcome:
    """Decide `commands` on the game's current state and append their events, all or none, at
    the version read. On a conflict the game is read again and the commands decided again
    under the append lock, once (see the module docstring). A dry run decides and folds only;
    it alone may be given no store (a ledger not created yet).

    A function of the game is called once, on the first read, so that the game is read and
    folded once: a retry decides the same commands again. The round the arbiter meant stays
    the one decided even if another terminal opened a new round meanwhile (the rules then
    refuse a command about a round closed since). It is for commands about an existing game:
    a game to create is given as commands.

    `kept` keeps games folded in this process (a server), caught up from their version
    instead of folded from the start on every command; `ids` names the events (`EventIds`).
    With `expected` (the version the arbiter looked at), a game that moved since is refused
    (`GameMoved`) instead of decided again: the arbiter must see what changed first. (A
    server decides its writes under the lock in batches instead: `pipelines.server.batches`.)"""
    making, creating = makers(commands)
    loaded = loaded_for(store, game, creating, kept)
    if expected is not None and loaded.version != expected:
        raise GameMoved(loaded.stream, expected, loaded.version)
    made = making(loaded)
    events, after = _decided(store, loaded, made, 0, ids)
    if dry_run or not events or store is None:
        return Outcome(loaded.stream, loaded.state, after, tuple(events), (), 0, dry_run)
    try:
        recorded = store.append(loaded.stream, events, expected_version=loaded.version)
    except VersionConflict as exc:
        if expected is not None:
            raise GameMoved(loaded.stream, expected, exc.actual) from exc
        return _under_lock(store, game, creating, kept, making, ids, 1, None)
    return Outcome(loaded.stream, loaded.state, after, tuple(events), tuple(recorded), 0, False)


def _under_lock(
    store: EventStore,
    game: str,
    creating: bool,
    kept: FoldedGames | None,
    making: Callable[[Game], list[Command]],
    ids: EventIds | None,
    conflicts: int,
    expected: int | None,
) -> Outcome:
    """Read, decide and append in one write transaction, under the append lock, where nobody
    else can write first (reads in it go through its connection)."""
    with store.writer() as writer:
        loaded = loaded_for(store, game, creating, kept)
        return appended_in(writer, store, loaded, making, ids, expected, conflicts)


def makers(commands: Commands) -> tuple[Callable[[Game], list[Command]], bool]:
    """What makes the commands from the game as read (each slip stamped with its arrival),
    and whether they create the game. A function of the game is called on the first read
    only: a retry after a conflict decides the same commands again."""
    from engine.games.commands import CreateGame  # imported by the writing commands only

    made = None if callable(commands) else [_stamped(c) for c in commands]
    creating = made is not None and any(isinstance(c, CreateGame) for c in made)

    def making(now: Game) -> list[Command]:
        nonlocal made
        if made is None:
            made = [_stamped(c) for c in commands(now)]  # type: ignore[operator]
        return made

    return making, creating


def appended_in(
    writer: Writer,
    store: EventStore,
    loaded: Game,
    making: Callable[[Game], list[Command]],
    ids: EventIds | None,
    expected: int | None,
    conflicts: int = 0,
) -> Outcome:
    """Decide on `loaded` (the game as read in `writer`'s transaction, under the append
    lock) and append the events through `writer`; committed when its holder's transaction
    ends: one command of `execute`'s, or one request of a batch a server commits together
    (`pipelines.server.batches`). Raises before anything is appended when the command
    cannot go on, so that the transaction's other appends stand."""
    if expected is not None and loaded.version != expected:
        raise GameMoved(loaded.stream, expected, loaded.version)
    events, after = _decided(store, loaded, making(loaded), conflicts, ids)
    writer.read_version(loaded.stream, loaded.version)  # read just now, through the writer
    recorded = (
        writer.append(loaded.stream, events, expected_version=loaded.version) if events else []
    )
    return Outcome(
        loaded.stream, loaded.state, after, tuple(events), tuple(recorded), conflicts, False
    )


def loaded_for(
    store: EventStore | None, game: str, creating: bool, kept: FoldedGames | None = None
) -> Game:
    """The game as a command is decided on; `LedgerAltered` when its own events no longer
    give their hashes: nothing is appended onto a broken chain."""
    if kept is not None and store is not None:
        loaded = kept.current(store, game, must_exist=not creating)
    else:
        loaded = load_game(store, game, must_exist=not creating)
    if loaded.altered is not None and store is not None:
        raise LedgerAltered(loaded.altered)
    return loaded


def _decided(
    store: EventStore | None,
    loaded: Game,
    made: Sequence[Command],
    conflicts: int,
    ids: EventIds | None = None,
) -> tuple[list[NewEvent], GameState]:
    """The events `made` decide on `loaded` and the state they fold to, a stream's opening
    event checked to name its own stream (`_check_opening`)."""
    try:
        events, after = decide_all(loaded, made, ids)
    except GameRuleError as exc:
        raise _refused(exc, loaded.stream, conflicts) from exc
    if loaded.version == 0 and events:
        _check_opening(store, loaded.stream, events[0])
    return events, after


def _check_opening(store: EventStore | None, stream: str, opening: NewEvent) -> None:
    """Refuse to open `stream` with an event naming another id, or with an id another stream
    of an older ledger already claims (`pipelines.games.stream_names`): one id is one stream."""
    problem = naming_problem(stream, opening.type, opening.payload)
    if problem is not None:
        raise ServiceError(problem)
    claimed = claimants(store, stream) if store is not None else []
    if claimed:
        own = stream.split("/", 1)[1]
        raise CommandRefused(
            f"{', '.join(claimed)} already claims the id {own} (its opening event names it, as "
            f"an older Arbitru allowed): a new {stream} would make two streams of one id",
            "game_exists",
        )


def _refused(exc: GameRuleError, stream: str, conflicts: int) -> CommandRefused:
    message = str(exc)
    if conflicts:
        message += (
            f" (another terminal wrote to {stream} first; the command was decided again on "
            "what it recorded)"
        )
    return CommandRefused(message, exc.code, conflicts)
