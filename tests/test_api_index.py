"""docs/API.md, the public API in one place, is what ``python -m synth.api_index`` writes, and every public
function and class has a docstring with an example that the doctest run collects (tests/test_doctests.py runs
them)."""

import doctest
import importlib
import inspect
import sys
from pathlib import Path

from synth import api_index

API_MD = Path(__file__).resolve().parents[1] / "docs" / "API.md"


def _public():
    for package in api_index.PACKAGES:
        pkg = importlib.import_module(package)
        for name in pkg.__all__:
            yield package, name, getattr(pkg, name)


def test_api_md_is_the_generated_page():
    assert API_MD.read_text() == api_index.render(), (
        f"docs/API.md is out of date with the packages' __all__ or docstrings; regenerate it from the "
        f"repository's root with `PYTHONPATH=src {api_index.COMMAND}`")


def test_every_public_name_is_described():
    bare = [f"{package}.{name}" for package in api_index.PACKAGES
            for name, kind, description in api_index.package_rows(package) if not description.strip()]
    assert not bare, f"public names without a docstring (a constant: a #: comment above it): {bare}"


def test_every_public_callable_has_a_docstring_example():
    missing = [f"{package}.{name}" for package, name, obj in _public()
               if (inspect.isclass(obj) or callable(obj)) and ">>>" not in (obj.__doc__ or "")]
    assert not missing, f"public functions and classes whose docstring has no example (>>>): {missing}"


def test_the_examples_are_collected_where_the_doctest_run_looks():
    # tests/test_doctests.py runs doctest.testmod on every module: an object's examples run with the module
    # that defines it, as that module's test named after the object
    finder = doctest.DocTestFinder(exclude_empty=True)
    found: dict[str, set[str]] = {}
    lost = []
    for package, name, obj in _public():
        if not (inspect.isclass(obj) or callable(obj)):
            continue
        module = obj.__module__
        if module not in found:
            found[module] = {t.name for t in finder.find(sys.modules[module]) if t.examples}
        if f"{module}.{obj.__qualname__}" not in found[module]:
            lost.append(f"{package}.{name}")
    assert not lost, f"examples the doctest run does not collect: {lost}"
