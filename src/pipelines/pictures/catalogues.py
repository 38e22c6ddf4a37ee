"""Romanian for what people read: gettext catalogues (`locale/ro/*.po` beside the package that
shows the texts, one per page or subject, merged), read with Babel the first time a process
needs them, so that there is no compiled `.mo` file to keep in step and no build step. The
server's pages have theirs (`pipelines.server.pages`); the reasons a slip does not count are
here, for the pages and the replay file alike (`pipelines.pictures.reasons`)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from io import BytesIO
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.support import NullTranslations

LANGUAGES = ("ro", "en")
"""The languages people read Arbitru in, the default first (the texts are written in English,
so English has no catalogue)."""


def N_(message: str) -> str:
    """Mark `message` for the catalogue where it is written (a table of words) and translate
    it where it is shown."""
    return message


@cache
def translations(package: str, lang: str) -> NullTranslations:
    """The catalogues of `lang` beside `package` merged (none for English)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import NullTranslations, Translations

    if lang == "en":
        return NullTranslations()
    merged: Translations | None = None
    folder = files(package).joinpath("locale", lang)
    for po in sorted(folder.iterdir(), key=lambda f: f.name):
        if not po.name.endswith(".po"):
            continue
        with po.open("rb") as source:
            catalog = read_po(source, locale=lang)
        compiled = BytesIO()
        write_mo(compiled, catalog)
        compiled.seek(0)
        one = Translations(compiled)
        merged = one if merged is None else merged.merge(one)
    return merged if merged is not None else NullTranslations()
