from engine.games.settings import DrawMinimum, check_settings, read_settings


def test_defaults_come_from_the_ruleset(ruleset):
    _, game = read_settings(ruleset, {})
    assert (game.draw_size, game.bingo_size, game.solo_bonus, game.solo_min_players) == (
        7,
        7,
        10,
        1,
    )
    assert game.top_source == "players"
    assert game.minimum(1) == DrawMinimum(1, 1, 1)


def test_events_md_example_settings_are_accepted(ruleset):
    settings = {"solo_bonus": 10, "min_vowels": 1, "min_consonants": 1, "top_source": "players"}
    assert check_settings(ruleset, settings) == ()


def test_fisf_minimums_are_two_and_two_up_to_round_15_then_one_and_one(ruleset):
    _, game = read_settings(ruleset, {"draw_minimums": "fisf"})
    assert game.minimum(15) == DrawMinimum(1, 2, 2)
    assert game.minimum(16) == DrawMinimum(16, 1, 1)


def test_eliptic_plays_a_rack_of_8_laying_at_most_7_with_the_bonus_for_7(ruleset):
    changed, game = read_settings(ruleset, {}, "eliptic")
    assert (changed.rack_size, changed.max_laid, changed.bingo_size) == (8, 7, 7)
    assert (game.draw_size, game.bingo_size, game.minimum(1)) == (8, 7, DrawMinimum(1, 1, 1))
    assert (changed.bingo_bonus, game.problems) == (50, ())
    assert read_settings(ruleset, {"max_laid": 8}, "eliptic")[0].max_laid == 8


def test_draw_size_and_bingo_size_are_separate_settings(ruleset):
    changed, game = read_settings(ruleset, {"draw_size": 6, "bingo_size": 7})
    assert (game.draw_size, game.bingo_size, changed.rack_size) == (6, 7, 7)


def test_unknown_setting_is_kept_and_reported_never_raised(ruleset):
    changed, game = read_settings(ruleset, {"colour": "blue", "solo_bonus": "ten", "top_source": 3})
    assert game.unknown == {"colour": "blue"}
    assert game.solo_bonus == 10 and game.top_source == "players"
    assert len(game.problems) == 3
    assert any("settings.colour" in p for p in game.problems)
    assert changed == ruleset


def test_minimum_ranges_must_start_at_round_one(ruleset):
    problems = check_settings(ruleset, {"draw_minimums": [{"from_round": 3, "vowels": 1}]})
    assert problems and "start at round 1" in problems[0]
