"""Replay is a fold: for random command sequences, replaying all the events gives the state
built incrementally, and replaying any prefix gives the state at that event; evolve never
raises, whatever a recorded event says."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from functools import lru_cache

import pytest
from game_table import T0, Table
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.games.commands import (
    Annul,
    ChooseTop,
    CloseRound,
    Correct,
    CreateGame,
    DeclareReplacement,
    DrawRack,
    EndGame,
    Penalise,
    Player,
    RevealSeed,
    Revoke,
    Submit,
    Warn,
)
from engine.games.draws import seed_commitment
from engine.games.events import (
    DecisionRevoked,
    GameEnded,
    PenaltyGiven,
    PlayerJoined,
    RackDrawn,
    Recorded,
    ReplacementDeclared,
    RoundClosed,
    SeedRevealed,
    SubmissionAnnulled,
    SubmissionCorrected,
    SubmissionReceived,
    TopChosen,
    Undecodable,
    WarningGiven,
)
from engine.games.payloads import read_recorded
from engine.games.projections import position, standings
from engine.games.replay import GameRuleError, evolve, initial_state, replay
from engine.movegen import generate_moves
from engine.notation import format_move

SEED = "property-seed"
PLAYERS = ("ana", "bob", "cid", "zoe")  # zoe never joins
NONSENSE = ("", "H8", "I think ARC", "H8: QQQ", "Z99: A", "8H: DAMA = 3 p")
REPLACEMENTS = ("-A+Bo", "-E+(E)", "-S+T", "-Q+A", "A cu B", "-I+B", "-R+A")
VARIANTS = ("duplicate", "completiv", "anticipation")
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _moves(words, state, player: str) -> list[str]:
    """A few legal moves of the open round: on the common board, or in anticipation on the
    player's own board with their group."""
    rnd = state.current
    if rnd is None or rnd.closed:
        return []
    board, rack = rnd.board, rnd.rack
    if state.created.variant == "anticipation":
        spot = position(state, player)
        board, rack = spot.board, spot.rack

    @lru_cache(maxsize=64)
    def best(rows: tuple[str, ...], rack: str) -> tuple[str, ...]:
        moves = generate_moves(board, rack, state.context.ruleset, words)
        texts = [format_move(m.move) for m in moves[:4]]
        if state.created.variant == "completiv":
            # the computer's tops with their chosen letter marked, written after the word,
            # and left unmarked (a notation error)
            for top in state.context.top(board, rack).moves[:2]:
                move = top.move
                texts.append(format_move(move))
                if move.chosen is not None:
                    after = replace(move, chosen=replace(move.chosen, at=None))
                    texts += [format_move(after), format_move(replace(move, chosen=None))]
        return tuple(texts)

    return list(best(board.rows, rack))


def _command(data, game: Table, words):
    state = game.state
    rnd = state.current
    number = rnd.number if rnd is not None else 1
    decisions = [r.event_id for r in game.log]
    kind = data.draw(
        st.sampled_from(
            ["draw", "submit", "submit", "submit", "annul", "penalise", "warn", "correct",
             "revoke", "choose", "close", "close", "end", "reveal", "replace"]
        )
    )  # fmt: skip
    player = data.draw(st.sampled_from(PLAYERS))
    texts = _moves(words, state, player) + list(NONSENSE)
    text = data.draw(st.sampled_from(texts))
    late = data.draw(st.booleans())
    at = T0 + timedelta(minutes=1 if late else -1)
    part = data.draw(st.sampled_from([1, 1, 2]))
    if kind == "draw":
        return DrawRack(round=number + (rnd is not None and rnd.closed), seed=SEED, deadline=T0)
    if kind == "submit":
        return Submit(round=number, player_id=player, text=text, part=part, received_at=at)
    if kind == "annul":
        return Annul(round=number, player_id=player, reason="test", part=part)
    if kind == "penalise":
        return Penalise(round=number, player_id=player, points=data.draw(st.integers(1, 9)),
                        reason="test")  # fmt: skip
    if kind == "warn":
        return Warn(round=number, player_id=player, reason="test")
    if kind == "correct":
        return Correct(round=number, player_id=player, text=text, reason="test", part=part)
    if kind == "revoke" and decisions:
        return Revoke(event_id=data.draw(st.sampled_from(decisions)), reason="appeal")
    if kind == "choose":
        return ChooseTop(round=number, move=text)
    if kind == "replace":
        return DeclareReplacement(round=number, player_id=player, received_at=at,
                                  text=data.draw(st.sampled_from(REPLACEMENTS)))  # fmt: skip
    if kind == "end":
        return EndGame(reason="test")
    if kind == "reveal":
        return RevealSeed(seed=SEED)
    return CloseRound(round=number)


def _new_game(words, variant: str = "duplicate") -> Table:
    game = Table(words)
    game.run(
        CreateGame(
            game_id="p",
            variant=variant,
            players=tuple(Player(p) for p in PLAYERS[:3]),
            draw="seeded",
            seed_commitment=seed_commitment(SEED),
            settings={"warnings_penalty_after": 2, "warnings_penalty_points": 5},
        )
    )
    game.run(DrawRack(round=1, seed=SEED, deadline=T0))
    return game


