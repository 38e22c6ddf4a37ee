"""Moves scored per second, word check included, on the 136 peer positions.

Each position's played top move is scored against the peer word list (602,229 forms) and must
give the independent solver's points; then every move is scored again and again for a fixed
time and the rate printed. Run: `python benchmarks/score_bench.py [--seconds 5]`.
"""

from __future__ import annotations

import argparse
import json
import lzma
import time
from pathlib import Path

from engine.board import Board
from engine.dictionary import Dictionary
from engine.notation import Move, parse_move
from engine.rack import Rack
from engine.ruleset import load_ruleset
from engine.verdict import check_move

PEER = Path(__file__).resolve().parents[2] / "shared" / "data" / "peer-positions"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--peer-dir", type=Path, default=PEER)
    args = parser.parse_args()
    for name in ("wordlist-hunspell-ro-7.5.0.txt.xz", "positions.jsonl"):
        if not (args.peer_dir / name).is_file():
            parser.error(
                f"{args.peer_dir / name} not found: the peer positions are an external data set"
                " (see the README); give their folder with --peer-dir DIR"
            )

    ruleset = load_ruleset("ro-frs")
    started = time.perf_counter()
    with lzma.open(args.peer_dir / "wordlist-hunspell-ro-7.5.0.txt.xz", "rt") as handle:
        dictionary = Dictionary.from_words(line.strip().upper() for line in handle)
    print(f"word list: {len(dictionary.words):,} words loaded in "
          f"{time.perf_counter() - started:.2f} s")  # fmt: skip

    cases = []
    for line in (args.peer_dir / "positions.jsonl").read_text().splitlines():
        position = json.loads(line)
        played = position["played"]
        move = parse_move(f"{played['coord']}: {played['word']}")
        assert isinstance(move, Move), move
        cases.append((Board.parse(position["board"]), move, Rack.parse(position["rack"], ruleset),
                      played["points"]))  # fmt: skip

    mismatches = 0
    for board, move, rack, points in cases:
        verdict = check_move(board, move, ruleset, dictionary, rack)
        if not verdict.valid or verdict.score != points:
            mismatches += 1
            print(f"MISMATCH {move}: {verdict.score} vs {points} {verdict.errors}")
    print(f"positions: {len(cases)}, played moves scored as the peer solver: "
          f"{len(cases) - mismatches}/{len(cases)}")  # fmt: skip

    scored = 0
    deadline = time.perf_counter() + args.seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        for board, move, rack, _ in cases:
            check_move(board, move, ruleset, dictionary, rack)
        scored += len(cases)
    elapsed = time.perf_counter() - started
    print(f"scored {scored:,} moves in {elapsed:.2f} s: {scored / elapsed:,.0f} moves/s "
          "(one core, word check and rack check included)")  # fmt: skip
    if mismatches:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
