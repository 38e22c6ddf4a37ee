"""Why a move, a slip or a command does not count, in the reader's language.

The engine gives each reason a stable code and an English message (`engine.problems.CODES`);
the codes are its public contract, so the Romanian catalogue translates the codes themselves
(`locale/ro/reasons.po`: the code as the message id, in the context `reason`), and a test holds
it to every code the engine has. An English reader gets the engine's message, or the judged
problem's own when the page has it (it may name the word or the square)."""

from __future__ import annotations

from functools import cache

from engine.problems import CODES
from pipelines.pictures.catalogues import translations

_CONTEXT = "reason"


def reason_text(code: str, lang: str, said: str | None = None) -> str:
    """The reason `code` in `lang`: in English `said` (the problem's own message) or the
    engine's; else the catalogue's, falling back to English for a code it lacks."""
    if lang != "en":
        translated = translations("pipelines.pictures", lang).pgettext(_CONTEXT, code)
        if translated != code:
            return translated
    return said or CODES.get(code, code)


@cache
def reason_texts(lang: str) -> dict[str, str]:
    """Every reason in `lang`, by code: what a page's script is handed to show the codes the
    API answers with, and the replay file the codes of its slips."""
    return {code: reason_text(code, lang) for code in CODES}
