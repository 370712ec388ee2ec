"""Session-wide test settings."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _search_cache(tmp_path_factory):
    """Searched graphs rebuilt from specs are cached in a folder of the test session, not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TOPOSYNTH_CACHE", str(tmp_path_factory.mktemp("toposynth-cache")))
    yield
    mp.undo()
