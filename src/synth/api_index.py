"""The public API in one place: ``python -m synth.api_index > docs/API.md``.

Walks the ``__all__`` of ``candidates``, ``traffic``, ``flows``, ``sim`` and
``synth``, in that order (each floor before the ones that stand on it), and
writes one Markdown page: for each package what it is for (its docstring's
prose, up to its first example) and a table of its public names, each with
its kind and the first sentence of its docstring (a constant's: of its
``#:`` comment). ``tests/test_api_index.py`` checks that ``docs/API.md`` is
this output, so the page never drifts from the code.

This module is a documentation tool, not a floor of the tree: it loads the
packages it documents by name when it runs (nothing here is imported by the
packages, and nothing of theirs is imported at module level).

>>> summary("Solve ``problem`` to a gap (0: exact). ``solver``: a name of :data:`~flows.SOLVERS`.")
'Solve `problem` to a gap (0: exact).'
>>> summary("(Re)write ``out/report.html`` from ``out/results.json``: the answer first, then the figures, "
...         "the ranking, the winners drawn, and the study as TOML last, in one page with every picture.")
'(Re)write `out/report.html` from `out/results.json`.'
>>> [row[:2] for row in package_rows("traffic")][:3]
[('TrafficPattern', 'class'), ('traffic', 'function'), ('permutation', 'function')]
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any

__all__ = ["PACKAGES", "KINDS", "summary", "kind", "package_rows", "package_prose", "render", "main"]

#: the documented packages, in the page's order: each floor before the ones that stand on it
PACKAGES = ("candidates", "traffic", "flows", "sim", "synth")

#: what a public name can be: a function, a class, a registry (a mapping of names to entries of one
#: type) or a constant
KINDS = ("function", "class", "registry", "constant")

#: the command that writes the page (said in its header and in the test's failure message)
COMMAND = "python -m synth.api_index > docs/API.md"

#: abbreviations whose full stop does not end a sentence
_ABBREVIATIONS = ("e.g", "i.e", "et al", "cf", "vs", "Def", "Defs", "Fig", "Eq", "Sec", "resp")

#: longest first sentence kept whole; a longer one is cut at its first top-level colon or semicolon
_LONG = 160


def _markdown(text: str) -> str:
    """reST inline markup as Markdown: ``x`` and :role:`x` as `x` (:role:`~a.b` as `b`); ``|`` escaped."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda m: "`" + (m.group(1).rsplit(".", 1)[-1]
                                                            if m.group(0).split("`")[1].startswith("~")
                                                            else m.group(1)) + "`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return text.replace("|", "\\|")


def _sentence_end(text: str) -> int:
    """Index just past the first full stop that ends a sentence at the top level (outside
    parentheses, brackets and code), or the text's length."""
    depth, code, i = 0, False, 0
    while i < len(text):
        c = text[i]
        if text.startswith("``", i):
            code = not code
            i += 2
            continue
        if not code:
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(depth - 1, 0)
            elif c == "." and depth == 0:
                rest = text[i + 1:]
                word = re.search(r"(\S+)$", text[:i])
                abbreviation = word is not None and word.group(1).endswith(_ABBREVIATIONS)
                if not abbreviation and (not rest or (rest[0] == " " and rest[1:2] and
                                                      (rest[1].isupper() or rest[1] in "`:(*'\""))):
                    return i + 1
        i += 1
    return len(text)


def _cut_long(sentence: str) -> str:
    """A long sentence up to its first top-level ``: `` or ``; `` (after its first few words)."""
    if len(sentence) <= _LONG:
        return sentence
    depth, code = 0, False
    for i, c in enumerate(sentence):
        if sentence.startswith("``", i):
            code = not code
        elif not code and c in "([{":
            depth += 1
        elif not code and c in ")]}":
            depth = max(depth - 1, 0)
        elif not code and depth == 0 and i >= 20 and sentence.startswith((": ", "; "), i):
            return sentence[:i] + "."
    return sentence


