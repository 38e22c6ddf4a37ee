from pathlib import Path

import pytest

from pipelines.lexicons import cache_path, default_sha256, load_dictionary
from tests.ledger.conftest import db_url, pg_url, sqlite_url  # noqa: F401 (the ledger backends)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """An empty data directory of this test's own (no registered lists, no caches)."""
    monkeypatch.setenv("ARBITRU_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def default_home(_arbitru_home) -> Path:
    """The session's data directory with the default list's cache built (once, about 10 s)."""
    if not cache_path(default_sha256()).is_file():
        load_dictionary()
    return _arbitru_home
