"""`arbitru game`: run a game as an arbiter (create, draw, submit, decide, close, end) and
replay it (replay, results, standings).

Each command is translated into an engine command and handed to `pipelines.game_service`,
which decides it on the game's recorded state and appends the events (or, with `--dry-run`,
only shows them). Exit codes: 0 done, 1 refused by the rules (nothing written), 2 unusable
input (nothing written).
"""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated

import sqlalchemy as sa
import typer

from engine.games import commands as cmd
from engine.games.draws import seed_commitment
from engine.games.events import DictionaryRef
from engine.games.projections import position
from engine.ruleset import Ruleset
from ledger import EventStore, LedgerError, NoLedger
from ledger.database import DEFAULT_URL
from pipelines import game_views as views
from pipelines.game_inputs import (
    InputError,
    PlayerSpec,
    default_seed_path,
    keep_seed,
    new_seed,
    parse_player,
    parse_settings,
    parse_time,
    read_players_file,
    read_seed,
    read_submissions_file,
)
from pipelines.game_service import (
    PLAYABLE_VARIANTS,
    CommandRefused,
    Game,
    ServiceError,
    dictionary_ref,
    execute,
    load_game,
    replay_to,
    stream_of,
)
from pipelines.inputs import fail

game_app = typer.Typer(
    help="Run a game (create, draw, submit, decide, close) and replay it.", no_args_is_help=True
)

GameArg = Annotated[str, typer.Argument(help="The game: its id (hd1) or its stream (game/hd1).")]
DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="ARBITRU_DB",
        help="Database URL: sqlite:///FILE or postgresql+psycopg://USER@HOST:PORT/DB.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Show the events it would append and how results and standings would change; "
        "write nothing.",
    ),
]
ActorOption = Annotated[
    str | None,
    typer.Option(
        "--actor", envvar="ARBITRU_ACTOR", help="Who records it (default: your user name)."
    ),
]
SourceOption = Annotated[
    str | None,
    typer.Option("--source", help="Where it comes from: a slip number, a forum comment id."),
]
RoundOption = Annotated[
    int | None, typer.Option("--round", min=1, help="The round (default: the current one).")
]
PlayerOption = Annotated[str, typer.Option("--player", help="The player's id.")]
PartOption = Annotated[
    int, typer.Option("--part", min=1, help="Which submission of a last round (1, 2, ...).")
]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why (recorded with the decision).")]
SeedFileOption = Annotated[
    Path | None,
    typer.Option(
        "--seed-file",
        help="The file holding the game's secret seed (default: the one kept when the game "
        "was created, under ARBITRU_HOME/seeds).",
    ),
]


def _actor(actor: str | None) -> str:
    if actor:
        return actor
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "arbiter"


def _time(text: str | None, option: str) -> datetime | None:
    if text is None:
        return None
    try:
        return parse_time(text, option)
    except InputError as exc:
        fail(str(exc))


_HINTS = {
    "unknown_player": "add the player with `arbitru game join GAME --player ID[:Name]`, or "
    "check the id",
    "top_not_chosen": 'choose it with `arbitru game choose-top GAME --round N --move "..."`',
    "round_not_drawn": "draw the round first with `arbitru game draw`",
    "unknown_event": "give the event id of an annulment, penalty, top choice or correction "
    "(`arbitru game results GAME --round N --json` lists them under decisions)",
    "game_exists": "choose another game id",
    "no_game": "create the game first with `arbitru game create`",
}
"""What to do after a refusal, by the engine's reason code, where the rule's message does not
already say it in terms of this command line."""


def _no_ledger(db: str) -> bool:
    try:
        EventStore(db, upgrade=False).close()
    except NoLedger:
        return True
    except (LedgerError, sa.exc.SQLAlchemyError):
        return False
    return False


@contextmanager
def _store(db: str, *, create: bool = False) -> Iterator[EventStore]:
    """The ledger, with every failure reported (`_reported`). Only `create` creates a ledger:
    other commands on a mistyped path say so instead."""
    with _reported(), EventStore(db, upgrade=create) as store:
        yield store


@contextmanager
def _reported() -> Iterator[None]:
    """Every failure of the service or the ledger as a message on stderr and an exit code."""
    try:
        yield
    except CommandRefused as exc:
        hint = _HINTS.get(exc.code)
        fail(f"{exc}; {hint}" if hint else str(exc), exc.exit_code)
    except ServiceError as exc:
        fail(str(exc), exc.exit_code)
    except LedgerError as exc:
        fail(str(exc))
    except sa.exc.SQLAlchemyError as exc:
        fail(f"the database failed: {str(getattr(exc, 'orig', exc)).strip()}")


