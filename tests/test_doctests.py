"""Every docstring example in the public packages runs and gives its output."""

import doctest
import importlib
import pkgutil

import pytest

import candidates
import common
import flows
import sim
import synth
import traffic


def modules():
    for pkg in (common, candidates, traffic, flows, sim, synth):
        yield pkg.__name__
        # subpackages' modules too (candidates.search.*)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}."):
            if not info.name.endswith("__main__"):
                yield info.name


@pytest.mark.parametrize("name", list(modules()))
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
