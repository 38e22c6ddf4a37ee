"""`arbitru lexicon`: build the default word list, register federation lists, look words up.

Exit codes: 0 success (for `check`, the word is valid), 1 the word is not valid, 2 an error
(message on stderr saying what to do). Hashes and paths are printed whole whatever the
terminal's width, so that they can be pasted into `--dict`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.tiles import fold_word
from pipelines.cli.inputs import JsonOption, emit_json, fail
from pipelines.cli.lexicon_progress import on_stderr, progress_on_stderr, wanted
from pipelines.lexicons.build import DEFAULT_MIN_WORDS, BuildInputMissing, ImplausibleBuild, build
from pipelines.lexicons.cache import describe, load_dictionary
from pipelines.lexicons.hunspell import HunspellFormatError
from pipelines.lexicons.registry import LexiconSpecError, ListInfo, register_list
from pipelines.lexicons.wordlists import WordListError

lexicon_app = typer.Typer(help="Word lists.", no_args_is_help=True)

_EXPECTED = (
    BuildInputMissing,
    HunspellFormatError,
    ImplausibleBuild,
    LexiconSpecError,
    WordListError,
    OSError,
)


@contextmanager
def _errors() -> Iterator[None]:
    """Known failures become one line on stderr and exit code 2, not a traceback."""
    try:
        yield
    except _EXPECTED as exc:
        text = str(exc)
        if isinstance(exc, OSError) and exc.strerror:
            text = f"{exc.filename or ''}: {exc.strerror}".lstrip(": ")
        fail(text)


def _emit(as_json: bool, payload: dict[str, Any], human: Callable[[Console], None]) -> None:
    if as_json:
        emit_json(payload, sort_keys=False)
    else:
        human(Console(highlight=False, emoji=False))


@lexicon_app.command("build")
def build_command(
    aff: Annotated[Path | None, typer.Option(help="Hunspell .aff (default: rospell)")] = None,
    dic: Annotated[Path | None, typer.Option(help="Hunspell .dic (default: rospell)")] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            file_okay=False, help="Directory to write the list files into (default: register it)"
        ),
    ] = None,
    include: Annotated[Path | None, typer.Option(help="Words to add (word list)")] = None,
    exclude: Annotated[Path | None, typer.Option(help="Words to remove (word list)")] = None,
    min_words: Annotated[
        int, typer.Option(min=1, help="Refuse a result with fewer words than this")
    ] = DEFAULT_MIN_WORDS,
    as_json: JsonOption = False,
) -> None:
    """Build the word list from rospell and register it, or write it into --out (developers:
    extra lexicon-build). The shipped default list is never replaced."""
    started = time.perf_counter()
    with _errors(), progress_on_stderr(wanted(as_json)) as report:
        result, files = build(out, aff, dic, include, exclude, min_words=min_words, report=report)
    seconds = time.perf_counter() - started
    payload = {
        "sha256": result.sha256,
        "words": len(result.words),
        "two_letter": len(result.two_letter),
        "stages": [{"stage": s.name, "words": s.words} for s in result.stages],
        "included": result.included,
        "excluded": result.excluded,
        "registered": files.registered,
        "words_file": str(files.words),
        "words_file_bytes": files.words_xz_bytes,
        "words_file_sha256": files.words_xz_sha256,
        "seconds": round(seconds, 1),
    }

    def human(console: Console) -> None:
        table = Table("stage", "words left", "what", title="Filters")
        for stage in result.stages:
            table.add_row(stage.name, f"{stage.words:,}", stage.description)
        console.print(table)
        console.print(
            f"include +{result.included:,}, exclude -{result.excluded:,}: "
            f"[bold]{len(result.words):,}[/] words, {len(result.two_letter)} of two letters"
        )
        _line(console, f"dictionary SHA-256 {result.sha256}")
        if files.registered:
            _line(console, f"registered in {files.words}: use it with --dict {result.sha256}")
        elif out is None:
            _line(console, "the same list as the shipped default: nothing to register")
        else:
            _line(console, f"wrote {files.words} ({files.words_xz_bytes:,} bytes)")
        console.print(f"in {seconds:.1f} s")

    _emit(as_json, payload, human)


def _line(console: Console, text: str) -> None:
    """One line printed whole, never wrapped or cut: hashes and paths are pasted elsewhere."""
    console.print(text, soft_wrap=True, markup=False)


def _info_payload(info: ListInfo) -> dict[str, Any]:
    entry = info.entry
    return {
        "sha256": entry.sha256,
        "name": entry.name,
        "registered": info.registered,
        "words": info.words,
        "two_letter": info.two_letter,
        "skipped": info.skipped,
        "source": entry.source,
        "words_path": str(entry.words_path),
        "two_letter_path": str(entry.two_letter_path) if entry.two_letter_path else None,
        "cache_path": str(entry.cache_path),
        "cached": info.cached,
    }


def _show_info(payload: dict[str, Any]) -> Callable[[Console], None]:
    def human(console: Console) -> None:
        width = max(len(key) for key in payload)
        for key, value in payload.items():
            if value is None:
                value = "(the list's own two-letter words)"
            elif isinstance(value, bool):
                value = "yes" if value else "no"
            elif isinstance(value, int):
                value = f"{value:,}"
            _line(console, f"{key.replace('_', ' '):<{width}}  {value}")
        if not payload["registered"]:
            _line(console, f"not registered: `arbitru lexicon add {payload['words_path']}`")

    return human


@lexicon_app.command("add")
def add_command(
    path: Annotated[Path, typer.Argument(help="Word list: one word per line, UTF-8")],
    two_letter: Annotated[
        Path | None, typer.Option("--two-letter", help="Its two-letter list (word list)")
    ] = None,
    name: Annotated[str | None, typer.Option(help="A name to show (default: file name)")] = None,
    rename: Annotated[
        bool, typer.Option("--rename", help="Give an already registered list the new --name")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Register a word list under the SHA-256 of its folded, sorted words, and build its cache.

    A list registered already keeps its name: another --name needs --rename."""
    with _errors():
        entry = register_list(path, two_letter, name, rename)
        load_dictionary(entry.sha256, progress=on_stderr(as_json))
        info = describe(entry.sha256)
    payload = _info_payload(info)
    _emit(as_json, payload, _show_info(payload))