def summary(doc: str | None) -> str:
    """The first sentence of a docstring's first paragraph, in Markdown (empty without a docstring)."""
    if not doc:
        return ""
    first = inspect.cleandoc(doc).split("\n\n", 1)[0]
    text = " ".join(first.split())
    return _markdown(_cut_long(text[:_sentence_end(text)]))


def kind(obj: Any) -> str:
    """One of :data:`KINDS`: a mapping whose values all have one type is a registry.

    >>> kind(summary), kind(ValueError), kind({"a": 1, "b": 2}), kind({"a": 1, "b": "x"}), kind(("a",))
    ('function', 'class', 'registry', 'constant', 'constant')
    """
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    if isinstance(obj, Mapping) and obj and len({type(v) for v in obj.values()}) == 1:
        return "registry"
    return "constant"


def _comment_above(module: ModuleType, name: str) -> str | None:
    """The ``#:`` comment above the top-level assignment of ``name`` in ``module``'s source, or
    None when the module does not assign ``name`` at its top level."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return None
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if name in names:
            i = node.lineno - 2
            comment: list[str] = []
            while i >= 0 and lines[i].lstrip().startswith("#:"):
                comment.insert(0, lines[i].lstrip()[2:].strip())
                i -= 1
            return " ".join(comment)
    return None


def _defined_in(package: str, name: str, obj: Any) -> tuple[str, str]:
    """(the module that defines public name ``name`` of ``package``, its description): a
    function's or class's own module and docstring, a constant's assigning module and ``#:``
    comment (searched among the documented packages' loaded modules)."""
    if inspect.isclass(obj) or callable(obj):
        return getattr(obj, "__module__", package), summary(obj.__doc__)
    found = [(m, c) for m, c in ((m, _comment_above(mod, name)) for m, mod in sorted(sys.modules.items())
                                 if m.split(".")[0] in PACKAGES and getattr(mod, name, None) is obj)
             if c is not None]
    if not found:
        return package, ""
    module, comment = found[0]
    text = summary(comment)
    return module, text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) or not text else ".")


def package_rows(package: str) -> list[tuple[str, str, str]]:
    """(name, kind, description) of every name in ``package.__all__``, in its order; a name
    another package defines says whose it is."""
    pkg = importlib.import_module(package)
    rows = []
    for name in pkg.__all__:
        obj = getattr(pkg, name)
        module, description = _defined_in(package, name, obj)
        home = module.split(".")[0]
        if home != package:
            description = f"{description} (from `{home}`)".strip()
        rows.append((name, kind(obj), description))
    return rows


def package_prose(package: str) -> str:
    """What ``package`` is for: its docstring up to its first example, the
    ``toposynth.NAME --`` prefix of its first line dropped, as one paragraph."""
    doc = inspect.cleandoc(importlib.import_module(package).__doc__ or "")
    prose = doc.split(">>>", 1)[0]
    first, _, rest = prose.partition("\n")
    first = re.sub(r"^toposynth\.\w+\s+\u2014\s+", "", first)
    text = " ".join((first[:1].upper() + first[1:] + "\n" + rest).split())
    return _markdown(text)


def render() -> str:
    """The page: a header, then per package its prose and its table of public names."""
    out = [
        "# The public API",
        "",
        f"Generated by `{COMMAND}` from the packages' `__all__` and docstrings; do not edit by hand "
        "(`tests/test_api_index.py` checks it). Every function and class here has a docstring with an "
        "example, and the test suite runs them all (`tests/test_doctests.py`): `help(name)` shows one "
        "that works. Packages are listed floor by floor: each stands only on those before it and on `common`, "
        "the ground floor (errors, defaults, file and table helpers; see its module docstrings).",
    ]
    for package in PACKAGES:
        out += ["", f"## {package}", "", package_prose(package), "",
                "| name | kind | what it is |", "|---|---|---|"]
        out += [f"| `{name}` | {k} | {description} |" for name, k, description in package_rows(package)]
    return "\n".join(out) + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
