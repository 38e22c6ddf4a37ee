"""Typer's help renderer, loaded without the Markdown and traceback renderers it never uses here.

`typer.rich_utils`, which Typer imports to draw any help or usage error, imports Rich's
Markdown renderer (and with it markdown-it) and Rich's traceback renderer (and Pygments) at
its top: a quarter of `arbitru --help`'s time. Neither ever renders in Arbitru: its help is
Rich markup, never Markdown (`rich_markup_mode` stays "rich"), and Typer's pretty tracebacks
are off (`pretty_exceptions_enable=False`; `pipelines.cli.arbitru` says what an unexpected
error prints). So while `typer.rich_utils` loads, `rich.markdown` and `rich.traceback` are
stand-ins whose `Markdown` and `Traceback` import the real class when called; once it has
loaded they are gone, and any other import of either module gets the real one.
"""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.util import find_spec
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importlib.abc loads importlib.resources and tempfile: 2.5 ms of a help
    from collections.abc import Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec

RENDERER = "typer.rich_utils"
UNUSED = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}
"""Module the renderer imports but never needs here: the one name it takes from it."""


def _on_first_call(module: str, name: str) -> type:
    """Class `name` of `module` as a stand-in: calling it imports the module and returns an
    instance of the real class."""

    def made(cls: type, *args: Any, **kwargs: Any) -> Any:
        return getattr(import_module(module), name)(*args, **kwargs)

    return type(name, (), {"__new__": made, "__module__": module})


class _Renderer:
    """Finds `typer.rich_utils` as Python would, and runs it with the stand-ins in place: a
    finder on `sys.meta_path` and the loader of the spec it returns (Python asks neither to
    derive from importlib's abstract classes, only for these methods)."""

    def __init__(self) -> None:
        self._loader: Loader | None = None

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != RENDERER:
            return None
        sys.meta_path.remove(self)  # once: the renderer is imported once per process
        spec = find_spec(fullname)
        if spec is not None and spec.loader is not None:
            self._loader, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        assert self._loader is not None  # find_spec set it before Python calls this
        stand_ins = {name: ModuleType(name) for name in UNUSED if name not in sys.modules}
        for name, stand_in in stand_ins.items():
            setattr(stand_in, UNUSED[name], _on_first_call(name, UNUSED[name]))
        sys.modules.update(stand_ins)
        try:
            self._loader.exec_module(module)
        finally:
            for name in stand_ins:
                del sys.modules[name]


def load_help_renderer_lightly() -> None:
    """From now on, Typer's help renderer loads without the renderers it never uses here (a
    no-op once it is loaded)."""
    if RENDERER not in sys.modules:
        sys.meta_path.insert(0, _Renderer())
