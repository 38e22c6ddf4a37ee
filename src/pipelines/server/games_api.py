"""The games' routes: create, join, draw, slips, decisions, close, end; the game now, a
round's results, the standings, the replay. Each turns a request into the engine's commands
and hands them to the service layer through `writes.write`, or reads the game the service
keeps folded and answers in the command line's JSON shapes (`pipelines.games.shapes`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse

from engine.games import commands as cmd
from engine.games.draws import seed_commitment
from engine.games.projections import position
from pipelines.games.decisions import decision_named
from pipelines.games.inputs import InputError, default_seed_path, keep_seed, new_seed, read_seed
from pipelines.games.limits import check_settings
from pipelines.games.service import Game, dictionary_ref, replay_to, stream_of
from pipelines.games.shapes import (
    position_json,
    results_json,
    standings_json,
    time_text,
)
from pipelines.games.slip_times import checked_arrivals
from pipelines.server import bodies
from pipelines.server.access import Access
from pipelines.server.callers import access, server_of
from pipelines.server.problems import Problem
from pipelines.server.writes import etag, now, write

router = APIRouter(tags=["games"])

GameId = Annotated[str, Path(pattern=bodies.ID_PATTERN, max_length=64, description="A game id.")]
Round = Annotated[int, Path(ge=1, le=10_000, description="The round's number.")]
DryRun = Annotated[bool, Query(description="Show what it would append and change; write nothing.")]


def _game(request: Request, game: str) -> Game:
    return server_of(request).games.current(server_of(request).store, stream_of(game))


def _who(at: Access) -> str:
    assert at.account is not None  # every write is for signed-in callers (the table says so)
    return at.account


@router.post("/games", status_code=201, summary="Create a game")
def create_game(request: Request, body: bodies.NewGame, dry_run: DryRun = False) -> JSONResponse:
    """The creator becomes its chief arbiter (a grant recorded with it)."""
    at = access(request, "create_game", tournament=body.tournament_id)
    accepted = now()
    roster = server_of(request).roster()
    unknown = [p for p in body.players if not roster.exists(p)]
    if unknown:
        raise Problem(
            422,
            f"players {', '.join(unknown)} have no account: create theirs first "
            "(POST /api/v1/accounts)",
            "unknown_player",
        )
    check_settings(body.settings, "settings")
    commitment = None
    if body.draw == "seeded":
        path = default_seed_path(body.game_id)
        seed = read_seed(path, fresh=True) if path.exists() else new_seed()
        if not dry_run and not path.exists():
            keep_seed(path, seed)
        commitment = seed_commitment(seed)
    command = cmd.CreateGame(
        game_id=body.game_id,
        variant=body.variant,
        players=tuple(cmd.Player(p, roster.accounts[p].name) for p in body.players),
        tournament_id=body.tournament_id,
        title=body.title,
        ruleset=body.ruleset,
        settings=dict(body.settings),
        dictionary=dictionary_ref(None),
        draw=body.draw,
        seed_commitment=commitment,
        actor=_who(at),
    )
    answer = write(request, at, body.game_id, [command], body, dry_run=dry_run, accepted=accepted)
    if answer.status_code == 201:
        from pipelines.accounts.service import grant_role

        grant_role(
            server_of(request).store, _who(at), "chief", game_id=body.game_id, actor=_who(at)
        )
    return answer


@router.get("/games/{game}", summary="The game now")
def read_game(request: Request, game: GameId) -> JSONResponse:
    """Variant, status, the round open now (rack, deadline, how many slips arrived), players,
    and the version, also sent as the ETag (for `If-Match`)."""
    now_ = _game(request, game)
    access(request, "read_game", game=now_)
    state = now_.state
    created = state.created
    current = state.current
    body: dict[str, Any] = {
        "game_id": now_.game_id,
        "stream": now_.stream,
        "variant": created.variant if created else None,
        "title": created.title if created else None,
        "tournament_id": created.tournament_id if created else None,
        "draw": created.draw if created else None,
        "status": "ended" if state.ended else ("over" if state.over else "playing"),
        "version": now_.version,
        "players": [{"player_id": p.player_id, "name": p.name} for p in state.players.values()],
        "round": None
        if current is None
        else {
            "round": current.number,
            "rack": current.rack,
            "deadline": time_text(current.deadline),
            "closed": current.closed,
            "last": current.last,
            "slips": sum(len(p.submissions) for p in current.players.values()),
            "board": list(current.board.rows),
        },
        "rounds_closed": sum(1 for r in state.rounds if r.closed),
        "ledger_altered": now_.altered,
    }
    return JSONResponse(body, headers=etag(now_.version))


@router.post("/games/{game}/players", status_code=201, summary="Join players (accounts)")
def join_players(
    request: Request, game: GameId, body: bodies.Players, dry_run: DryRun = False
) -> JSONResponse:
    at = access(request, "join_players", game=_game(request, game))
    roster = server_of(request).roster()
    unknown = [p for p in body.players if not roster.exists(p)]
    if unknown:
        raise Problem(422, f"players {', '.join(unknown)} have no account", "unknown_player")
    commands = [
        cmd.JoinPlayer(player_id=p, name=roster.accounts[p].name, actor=_who(at))
        for p in body.players
    ]
    return write(request, at, game, commands, body, dry_run=dry_run, accepted=now())


@router.post("/games/{game}/rounds/{round}/draw", status_code=201, summary="Draw a round")
def draw(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Draw | None = None,
    dry_run: DryRun = False,
) -> JSONResponse:
    """Manual draws give `tiles` (and `rejected`); a seeded game draws from its kept seed."""
    held = _game(request, game)
    at = access(request, "draw", game=held)
    body = body or bodies.Draw()
    seed = None
    created = held.state.created
    if created is not None and created.draw == "seeded":
        if body.tiles is not None or body.rejected:
            raise Problem(422, "this game's draws are seeded: give no tiles", "invalid")
        seed = _kept_seed(held.game_id)
    elif body.tiles is None:
        raise Problem(422, 'give the tiles drawn, e.g. {"tiles": "EIR?"}', "invalid")
    command = cmd.DrawRack(
        round=round,
        tiles=body.tiles,
        rejected=tuple(body.rejected),
        seed=seed,
        deadline=body.deadline,
        actor=_who(at),
    )
    return write(request, at, game, [command], body, dry_run=dry_run, accepted=now())


def _slip_player(at: Access, action: str, given: str | None) -> str:
    """Whose slip: a player's own (a player may name none but themselves); an arbiter names it."""
    if at.own_only(action):
        if given is not None and given.lower() != _who(at).lower():
            raise Problem(403, "a player submits only their own slips", "forbidden")
        return _who(at)
    if given is None:
        raise Problem(422, "name the player whose slip this is (`player`)", "invalid")
    return given


