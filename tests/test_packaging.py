"""`pip install .` (not editable) ships every module: the package list in pyproject.toml is
explicit, so a new folder of modules left out of it works in a checkout and fails once
installed (a user would meet `ModuleNotFoundError`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_every_folder_of_modules_under_src_is_a_listed_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    src = ROOT / "src"
    folders = {
        ".".join(path.parent.relative_to(src).parts)
        for path in src.rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
