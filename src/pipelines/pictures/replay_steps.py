"""Every moment of a game as the replay page shows it (`game replay --html`, the server's
`/games/{game}/replay`): the game folded one event at a time (`pipelines.games.service.steps`),
and at each event the board, the rack, the round's submissions judged, the standings and, in
anticipation, each player's own board, all computed here so that the page's script only shows
them.

The document is JSON: the same values the command line's `--json` gives (`position_json`,
`results_json`, `standing_json` of `pipelines.games.shapes`), kept to what the page shows. A
value that stays the same from one event to the next (a round's results, the standings, a
player's row, a board) is kept once in a pool and named by its index; each board is drawn once
as SVG (`pipelines.pictures.board_svg`), so a game of fifteen rounds holds about sixteen
pictures. The fourteen-player fixture game (412 events, 22 rounds) makes a page of 1.8 MB, two
thirds of it its 23 boards, in about a second.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.games.projections import position
from engine.games.projections import standings as ranked
from engine.games.state import GameState
from engine.ruleset import Ruleset
from ledger import RecordedEvent
from pipelines.games.service import Game, steps
from pipelines.games.shapes import position_json, results_json, standing_json
from pipelines.pictures.board_svg import board_svg


@dataclass
class _Pool:
    """Distinct values in the order first met; each named by its index."""

    values: list[Any] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)

    def add(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


@dataclass(frozen=True)
class Replay:
    """A game's replay: the JSON document the page embeds, and the boards it names, drawn."""

    document: dict[str, Any]
    boards: tuple[str, ...]


def attributes(row: Mapping[str, Any], names: str) -> dict[str, Any]:
    """These keys of `row` (space-separated), in that order."""
    return {name: row[name] for name in names.split()}


def _submission(row: Mapping[str, Any]) -> dict[str, Any]:
    value = attributes(row, "seq part text status move valid points score bingo bonus claimed")
    value["words"] = [
        {"word": w["word"], "score": w["score"], "premiums": [p["premium"] for p in w["premiums"]]}
        for w in row["words"]
    ]
    value["problems"] = row["problems"]
    return value


def _results(document: Mapping[str, Any], rows: _Pool) -> dict[str, Any]:
    """A round's results (`results_json`) kept to what the page shows, each player's row kept
    once in `rows` (a slip changes one player's row, not the others')."""
    top = document["top"]
    players = []
    for row in document["players"]:
        replacement = row.get("replacement")
        players.append(
            rows.add(
                {
                    **attributes(row, "player_id name score solo bonus penalty warnings total"),
                    "code": row["code"],
                    "message": row["message"],
                    "submissions": [_submission(s) for s in row["submissions"]],
                    "replacement": None
                    if replacement is None
                    else {k: replacement.get(k) for k in ("text", "applied", "message")},
                }
            )
        )
    return {
        "round": document["round"],
        "rack": document["rack"],
        "closed": document["closed"],
        "top": None if top is None else {k: top[k] for k in ("move", "score", "solo")},
        "tied": document["tied"],
        "players": players,
        "decisions": [
            {k: d[k] for k in ("seq", "type", "player_id", "reason", "points", "revoked_by")}
            for d in document["decisions"]
        ],
    }


def _open(state: GameState) -> bool:
    current = state.current
    return current is not None and not current.closed


def _player_of(payload: Mapping[str, Any]) -> str | None:
    value = payload.get("player_id")
    return value if isinstance(value, str) else None


def replay(
    game: Game,
    ruleset: Ruleset,
    head: tuple[int, str],
    *,
    public: bool = False,
    legend: Mapping[str, str] | None = None,
) -> Replay:
    """The replay of `game` (read from the ledger whose head was `head`, seq and hash), its
    boards' legend in `legend`'s words. With `public`, only as far as the last moment no
    round was open: an open round's slips are never shown to the public, so the replay stops
    where the last closed round closed (nothing after it is computed, so nothing of it can
    reach the page)."""
    moments = [(e, s) for e, s in steps(game) if s.context is not None]
    if public:
        shown = [i for i, (_, state) in enumerate(moments) if not _open(state)]
        moments = moments[: shown[-1] + 1] if shown else []
    created = game.state.created
    anticipation = created is not None and created.variant == "anticipation"
    boards, drawn = _Pool(), []
    results, standings, rows = _Pool(), _Pool(), _Pool()

    def board(state: GameState, player: str | None) -> dict[str, Any]:
        spot = position(state, player)
        shown = position_json(game.game_id, state, spot, None)
        index = boards.add({"rows": shown["board"], "last": shown["last_move"]})
        if index == len(drawn):
            highlight = [(t.row, t.col) for t in spot.last_move]
            picture = board_svg(
                spot.board, ruleset, highlight, words=legend, id_prefix=f"b{index}-"
            )
            drawn.append(picture.removeprefix('<?xml version="1.0" encoding="UTF-8"?>\n'))
        return {"board": index, "rack": spot.rack, "bag": len(spot.bag)}

    made: list[dict[str, Any]] = []
    stored_by_id: dict[str, RecordedEvent] = {}
    for stored, state in moments:
        stored_by_id[stored.event_id] = stored
        current = state.current
        step: dict[str, Any] = {
            "seq": stored.seq,
            "version": stored.version,
            "type": stored.type,
            "player": _player_of(stored.payload),
            "recorded_at": stored.recorded_at,
            "round": current.number if current is not None else None,
            **board(state, None),
            "over": state.over,
            "ended": state.ended,
            "results": None
            if current is None
            else results.add(
                _results(results_json(game.game_id, state, current.number, stored_by_id), rows)
            ),
            "standings": standings.add([rows.add(standing_json(s)) for s in ranked(state)]),
        }
        if anticipation:
            step["own"] = {player: board(state, player) for player in state.players}
        made.append(step)
    return Replay(
        {
            "game_id": game.game_id,
            "variant": created.variant if created is not None else None,
            "title": created.title if created is not None else None,
            "players": [
                {"player_id": p.player_id, "name": p.name} for p in game.state.players.values()
            ],
            "anticipation": anticipation,
            "public": public,
            "head": {"seq": head[0], "hash": head[1]},
            "altered": game.altered,
            "rows": rows.values,
            "results": results.values,
            "standings": standings.values,
            "steps": made,
        },
        tuple(drawn),
    )