def _run(
    db: str,
    game: str,
    commands: list[cmd.Command],
    *,
    dry_run: bool,
    as_json: bool,
    create: bool = False,
    round_number: int | None = None,
) -> None:
    """Hand the commands to the service and show what happened. A dry run of `create` on a
    ledger that does not exist yet runs against none, and creates none."""
    if create and dry_run and _no_ledger(db):
        with _reported():
            outcome = execute(None, game, commands, dry_run=True)
    else:
        with _store(db, create=create and not dry_run) as store:
            outcome = execute(store, game, commands, dry_run=dry_run)
    views.show_outcome(outcome, as_json=as_json, round_number=round_number)


def _loaded(db: str, game: str) -> Game:
    with _store(db) as store:
        return load_game(store, game)


def _current_round(db: str, game: str, given: int | None) -> int:
    """The round a command is about: given, or the current one."""
    if given is not None:
        return given
    return _round_of(_loaded(db, game), None)


def _round_of(loaded: Game, given: int | None, *, drawing: bool = False) -> int:
    """The round given, else the current one (for a draw, the next one)."""
    if given is not None:
        return given
    current = loaded.state.current
    if drawing:
        return 1 if current is None else current.number + 1
    if current is None:
        fail(f"{loaded.stream} has no round yet: draw round 1 first (`arbitru game draw`)", 1)
    return current.number


def _players(specs: list[str], players_file: Path | None) -> tuple[cmd.Player, ...]:
    try:
        given: list[PlayerSpec] = [parse_player(s) for s in specs]
        if players_file is not None:
            given += read_players_file(players_file)
    except InputError as exc:
        fail(str(exc))
    seen: set[str] = set()
    for player in given:
        if player.player_id in seen:
            fail(f"player {player.player_id} is given twice: give each player once")
        seen.add(player.player_id)
    return tuple(cmd.Player(p.player_id, p.name) for p in given)


def _dictionary_ref(spec: str | None) -> DictionaryRef:
    try:
        return dictionary_ref(spec)
    except ServiceError as exc:
        fail(str(exc), exc.exit_code)


def _seed_for_create(
    game: str, seed_file: Path | None, dry_run: bool
) -> tuple[str, Path | None, bool]:
    """The seed a seeded game commits to, the file holding it, and whether it is new.
    An existing file's seed is used; otherwise a new seed is generated and kept (not in a
    dry run, which only shows the commitment)."""
    path = seed_file or default_seed_path(stream_of(game).split("/", 1)[1])
    try:
        if path.exists():
            return read_seed(path), path, False
        seed = new_seed()
        if not dry_run:
            keep_seed(path, seed)
    except InputError as exc:
        fail(str(exc))
    return seed, (None if dry_run else path), True


def _seed(game: str, seed_file: Path | None) -> str:
    path = seed_file or default_seed_path(stream_of(game).split("/", 1)[1])
    if seed_file is None and not path.exists():
        fail(
            f"this game's draws are seeded and no seed is kept at {path}: give --seed-file with "
            "the file holding the seed committed when the game was created"
        )
    try:
        return read_seed(path)
    except InputError as exc:
        fail(str(exc))


