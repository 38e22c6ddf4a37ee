"""The auditors' routes answer what the ledger's commands write: the head and checkpoints as
`arbitru ledger head|checkpoints --json`, the events byte for byte as `arbitru ledger export`,
and a slip's proof as the offline verifier (`arbitru verify-proof`) reads it, once the
checkpoint signed at the round's close covers it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import API, Server, arbitru_command
from tests.server.signing import signing_server


@pytest.fixture(scope="module")
def signed(tmp_path_factory, _arbitru_home) -> Iterator[tuple[Server, Path, dict[str, str]]]:
    """A server that signs checkpoints; a game whose round 1 has ana's slip, and whose
    round stays open until a test closes it."""
    with signing_server(tmp_path_factory.mktemp("auditors")) as (server, public):
        server.account("boss", "Boss", "admin")
        server.account("audrey", "Audrey", "auditor")
        server.account("ana", "Ana")
        server.account("bob", "Bob")
        admin = server.client("boss")
        made = admin.post("/games", json={"game_id": "a1", "players": ["ana", "bob"]})
        assert made.status_code == 201, made.text
        assert admin.post("/games/a1/rounds/1/draw", json={"tiles": "CARTEAM"}).status_code == 201
        slip = server.client("ana").post(
            "/games/a1/rounds/1/submissions", json={"text": "H4: CARTE"}
        )
        assert slip.status_code == 201, slip.text
        yield server, public, {"slip": slip.json()["event_id"]}


def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*arbitru_command(), *args], capture_output=True, timeout=120)


def test_a_slip_has_no_proof_until_a_signed_checkpoint_covers_it(signed) -> None:
    server, _public, ids = signed
    answer = server.client("ana").get(f"/proofs/{ids['slip']}")
    assert answer.status_code == 404
    assert "no signed checkpoint covers it yet" in answer.json()["detail"]


def test_a_players_slip_proof_is_accepted_by_the_offline_verifier(signed, tmp_path) -> None:
    server, public, ids = signed
    closed = server.client("boss").post("/games/a1/rounds/1/close", json={})
    assert closed.status_code == 201, closed.text
    answer = server.client("ana").get(f"/proofs/{ids['slip']}")
    assert answer.status_code == 200, answer.text
    proof = tmp_path / "proof.json"
    proof.write_bytes(answer.content)
    checked = _cli("verify-proof", str(proof), "--pubkey", str(public), "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["ok"] is True
    assert json.loads(json.loads(answer.content)["event"])["event_id"] == ids["slip"]
    document = json.loads(answer.content)
    document["event"] = document["event"].replace("H4: CARTE", "H4: CARTA")
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(document))
    refused = _cli("verify-proof", str(tampered), "--pubkey", str(public))
    assert refused.returncode == 1, refused.stdout + refused.stderr


def test_a_proof_is_the_one_ledger_prove_writes(signed) -> None:
    server, _public, ids = signed
    served = server.client("audrey").get(f"/proofs/{ids['slip']}")
    seq = json.loads(json.loads(served.content)["event"])["seq"]
    written = _cli("ledger", "prove", str(seq), "--db", server.db)
    assert written.returncode == 0, written.stderr
    assert served.content == written.stdout


def test_the_events_pages_put_together_are_the_export_byte_for_byte(signed) -> None:
    server, _public, _ids = signed
    for stream in (None, "game/a1"):
        pages, url, params = [], "/ledger/events", {"limit": "3"}
        if stream:
            params["stream"] = stream
        with server.client("audrey") as auditor:
            while url:
                answer = auditor.get(url, params=params)
                assert answer.status_code == 200, answer.text
                assert answer.headers["content-type"] == "application/x-ndjson"
                pages.append(answer.content)
                following = answer.links.get("next", {}).get("url")
                url, params = (following.removeprefix(API), None) if following else (None, None)
        exported = _cli(
            "ledger", "export", "--db", server.db, *(["--stream", stream] if stream else [])
        )
        assert exported.returncode == 0, exported.stderr
        assert len(pages) > 1
        assert b"".join(pages) == exported.stdout


def test_the_head_and_checkpoints_are_the_commands_json_with_the_integrity_verdict(signed) -> None:
    server, _public, _ids = signed
    public = server.client()
    head = public.get("/ledger/head").json()
    cli_head = json.loads(_cli("ledger", "head", "--json", "--db", server.db).stdout)
    assert head == {**cli_head, "ledger_altered": None}
    listed = public.get("/checkpoints").json()
    cli_listed = json.loads(_cli("ledger", "checkpoints", "--json", "--db", server.db).stdout)
    assert listed == cli_listed
    assert listed["checkpoints"]


def test_an_unknown_event_has_no_proof_and_the_public_is_asked_to_sign_in(signed) -> None:
    server, _public, ids = signed
    unknown = "00000000-0000-4000-8000-000000000000"
    assert server.client("audrey").get(f"/proofs/{unknown}").status_code == 404
    assert server.client().get(f"/proofs/{unknown}").status_code == 401
    assert server.client("bob").get(f"/proofs/{ids['slip']}").status_code == 403
    assert (
        httpx.get(f"{server.base}/ledger/events", params={"stream": "game/nope"}).status_code == 401
    )
    assert (
        server.client("audrey").get("/ledger/events", params={"stream": "game/nope"}).status_code
        == 404
    )
