import pytest

from engine.bag import Bag, BagError


def test_full_bag_holds_the_hundred_tiles_of_the_ruleset(ruleset):
    bag = Bag.full(ruleset)
    assert len(bag) == 100
    assert (bag.count("A"), bag.count("?"), bag.count("K")) == (11, 2, 0)


def test_canonical_order_is_by_character_code_jokers_first():
    assert Bag.of("BA?A").tiles() == "?AAB"


def test_taking_tiles_the_bag_lacks_names_every_shortage():
    with pytest.raises(
        BagError, match="3 jokers wanted, the bag holds 2; 2 Z tiles wanted, the bag holds 1"
    ):
        Bag.of("Z??").take("ZZ???")


def test_take_and_put_back_give_the_same_bag(ruleset):
    bag = Bag.full(ruleset)
    assert bag.take("EIR?").put("?RIE") == bag
    assert len(bag.take("EIR?")) == 96