@game_app.command("create")
def create_command(
    game: GameArg,
    variant: Annotated[
        str, typer.Option("--variant", help="duplicate (completiv, anticipation: not yet).")
    ] = "duplicate",
    player: Annotated[
        list[str] | None,
        typer.Option("--player", help="A player as id or id:Name; repeat for each player."),
    ] = None,
    players_file: Annotated[
        Path | None, typer.Option("--players", help="A file of players, one id[:Name] a line.")
    ] = None,
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset name.")] = "ro-frs",
    dict_spec: Annotated[
        str | None,
        typer.Option(
            "--dict", help="Word list: a file, a registered list's SHA-256, or 'default'."
        ),
    ] = None,
    draw: Annotated[
        str, typer.Option("--draw", help="manual (the arbiter enters tiles) or seeded.")
    ] = "manual",
    seed_file: Annotated[
        Path | None,
        typer.Option(
            "--seed-file",
            help="Seeded draws: a file holding the secret seed; a new seed is generated and "
            "written there when the file does not exist (default: ARBITRU_HOME/seeds/GAME.seed).",
        ),
    ] = None,
    show_seed: Annotated[
        bool, typer.Option("--show-seed", help="Print the seed (it stays secret otherwise).")
    ] = False,
    settings: Annotated[
        list[str] | None,
        typer.Option("--set", help="A game setting, key=value (e.g. solo_bonus=10); repeatable."),
    ] = None,
    tournament: Annotated[
        str | None, typer.Option("--tournament", help="The tournament id, if any.")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="A title for the game.")] = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Create a game: its variant, rules, dictionary, draw mode and players."""
    if variant not in PLAYABLE_VARIANTS:
        fail(
            f"variant {variant!r} is not supported yet: only {', '.join(PLAYABLE_VARIANTS)} "
            "games can be run (completiv and anticipation are planned)"
        )
    if draw not in ("manual", "seeded"):
        fail(f"--draw {draw!r}: give manual or seeded")
    if draw == "manual" and (seed_file is not None or show_seed):
        fail("--seed-file and --show-seed apply to seeded draws: add --draw seeded")
    try:
        game_settings = parse_settings(settings or [])
    except InputError as exc:
        fail(str(exc))
    stream = stream_of_or_fail(game)
    commitment = None
    seed_note: tuple[str, Path | None, bool] | None = None
    if draw == "seeded":
        seed_note = _seed_for_create(game, seed_file, dry_run)
        commitment = seed_commitment(seed_note[0])
    command = cmd.CreateGame(
        game_id=stream.split("/", 1)[1],
        variant=variant,
        players=_players(player or [], players_file),
        tournament_id=tournament,
        title=title,
        ruleset=ruleset,
        settings=game_settings,
        dictionary=_dictionary_ref(dict_spec),
        draw=draw,
        seed_commitment=commitment,
        actor=_actor(actor),
    )
    _run(db, game, [command], dry_run=dry_run, as_json=as_json, create=True)
    if seed_note is not None and not as_json:
        views.show_seed_note(*seed_note, shown=show_seed)
    elif seed_note is not None and show_seed:
        views.err.print(f"seed: {seed_note[0]}")


def stream_of_or_fail(game: str) -> str:
    try:
        return stream_of(game)
    except ServiceError as exc:
        fail(str(exc), exc.exit_code)


@game_app.command("join")
def join_command(
    game: GameArg,
    player: Annotated[
        list[str], typer.Option("--player", help="A player as id or id:Name; repeatable.")
    ],
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Add players to a game."""
    who = _actor(actor)
    commands: list[cmd.Command] = [
        cmd.JoinPlayer(player_id=p.player_id, name=p.name, actor=who)
        for p in _players(player, None)
    ]
    _run(db, game, commands, dry_run=dry_run, as_json=as_json)


