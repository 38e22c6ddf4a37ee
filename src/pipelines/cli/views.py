"""What `arbitru game` shows people: the events a command appended (or would append), a
round's results, the standings, and the game replayed to a moment, drawn with Rich (the JSON
shapes are in `pipelines.games.shapes`).

Every number shown is read off a folded state by the engine's projections; nothing here
decides anything.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from engine.games.context import Judgement
from engine.games.projections import (
    Position,
    SubmissionView,
    round_results,
    standings,
)
from engine.games.state import Decision, GameState, RoundTop
from engine.notation import format_placement
from engine.ruleset import Ruleset
from ledger import RecordedEvent
from pipelines.cli.inputs import console as out
from pipelines.cli.inputs import emit_json
from pipelines.cli.inputs import err_console as err
from pipelines.games.decisions import EVENT_WORDS, in_words
from pipelines.games.limits import escaped as escape
from pipelines.games.limits import shown
from pipelines.games.service import Outcome
from pipelines.games.shapes import (
    dictionary_note,
    outcome_json,
    ranked,
    round_results_of,
    round_touched,
    tied_tops,
    time_text,
    top_json,
)


def _event_line(event: dict[str, Any]) -> str:
    """A payload as `key=value` pairs (strings bare, other values as JSON)."""
    return ", ".join(
        f"{key}={value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
        for key, value in event["payload"].items()
    )


def show_outcome(outcome: Outcome, *, as_json: bool) -> None:
    """The events a command appended, or in a dry run would append (and then how the round's
    results and the standings would change)."""
    value = outcome_json(outcome)
    if as_json:
        emit_json(value)
        return
    events = value["events"]
    number = round_touched(outcome)
    if outcome.conflicts:
        err.print(
            f"[yellow]note:[/] another terminal wrote to {outcome.stream} first; the command "
            f"was decided again on what it recorded ({outcome.conflicts} time(s))"
        )
    verb = "would append" if outcome.dry_run else "appended"
    table = Table(title=f"{outcome.stream}: {verb} {len(events)} event(s)", title_justify="left")
    for column in ("version", "type", "payload", "event id"):
        table.add_column(column, overflow="fold")
    for event in events:
        table.add_row(
            str(event.get("version", "-")),
            event["type"],
            escape(_event_line(event)),
            event["event_id"],
        )
    out.print(table)
    _show_judged(outcome)
    if outcome.dry_run:
        _show_changes(outcome, number)
        out.print("[bold]dry run[/]: nothing was written")


def _show_judged(outcome: Outcome) -> None:
    """How each submission just recorded was judged (status and points), and how each
    anticipation replacement was read."""
    for event in outcome.events:
        if event.type == "ReplacementDeclared":
            rnd = outcome.after.round(event.payload["round"])
            player = rnd.players.get(event.payload["player_id"]) if rnd else None
            replacing = player.replacement if player else None
            if replacing is not None and replacing.event_id == event.event_id:
                from pipelines.cli.anticipation_views import replacing_text  # anticipation's

                out.print(f"  {escape(player.player_id)}: {escape(replacing_text(replacing))}")
    submitted = [
        e for e in outcome.events if e.type in ("SubmissionReceived", "SubmissionCorrected")
    ]
    if not submitted:
        return
    ids = {e.event_id for e in submitted}
    for number in sorted({e.payload["round"] for e in submitted}):
        results = round_results_of(outcome.after, number)
        if results is None:
            continue
        for player in results.players:
            for view in player.submissions:
                if view.event_id in ids:
                    out.print(
                        f"  {escape(player.player_id)}: {escape(view.text)} -> "
                        f"{_status_text(view)}",
                        soft_wrap=True,
                    )


def _status_text(view: SubmissionView) -> str:
    if view.status == "counted":
        return f"[green]{view.judgement.score} points[/]{_claimed(view)}"
    problems = "; ".join(
        p.message.removeprefix(f"{view.status}: ") for p in view.judgement.problems
    )
    detail = f": {escape(problems)}" if problems and view.status not in ("late",) else ""
    return f"[red]{view.status}[/] (scores 0){detail}{_claimed(view)}"


def _show_changes(outcome: Outcome, number: int | None) -> None:
    """Round scores and standings before and after, for the players whose numbers change."""
    before = {s.player_id: s for s in standings(outcome.before)}
    after = {s.player_id: s for s in standings(outcome.after)}
    round_before = round_results_of(outcome.before, number)
    round_after = round_results_of(outcome.after, number)
    scores_before = {p.player_id: p.total for p in round_before.players} if round_before else {}
    scores_after = {p.player_id: p.total for p in round_after.players} if round_after else {}
    table = Table(title="what would change", title_justify="left")
    for column in ("player", f"round {number}" if number else "round", "total", "rank"):
        table.add_column(column)
    for player_id, now in after.items():
        was = before.get(player_id)
        row = (
            _change(scores_before.get(player_id), scores_after.get(player_id)),
            _change(was.total if was else None, now.total),
            _change(was.rank if was else None, now.rank),
        )
        if any("->" in cell for cell in row):
            table.add_row(player_id, *row)
    if table.row_count:
        out.print(table)
    else:
        out.print("no round score, total or rank would change")
    top_before = round_before.top if round_before else None
    top_after = round_after.top if round_after else None
    if top_json(top_before) != top_json(top_after):
        out.print(f"top: {_top_text(top_before)} -> {_top_text(top_after)}")


def _change(before: int | None, after: int | None) -> str:
    if before == after:
        return "" if after is None else str(after)
    return f"{'-' if before is None else before} -> {'-' if after is None else after}"


def _top_text(top: RoundTop | None) -> str:
    return "none" if top is None else f"{'; '.join(top.moves)} ({top.score})"


def show_results(
    state: GameState,
    number: int,
    ruleset: Ruleset,
    stored: dict[str, RecordedEvent] | None = None,
    player_id: str | None = None,
) -> None:
    """A round explained: the board and rack, every submission judged (with its global seq,
    which `replay --at` takes), the top, the arbiter's decisions (who recorded each and when,
    from `stored`, the game's events by id) and the events ignored; `player_id` shows that
    player's row only. An open round whose top is tied between different moves shows no top,
    and says a choice is needed."""
    results = round_results(state, number)
    rnd = state.round(number)
    assert rnd is not None
    tied = tied_tops(state, rnd)
    status = "closed" if results.closed else "open (the top is provisional)"
    out.print(f"[bold]round {results.round}[/], {status}; rack [bold]{results.rack}[/]", end="")
    out.print(
        f" (drawn {results.drawn}"
        + (f", rejected {', '.join(results.rejected)}" if results.rejected else "")
        + ")"
        + (f"; deadline {time_text(results.deadline)}" if results.deadline else "")
    )
    # The board and the variants' views are imported by the views that draw them: a game's
    # standings need neither.
    from pipelines.cli.anticipation_views import own_boards_note, replacing_text
    from pipelines.cli.board import board_table

    own_boards = own_boards_note(state)
    shown_top = None if tied else results.top
    highlight = [(t.row, t.col, t.cell) for t in shown_top.tiles] if shown_top else []
    out.print(own_boards or board_table(results.board, ruleset, highlight))
    table = Table(title="submissions", title_justify="left", show_lines=True)
    table.add_column("player")
    table.add_column("as written")
    table.add_column("judged: move, words and points (premiums)")
    table.add_column("round", justify="right")
    for player in results.players:
        if player_id is not None and player.player_id != player_id:
            continue
        timed = results.deadline is not None
        written = "\n".join(_written(v, timed) for v in player.submissions) or "-"
        if player.replacement is not None:
            written = escape(replacing_text(player.replacement)) + "\n" + written
        judged = [_judged(v) for v in player.submissions] or ["[dim]no submission[/]"]
        judged += [_words(v.judgement) for v in player.submissions if v.status == "counted"]
        judged += [escape(n) for v in player.submissions if v.status == "counted"
                   for n in v.judgement.notes]  # fmt: skip
        sums = [str(player.score)]
        if player.bonus:
            sums.append(f"+{player.bonus} solo")
        if player.penalty:
            sums.append(f"-{player.penalty} penalty")
        if player.warnings:
            sums.append(f"{player.warnings} warning(s)")
        total = f"[bold]{player.total}[/]" + (f"\n({' '.join(sums)})" if len(sums) > 1 else "")
        table.add_row(
            escape(player.player_id + (f" ({player.name})" if player.name else "")),
            written,
            "\n".join(j for j in judged if j),
            total,
        )
    out.print(table)
    if tied:
        moves = escape("; ".join(tied))
        out.print(
            f"top: [bold yellow]tie between {len(tied)} moves[/]: choose-top needed ({moves}); "
            f'choose one with `arbitru game choose-top GAME --move "..."` before closing',
            soft_wrap=True,
        )
    elif shown_top is not None:
        top = shown_top
        who = f"solo: {top.solo}" if top.solo else f"reached by {len(top.reached_by)}"
        move = escape("; ".join(top.moves))
        out.print(f"top: [bold]{move}[/] = {top.score} ({top.source}; {who})")
    elif not own_boards:
        out.print("top: none yet")
    for decision in rnd.decisions:
        out.print(_decision_text(decision, (stored or {}).get(decision.event_id)), soft_wrap=True)
    if note := dictionary_note(state):
        out.print(f"[yellow]note:[/] {escape(note)}", soft_wrap=True)
    for note in results.notes:
        label = "[yellow]ignored[/]" if note.ignored else "[cyan]note[/]"
        what = EVENT_WORDS.get(note.type_name, note.type_name)
        said = escape(in_words(note.message))
        out.print(f"{label} seq {note.seq} ({what}): {said}", soft_wrap=True)


def _decision_text(decision: Decision, stored: RecordedEvent | None = None) -> str:
    who = f" {decision.player_id}" if decision.player_id else ""
    what = {
        "SubmissionAnnulled": f"annulled{who}'s submission",
        "PenaltyGiven": f"penalty of {decision.points} to{who}",
        "WarningGiven": f"warning to{who}",
        "TopChosen": f"top chosen: {decision.move}",
        "SubmissionCorrected": f"corrected{who}'s submission",
    }.get(decision.type_name, EVENT_WORDS.get(decision.type_name, decision.type_name))
    reason = f" ({decision.reason})" if decision.reason else ""
    by = ""
    if stored is not None:
        actor = stored.meta.get("actor")
        by = f"; recorded by {actor or 'an unnamed arbiter'} at {stored.recorded_at}"
        by += f", seq {stored.seq}"
    revoked = f" [red]revoked by {decision.revoked_by}[/]" if decision.revoked_by else ""
    return f"decision {decision.event_id}: {escape(what + reason + by)}{revoked}"


def _written(view: SubmissionView, timed: bool) -> str:
    """The text as written, with its part, correction, and (when the round has a deadline)
    arrival time and source."""
    tags = [f"seq {view.seq}"] if view.seq is not None else []
    if view.part > 1:
        tags.append(f"part {view.part}")
    if view.correction:
        tags.append(f"correction: {view.reason}")
    if timed and view.received_at is not None:
        tags.append(str(time_text(view.received_at)))
    if view.source:
        tags.append(view.source)
    suffix = f" [dim]({escape(', '.join(tags))})[/]" if tags else ""
    return escape(view.text) + suffix


def _judged(view: SubmissionView) -> str:
    """The move as judged and its score, the score its player claimed beside it, and why it
    scores 0 (an unreadable text: what could not be read)."""
    judged = view.judgement.move
    claimed = _claimed(view)
    if judged is None:
        problems = "; ".join(
            p.message.removeprefix(f"{view.status}: ") for p in view.judgement.problems
        )
        detail = f": {problems}" if problems and view.status not in ("superseded", "late") else ""
        return f"[red]{view.status}[/]{escape(detail)}"
    move = format_placement(judged)
    if view.status == "counted":
        return f"[green]{escape(move)}[/] {view.score}{claimed}"
    codes = ", ".join(p.code for p in view.judgement.problems)
    shown = codes and codes != view.status and view.status not in ("superseded", "late")
    detail = f" [{codes}]" if shown else ""
    return f"[red]{view.status}[/] {escape(move)}{escape(detail)}{claimed}"


def _claimed(view: SubmissionView) -> str:
    """The score the player wrote, beside the one computed (marked when they differ)."""
    judged = view.judgement.move
    if judged is None or judged.claimed is None:
        return ""
    computed = view.judgement.score
    if judged.claimed == computed:
        return f" (claimed {judged.claimed})"
    return f" [yellow](claimed {judged.claimed}, computed {computed})[/]"


def _words(judgement: Judgement) -> str:
    if judgement.verdict is None:
        return ""
    parts = []
    for word in judgement.verdict.words:
        premiums = [f"{s.name} {s.premium}" for s in word.squares if s.new and s.premium]
        parts.append(
            f"{word.written} {word.score}" + (f" ({', '.join(premiums)})" if premiums else "")
        )
    if judgement.verdict.bonus:
        parts.append(f"bingo +{judgement.verdict.bonus}")
    return escape("; ".join(parts))


def show_standings(game_id: str, state: GameState) -> None:
    """Ranked players; while a round is open its scores are provisional, and the title says so."""
    current = state.current
    provisional = (
        f", round {current.number} open (provisional)"
        if current is not None and not current.closed
        else ""
    )
    table = Table(
        title=f"{game_id}: standings after {len(state.rounds)} round(s){provisional}",
        title_justify="left",
    )
    for column, justify in (
        ("rank", "right"),
        ("player", "left"),
        ("name", "left"),
        ("total", "right"),
        ("solos", "right"),
        ("warnings", "right"),
        ("% of top", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    rows, tops = ranked(state)
    for row in rows:
        pct = f"{row.pct:.2f}" if row.pct is not None else "-"
        cells = (row.rank, row.player_id, row.name or "", row.total, row.solos, row.warnings, pct)
        table.add_row(*(Text(shown(str(cell))) for cell in cells))  # plain text: no markup
    out.print(table)
    if note := dictionary_note(state):
        out.print(f"[yellow]note:[/] {escape(note)}", soft_wrap=True)
    out.print(f"top total: {tops}" + (f"; game ended: {state.ended}" if state.ended else ""))


def show_position(
    game_id: str, state: GameState, spot: Position, ruleset: Ruleset, player: str | None = None
) -> None:
    """The game at a moment: the board with the last move highlighted, rack, bag, scores."""
    when = f"seq {state.last_seq}" if state.last_seq is not None else "the start"
    round_text = f"round {spot.round}" if spot.round is not None else "before round 1"
    from pipelines.cli.anticipation_views import show_sheet  # as in show_results
    from pipelines.cli.board import board_table
    from pipelines.cli.completiv_views import show_player as show_completiv_player

    out.print(f"[bold]{game_id}[/] at {when} ({state.events} event(s)), {round_text}")
    highlight = [(t.row, t.col, t.cell) for t in spot.last_move]
    out.print(board_table(spot.board, ruleset, highlight))
    out.print(f"rack: [bold]{spot.rack or '-'}[/]   bag: {len(spot.bag)} tile(s)")
    show_sheet(out, state, player)
    if player is not None and state.created is not None:
        show_completiv_player(out, state, player)
    if spot.over or spot.ended:
        out.print(f"game over: {spot.ended or spot.over}")
    show_standings(game_id, state)


def write_svg(path: Path, spot: Position, ruleset: Ruleset, title: str) -> None:
    """The board at the moment as an SVG file, written whole or not at all; a FIFO or a
    directory at `path` is refused (`OutputRefused`, `pipelines.files.whole`). The picture's
    module, which loads the XML tools, and the file writer are imported only here: the views
    that write no file need neither."""
    from pipelines.files.whole import output_target, write_whole
    from pipelines.pictures.board_svg import board_svg

    svg = board_svg(spot.board, ruleset, [(t.row, t.col) for t in spot.last_move], title)
    target = output_target(path, "the picture goes to a new path or replaces an earlier file")
    write_whole([svg.encode("utf-8")], path, target)


def show_seed_note(seed: str, path: Path | None, new: bool, *, shown: bool) -> None:
    """Where a seeded game's seed is kept (never the seed itself unless asked)."""
    if path is None:
        out.print("dry run: a new seed would be generated and kept")
    elif new:
        out.print(f"a new secret seed was written to {path}: keep it safe, reveal it at the end")
    else:
        where = "read from stdin" if path == Path("-") else f"in {path}"
        out.print(f"the seed {where} was committed to")
    if shown:
        out.print(f"seed: {seed}")
