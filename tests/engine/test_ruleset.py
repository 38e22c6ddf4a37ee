"""Rulesets are data (docs/rules.md): the shipped ro-frs file and malformed files."""

import tomllib
from importlib import resources

import pytest

from engine.ruleset import RulesetError, load_ruleset, parse_ruleset, ruleset_from_toml


def ro_frs_data() -> dict:
    text = (resources.files("engine") / "rulesets" / "ro-frs.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def test_ro_frs_has_100_tiles_98_letters_and_2_jokers(ruleset):
    assert sum(ruleset.tile_counts.values()) == 98
    assert ruleset.jokers == 2


def test_ro_frs_tile_values_and_counts_match_the_federation_table(ruleset):
    table = {
        "A": (11, 1), "B": (2, 9), "C": (5, 1), "D": (4, 2), "E": (9, 1), "F": (2, 8),
        "G": (2, 9), "H": (1, 10), "I": (10, 1), "J": (1, 10), "L": (4, 1), "M": (3, 4),
        "N": (6, 1), "O": (5, 1), "P": (4, 2), "R": (7, 1), "S": (5, 1), "T": (7, 1),
        "U": (6, 1), "V": (2, 8), "X": (1, 10), "Z": (1, 10),
    }  # fmt: skip
    assert {k: (ruleset.tile_counts[k], ruleset.tile_values[k]) for k in table} == table
    assert set(ruleset.tile_counts) == set(table)


def test_k_q_w_y_have_no_tiles(ruleset):
    assert ruleset.jokers_only == frozenset("KQWY")
    assert not ruleset.jokers_only & set(ruleset.tile_counts)


RULES_PREMIUMS = {
    "TW": "A1 A8 A15 H1 H15 O1 O8 O15",
    "DW": "B2 B14 C3 C13 D4 D12 E5 E11 H8 K5 K11 L4 L12 M3 M13 N2 N14",
    "TL": "B6 B10 F2 F6 F10 F14 J2 J6 J10 J14 N6 N10",
    "DL": "A4 A12 C7 C9 D1 D8 D15 G3 G7 G9 G13 H4 H12 I3 I7 I9 I13 L1 L8 L15 M7 M9 O4 O12",
}


def test_premium_squares_are_those_listed_in_the_rules(ruleset):
    labels = {(1, 3): "TW", (1, 2): "DW", (3, 1): "TL", (2, 1): "DL"}
    found: dict[str, set[str]] = {label: set() for label in labels.values()}
    for r in range(15):
        for c in range(15):
            factors = (ruleset.letter_factor[r][c], ruleset.word_factor[r][c])
            if factors != (1, 1):
                found[labels[factors]].add(f"{chr(65 + r)}{c + 1}")
    assert found == {label: set(squares.split()) for label, squares in RULES_PREMIUMS.items()}


def test_ro_frs_bonuses_and_draw_minimums(ruleset):
    assert (ruleset.bingo_bonus, ruleset.solo_bonus, ruleset.rack_size) == (50, 10, 7)
    assert (ruleset.min_vowels, ruleset.min_consonants) == (1, 1)
    assert ruleset.vowels == frozenset("AEIOU")


def test_standard_premium_layout_is_symmetric_with_61_premium_squares(ruleset):
    lf, wf = ruleset.letter_factor, ruleset.word_factor
    premium = [(r, c) for r in range(15) for c in range(15) if lf[r][c] > 1 or wf[r][c] > 1]
    assert len(premium) == 8 + 17 + 12 + 24
    for r, c in premium:
        assert (lf[c][r], wf[c][r]) == (lf[r][c], wf[r][c])
        assert (lf[14 - r][c], wf[14 - r][c]) == (lf[r][c], wf[r][c])
    assert wf[7][7] == 2 and wf[0][0] == 3 and lf[1][5] == 3 and lf[0][3] == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("bingo_bonus"), "bingo_bonus: missing"),
        (lambda d: d.update(solo_bonus=-1), "solo_bonus: expected a whole number >= 0, got -1"),
        (lambda d: d.update(rack_size="7"), "rack_size: expected a whole number >= 0, got '7'"),
        (lambda d: d["tiles"].update(A=[11]), "tiles.A: expected [count, value], got [11]"),
        (lambda d: d["tiles"].update(Ä=[1, 1]), "tiles.Ä: not a capital letter A-Z"),
        (lambda d: d["premiums"].update(quad_word=[]), "premiums.quad_word: unknown kind"),
        (
            lambda d: d["premiums"]["double_word"].append("P1"),
            "premiums.double_word[17]: square 'P1' is off a 15x15 board",
        ),
        (
            lambda d: d["premiums"]["double_letter"].append("H8"),
            "premiums.double_letter[24]: H8 is also double_word",
        ),
        (lambda d: d.update(vowels="aei"), "vowels: expected capital letters A-Z, got 'aei'"),
        (lambda d: d.update(jokers_only="KA"), "jokers_only: A also have tiles"),
        (
            lambda d: d.update(max_laid=8),
            "max_laid: a move lays at most 8 tiles but a rack holds 7: set max_laid to 7 or less",
        ),
        (
            lambda d: d.update(rack_size=8, max_laid=7, bingo_size=8),
            "bingo_size: the bonus is for 8 tiles but a move lays at most 7, so no move could"
            " earn it: set bingo_size to 7 or less",
        ),
    ],
)
def test_malformed_ruleset_error_names_the_field(change, message):
    data = ro_frs_data()
    change(data)
    with pytest.raises(RulesetError) as info:
        parse_ruleset(data)
    assert str(info.value).startswith(message)


