"""How a page is made: a Jinja2 template (beside this module, in `templates/`), in the
reader's language, with what every page shows (who is signed in, the language switch, the
form token).

The words are English in the templates and Python (`_("…")`, `N_("…")`), and Romanian in
gettext catalogues beside this module (`locale/ro/*.po`, one per page; read as
`pipelines.pictures.catalogues` reads them). A test extracts every message from the templates
and page modules (`babel.cfg`) and holds the catalogues to them: each translated, none left
over.

The language is Romanian unless the reader asks otherwise: `?lang=en` (which the switch on
every page links to, and which a cookie then keeps), else the cookie, else the first of ours
the browser's `Accept-Language` names.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import HTMLResponse

from pipelines.pictures.catalogues import LANGUAGES, N_
from pipelines.pictures.catalogues import translations as catalogues_of
from pipelines.pictures.reasons import reason_text

if TYPE_CHECKING:
    from babel.support import NullTranslations
    from jinja2 import Environment

LANGUAGE_NAMES = {"ro": "Română", "en": "English"}
"""Each language by its own name, as the switch shows it."""

LANGUAGE_COOKIE = "arbitru_lang"
_YEAR_S = 365 * 24 * 3600


VARIANT_NAMES = {
    "duplicate": N_("Duplicate"),
    "completiv": N_("Duplicate-completiv"),
    "anticipation": N_("Anticipation with metagrams"),
    "eliptic": N_("Eliptic"),
}
STATUS_NAMES = {
    "created": N_("Not started"),
    "open": N_("Round open"),
    "closed": N_("Round closed"),
    "ended": N_("Ended"),
}
"""How every page names a game's variant and its status (`pipelines.games.listing`), each
marked for the catalogue and translated where shown."""


def language(request: Request) -> str:
    """The language the page is made in: `?lang=`, else the cookie, else the browser's
    preference among ours, else Romanian."""
    asked = request.query_params.get("lang")
    if asked in LANGUAGES:
        return asked
    kept = request.cookies.get(LANGUAGE_COOKIE)
    if kept in LANGUAGES:
        return kept
    return _preferred(request.headers.get("accept-language", ""))


def _preferred(header: str) -> str:
    """The first of our languages in an `Accept-Language` header, by its weights."""
    weighed: list[tuple[float, int, str]] = []
    for order, part in enumerate(header.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGUAGES and weight > 0:
            weighed.append((-weight, order, primary))
    return min(weighed)[2] if weighed else LANGUAGES[0]


@cache
def environment(lang: str) -> Environment:
    """The templates in `lang` (one environment per language, made once per process)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    made = Environment(
        loader=PackageLoader("pipelines.server.pages", "templates"),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    made.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    made.filters["when"] = lambda moment: when(moment, lang)
    made.filters["reason"] = lambda code, said=None: reason_text(code, lang, said)
    made.globals["LANGUAGES"] = LANGUAGES
    made.globals["LANGUAGE_NAMES"] = LANGUAGE_NAMES
    return made


def translations(lang: str) -> NullTranslations:
    """The pages' catalogues in `lang`."""
    return catalogues_of("pipelines.server.pages", lang)


def translated(lang: str, message: str, **values: Any) -> str:
    """`message` in `lang`, with `%(name)s` placeholders filled: for texts made in Python."""
    text = translations(lang).gettext(message)
    return text % values if values else text


def when(moment: datetime | str | None, lang: str) -> str:
    """A recorded time as the page shows it without a script: date and time in UTC, in the
    reader's language (a script shows it in the reader's own time zone)."""
    if moment is None:
        return ""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    from babel.dates import format_datetime

    return format_datetime(moment, "medium", tzinfo=None, locale=lang) + " UTC"


def render(
    request: Request,
    template: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> HTMLResponse:
    """The page `template` made for this request: in its language, with the signed-in
    account (`account`, None for the public), the form token (`form_token`) and the path to
    switch language from (`here`) beside the route's own `context`."""
    from pipelines.server.pages.forms import form_token, keep_form_token

    lang = language(request)
    shown = (
        environment(lang)
        .get_template(template)
        .render(
            lang=lang,
            account=signed_in_account(request),
            form_token=form_token(request),
            here=request.url.path,
            **context,
        )
    )
    answer = HTMLResponse(shown, status_code=status, headers=headers)
    keep_form_token(request, answer)
    if request.query_params.get("lang") in LANGUAGES:
        answer.set_cookie(LANGUAGE_COOKIE, lang, max_age=_YEAR_S, path="/", samesite="lax")
    return answer


def signed_in_account(request: Request) -> str | None:
    """The account of the session cookie, or None (the public; a page never refuses a
    stale cookie: it shows the page to the public)."""
    from pipelines.server.callers import account_of
    from pipelines.server.problems import Problem

    try:
        return account_of(request)
    except Problem:
        return None
