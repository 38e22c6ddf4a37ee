"""`arbitru game`: run a game as an arbiter (create, draw, submit, close, end); the decisions
are in `pipelines.cli.game_decisions`, the views (replay, results, standings) in
`pipelines.cli.game_read`, and `pipelines.cli.arbitru.GAME_COMMANDS` lists them all.

Each command is translated into an engine command and handed to `pipelines.games.service`,
which decides it on the game's recorded state and appends the events (or, with `--dry-run`,
only shows them). Exit codes: 0 done, 1 refused by the rules (nothing written), 2 unusable
input (nothing written).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from engine.echo import echo
from engine.games import commands as cmd
from engine.games.draws import seed_commitment
from ledger.input_files import STDIN
from pipelines.cli import views
from pipelines.cli.game_common import (
    Append,
    GameArg,
    PartOption,
    RoundOption,
    Slip,
    appends,
    checked,
    options_last,
    player_id,
    received_at_option,
    reported,
    round_of,
    run,
    run_in_round,
    time_option,
)
from pipelines.cli.inputs import DictOption, RulesetOption, fail
from pipelines.games import limits
from pipelines.games.contexts import dictionary_ref
from pipelines.games.inputs import (
    InputError,
    NotJoined,
    PlayerSpec,
    default_seed_path,
    keep_seed,
    new_seed,
    parse_player,
    parse_settings,
    read_players_file,
    read_seed,
    read_submissions_file,
)
from pipelines.games.service import (
    PLAYABLE_VARIANTS,
    CommandRefused,
    Game,
    stream_of,
)
from pipelines.games.slip_times import checked_arrivals

SeedFileOption = Annotated[
    Path | None,
    typer.Option(
        "--seed-file",
        help="The file holding the game's secret seed, '-' for stdin (default: the one kept "
        "when the game was created, under ARBITRU_HOME/seeds).",
    ),
]


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


def _seed_for_create(
    game: str, seed_file: Path | None, dry_run: bool
) -> tuple[str, Path | None, bool]:
    """The seed a seeded game commits to, the file holding it, and whether it is new.
    An existing file's seed (or stdin's, for `-`) is used if it looks random; otherwise a
    new seed is generated and kept (not in a dry run, which only shows the commitment)."""
    path = seed_file or default_seed_path(stream_of(game).split("/", 1)[1])
    try:
        given = path == STDIN or path.exists() or path.is_symlink()
    except OSError:  # a name too long for the file system: reading it says so
        given = True
    try:
        if given:
            return read_seed(path, fresh=True), path, False
        seed = new_seed()
        if not dry_run:
            keep_seed(path, seed)
    except InputError as exc:
        fail(str(exc))
    return seed, (None if dry_run else path), True


def _seed(game: str, seed_file: Path | None) -> str:
    path = seed_file or default_seed_path(stream_of(game).split("/", 1)[1])
    if seed_file is None and not (path.exists() or path.is_symlink()):
        fail(
            f"this game's draws are seeded and no seed is kept at {path}: give --seed-file with "
            "the file holding the seed committed when the game was created"
        )
    try:
        return read_seed(path)
    except InputError as exc:
        fail(str(exc))


@appends
def create_command(
    game: GameArg,
    variant: Annotated[
        str, typer.Option("--variant", help="duplicate, completiv, eliptic or anticipation.")
    ] = "duplicate",
    player: Annotated[
        list[str] | None,
        typer.Option("--player", help="A player as id or id:Name; repeat for each player."),
    ] = None,
    players_file: Annotated[
        Path | None, typer.Option("--players", help="A file of players, one id[:Name] a line.")
    ] = None,
    ruleset: RulesetOption = "ro-frs",
    dict_spec: DictOption = None,
    draw: Annotated[
        str, typer.Option("--draw", help="manual (the arbiter enters tiles) or seeded.")
    ] = "manual",
    seed_file: Annotated[
        Path | None,
        typer.Option(
            "--seed-file",
            help="Seeded draws: a file of at least 16 random bytes, '-' for stdin; a new seed "
            "is generated and written there when the file does not exist (default: "
            "ARBITRU_HOME/seeds/GAME.seed).",
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
    *,
    to: Append,
) -> None:
    """Create a game: its variant, rules, dictionary, draw mode and players."""
    if variant not in PLAYABLE_VARIANTS:
        fail(
            f"variant {echo(variant)} is not supported yet: only {', '.join(PLAYABLE_VARIANTS)} "
            "games can be run"
        )
    if draw not in ("manual", "seeded"):
        fail(f"--draw {draw!r}: give manual or seeded")
    if draw == "manual" and (seed_file is not None or show_seed):
        fail("--seed-file and --show-seed apply to seeded draws: add --draw seeded")
    try:
        game_settings = parse_settings(settings or [])
    except InputError as exc:
        fail(str(exc))
    if title is not None:
        title = checked("title", title, "--title")
    if tournament is not None:
        try:
            limits.check_id("id", tournament, "--tournament")
        except limits.LimitError as exc:
            fail(str(exc))
    with reported():
        stream = stream_of(game)
        dictionary = dictionary_ref(dict_spec)
    commitment = None
    seed_note: tuple[str, Path | None, bool] | None = None
    if draw == "seeded":
        seed_note = _seed_for_create(game, seed_file, to.dry_run)
        commitment = seed_commitment(seed_note[0])
    command = cmd.CreateGame(
        game_id=stream.split("/", 1)[1],
        variant=variant,
        players=_players(player or [], players_file),
        tournament_id=tournament,
        title=title,
        ruleset=ruleset,
        settings=game_settings,
        dictionary=dictionary,
        draw=draw,
        seed_commitment=commitment,
        actor=to.who(),
    )
    run(to, game, [command], create=True)
    if seed_note is not None and not to.as_json:
        views.show_seed_note(*seed_note, shown=show_seed)
    elif seed_note is not None and show_seed:
        views.err.print(f"seed: {seed_note[0]}")


@appends
def join_command(
    game: GameArg,
    player: Annotated[
        list[str], typer.Option("--player", help="A player as id or id:Name; repeatable.")
    ],
    *,
    to: Append,
) -> None:
    """Add players to a game."""
    who = to.who()
    commands: list[cmd.Command] = [
        cmd.JoinPlayer(player_id=p.player_id, name=p.name, actor=who)
        for p in _players(player, None)
    ]
    run(to, game, commands)


@appends
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
    *,
    to: Append,
) -> None:
    """Draw the tiles that complete the rack.

    Entered by hand (--tiles), or derived from the seed in a seeded game."""

    def draw(now: Game) -> list[cmd.Command]:
        """Made on the game as the service reads it to decide the draw (read once)."""
        created = now.state.created
        seeded = created is not None and created.draw == "seeded"
        seed = None
        if seeded:
            if tiles is not None or rejected:
                fail("this game's draws are seeded: the tiles come from the seed; drop --tiles")
            seed = _seed(game, seed_file)
        elif tiles is None:
            fail("give the tiles drawn with --tiles (e.g. --tiles EIR?)")
        command = cmd.DrawRack(
            round=round_of(now, round_number, drawing=True),
            tiles=tiles,
            rejected=tuple(rejected or ()),
            seed=seed,
            deadline=time_option(deadline, "--deadline"),
            actor=to.who(),
        )
        return [command]

    run(to, game, draw)


@appends
@options_last(Slip, "slip")
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
    received_at: received_at_option("it", " With --file, for lines without their own time.") = None,
    *,
    slip: Slip,
    to: Append,
) -> None:
    """Record submissions exactly as written.

    One (--player, --text) or a whole file (--file), each kept with its source; unreadable
    ones are kept too and score 0."""
    arrival = time_option(received_at, "--received-at")
    who = to.who()
    if file is not None:
        if player is not None or text is not None:
            fail("--file replaces --player and --text: give either")

        def joined(now: Game) -> list[cmd.Command]:
            """The file's submissions, read against the game as the service reads it: every
            bad line at once, a line naming a player who has not joined among them (nothing is
            submitted; refused by the rules when strangers are the only fault)."""
            try:
                lines = read_submissions_file(file, now.state.players)
            except NotJoined as exc:
                raise CommandRefused(str(exc), "unknown_player") from None
            except InputError as exc:
                fail(str(exc))
            number = round_of(now, slip.round_number)
            slips = [
                cmd.Submit(
                    player_id=line.player_id,
                    text=line.text,
                    received_at=line.received_at or arrival,
                    source=line.source,
                    actor=who,
                    round=number,
                )
                for line in lines
            ]
            return checked_arrivals(now, slips, late=slip.late)

        run(to, game, joined)
        return
    else:
        if player is None or text is None:
            fail('give --player P and --text "H8: VARA" (or --file FILE)')
        player, text = player_id(player, "--player"), checked("slip", text, "--text")
        slips = [
            partial(
                cmd.Submit,
                player_id=player,
                text=text,
                part=part,
                received_at=arrival,
                source=slip.source,
                actor=who,
            )
        ]
    run_in_round(to, game, *slips, round_number=slip.round_number, late=slip.late)


@appends
def close_round_command(
    game: GameArg,
    round_number: RoundOption = None,
    *,
    to: Append,
) -> None:
    """Close a round: its results are published.

    Nothing about the round is accepted afterwards."""
    command = partial(cmd.CloseRound, actor=to.who())
    run_in_round(to, game, command, round_number=round_number)


@appends
def reveal_seed_command(
    game: GameArg,
    seed_file: SeedFileOption = None,
    *,
    to: Append,
) -> None:
    """Publish a seeded game's seed, so that anyone can re-derive every draw."""
    command = cmd.RevealSeed(seed=_seed(game, seed_file), actor=to.who())
    run(to, game, [command])


@appends
def end_command(
    game: GameArg,
    reason: Annotated[
        str, typer.Option("--reason", help="Why the game ends (e.g. the bag is played out).")
    ] = "the bag is played out",
    *,
    to: Append,
) -> None:
    """End the game."""
    command = cmd.EndGame(reason=checked("reason", reason, "--reason"), actor=to.who())
    run(to, game, [command])
