"""Fuzzing from the server's own OpenAPI document (schemathesis): every operation it publishes,
asked by an admin, by a player of the game, with a token nobody was given and with none, with
bodies, paths and queries that fit the document and ones that do not. Whatever is asked, the
server never answers a 5xx: bad input is a problem detail, never an internal error.

The examples are bounded and derandomized (the same ones on every run), so that the fuzz costs
the same few seconds in CI each time; an operation added to the API is fuzzed without a line
here. Half the examples aim at a game that exists (its round open, its players' accounts), the
other half at whatever path the document allows."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

EXAMPLES = 40
"""Per operation: enough to reach each kind of caller with good and bad input."""

AIMED = {"game": "fz1", "round": 1}


@pytest.fixture(scope="module")
def callers(server) -> dict[str, dict[str, str]]:
    """The headers of each kind of caller, over a game with its first round open."""
    server.account("boss", "Boss", "admin")
    server.account("ana", "Ana")
    server.account("bob", "Bob")
    admin = server.client("boss")
    made = admin.post(
        "/games", json={"game_id": AIMED["game"], "variant": "duplicate", "players": ["ana", "bob"]}
    )
    assert made.status_code == 201, made.text
    drawn = admin.post(f"/games/{AIMED['game']}/rounds/1/draw", json={"tiles": "AERTSIO"})
    assert drawn.status_code == 201, drawn.text
    return {
        "admin": {"Authorization": f"Bearer {server.tokens['boss']}"},
        "player": {"Authorization": f"Bearer {server.tokens['ana']}"},
        "invalid token": {"Authorization": "Bearer not-a-token-anyone-was-given"},
        "anonymous": {},
    }


def operations(server) -> list:
    schema = schemathesis.openapi.from_url(f"{server.base}/openapi.json")
    found = [result.ok() for result in schema.get_all_operations()]
    assert found, "the OpenAPI document lists no operation"
    return found


@pytest.mark.heavy  # 90 s of a CI worker: run once, not again at the dependency floors, where
# the bad input's way through FastAPI and pydantic is what test_bad_input_api.py checks
def test_no_operation_answers_a_server_error_whoever_asks_whatever(server, callers) -> None:
    failures: dict[str, str] = {}
    for operation in operations(server):
        aimed = {k: v for k, v in AIMED.items() if k in _path_names(operation)}
        cases = st.one_of(
            operation.as_strategy(GenerationMode.POSITIVE),
            operation.as_strategy(GenerationMode.NEGATIVE),
            operation.as_strategy(GenerationMode.POSITIVE, path_parameters=aimed),
            operation.as_strategy(GenerationMode.NEGATIVE, path_parameters=aimed),
        )

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=cases, caller=st.sampled_from(sorted(callers)))
        def asked(case, caller: str) -> None:
            headers = {**(case.headers or {}), **callers[caller]}
            response = case.call(base_url=server.base.removesuffix("/api/v1"), headers=headers)
            case.validate_response(response, checks=[not_a_server_error])

        try:
            asked()
        except (Exception, BaseExceptionGroup) as exc:  # all fuzzed, then all reported
            failures[operation.label] = f"{type(exc).__name__}: {exc}"[:2000]
    assert failures == {}, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())


def _path_names(operation) -> set[str]:
    return {p.name for p in operation.path_parameters}
