"""Expand a Hunspell dictionary (.aff rules + .dic stems) into every word form it accepts.

Written from the format's documented semantics (hunspell(5)) for the parts rospell's ro_RO
uses, and a little beyond so that a hand-made test can exercise each rule:

- ``SET`` (the files' encoding) and ``FLAG`` (``char`` default, ``long``, ``num``, ``UTF-8``);
- ``PFX``/``SFX`` classes with strip, append, condition and the cross-product switch: a stem
  carrying both a cross-product prefix and a cross-product suffix also takes both at once;
- continuation classes on suffixes (``SFX x 0 a/y``): the suffixed form takes suffix class
  ``y`` in turn (Hunspell's twofold suffixes);
- ``NEEDAFFIX`` (a stem or affix that is not a word on its own), ``FORBIDDENWORD`` (a stem
  that is never a word) and ``FULLSTRIP`` (an affix may strip the whole stem).

Compounding, ``AF``/``AM`` aliases, ``ICONV``/``OCONV``, ``IGNORE`` and ``COMPLEXPREFIXES``
change which forms a checker accepts in ways a plain word list cannot express, and ro_RO uses
none of them: a file that declares them is refused rather than half-understood. Directives that
only steer suggestions (``TRY``, ``KEY``, ``REP``, ``MAP`` ...) are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ledger.input_files import HUNSPELL, InputFileError, read_input
from pipelines.files.text import lines

_UNSUPPORTED = frozenset(
    {
        "AF",
        "AM",
        "ICONV",
        "OCONV",
        "IGNORE",
        "COMPLEXPREFIXES",
        "COMPOUNDFLAG",
        "COMPOUNDBEGIN",
        "COMPOUNDMIDDLE",
        "COMPOUNDEND",
        "COMPOUNDRULE",
        "CIRCUMFIX",
    }
)
_FLAG_TYPES = frozenset({"char", "long", "num", "UTF-8"})


class HunspellFormatError(ValueError):
    """A .aff or .dic file this expander cannot read, with the file and line at fault."""


def parse_flags(text: str, flag_type: str) -> frozenset[str]:
    """The flags written in ``text`` under ``FLAG flag_type`` (one char, two chars, or numbers)."""
    if flag_type == "long":
        if len(text) % 2:
            raise ValueError(f"odd number of characters in long flags {text!r}")
        return frozenset(text[i : i + 2] for i in range(0, len(text), 2))
    if flag_type == "num":
        return frozenset(part.strip() for part in text.split(",") if part.strip())
    return frozenset(text)


def _condition_pattern(condition: str) -> tuple[re.Pattern[str], int]:
    """A regex matching exactly ``width`` characters, one per position of the condition."""
    parts: list[str] = []
    i = 0
    while i < len(condition):
        ch = condition[i]
        if ch == ".":
            parts.append("(?s:.)")
            i += 1
        elif ch == "[":
            end = condition.find("]", i + 1)
            if end < 0:
                raise ValueError(f"unclosed [ in condition {condition!r}")
            body = condition[i + 1 : end]
            negated = body.startswith("^")
            chars = body[1:] if negated else body
            if not chars:
                raise ValueError(f"empty character class in condition {condition!r}")
            escaped = "".join(re.escape(c) for c in chars)
            parts.append(f"[{'^' if negated else ''}{escaped}]")
            i = end + 1
        else:
            parts.append(re.escape(ch))
            i += 1
    return re.compile("".join(parts)), len(parts)


@dataclass(frozen=True)
class AffixRule:
    """One PFX or SFX line: remove ``strip``, add ``append``, when ``condition`` holds."""

    kind: str
    flag: str
    cross_product: bool
    strip: str
    append: str
    condition: str
    continuation: frozenset[str]
    morphology: str
    line: int
    _pattern: re.Pattern[str] = field(repr=False, compare=False)
    _width: int = field(repr=False, compare=False)

    @property
    def is_prefix(self) -> bool:
        return self.kind == "PFX"

    def applies_to(self, word: str, fullstrip: bool = False) -> bool:
        """Whether ``word`` meets the condition and keeps at least one letter after stripping."""
        size = len(word)
        if size < self._width or size < len(self.strip) + (not fullstrip):
            return False
        if self.kind == "PFX":
            return (
                word.startswith(self.strip)
                and self._pattern.fullmatch(word, 0, self._width) is not None
            )
        return (
            word.endswith(self.strip)
            and self._pattern.fullmatch(word, size - self._width) is not None
        )

    def apply(self, word: str) -> str:
        if self.is_prefix:
            return self.append + word[len(self.strip) :]
        return word[: len(word) - len(self.strip)] + self.append


@dataclass(frozen=True)
class AffixFile:
    """The parts of a .aff file that decide which word forms exist."""

    encoding: str
    flag_type: str
    prefixes: Mapping[str, tuple[AffixRule, ...]]
    suffixes: Mapping[str, tuple[AffixRule, ...]]
    need_affix: str | None = None
    forbidden_word: str | None = None
    fullstrip: bool = False

    def flags(self, text: str) -> frozenset[str]:
        return parse_flags(text, self.flag_type)


@dataclass(frozen=True)
class Stem:
    """A .dic entry: the stem as written and the affix flags it carries."""

    word: str
    flags: frozenset[str]
    line: int


@dataclass(frozen=True)
class Form:
    """A word form and how it was made: the stem and the affix rules applied, in order."""

    word: str
    stem: Stem
    affixes: tuple[AffixRule, ...] = ()


def _read_text(path: Path, encoding: str | None) -> str:
    try:
        data = read_input(path, HUNSPELL)
    except InputFileError as exc:
        raise HunspellFormatError(str(exc)) from None
    if encoding is None:
        match = re.search(rb"^[ \t]*SET[ \t]+(\S+)", data, re.MULTILINE)
        encoding = match.group(1).decode("ascii", "replace") if match else "ISO8859-1"
    try:
        return data.decode(_python_codec(encoding)).removeprefix("\ufeff")
    except (LookupError, UnicodeDecodeError) as exc:
        raise HunspellFormatError(f"{path}: cannot decode as {encoding}: {exc}") from exc


def _python_codec(name: str) -> str:
    name = name.lower()
    return name.removeprefix("microsoft-").replace("koi8-u", "koi8_u")


def parse_aff(text: str, source: str = "<aff>") -> AffixFile:
    """Parse the text of a .aff file; raise HunspellFormatError naming the line at fault."""
    encoding, flag_type = "ISO8859-1", "char"
    need_affix = forbidden = None
    fullstrip = False
    rules: dict[str, dict[str, list[AffixRule]]] = {"PFX": {}, "SFX": {}}
    cross: dict[tuple[str, str], bool] = {}
    pending: tuple[str, str, int] | None = None  # kind, flag, rules still expected
    for number, raw in enumerate(lines(text), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        keyword = fields[0]
        where = f"{source}, line {number}"
        if pending is not None:
            kind, flag, left = pending
            if len(fields) < 4 or fields[0] != kind or fields[1] != flag:
                raise HunspellFormatError(f"{where}: {left} more {kind} {flag} rules expected")
            rule = _parse_rule(fields, cross[(kind, flag)], number, where, flag_type)
            rules[kind][flag].append(rule)
            pending = (kind, flag, left - 1) if left > 1 else None
        elif keyword in ("PFX", "SFX"):
            if len(fields) < 4 or fields[2] not in ("Y", "N") or not fields[3].isdigit():
                raise HunspellFormatError(
                    f"{where}: malformed {keyword} header (expected: {keyword} FLAG Y|N COUNT)"
                )
            if (keyword, fields[1]) in cross:
                raise HunspellFormatError(f"{where}: {keyword} {fields[1]} declared twice")
            cross[(keyword, fields[1])] = fields[2] == "Y"
            rules[keyword][fields[1]] = []
            if int(fields[3]):
                pending = (keyword, fields[1], int(fields[3]))
        elif keyword in _UNSUPPORTED:
            raise HunspellFormatError(f"{where}: {keyword} is not supported by this expander")
        elif keyword == "SET" and len(fields) > 1:
            encoding = fields[1]
        elif keyword == "FLAG" and len(fields) > 1:
            if fields[1] not in _FLAG_TYPES:
                raise HunspellFormatError(f"{where}: unknown FLAG type {fields[1]}")
            flag_type = fields[1]
        elif keyword in ("NEEDAFFIX", "PSEUDOROOT") and len(fields) > 1:
            need_affix = fields[1]
        elif keyword == "FORBIDDENWORD" and len(fields) > 1:
            forbidden = fields[1]
        elif keyword == "FULLSTRIP":
            fullstrip = True
    if pending is not None:
        kind, flag, left = pending
        raise HunspellFormatError(f"{source}: file ends with {left} {kind} {flag} rules missing")
    return AffixFile(
        encoding=encoding,
        flag_type=flag_type,
        prefixes={flag: tuple(r) for flag, r in rules["PFX"].items()},
        suffixes={flag: tuple(r) for flag, r in rules["SFX"].items()},
        need_affix=need_affix,
        forbidden_word=forbidden,
        fullstrip=fullstrip,
    )


def _parse_rule(fields: list[str], cross: bool, line: int, where: str, flag_type: str) -> AffixRule:
    kind, flag, strip, append = fields[:4]
    condition = fields[4] if len(fields) > 4 else "."
    append, _, continuation = append.partition("/")
    try:
        pattern, width = _condition_pattern(condition)
        flags = parse_flags(continuation, flag_type)
    except ValueError as exc:
        raise HunspellFormatError(f"{where}: {exc}") from exc
    return AffixRule(
        kind=kind,
        flag=flag,
        cross_product=cross,
        strip="" if strip == "0" else strip,
        append="" if append == "0" else append,
        condition=condition,
        continuation=flags,
        morphology=" ".join(fields[5:]),
        line=line,
        _pattern=pattern,
        _width=width,
    )


def parse_dic(text: str, affixes: AffixFile, source: str = "<dic>") -> Iterator[Stem]:
    """The stems of a .dic file; its first line (the approximate count) is skipped."""
    for number, raw in enumerate(list(lines(text))[1:], start=2):
        entry = raw.split("\t", 1)[0].strip()
        if not entry or entry.startswith("#"):
            continue
        entry = entry.split(" ", 1)[0]
        word, flags = _split_entry(entry)
        try:
            parsed = affixes.flags(flags)
        except ValueError as exc:
            raise HunspellFormatError(f"{source}, line {number}: {exc}") from exc
        yield Stem(word=word, flags=parsed, line=number)


def _split_entry(entry: str) -> tuple[str, str]:
    """Split ``word/flags`` at the first slash not escaped as ``\\/``."""
    i = 0
    while i < len(entry):
        if entry[i] == "\\" and i + 1 < len(entry) and entry[i + 1] == "/":
            i += 2
            continue
        if entry[i] == "/" and i > 0:
            return entry[:i].replace("\\/", "/"), entry[i + 1 :]
        i += 1
    return entry.replace("\\/", "/"), ""


def expand_stem(stem: Stem, affixes: AffixFile) -> Iterator[Form]:
    """Every form of one stem: itself, its suffixed and prefixed forms, and cross products."""
    if affixes.forbidden_word is not None and affixes.forbidden_word in stem.flags:
        return
    need = affixes.need_affix
    if need is None or need not in stem.flags:
        yield Form(stem.word, stem)
    suffixed: list[Form] = []
    for flag in sorted(stem.flags):
        for rule in affixes.suffixes.get(flag, ()):
            if not rule.applies_to(stem.word, affixes.fullstrip):
                continue
            form = Form(rule.apply(stem.word), stem, (rule,))
            if need is None or need not in rule.continuation:
                yield form
            if rule.cross_product:
                suffixed.append(form)
            for longer in _continue_suffix(form, rule, affixes):
                yield longer
                if rule.cross_product and longer.affixes[-1].cross_product:
                    suffixed.append(longer)
    for flag in sorted(stem.flags):
        for rule in affixes.prefixes.get(flag, ()):
            if rule.applies_to(stem.word, affixes.fullstrip) and (
                need is None or need not in rule.continuation
            ):
                yield Form(rule.apply(stem.word), stem, (rule,))
            if not rule.cross_product:
                continue
            for form in suffixed:
                if rule.applies_to(form.word, affixes.fullstrip):
                    yield Form(rule.apply(form.word), stem, (rule, *form.affixes))


def _continue_suffix(form: Form, rule: AffixRule, affixes: AffixFile) -> Iterator[Form]:
    for flag in sorted(rule.continuation):
        for outer in affixes.suffixes.get(flag, ()):
            if outer.applies_to(form.word, affixes.fullstrip):
                yield Form(outer.apply(form.word), form.stem, (*form.affixes, outer))


@dataclass(frozen=True)
class Hunspell:
    """A parsed .aff/.dic pair."""

    affixes: AffixFile
    stems: tuple[Stem, ...]

    @classmethod
    def read(cls, aff: Path, dic: Path) -> Hunspell:
        affixes = parse_aff(_read_text(aff, None), str(aff))
        stems = tuple(parse_dic(_read_text(dic, affixes.encoding), affixes, str(dic)))
        return cls(affixes, stems)

    def forms(self) -> Iterator[Form]:
        for stem in self.stems:
            yield from expand_stem(stem, self.affixes)
