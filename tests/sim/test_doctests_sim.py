"""Every docstring example of the sim package runs and gives its output."""

import doctest
import importlib
import pkgutil

import pytest

import sim


def modules():
    yield sim.__name__
    for info in pkgutil.iter_modules(sim.__path__):
        if info.name != "__main__":
            yield f"{sim.__name__}.{info.name}"


@pytest.mark.parametrize("name", list(modules()))
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
