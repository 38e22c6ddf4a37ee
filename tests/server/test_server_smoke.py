"""A round from draw to standings through the API: the server's first walk."""

from __future__ import annotations


def test_a_player_submits_and_the_chief_closes_the_round(server) -> None:
    server.account("boss", "Boss", "admin")
    server.account("ana", "Ana")
    server.account("bob", "Bob")
    admin = server.client("boss")
    made = admin.post(
        "/games", json={"game_id": "net1", "variant": "duplicate", "players": ["ana", "bob"]}
    )
    assert made.status_code == 201, made.text
    drawn = admin.post("/games/net1/rounds/1/draw", json={"tiles": "AERTSIO"})
    assert drawn.status_code == 201, drawn.text
    slip = server.client("ana").post("/games/net1/rounds/1/submissions", json={"text": "H8: SERAT"})
    assert slip.status_code == 201, slip.text
    receipt = slip.json()
    assert receipt["events"][0]["meta"]["actor"] == "ana"
    closed = admin.post("/games/net1/rounds/1/close", json={})
    assert closed.status_code == 201, closed.text
    standings = server.client().get("/games/net1/standings").json()
    print(standings)
