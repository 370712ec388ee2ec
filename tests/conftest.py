"""Session-wide test settings."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _search_cache(tmp_path_factory):
    """Searched graphs rebuilt from specs are cached in a folder of the test session, not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TOPOSYNTH_CACHE", str(tmp_path_factory.mktemp("toposynth-cache")))
    yield
    mp.undo()


@pytest.fixture
def frame_rows():
    """A pandas DataFrame's rows as dicts, a missing value (NaN, None) as None: what to compare with the
    ``to_dict()`` values it tabulates (pandas turns None into NaN in a numeric column)."""
    def rows(df):
        return [{k: None if v is None or v != v else v for k, v in r.items()} for r in df.to_dict("records")]
    return rows