def _arrival(at: Access, action: str, received_at: Any, source: Any) -> None:
    if at.own_only(action) and (received_at is not None or source is not None):
        raise Problem(
            403,
            "the server stamps when a player's slip arrived: only an arbiter entering a paper "
            "slip gives `received_at` or `source`",
            "forbidden",
        )


@router.post("/games/{game}/rounds/{round}/submissions", status_code=201, summary="Submit a slip")
def submit(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Submission,
    dry_run: DryRun = False,
) -> JSONResponse:
    """A player's own slip, stamped with the server's clock (after the deadline it is recorded
    late and scores 0); an arbiter enters any player's, with its time and source if known."""
    accepted = now()
    held = _game(request, game)
    at = access(request, "submit", game=held)
    player = _slip_player(at, "submit", body.player)
    _arrival(at, "submit", body.received_at, body.source)
    command = cmd.Submit(
        round=round,
        player_id=player,
        text=body.text,
        part=body.part,
        received_at=body.received_at or accepted,
        source=body.source,
        actor=_who(at),
    )
    commands = _stamped(command, at, "submit", body.received_at is not None)
    return write(request, at, game, commands, body, dry_run=dry_run, accepted=accepted)


def _stamped(
    command: cmd.Command, at: Access, action: str, given: bool
) -> Callable[[Game], list[cmd.Command]]:
    """A slip whose arrival an arbiter gave is checked as the command line checks it (not
    after now, not before the draw); the server's own stamp is the fact."""

    def made(now_: Game) -> list[cmd.Command]:
        if given:
            return checked_arrivals(now_, [command], late=True)
        return [command]

    return made


@router.get("/games/{game}/rounds/{round}/submissions", summary="A round's slips")
def read_submissions(request: Request, game: GameId, round: Round) -> JSONResponse:
    """The game's arbiters see every slip; a player, their own; the public, a closed round's."""
    held = _game(request, game)
    at = access(request, "read_submissions", game=held)
    rnd = held.state.round(round)
    if rnd is None:
        raise Problem(404, f"round {round} of {held.stream} has not been drawn", "not_found")
    only = None
    if not (rnd.closed or at.sees_every_slip):
        if not at.may("submit"):  # neither its player nor an arbiter: nothing to see yet
            raise _not_yet(at, round)
        only = _own_id(held, _who(at))
    document = results_json(held.game_id, held.state, round, player=only)
    return JSONResponse(document, headers=etag(held.version))


