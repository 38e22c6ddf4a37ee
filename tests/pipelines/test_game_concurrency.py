"""Two arbiters' terminals writing to one game at once, on SQLite and PostgreSQL: the ledger's
expected version makes one of them win; the other's command is decided again on the fresh
state, and either recorded on top of it or refused with the rules' reason."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from game_cli_helpers import Arbiter, create

from engine.games.commands import CloseRound, Submit
from ledger import EventStore, RecordedEvent
from pipelines.games.service import CommandRefused, Game, execute

pytestmark = pytest.mark.usefixtures("default_home")


class Interleaved(EventStore):
    """A ledger through which the other terminal writes right after this one has read the
    game (once): the real race, made to happen every time."""

    def __init__(self, url: str, other: Callable[[], None]) -> None:
        super().__init__(url, upgrade=False)
        self._other: Callable[[], None] | None = other

    def read_stream(self, stream: str, *args, **kwargs) -> list[RecordedEvent]:
        events = super().read_stream(stream, *args, **kwargs)
        if self._other is not None:
            other, self._other = self._other, None
            other()
        return events


def _round_open(arbiter: Arbiter) -> None:
    create(arbiter)
    arbiter.ok("draw", "hd1", "--tiles", "VARAEIT")


def test_a_command_losing_the_race_is_decided_again_on_fresh_state(db_url: str) -> None:
    first, second = Arbiter(db_url, actor="arbiter-1"), Arbiter(db_url, actor="arbiter-2")
    _round_open(first)
    with Interleaved(
        db_url, lambda: second.ok("submit", "hd1", "--player", "bob", "--text", "H4: VARIATE")
    ) as store:
        outcome = execute(store, "hd1", [Submit(round=1, player_id="ana", text="H8: VARA")])
    assert outcome.conflicts == 1
    assert [e.version for e in outcome.recorded] == [8]  # after bob's, at 7
    results = first.view("results", "hd1", "--round", "1")
    assert {p["player_id"]: p["total"] for p in results["players"]}["bob"] == 104
    assert first.events()[-2:] == ["SubmissionReceived", "SubmissionReceived"]


def test_a_command_the_winner_made_pointless_is_refused_with_the_reason(db_url: str) -> None:
    first, second = Arbiter(db_url, actor="arbiter-1"), Arbiter(db_url, actor="arbiter-2")
    _round_open(first)
    first.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    with (
        Interleaved(db_url, lambda: second.ok("close-round", "hd1")) as store,
        pytest.raises(CommandRefused) as refused,
    ):
        execute(store, "hd1", [CloseRound(round=1)])
    assert refused.value.conflicts == 1
    assert "closed" in str(refused.value) and "another terminal wrote" in str(refused.value)
    assert first.events().count("RoundClosed") == 1


def test_a_command_about_the_current_round_stays_about_it_when_another_terminal_opens_the_next(
    db_url: str,
) -> None:
    """The commands are made once, on the first read: after a conflict the same commands are
    decided again, about the round the arbiter meant, not the one open now."""
    first, second = Arbiter(db_url, actor="arbiter-1"), Arbiter(db_url, actor="arbiter-2")
    _round_open(first)
    first.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    made: list[int] = []

    def about_current(game: Game) -> list[Submit]:
        made.append(game.state.current.number)
        return [Submit(round=made[-1], player_id="bob", text="H4: VARIATE")]

    def next_round() -> None:
        second.ok("close-round", "hd1")
        second.ok("draw", "hd1", "--tiles", "NOSU")

    with (
        Interleaved(db_url, next_round) as store,
        pytest.raises(CommandRefused) as refused,
    ):
        execute(store, "hd1", about_current)
    assert made == [1]
    assert refused.value.code == "round_closed" and refused.value.conflicts == 1
    assert first.events()[-2:] == ["RoundClosed", "RackDrawn"]


def test_a_submission_without_round_is_refused_when_another_terminal_closes_its_round_meanwhile(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arbitru game submit` without --round is about the round open when the game was read:
    when another terminal closes it and draws the next before the append, the retry is
    refused about the closed round, and nothing is written (it is not moved to the new one)."""
    first, second = Arbiter(db_url, actor="arbiter-1"), Arbiter(db_url, actor="arbiter-2")
    _round_open(first)
    first.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")

    def next_round() -> None:
        second.ok("close-round", "hd1")
        second.ok("draw", "hd1", "--tiles", "NOSU")

    interleaving = [next_round]  # the first ledger opened (the submit's) lets it write

    def ledger(url: str, *, upgrade: bool) -> EventStore:
        if interleaving:
            return Interleaved(url, interleaving.pop())
        return EventStore(url, upgrade=upgrade)

    monkeypatch.setattr("ledger.store.EventStore", ledger)  # where a command opens its ledger
    before = first.events()
    result = first.run("submit", "hd1", "--player", "bob", "--text", "H4: VARIATE")
    assert not interleaving, "the other terminal never wrote"
    assert result.exit_code == 1, result.output
    assert " ".join(result.stderr.split()) == (
        "error: round 1 is closed: nothing about it is accepted (another terminal wrote to "
        "game/hd1 first; the command was decided again on what it recorded)"
    )
    assert first.events() == [*before, "RoundClosed", "RackDrawn"]


def test_terminals_submitting_at_once_all_get_recorded(db_url: str) -> None:
    arbiter = Arbiter(db_url)
    _round_open(arbiter)
    moves = {"ana": "H8: VARA", "bob": "H4: VARIATE", "cri": "H5: VARA", "dan": "H7: VARA"}
    start = threading.Barrier(len(moves))
    failures: list[BaseException] = []

    def terminal(player: str, text: str) -> None:
        try:
            with EventStore(db_url, upgrade=False) as store:
                start.wait()
                execute(store, "hd1", [Submit(round=1, player_id=player, text=text)])
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=terminal, args=item) for item in moves.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures
    with EventStore(db_url, upgrade=False) as store:
        events = store.read_stream("game/hd1")
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    assert sorted(e.payload["player_id"] for e in events if e.type == "SubmissionReceived") == [
        "ana",
        "bob",
        "cri",
        "dan",
    ]


def test_two_processes_closing_the_same_round_one_wins_the_other_is_refused(
    db_url: str,
) -> None:
    arbiter = Arbiter(db_url)
    _round_open(arbiter)
    arbiter.ok("submit", "hd1", "--player", "ana", "--text", "H8: VARA")
    script = str(Path(sys.executable).with_name("arbitru"))
    terminals = [
        subprocess.Popen(
            [script, "game", "close-round", "hd1", "--db", db_url, "--actor", f"arbiter-{i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in (1, 2)
    ]
    finished = [(t.wait(timeout=300), t.stderr.read() if t.stderr else "") for t in terminals]
    assert sorted(code for code, _ in finished) == [0, 1]
    [loser] = [" ".join(err.split()) for code, err in finished if code == 1]
    assert "round 1 is closed" in loser and "Traceback" not in loser
    assert arbiter.events().count("RoundClosed") == 1