def test_ruleset_that_is_not_toml_is_refused():
    with pytest.raises(RulesetError, match="not valid TOML"):
        ruleset_from_toml("name = ")


def test_unknown_ruleset_name_lists_the_shipped_ones():
    with pytest.raises(RulesetError, match=r"unknown ruleset 'fisf' \(shipped: ro-frs\)"):
        load_ruleset("fisf")


def test_ruleset_hash_identifies_the_file(ruleset):
    assert len(ruleset.sha256) == 64
    assert load_ruleset("ro-frs").sha256 == ruleset.sha256


def test_game_settings_override_ruleset_fields(ruleset):
    fisf = ruleset.with_settings({"min_vowels": 2, "min_consonants": 2, "solo_bonus": 0})
    assert (fisf.min_vowels, fisf.min_consonants, fisf.solo_bonus) == (2, 2, 0)
    with pytest.raises(RulesetError, match=r"settings\.solo_bonus"):
        ruleset.with_settings({"solo_bonus": "ten"})


def test_game_settings_that_are_no_ruleset_field_are_accepted(ruleset):
    assert ruleset.with_settings({"top_source": "players", "draw_size": 6}) == ruleset


def test_bingo_size_defaults_to_the_rack_size_and_may_be_overridden(ruleset):
    assert ruleset.bingo_size == 7
    assert ruleset.with_settings({"bingo_size": 6}).bingo_size == 6


def test_a_move_lays_at_most_the_rack_unless_max_laid_says_fewer(ruleset):
    assert ruleset.max_laid == 7
    eliptic = ruleset.with_settings({"rack_size": 8, "max_laid": 7})
    assert (eliptic.rack_size, eliptic.max_laid, eliptic.contradictions()) == (8, 7, ())
    assert ruleset.with_settings({"rack_size": 6}).contradictions() == (
        "max_laid: a move lays at most 7 tiles but a rack holds 6: set max_laid to 6 or less",
        "bingo_size: the bonus is for 7 tiles but a move lays at most 6, so no move could earn"
        " it: set bingo_size to 6 or less",
    )


def test_unknown_game_setting_is_refused_naming_it(ruleset):
    with pytest.raises(RulesetError, match=r"^settings\.solo_bonuss: not a ruleset field"):
        ruleset.with_settings({"solo_bonuss": 5})
    with pytest.raises(RulesetError, match=r"settings\.rack_size: expected at least 1"):
        ruleset.with_settings({"rack_size": 0})