def _own_id(held: Game, account: str) -> str:
    for player_id in held.state.players:
        if player_id.lower() == account.lower():
            return player_id
    return account


@router.post(
    "/games/{game}/rounds/{round}/replacements",
    status_code=201,
    summary="Declare an anticipation replacement",
)
def replace(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Replacement,
    dry_run: DryRun = False,
) -> JSONResponse:
    accepted = now()
    held = _game(request, game)
    at = access(request, "replace", game=held)
    player = _slip_player(at, "replace", body.player)
    _arrival(at, "replace", body.received_at, body.source)
    command = cmd.DeclareReplacement(
        round=round,
        player_id=player,
        text=body.text,
        received_at=body.received_at or accepted,
        source=body.source,
        actor=_who(at),
    )
    commands = _stamped(command, at, "replace", body.received_at is not None)
    return write(request, at, game, commands, body, dry_run=dry_run, accepted=accepted)


@router.post("/games/{game}/rounds/{round}/close", status_code=201, summary="Close a round")
def close_round(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Empty | None = None,
    dry_run: DryRun = False,
) -> JSONResponse:
    at = access(request, "close_round", game=_game(request, game))
    command = cmd.CloseRound(round=round, actor=_who(at))
    return write(request, at, game, [command], body, dry_run=dry_run, accepted=now())


def _decision(
    action: str, make: Callable[[Any, int, str], cmd.Command], body_type: type
) -> Callable[..., JSONResponse]:
    """A route for one of the arbiter's decisions about a round."""

    def decide(
        request: Request, game: GameId, round: Round, body: Any, dry_run: DryRun = False
    ) -> JSONResponse:
        at = access(request, "decide", game=_game(request, game))
        command = make(body, round, _who(at))
        return write(request, at, game, [command], body, dry_run=dry_run, accepted=now())

    decide.__annotations__ = {**decide.__annotations__, "body": body_type}
    decide.__name__ = action
    return decide


_ROUND_DECISIONS: dict[str, tuple[str, type, Callable[[Any, int, str], cmd.Command]]] = {
    "top": (
        "Choose the top among equal tops",
        bodies.TopChoice,
        lambda b, n, who: cmd.ChooseTop(round=n, move=b.move, actor=who),
    ),
    "annulments": (
        "Annul a submission",
        bodies.Annulment,
        lambda b, n, who: cmd.Annul(
            round=n, player_id=b.player, part=b.part, reason=b.reason, actor=who
        ),
    ),
    "penalties": (
        "Give a penalty",
        bodies.Penalty,
        lambda b, n, who: cmd.Penalise(
            round=n, player_id=b.player, points=b.points, reason=b.reason, actor=who
        ),
    ),
    "warnings": (
        "Give a warning",
        bodies.Warning,
        lambda b, n, who: cmd.Warn(round=n, player_id=b.player, reason=b.reason, actor=who),
    ),
    "corrections": (
        "Record the arbiter's reading of a slip",
        bodies.Correction,
        lambda b, n, who: cmd.Correct(
            round=n, player_id=b.player, part=b.part, text=b.text, reason=b.reason, actor=who
        ),
    ),
}

for _path, (_summary, _body, _make) in _ROUND_DECISIONS.items():
    router.add_api_route(
        f"/games/{{game}}/rounds/{{round}}/{_path}",
        _decision(f"decide_{_path}", _make, _body),
        methods=["POST"],
        status_code=201,
        summary=_summary,
    )


@router.post("/games/{game}/revocations", status_code=201, summary="Revoke a decision")
def revoke(
    request: Request, game: GameId, body: bodies.Revocation, dry_run: DryRun = False
) -> JSONResponse:
    at = access(request, "decide", game=_game(request, game))

    def made(now_: Game) -> list[cmd.Command]:
        named = decision_named(now_, body.event_id.strip().lower(), "event_id")
        return [cmd.Revoke(event_id=named, reason=body.reason, actor=_who(at))]

    return write(request, at, game, made, body, dry_run=dry_run, accepted=now())