def _check_fold(game: Table, states: list) -> None:
    replayed = replay(game.log, game.resolve)
    assert replayed == game.state
    assert standings(replayed) == standings(game.state)  # warnings and what they cost
    for k in range(0, len(game.log) + 1, max(1, len(game.log) // 6)):
        assert replay(game.log[:k], game.resolve) == states[k]


@pytest.mark.parametrize("variant", VARIANTS)
@FAST
@given(data=st.data())
def test_replay_of_decided_events_equals_incremental_state_at_every_prefix(words, variant, data):
    game = _new_game(words, variant)
    states = [replay([], game.resolve)]
    for r in range(len(game.log)):
        states.append(replay(game.log[: r + 1], game.resolve))
    for _ in range(data.draw(st.integers(1, 30))):
        try:
            made = game.run(_command(data, game, words))
        except GameRuleError:
            continue
        for _ in made:
            states.append(game.state)
        assert not game.state.ignored, "decide recorded an event evolve ignores"
    event(f"rounds drawn: {len(game.state.rounds)}")
    event(f"rounds closed: {sum(r.closed for r in game.state.rounds)}")
    _check_fold(game, states)


_round = st.integers(1, 3)
_player = st.sampled_from(PLAYERS)
_text = st.sampled_from(NONSENSE) | st.text(max_size=12)
_events = st.one_of(
    st.builds(PlayerJoined, _player),
    st.builds(RackDrawn, _round, st.sampled_from(["", "AB", "NNAMDAE", "ZZZZZZZ", "CARTEAS"]),
              st.lists(st.sampled_from(["BCD", "AEI"]), max_size=2).map(tuple)),
    st.builds(SubmissionReceived, _round, _player, _text, st.integers(1, 3)),
    st.builds(SubmissionAnnulled, _round, _player, st.just("x"), st.integers(1, 3)),
    st.builds(PenaltyGiven, _round, _player, st.integers(1, 50), st.just("x")),
    st.builds(WarningGiven, _round, _player, st.just("x")),
    st.builds(SubmissionCorrected, _round, _player, _text, st.just("x"), st.integers(1, 3)),
    st.builds(DecisionRevoked, st.sampled_from(["e1", "e2", "e3", "e4", "nope"]), st.just("x")),
    st.builds(TopChosen, _round, _text),
    st.builds(ReplacementDeclared, _round, _player, st.sampled_from(REPLACEMENTS) | _text),
    st.builds(RoundClosed, _round),
    st.builds(SeedRevealed, st.sampled_from([SEED, "wrong"])),
    st.builds(GameEnded, st.just("x")),
)  # fmt: skip
_payloads = st.dictionaries(
    st.sampled_from(["round", "player_id", "text", "x"]),
    st.integers() | st.text(max_size=3) | st.none(),
    max_size=3,
)


@pytest.mark.parametrize("variant", VARIANTS)
@FAST
@given(
    events=st.lists(
        st.tuples(_events | _payloads, st.booleans(), st.booleans()),
        max_size=40,
    )
)
def test_evolve_never_raises_on_recorded_nonsense_and_still_replays_the_same(
    words, variant, events
):
    game = _new_game(words, variant)
    log = list(game.log)
    for i, (fact, late, known_type) in enumerate(events, start=len(log) + 1):
        if isinstance(fact, dict):
            type_name = "SubmissionReceived" if known_type else "Nonsense"
            log.append(read_recorded(type_name, 1, fact, event_id=f"e{i}", seq=i, version=i))
        else:
            at = T0 + timedelta(minutes=1 if late else -1)
            log.append(Recorded(fact, f"e{i}", i, i, at))
    state = initial_state(game.resolve)
    states = [state]
    for recorded in log:
        state = evolve(state, recorded)
        states.append(state)
    game.log, game.state = log, state
    _check_fold(game, states)
    ignored = {n.event_id for n in state.notes if n.ignored}
    nonsense = {r.event_id for r in log if isinstance(r.event, Undecodable)}
    assert nonsense <= ignored  # kept, and shown as ignored with the reason


def test_a_variants_fold_is_its_modules_evolve_and_its_modules_load_on_first_use():
    """`replay` folds with each variant's `evolve`, importing only the module it is written
    in: the very function `VARIANTS[variant].evolve` is. VARIANTS keeps its names and order."""
    from engine.games import replay as replay_module

    assert list(replay_module.VARIANTS) == ["duplicate", "completiv", "eliptic", "anticipation"]
    assert len(replay_module.VARIANTS) == 4 and "nonsense" not in replay_module.VARIANTS
    for variant in replay_module.VARIANTS:
        module = replay_module.VARIANTS[variant]
        assert callable(module.decide)
        assert replay_module._FOLDS[variant].evolve is module.evolve
    with pytest.raises(KeyError):
        replay_module.VARIANTS["nonsense"]
