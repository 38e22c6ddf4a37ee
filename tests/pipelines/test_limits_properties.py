"""Nothing accepted can break the record (`pipelines.games.limits`): whatever texts, numbers and
times a game's commands or an imported tournament are given, each is either refused cleanly
(exit 1 or 2, nothing written) or recorded, and the ledger then still shows its results and
standings, recomputes and exports."""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from game_cli_helpers import runner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pipelines.cli.arbitru import app
from pipelines.games import limits

pytestmark = [pytest.mark.usefixtures("default_home"), pytest.mark.heavy]

_EDGES = ["", " ", "\x1b[2J", "\u202eana", "an\u200ba", "\u0430na", "A" * 600, "ana\u2028bob",
          "__HIVE_DEFAULT_PARTITION__", "2" * 300]  # fmt: skip
texts = st.one_of(
    st.sampled_from(_EDGES),
    st.text(st.characters(max_codepoint=0x3000, exclude_categories=["Cs"]), max_size=40),
)
numbers = st.one_of(
    st.sampled_from([0, 1, 1000, 1001, 2**31 - 1, 2**31, 2**53 - 1, 2**63]),
    st.integers(-(2**64), 2**64),
).map(str)
times = st.one_of(
    st.sampled_from(["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"]),
    st.builds(
        lambda moment, hours: moment.replace(tzinfo=timezone(timedelta(hours=hours))).isoformat(),
        st.datetimes(datetime(1, 1, 2), datetime(9999, 12, 30)),
        st.integers(-12, 14),
    ),
)


def mostly(fits: st.SearchStrategy[str], wild: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Mostly a value that fits, so that examples reach past the first refusal."""
    return st.integers(0, 3).flatmap(lambda n: fits if n else wild)


seasons = st.from_regex(r"20[0-9]{2}(-20[0-9]{2})?", fullmatch=True)
names = st.text("AĂÂBCDEFIÎȘȚamnoprsștuz ", min_size=1, max_size=30).filter(str.strip)
penalties = st.integers(1, 1000).map(str)
arrivals = st.datetimes(datetime(2000, 1, 1), datetime(2100, 1, 1)).map(
    lambda moment: moment.isoformat() + "Z"
)
ids = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True).filter(lambda i: i != "ana")


def _run(*args: str) -> int:
    """A command through the real CLI: refused cleanly or done, never an internal error."""
    result = runner.invoke(app, list(args))
    assert result.exit_code in (0, 1, 2), (args[:3], result.exit_code, result.output[-400:])
    assert "Traceback" not in result.output
    return result.exit_code


def _still_readable(db: str, out: Path) -> None:
    for view in (("game", "results", "hd1", "--round", "1"), ("game", "standings", "hd1")):
        for shape in ((), ("--json",)):
            result = runner.invoke(app, [*view, "--db", db, *shape])
            assert result.exit_code == 0, result.output[-400:]
    for job in (("recompute",), ("export", "--out", str(out))):
        result = runner.invoke(app, [*job, "--db", db])
        assert result.exit_code == 0, (job, result.output[-400:])


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=texts,
    title=texts,
    setting=numbers,
    deadline=times,
    received_at=times,
    slip=texts,
    source=texts,
    points=mostly(penalties, numbers),
    reason=mostly(names, texts),
    actor=texts,
)
def test_any_accepted_game_input_still_shows_recomputes_and_exports(
    name: str,
    title: str,
    setting: str,
    deadline: str,
    received_at: str,
    slip: str,
    source: str,
    points: str,
    reason: str,
    actor: str,
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db = f"sqlite:///{folder}/ledger.db"
        game = ("--db", db)
        _run("game", "create", "hd1", "--player", "ana:Ana", "--player", f"bob:{name}",
             "--title", title, *game)  # fmt: skip
        _run("game", "create", "hd1", "--player", "ana:Ana", "--set", f"solo_bonus={setting}",
             "--set", f"bingo_bonus={setting}", *game)  # fmt: skip
        _run("game", "create", "hd1", "--player", "ana:Ana", "--player", "bob", *game)
        _run("game", "draw", "hd1", "--tiles", "VARAEIT", "--deadline", deadline, *game)
        _run("game", "draw", "hd1", "--tiles", "VARAEIT", *game)
        _run("game", "submit", "hd1", "--player", "ana", "--text", slip, "--source", source,
             "--received-at", received_at, *game)  # fmt: skip
        _run("game", "submit", "hd1", "--player", "bob", "--text", slip, *game)
        penalised = _run("game", "penalise", "hd1", "--player", "ana", "--points", points,
                         "--reason", reason, *game)  # fmt: skip
        event("penalised" if penalised == 0 else "penalty refused")
        closed = _run("game", "close-round", "hd1", "--actor", actor, *game) == 0
        event("round closed" if closed else "round left open")
        _still_readable(db, Path(folder) / "export")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    season=mostly(seasons, texts),
    name=mostly(names, texts),
    points=mostly(penalties, numbers),
    received_at=mostly(arrivals, times),
    player=mostly(ids, texts),
)
def test_any_accepted_import_still_shows_recomputes_and_exports(
    season: str, name: str, points: str, received_at: str, player: str
) -> None:
    lines = [
        {"stream": "tournament/t1", "type": "TournamentCreated",
         "payload": {"tournament_id": "t1", "name": name, "season": season}},
        {"stream": "tournament/t1", "type": "GameAdded", "payload": {"game_id": "hd1"}},
        {"stream": "game/hd1", "type": "GameCreated",
         "payload": {"game_id": "hd1", "variant": "duplicate", "tournament_id": "t1"}},
        {"stream": "game/hd1", "type": "PlayerJoined", "payload": {"player_id": "ana"}},
        {"stream": "game/hd1", "type": "PlayerJoined",
         "payload": {"player_id": player, "name": name}},
        {"stream": "game/hd1", "type": "RackDrawn", "payload": {"round": 1, "drawn": "VARAEIT"}},
        {"stream": "game/hd1", "type": "SubmissionReceived",
         "payload": {"round": 1, "player_id": "ana", "text": "H8: VARA"},
         "meta": {"received_at": received_at}},
        {"stream": "game/hd1", "type": "PenaltyGiven",
         "payload": {"round": 1, "player_id": "ana", "points": int(points), "reason": name}},
        {"stream": "game/hd1", "type": "RoundClosed", "payload": {"round": 1}},
    ]  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        db = f"sqlite:///{folder}/ledger.db"
        source = Path(folder) / "events.jsonl"
        source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        imported = _run("ledger", "import", str(source), "--db", db) == 0
        event("imported" if imported else "refused")
        if imported:
            _still_readable(db, Path(folder) / "export")


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@settings(max_examples=500, deadline=None)
@given(
    payload=st.dictionaries(st.sampled_from(sorted(limits._FIELDS)) | st.text(max_size=3), _values),
    meta=st.dictionaries(st.sampled_from(["actor", "source", "received_at"]), _values),
)
def test_any_payload_gets_a_problem_or_none_never_an_error(
    payload: dict[str, object], meta: dict[str, object]
) -> None:
    """A value of any kind in any field (a round given as text, a name as a list) is the event
    decoder's to refuse: the limits name a problem of theirs or none, and never fail."""
    problem = limits.event_problem(payload, meta)
    assert problem is None or problem.startswith(("payload.", "meta."))
