"""The pages' Romanian: gettext catalogues (`locale/ro/*.po`, one per page, merged), read with
Babel when a process first makes a page, so that there is no compiled `.mo` file to keep in
step and no build step. A test extracts every message from the templates and page modules
(`babel.cfg`) and holds the catalogues to them: each translated, none left over."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from io import BytesIO
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from babel.support import NullTranslations

LANGUAGES = ("ro", "en")
"""The pages' languages, the default first."""


@cache
def translations(lang: str) -> NullTranslations:
    """The catalogues of `lang` merged (none for English: the messages are English)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import NullTranslations, Translations

    if lang == "en":
        return NullTranslations()
    merged: Translations | None = None
    folder = files("pipelines.server.pages").joinpath("locale", lang)
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
