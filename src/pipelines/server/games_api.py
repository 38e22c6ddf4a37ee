"""The games' writing routes: create, join, draw, slips, decisions, close, end. Each turns a
request into the engine's commands and hands them to the service layer through `writes.write`,
the same calls the command line makes; the reading routes are `games_read_api`'s, served
under the same router."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anyio import to_thread
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from engine.games import commands as cmd
from engine.games.draws import seed_commitment
from pipelines.games.contexts import dictionary_ref
from pipelines.games.decisions import decision_named
from pipelines.games.inputs import (
    InputError,
    default_seed_path,
    keep_seed,
    new_seed,
    read_seed,
)
from pipelines.games.limits import check_settings
from pipelines.games.service import Game
from pipelines.games.slip_times import checked_arrivals
from pipelines.server import bodies, games_read_api, preview_api
from pipelines.server.access import Access
from pipelines.server.batches import Write
from pipelines.server.callers import access, server_of
from pipelines.server.game_paths import DryRun, GameId, Round, held_game
from pipelines.server.problems import Problem
from pipelines.server.writes import asked_write, now, write, written

router = APIRouter(tags=["games"])
router.include_router(games_read_api.router)
router.include_router(preview_api.router)


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
    answer = write(
        request,
        asked_write(request, at, body.game_id, [command], body, dry_run=dry_run, accepted=accepted),
    )
    if answer.status_code == 201:
        from pipelines.accounts.service import grant_role

        grant_role(
            server_of(request).store, _who(at), "chief", game_id=body.game_id, actor=_who(at)
        )
    return answer


@router.post("/games/{game}/players", status_code=201, summary="Join players (accounts)")
def join_players(
    request: Request, game: GameId, body: bodies.Players, dry_run: DryRun = False
) -> JSONResponse:
    at = access(request, "join_players", game=held_game(request, game))
    roster = server_of(request).roster()
    unknown = [p for p in body.players if not roster.exists(p)]
    if unknown:
        raise Problem(422, f"players {', '.join(unknown)} have no account", "unknown_player")
    commands = [
        cmd.JoinPlayer(player_id=p, name=roster.accounts[p].name, actor=_who(at))
        for p in body.players
    ]
    return write(
        request, asked_write(request, at, game, commands, body, dry_run=dry_run, accepted=now())
    )


@router.post("/games/{game}/rounds/{round}/draw", status_code=201, summary="Draw a round")
def draw(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Draw | None = None,
    dry_run: DryRun = False,
) -> JSONResponse:
    """Manual draws give `tiles` (and `rejected`); a seeded game draws from its kept seed."""
    held = held_game(request, game)
    at = access(request, "draw", game=held)
    body = body or bodies.Draw()
    seed = None
    created = held.state.created
    if created is not None and created.draw == "seeded":
        if body.tiles is not None or body.rejected:
            raise Problem(422, "this game's draws are seeded: give no tiles", "invalid")
        seed = _kept_seed(held)
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
    return write(
        request, asked_write(request, at, game, [command], body, dry_run=dry_run, accepted=now())
    )


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
async def submit(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Submission,
    dry_run: DryRun = False,
) -> JSONResponse:
    """A player's own slip, stamped with the server's clock (after the deadline it is recorded
    late and scores 0); an arbiter enters any player's, with its time and source if known."""

    def made(player: str, at: Access) -> cmd.Command:
        return cmd.Submit(
            round=round,
            player_id=player,
            text=body.text,
            part=body.part,
            received_at=body.received_at,
            source=body.source,
            actor=_who(at),
        )

    return await _slip(request, game, "submit", body, made, dry_run)


async def _slip(
    request: Request,
    game: str,
    action: str,
    body: bodies.Submission | bodies.Replacement,
    make: Callable[[str, Access], cmd.Command],
    dry_run: bool,
) -> JSONResponse:
    """A slip (a submission, or an anticipation replacement) made by `make` for the player it
    is for: the caller's own, or the one an arbiter names. The server stamps its arrival
    (`writes.write`) unless an arbiter entering a paper slip gives it, which is then checked as
    the command line checks it (not after now, not before the draw).

    Who may send it is judged on the game as this process last held it (`held_game`'s
    `fresh=False`), asked of the ledger again only if that refuses: what it is judged on
    only grows (the players who joined; the tournament is the game's from its creation),
    so a game that moved since allows no less, and the slip itself is decided on the game
    as the ledger holds it, under the append lock. In a rush, this spares each slip a read
    of what the other processes wrote.

    What reads the ledger runs in a request thread (`asked`); the slip then waits for
    its batch in the event loop, holding no thread (`writes.written`)."""
    accepted = now()

    def asked() -> Write | JSONResponse:
        try:
            at = access(request, action, game=held_game(request, game, fresh=False))
        except Problem:  # perhaps a player who joined since: asked again on the game now
            at = access(request, action, game=held_game(request, game))
        player = _slip_player(at, action, body.player)
        _arrival(at, action, body.received_at, body.source)
        command = make(player, at)

        def checked(now_: Game) -> list[cmd.Command]:
            if command.received_at is not None:
                return checked_arrivals(now_, [command], late=True)
            return [command]

        return asked_write(request, at, game, checked, body, dry_run=dry_run, accepted=accepted)

    return await written(request, await to_thread.run_sync(asked))


