"""Racks: letters and `?` jokers, no more than the rack size, only tiles the bag has."""

import pytest

from engine.rack import Rack, RackError


def test_rack_reads_letters_and_jokers_in_any_case(ruleset):
    rack = Rack.parse("eir ?", ruleset)
    assert rack.letters == "EIR?"
    assert rack.counts() == {"E": 1, "I": 1, "R": 1, "?": 1}


def test_rack_of_more_than_seven_tiles_is_refused(ruleset):
    with pytest.raises(RackError, match="8 tiles, a rack holds at most 7"):
        Rack.parse("ABCDEFGH", ruleset)


def test_letter_without_tiles_is_refused_with_the_joker_hint(ruleset):
    with pytest.raises(RackError, match="K has no tile; only a joker '\\?' stands for it"):
        Rack.parse("AK", ruleset)


def test_unknown_character_is_refused(ruleset):
    with pytest.raises(RackError, match="'1' is not a tile"):
        Rack.parse("A1", ruleset)


def test_more_copies_than_the_bag_holds_are_refused(ruleset):
    with pytest.raises(RackError, match="2 X tiles, the bag holds only 1"):
        Rack.parse("XX", ruleset)
    with pytest.raises(RackError, match="3 jokers, the bag holds only 2"):
        Rack.parse("???", ruleset)