@lexicon_app.command("info")
def info_command(
    spec: Annotated[
        str | None, typer.Argument(help="'default', a word-list path or a registered SHA-256")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Show a dictionary's hash, name, counts, source and cache file; registers nothing."""
    with _errors():
        info = describe(spec)
    payload = _info_payload(info)
    _emit(as_json, payload, _show_info(payload))


@lexicon_app.command("check")
def check_command(
    word: Annotated[str, typer.Argument(help="The word, with or without diacritics")],
    spec: Annotated[
        str | None, typer.Option("--dict", help="'default', a path or a registered SHA-256")
    ] = None,
    two_letter: Annotated[
        Path | None, typer.Option("--two-letter", help="Replace the two-letter list")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Say whether a word is valid (exit 0) or not (exit 1)."""
    with _errors():
        dictionary = load_dictionary(
            spec, str(two_letter) if two_letter else None, progress=on_stderr(as_json)
        )
    folded = fold_word(word)
    reason = None
    if folded is None:
        reason = "not a word of letters A-Z (after folding diacritics)"
    elif folded not in dictionary.words:
        reason = "not in the dictionary"
    elif not dictionary.accepts(folded):
        reason = "a two-letter word not on the two-letter list"
    payload = {
        "word": word,
        "folded": folded,
        "valid": reason is None,
        "reason": reason,
        "dictionary": dictionary.sha256,
        "name": dictionary.name,
    }

    def human(console: Console) -> None:
        verdict = "[green]valid[/]" if reason is None else f"[red]invalid[/]: {reason}"
        console.print(
            f"{escape(folded or word)}: {verdict} ({escape(dictionary.name)}, "
            f"SHA-256 {dictionary.sha256})",
            soft_wrap=True,
        )

    _emit(as_json, payload, human)
    if reason is not None:
        raise typer.Exit(1)