@router.post(
    "/games/{game}/rounds/{round}/replacements",
    status_code=201,
    summary="Declare an anticipation replacement",
)
async def replace(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Replacement,
    dry_run: DryRun = False,
) -> JSONResponse:
    """An anticipation player's replacement (`-B+Bo`), theirs or entered by an arbiter."""

    def made(player: str, at: Access) -> cmd.Command:
        return cmd.DeclareReplacement(
            round=round,
            player_id=player,
            text=body.text,
            received_at=body.received_at,
            source=body.source,
            actor=_who(at),
        )

    return await _slip(request, game, "replace", body, made, dry_run)


@router.post("/games/{game}/rounds/{round}/close", status_code=201, summary="Close a round")
def close_round(
    request: Request,
    game: GameId,
    round: Round,
    body: bodies.Empty | None = None,
    dry_run: DryRun = False,
) -> JSONResponse:
    at = access(request, "close_round", game=held_game(request, game))
    command = cmd.CloseRound(round=round, actor=_who(at))
    return write(
        request, asked_write(request, at, game, [command], body, dry_run=dry_run, accepted=now())
    )


def _decision(
    action: str, make: Callable[[Any, int, str], cmd.Command], body_type: type
) -> Callable[..., JSONResponse]:
    """A route for one of the arbiter's decisions about a round."""

    def decide(
        request: Request, game: GameId, round: Round, body: Any, dry_run: DryRun = False
    ) -> JSONResponse:
        at = access(request, "decide", game=held_game(request, game))
        command = make(body, round, _who(at))
        return write(
            request,
            asked_write(request, at, game, [command], body, dry_run=dry_run, accepted=now()),
        )

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
    at = access(request, "decide", game=held_game(request, game))

    def made(now_: Game) -> list[cmd.Command]:
        named = decision_named(now_, body.event_id.strip().lower(), "event_id")
        return [cmd.Revoke(event_id=named, reason=body.reason, actor=_who(at))]

    return write(
        request, asked_write(request, at, game, made, body, dry_run=dry_run, accepted=now())
    )


@router.post("/games/{game}/end", status_code=201, summary="End the game")
def end_game(
    request: Request, game: GameId, body: bodies.Ending | None = None, dry_run: DryRun = False
) -> JSONResponse:
    at = access(request, "end_game", game=held_game(request, game))
    body = body or bodies.Ending()
    command = cmd.EndGame(reason=body.reason, actor=_who(at))
    return write(
        request, asked_write(request, at, game, [command], body, dry_run=dry_run, accepted=now())
    )


@router.post("/games/{game}/seed", status_code=201, summary="Reveal a seeded game's seed")
def reveal_seed(
    request: Request, game: GameId, body: bodies.Empty | None = None, dry_run: DryRun = False
) -> JSONResponse:
    held = held_game(request, game)
    at = access(request, "reveal_seed", game=held)
    created = held.state.created
    if created is None or created.draw != "seeded":
        detail = f"{held.stream} is drawn by hand: it has no seed to reveal"
        raise Problem(409, detail, "not_seeded")
    command = cmd.RevealSeed(seed=_kept_seed(held), actor=_who(at))
    return write(
        request, asked_write(request, at, game, [command], body, dry_run=dry_run, accepted=now())
    )


def _kept_seed(held: Game) -> str:
    """The secret seed a seeded game's draws come from, as this server kept it when the game
    was created (ARBITRU_HOME/seeds); a seed it does not hold is said, not a 500."""
    path = default_seed_path(held.game_id)
    if not path.exists():
        raise Problem(
            409,
            f"the seed of {held.stream} is not kept on this server ({path}): it was created "
            "elsewhere; draw with `arbitru game draw --seed-file` where its seed is kept",
            "seed_missing",
        )
    try:
        return read_seed(path)
    except InputError as exc:
        raise Problem(409, str(exc), "seed_missing") from exc
