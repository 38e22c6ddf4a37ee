"""Shared test set-up: word lists and caches go to a temporary data directory, never $HOME."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _arbitru_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("arbitru-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARBITRU_HOME", str(home))
        yield home