@router.post("/games/{game}/end", status_code=201, summary="End the game")
def end_game(
    request: Request, game: GameId, body: bodies.Ending | None = None, dry_run: DryRun = False
) -> JSONResponse:
    at = access(request, "end_game", game=_game(request, game))
    body = body or bodies.Ending()
    command = cmd.EndGame(reason=body.reason, actor=_who(at))
    return write(request, at, game, [command], body, dry_run=dry_run, accepted=now())


@router.post("/games/{game}/seed", status_code=201, summary="Reveal a seeded game's seed")
def reveal_seed(
    request: Request, game: GameId, body: bodies.Empty | None = None, dry_run: DryRun = False
) -> JSONResponse:
    held = _game(request, game)
    at = access(request, "reveal_seed", game=held)
    command = cmd.RevealSeed(seed=_kept_seed(held.game_id), actor=_who(at))
    return write(request, at, game, [command], body, dry_run=dry_run, accepted=now())


def _kept_seed(game_id: str) -> str:
    """The seed this server kept when it created the game; a 409 when it keeps none (a game
    drawn by hand, or created elsewhere), never a server error."""
    try:
        return read_seed(default_seed_path(game_id))
    except InputError as exc:
        raise Problem(
            409,
            f"this server keeps no seed for game {game_id}: a game drawn by hand has none, and "
            "a seeded game's seed is kept where it was created (ARBITRU_HOME/seeds)",
            "conflict",
        ) from exc


@router.get("/games/{game}/rounds/{round}/results", summary="A round's results")
def round_results(request: Request, game: GameId, round: Round) -> JSONResponse:
    """As `arbitru game results GAME --round N --json`; an open round's, for its arbiters."""
    held = _game(request, game)
    at = access(request, "read_results", game=held)
    rnd = held.state.round(round)
    if rnd is None:
        raise Problem(404, f"round {round} of {held.stream} has not been drawn", "not_found")
    if not rnd.closed and not at.sees_every_slip:
        raise _not_yet(at, round)
    stored = {e.event_id: e for e in held.stored}
    document = results_json(held.game_id, held.state, round, stored)
    return JSONResponse({**document, "ledger_altered": held.altered}, headers=etag(held.version))


def _not_yet(at: Access, round: int) -> Problem:
    detail = f"round {round} is open: its results are published when it closes"
    return Problem(403 if at.account else 401, detail, "forbidden" if at.account else None)


@router.get("/games/{game}/standings", summary="The standings")
def standings(request: Request, game: GameId) -> JSONResponse:
    """As `arbitru game standings GAME --json`: for the public, as the last closed round left
    them (an open round's scores are its arbiters' until it closes)."""
    held = _game(request, game)
    at = access(request, "read_results", game=held)
    state = held.state
    if not at.sees_every_slip and state.current is not None and not state.current.closed:
        state = _at_last_close(request, held)
    document = standings_json(held.game_id, state)
    return JSONResponse({**document, "ledger_altered": held.altered}, headers=etag(held.version))


def _at_last_close(request: Request, held: Game) -> Any:
    closed = [r.number for r in held.state.rounds if r.closed]
    if not closed:
        return replay_to(server_of(request).store, held.stream, at=held.stored[0].seq).state
    return replay_to(server_of(request).store, held.stream, round_number=closed[-1]).state


@router.get("/games/{game}/replay", summary="The game at a moment")
def replay(
    request: Request,
    game: GameId,
    at: Annotated[int | None, Query(ge=1, description="Right after this ledger seq.")] = None,
    round: Annotated[
        int | None, Query(ge=1, le=10_000, description="When this round closed.")
    ] = None,
    player: Annotated[str | None, Query(max_length=64, description="That player's board.")] = None,
) -> JSONResponse:
    """As `arbitru game replay GAME --json`: the public replays closed rounds only."""
    if at is not None and round is not None:
        raise Problem(422, "`at` and `round` exclude each other: give one", "invalid")
    held = _game(request, game)
    caller = access(request, "read_results", game=held)
    read = replay_to(server_of(request).store, held.stream, at=at, round_number=round)
    state = read.state
    if not caller.sees_every_slip and state.current is not None and not state.current.closed:
        raise _not_yet(caller, state.current.number)
    if player is not None and player not in state.players:
        raise Problem(404, f"{player} is not a player of {held.stream}", "not_found")
    document = position_json(read.game_id, state, position(state, player), player)
    return JSONResponse({**document, "ledger_altered": read.altered})
