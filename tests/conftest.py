"""Session-wide test settings."""

import os

import pytest

#: workers of ``-n auto`` at most: each compiles the kernels its tests need from a cold cache, so past a few
#: workers the compiles repeated outweigh the tests shared out
MAX_WORKERS = 4


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: the cores this process may run on, at most :data:`MAX_WORKERS`."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


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
