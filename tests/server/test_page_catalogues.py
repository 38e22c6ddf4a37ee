"""The pages' Romanian catalogues hold every message the templates and page modules show
(extracted as `pybabel extract -F babel.cfg` would), each translated, none left over, none in
two catalogues, and every reason code of the engine: a page never shows an English sentence
to a Romanian reader by oversight."""

from __future__ import annotations

from importlib.resources import files

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from engine.problems import CODES
from pipelines.pictures.reasons import reason_text, reason_texts

PAGES = files("pipelines.server.pages")


def extracted() -> set[str]:
    with PAGES.joinpath("babel.cfg").open() as config:
        from babel.messages.frontend import parse_mapping_cfg

        method_map, options_map = parse_mapping_cfg(config)
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(PAGES), method_map, options_map
    ):
        found.add(message if isinstance(message, str) else message[0])
    return found


def catalogues(context: str | None = None, where=PAGES) -> dict[str, dict[str, str]]:
    """Each Romanian catalogue's translated messages of `context` (None: the pages' own)."""
    held = {}
    for po in sorted(where.joinpath("locale", "ro").iterdir(), key=lambda f: f.name):
        with po.open("rb") as source:
            catalog = read_po(source, locale="ro")
        held[po.name] = {
            m.id: m.string for m in catalog if m.id and not m.fuzzy and m.context == context
        }
    return held


def test_every_message_of_the_pages_is_translated_into_romanian() -> None:
    translated = {m for held in catalogues().values() for m, text in held.items() if text}
    assert sorted(extracted() - translated) == []


def test_the_catalogues_hold_no_message_the_pages_no_longer_show() -> None:
    held = {m for catalogue in catalogues().values() for m in catalogue}
    assert sorted(held - extracted()) == []


def test_no_message_is_in_two_catalogues() -> None:
    seen: dict[str, str] = {}
    twice = []
    for name, catalogue in catalogues().items():
        for message in catalogue:
            if message in seen:
                twice.append((message, seen[message], name))
            seen[message] = name
    assert twice == []


def test_placeholders_are_kept_in_the_translation() -> None:
    import re

    for catalogue in catalogues().values():
        for message, text in catalogue.items():
            assert sorted(re.findall(r"%\(\w+\)s", message)) == sorted(
                re.findall(r"%\(\w+\)s", text)
            ), message


def test_every_reason_code_of_the_engine_has_its_romanian_text_and_no_other() -> None:
    held = catalogues("reason", files("pipelines.pictures")).values()
    reasons = {m: text for catalogue in held for m, text in catalogue.items()}
    assert sorted(set(CODES) ^ {m for m, text in reasons.items() if text}) == []


def test_a_reason_reads_in_romanian_and_in_the_engines_english() -> None:
    assert reason_text("late", "ro") == "primită după termenul rundei"
    assert reason_text("late", "en") == CODES["late"]
    said = "VARZ is not in the game's dictionary"
    assert reason_text("not_in_dictionary", "en", said) == said
    assert reason_texts("ro")["not_in_dictionary"].startswith("un cuvânt format nu este")
