"""A few rounds of each variant played through the API and the same commands through the
command line: the round results and standings are the same JSON, but for what a server stamps
otherwise (event ids, ledger seqs, times, actors). The players submit their own slips (and
replacements) as themselves; the chief draws and closes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pipelines.game_cli_helpers import Arbiter

NAMES = {"ana": "Ana Pop", "bob": "Bob Ionescu", "cid": "Cid"}
STAMPED = frozenset({"event_id", "seq", "received_at", "recorded_at", "actor", "revoked_by"})
"""What differs between two ledgers holding the same game: where and when it was written."""

Step = tuple[str, ...]

GAMES: dict[str, list[Step]] = {
    "duplicate": [
        ("draw", "AERTSIO"),
        ("submit", "ana", "H8: SERAT"),
        ("submit", "bob", "H8: ARTE"),
        ("close",),
        ("draw", "AENL"),
        ("submit", "bob", "9G: LINA"),
        ("submit", "cid", "9G: NAI"),
        ("close",),
    ],
    "completiv": [
        ("draw", "UCATOR"),
        ("submit", "ana", "H4: [J]UCATOR = 102 p"),
        ("submit", "bob", "H4: JUCATOR"),
        ("close",),
        ("draw", "AEIRST"),
        ("submit", "bob", "11E: JARISTE +J"),
        ("submit", "cid", "11E: JARISTE"),
        ("close",),
    ],
    "anticipation": [
        ("draw", "ABEIRST"),
        ("replace", "ana", "-B+Bo"),
        ("submit", "ana", "H8: SERBoATI"),
        ("replace", "bob", "-B+Bo"),
        ("submit", "bob", "H8: SARIT"),
        ("replace", "cid", "-A+B"),
        ("submit", "cid", "H8: SARIT"),
        ("close",),
    ],
    "eliptic": [
        ("draw", "JUCATORI"),
        ("submit", "ana", "H4: JUCATOR = 102 p"),
        ("submit", "bob", "H8: CURATI"),
        ("submit", "cid", "H4: JUCATORI"),
        ("close",),
        ("draw", "AEIRSTN"),
        ("submit", "bob", "4D: TIRAJ"),
        ("close",),
    ],
}


def unstamped(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: unstamped(v) for k, v in value.items() if k not in STAMPED}
    if isinstance(value, list):
        return [unstamped(v) for v in value]
    return value


def by_cli(db: str, game: str, variant: str, steps: list[Step]) -> Arbiter:
    arbiter = Arbiter(db, game=game)
    players = [a for p, n in NAMES.items() for a in ("--player", f"{p}:{n}")]
    arbiter.ok("create", game, "--variant", variant, *players)
    for step in steps:
        if step[0] == "draw":
            arbiter.ok("draw", game, "--tiles", step[1])
        elif step[0] in ("submit", "replace"):
            arbiter.ok(step[0], game, "--player", step[1], "--text", step[2])
        else:
            arbiter.ok("close-round", game)
    return arbiter


def by_api(server, game: str, variant: str, steps: list[Step]) -> int:
    chief = server.client("chief")
    made = chief.post("/games", json={"game_id": game, "variant": variant, "players": [*NAMES]})
    assert made.status_code == 201, made.text
    round_ = 0
    for step in steps:
        if step[0] == "draw":
            round_ += 1
            answer = chief.post(f"/games/{game}/rounds/{round_}/draw", json={"tiles": step[1]})
        elif step[0] == "submit":
            answer = server.client(step[1]).post(
                f"/games/{game}/rounds/{round_}/submissions", json={"text": step[2]}
            )
        elif step[0] == "replace":
            answer = server.client(step[1]).post(
                f"/games/{game}/rounds/{round_}/replacements", json={"text": step[2]}
            )
        else:
            answer = chief.post(f"/games/{game}/rounds/{round_}/close", json={})
        assert answer.status_code == 201, (step, answer.text)
        actor = step[1] if step[0] in ("submit", "replace") else "chief"
        assert answer.json()["events"][-1]["meta"]["actor"] == actor
    return round_


@pytest.fixture(scope="module")
def accounts(server) -> None:
    server.account("chief", "Chief", "admin")
    for player, name in NAMES.items():
        server.account(player, name)


@pytest.mark.usefixtures("accounts")
@pytest.mark.parametrize("variant", list(GAMES))
def test_a_game_played_through_the_api_scores_as_through_the_command_line(
    server, tmp_path, variant: str
) -> None:
    game = f"v-{variant}"
    steps = GAMES[variant]
    rounds = by_api(server, game, variant, steps)
    arbiter = by_cli(f"sqlite:///{tmp_path / 'cli.db'}", game, variant, steps)
    public = server.client()
    for n in range(1, rounds + 1):
        served = public.get(f"/games/{game}/rounds/{n}/results")
        assert served.status_code == 200, served.text
        expected = arbiter.view("results", game, "--round", str(n))
        assert unstamped(served.json()) == unstamped(expected), f"round {n}"
    served = public.get(f"/games/{game}/standings")
    assert served.status_code == 200, served.text
    standings = served.json()
    assert unstamped(standings) == unstamped(arbiter.view("standings", game))
    assert any(s["total"] > 0 for s in standings["standings"])
