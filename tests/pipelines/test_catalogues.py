"""The Romanian catalogues hold every message the server's pages and the replay page show
(extracted as `pybabel extract -F babel.cfg` would, per package), each translated with its
placeholders, none left over, none in two catalogues; and every reason code of the engine has
its Romanian text: no page shows an English sentence to a Romanian reader by oversight."""

from __future__ import annotations

import configparser
import re
from importlib.resources import files

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from engine.problems import CODES
from pipelines.pictures.reasons import reason_text, reason_texts

PACKAGES = ["pipelines.server.pages", "pipelines.pictures"]


def extracted(package: str) -> set[str]:
    where = files(package)
    config = configparser.ConfigParser()
    config.read_string(where.joinpath("babel.cfg").read_text("utf-8"))
    method_map = []
    for section in config.sections():  # `[method: pattern]`, as pybabel reads it
        method, _, pattern = section.partition(":")
        method_map.append((pattern.strip(), method.strip()))
    return {
        message if isinstance(message, str) else message[0]
        for _file, _line, message, _comments, _context in extract_from_dir(str(where), method_map)
    }


def catalogues(package: str, context: str | None = None) -> dict[str, dict[str, str]]:
    """Each Romanian catalogue of `package`: its messages of `context` (None: the extracted
    ones) and their translations."""
    held = {}
    folder = files(package).joinpath("locale", "ro")
    for po in sorted(folder.iterdir(), key=lambda f: f.name):
        with po.open("rb") as source:
            catalog = read_po(source, locale="ro")
        held[po.name] = {
            m.id: m.string for m in catalog if m.id and not m.fuzzy and m.context == context
        }
    return held


@pytest.mark.parametrize("package", PACKAGES)
def test_every_message_shown_is_translated_into_romanian(package) -> None:
    held = catalogues(package).values()
    translated = {m for catalogue in held for m, text in catalogue.items() if text}
    assert sorted(extracted(package) - translated) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_the_catalogues_hold_no_message_no_longer_shown(package) -> None:
    held = {m for catalogue in catalogues(package).values() for m in catalogue}
    assert sorted(held - extracted(package)) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_message_is_in_two_catalogues(package) -> None:
    seen: dict[str, str] = {}
    twice = []
    for name, catalogue in catalogues(package).items():
        for message in catalogue:
            if message in seen:
                twice.append((message, seen[message], name))
            seen[message] = name
    assert twice == []


@pytest.mark.parametrize("package", PACKAGES)
def test_placeholders_are_kept_in_the_translation(package) -> None:
    def placeholders(text: str) -> list[str]:
        return sorted(re.findall(r"%\(\w+\)s|\{\w+\}", text))

    for catalogue in catalogues(package).values():
        for message, text in catalogue.items():
            assert placeholders(message) == placeholders(text), message


def test_every_reason_code_of_the_engine_has_its_romanian_text_and_no_other() -> None:
    held = catalogues("pipelines.pictures", "reason").values()
    reasons = {m for catalogue in held for m, text in catalogue.items() if text}
    assert sorted(set(CODES) ^ reasons) == []


def test_a_reason_reads_in_romanian_and_in_the_engines_english() -> None:
    assert reason_text("late", "ro") == "primită după termenul rundei"
    assert reason_text("late", "en") == CODES["late"]
    said = "VARZ is not in the game's dictionary"
    assert reason_text("not_in_dictionary", "en", said) == said
    assert reason_texts("ro")["not_in_dictionary"].startswith("un cuvânt format nu este")