@game_app.command("draw")
def draw_command(
    game: GameArg,
    tiles: Annotated[
        str | None,
        typer.Option("--tiles", help="Manual draws: the tiles drawn, e.g. EIR? ('?' a joker)."),
    ] = None,
    rejected: Annotated[
        list[str] | None,
        typer.Option(
            "--rejected",
            help="Manual draws: a draw put back for breaking the vowel/consonant rule, in the "
            "order drawn; repeatable.",
        ),
    ] = None,
    deadline: Annotated[
        str | None,
        typer.Option("--deadline", help="Submissions after this time are late (ISO 8601)."),
    ] = None,
    round_number: Annotated[
        int | None, typer.Option("--round", min=1, help="The round (default: the next one).")
    ] = None,
    seed_file: SeedFileOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Draw the tiles that complete the rack.

    Entered by hand (--tiles), or derived from the seed in a seeded game."""
    loaded = _loaded(db, game)
    created = loaded.state.created
    seeded = created is not None and created.draw == "seeded"
    seed = None
    if seeded:
        if tiles is not None or rejected:
            fail("this game's draws are seeded: the tiles come from the seed; drop --tiles")
        seed = _seed(game, seed_file)
    elif tiles is None:
        fail("give the tiles drawn with --tiles (e.g. --tiles EIR?)")
    number = _round_of(loaded, round_number, drawing=True)
    command = cmd.DrawRack(
        round=number,
        tiles=tiles,
        rejected=tuple(rejected or ()),
        seed=seed,
        deadline=_time(deadline, "--deadline"),
        actor=_actor(actor),
    )
    _run(db, game, [command], dry_run=dry_run, as_json=as_json, round_number=number)


@game_app.command("submit")
def submit_command(
    game: GameArg,
    player: Annotated[str | None, typer.Option("--player", help="The player's id.")] = None,
    text: Annotated[
        str | None,
        typer.Option("--text", help='The move exactly as written, e.g. "H8: VARA = 14 p".'),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            help="A file of submissions, one a line: 'PLAYER | TEXT' or "
            "'PLAYER | RECEIVED_AT | TEXT'.",
        ),
    ] = None,
    part: PartOption = 1,
    received_at: Annotated[
        str | None,
        typer.Option(
            "--received-at",
            help="When it arrived (ISO 8601; default: now). With --file, for lines without "
            "their own time.",
        ),
    ] = None,
    source: SourceOption = None,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Record submissions exactly as written.

    One (--player, --text) or a whole file (--file), each kept with its source; unreadable
    ones are kept too and score 0."""
    arrival = _time(received_at, "--received-at")
    who = _actor(actor)
    if file is not None:
        if player is not None or text is not None:
            fail("--file replaces --player and --text: give either")
        try:
            lines = read_submissions_file(file)
        except InputError as exc:
            fail(str(exc))
        number = _current_round(db, game, round_number)
        commands: list[cmd.Command] = [
            cmd.Submit(
                round=number,
                player_id=line.player_id,
                text=line.text,
                received_at=line.received_at or arrival,
                source=line.source,
                actor=who,
            )
            for line in lines
        ]
    else:
        if player is None or text is None:
            fail('give --player P and --text "H8: VARA" (or --file FILE)')
        number = _current_round(db, game, round_number)
        commands = [
            cmd.Submit(
                round=number,
                player_id=player,
                text=text,
                part=part,
                received_at=arrival,
                source=source,
                actor=who,
            )
        ]
    _run(db, game, commands, dry_run=dry_run, as_json=as_json, round_number=number)


@game_app.command("choose-top")
def choose_top_command(
    game: GameArg,
    move: Annotated[
        str, typer.Option("--move", help='The top chosen among equal tops, e.g. "H4: JUCATOR".')
    ],
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Choose the top among different moves of equal top score."""
    number = _current_round(db, game, round_number)
    command = cmd.ChooseTop(round=number, move=move, actor=_actor(actor))
    _run(db, game, [command], dry_run=dry_run, as_json=as_json, round_number=number)


@game_app.command("annul")
def annul_command(
    game: GameArg,
    player: PlayerOption,
    reason: ReasonOption,
    part: PartOption = 1,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Annul a player's submission (it scores 0; the submission stays recorded)."""
    number = _current_round(db, game, round_number)
    command = cmd.Annul(
        round=number, player_id=player, reason=reason, part=part, actor=_actor(actor)
    )
    _run(db, game, [command], dry_run=dry_run, as_json=as_json, round_number=number)


@game_app.command("penalise")
def penalise_command(
    game: GameArg,
    player: PlayerOption,
    points: Annotated[int, typer.Option("--points", min=1, help="Points subtracted.")],
    reason: ReasonOption,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Give a player a penalty in a round."""
    number = _current_round(db, game, round_number)
    command = cmd.Penalise(
        round=number, player_id=player, points=points, reason=reason, actor=_actor(actor)
    )
    _run(db, game, [command], dry_run=dry_run, as_json=as_json, round_number=number)


@game_app.command("correct")
def correct_command(
    game: GameArg,
    player: PlayerOption,
    text: Annotated[str, typer.Option("--text", help="The arbiter's reading of the slip.")],
    reason: ReasonOption,
    part: PartOption = 1,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Record the arbiter's reading of a submission.

    For an illegible slip or a typing error: the original stays, and the reading is judged as
    if received with it."""
    number = _current_round(db, game, round_number)
    command = cmd.Correct(
        round=number, player_id=player, text=text, reason=reason, part=part, actor=_actor(actor)
    )
    _run(db, game, [command], dry_run=dry_run, as_json=as_json, round_number=number)


@game_app.command("revoke")
def revoke_command(
    game: GameArg,
    event_id: Annotated[
        str,
        typer.Option(
            "--event", help="The event id of the annulment, penalty, top choice or correction."
        ),
    ],
    reason: ReasonOption,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Revoke a decision on appeal (it stays recorded, marked revoked)."""
    command = cmd.Revoke(event_id=event_id.strip().lower(), reason=reason, actor=_actor(actor))
    _run(db, game, [command], dry_run=dry_run, as_json=as_json)


@game_app.command("close-round")
def close_round_command(
    game: GameArg,
    round_number: RoundOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Close a round: its results are published.

    Nothing about the round is accepted afterwards."""
    number = _current_round(db, game, round_number)
    command = cmd.CloseRound(round=number, actor=_actor(actor))
    _run(db, game, [command], dry_run=dry_run, as_json=as_json, round_number=number)


@game_app.command("reveal-seed")
def reveal_seed_command(
    game: GameArg,
    seed_file: SeedFileOption = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Publish a seeded game's seed, so that anyone can re-derive every draw."""
    command = cmd.RevealSeed(seed=_seed(game, seed_file), actor=_actor(actor))
    _run(db, game, [command], dry_run=dry_run, as_json=as_json)


@game_app.command("end")
def end_command(
    game: GameArg,
    reason: Annotated[
        str, typer.Option("--reason", help="Why the game ends (e.g. the bag is played out).")
    ] = "the bag is played out",
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
    actor: ActorOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """End the game."""
    command = cmd.EndGame(reason=reason, actor=_actor(actor))
    _run(db, game, [command], dry_run=dry_run, as_json=as_json)


# --- views -------------------------------------------------------------------------------


def _ruleset(loaded: Game) -> Ruleset:
    context = loaded.state.context
    if context is None:
        fail(f"{loaded.stream} cannot be read: its first event is not a usable GameCreated")
    return context.ruleset


@game_app.command("results")
def results_command(
    game: GameArg,
    round_number: Annotated[int, typer.Option("--round", min=1, help="The round.")],
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """A round explained, submission by submission.

    Every submission as written, the parsed move, words and points, premiums, bonus, penalty,
    score and reason, and the top."""
    loaded = _loaded(db, game)
    ruleset = _ruleset(loaded)
    if loaded.state.round(round_number) is None:
        drawn = len(loaded.state.rounds)
        fail(
            f"round {round_number} of {loaded.stream} has not been drawn ({drawn} round(s) so far)"
        )
    if as_json:
        views.emit_json(views.results_json(loaded.game_id, loaded.state, round_number))
    else:
        views.show_results(loaded.state, round_number, ruleset)


@game_app.command("standings")
def standings_command(
    game: GameArg, db: DbOption = DEFAULT_URL, as_json: JsonOption = False
) -> None:
    """Players ranked by game score.

    Ties share the place; with solos and the percentage of the top total."""
    loaded = _loaded(db, game)
    _ruleset(loaded)
    if as_json:
        views.emit_json(views.standings_json(loaded.game_id, loaded.state))
    else:
        views.show_standings(loaded.game_id, loaded.state)


@game_app.command("replay")
def replay_command(
    game: GameArg,
    at: Annotated[
        int | None, typer.Option("--at", min=1, help="The state right after this global seq.")
    ] = None,
    round_number: Annotated[
        int | None,
        typer.Option("--round", min=1, help="The state when this round closed (or now)."),
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", help="That player's own board in a last round.")
    ] = None,
    svg: Annotated[
        Path | None, typer.Option("--svg", help="Also write the board as an SVG picture.")
    ] = None,
    db: DbOption = DEFAULT_URL,
    as_json: JsonOption = False,
) -> None:
    """The game at a moment: board, rack, bag and scores.

    The last move is highlighted on the board."""
    if at is not None and round_number is not None:
        fail("--at and --round exclude each other: give one")
    with _store(db) as store:
        loaded = replay_to(store, game, at=at, round_number=round_number)
    ruleset = _ruleset(loaded)
    state = loaded.state
    if player is not None and player not in state.players:
        fail(f"{player} is not a player of {loaded.stream} (players: {', '.join(state.players)})")
    spot = position(state, player)
    if svg is not None:
        title = f"{loaded.game_id}, " + (f"round {spot.round}" if spot.round else "start")
        try:
            views.write_svg(svg, spot, ruleset, title)
        except OSError as exc:
            fail(f"cannot write {svg}: {exc.strerror or exc}")
    if as_json:
        views.emit_json(views.position_json(loaded.game_id, state, spot, player))
    elif svg is not None:
        views.out.print(f"wrote {svg}")
    else:
        views.show_position(loaded.game_id, state, spot, ruleset)
