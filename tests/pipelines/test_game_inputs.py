"""Reading what an arbiter hands `arbitru game`: players, times, settings, submission files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.games.inputs import (
    InputError,
    PlayerSpec,
    keep_seed,
    parse_player,
    parse_settings,
    parse_time,
    read_players_file,
    read_seed,
    read_submissions_file,
)


def test_a_player_is_an_id_with_an_optional_name() -> None:
    assert parse_player("ana") == PlayerSpec("ana", None)
    assert parse_player("ana:Ana Pop") == PlayerSpec("ana", "Ana Pop")
    with pytest.raises(InputError, match="not a player id"):
        parse_player("ana pop")


def test_a_players_file_skips_comments_and_names_the_bad_line(tmp_path: Path) -> None:
    good = tmp_path / "players.txt"
    good.write_text("# hall 1\nana:Ana\n\nbob\tBob B\n", encoding="utf-8")
    assert read_players_file(good) == [PlayerSpec("ana", "Ana"), PlayerSpec("bob", "Bob B")]
    bad = tmp_path / "bad.txt"
    bad.write_text("ana\n-x\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_players_file(bad)


def test_times_need_a_zone_and_come_back_in_utc() -> None:
    assert parse_time("2026-11-30T20:00:00+02:00", "--deadline") == datetime(
        2026, 11, 30, 18, tzinfo=UTC
    )
    with pytest.raises(InputError, match="no time zone"):
        parse_time("2026-11-30T20:00:00", "--deadline")
    with pytest.raises(InputError, match="not an ISO 8601 time"):
        parse_time("tomorrow", "--deadline")


def test_settings_are_read_as_json_values_else_words() -> None:
    assert parse_settings(["solo_bonus=10", "top_source=computer", "x=true"]) == {
        "solo_bonus": 10,
        "top_source": "computer",
        "x": True,
    }
    with pytest.raises(InputError, match="key=value"):
        parse_settings(["solo_bonus"])


def test_a_submission_line_keeps_the_text_exactly_as_written(tmp_path: Path) -> None:
    path = tmp_path / "slips.txt"
    path.write_text(
        "ana | P19-T1 - H4: JU(C)ATOR = 52 p\n"
        "bob | 2026-11-30T17:00:00Z | H8: VARA | with a pipe\n"
        "cri\t???\n",
        encoding="utf-8",
    )
    lines = read_submissions_file(path)
    assert [(s.player_id, s.text, s.source) for s in lines] == [
        ("ana", "P19-T1 - H4: JU(C)ATOR = 52 p", "slips.txt:1"),
        ("bob", "H8: VARA | with a pipe", "slips.txt:2"),
        ("cri", "???", "slips.txt:3"),
    ]
    assert lines[1].received_at == datetime(2026, 11, 30, 17, tzinfo=UTC)


def test_a_submission_file_lists_every_bad_line_at_once(tmp_path: Path) -> None:
    path = tmp_path / "slips.txt"
    path.write_text("H8: VARA\nana | 2026-13-01T00:00Z | H8: VARA\nbob | ok\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        read_submissions_file(path)
    assert "line 1" in str(error.value) and "line 2" in str(error.value)


def test_a_seed_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "s" / "hd1.seed"
    keep_seed(path, "abc")
    assert read_seed(path) == "abc" and path.stat().st_mode & 0o777 == 0o600
    with pytest.raises(InputError, match="never overwritten"):
        keep_seed(path, "other")
    assert read_seed(path) == "abc"


_ids = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,10}", fullmatch=True)
_texts = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="|\t#"),
    min_size=1,
    max_size=40,
).filter(lambda t: t.strip() and not t.strip()[:4].isdigit())


@given(st.lists(st.tuples(_ids, _texts), min_size=1, max_size=8))
def test_any_submission_file_reads_back_player_and_text_line_by_line(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str]]
) -> None:
    path = tmp_path_factory.mktemp("slips") / "slips.txt"
    path.write_text("".join(f"{p} | {t}\n" for p, t in rows), encoding="utf-8")
    lines = read_submissions_file(path)
    assert [(s.player_id, s.text) for s in lines] == [(p, t.strip()) for p, t in rows]
    assert [s.source for s in lines] == [f"slips.txt:{i}" for i in range(1, len(rows) + 1)]
