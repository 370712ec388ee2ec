"""Fixtures of the simulator's tests."""

import pytest

from sim import cache as sim_cache


@pytest.fixture
def empty_table_cache():
    """The process's table cache emptied first: a test asserting that a refused run kept nothing must not see
    what a test run before it on the same worker (another file, under pytest-xdist) kept."""
    sim_cache.clear()
