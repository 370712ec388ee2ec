"""A small TOML writer for study dicts (the standard library reads TOML but
does not write it).

It covers what a study holds: strings, integers, floats, booleans, lists
(of scalars, of lists, of tables) and nested tables. Scalars and lists of a
table come before its sub-tables, as TOML requires; lists of tables are
written as arrays of inline tables, the form the study docstring uses
(``sweep = [{family = "torus", shape = ["8x4"]}]``). ``None`` has no TOML
form: it raises, so a caller drops unset fields first (:func:`prune`).

>>> import tomllib
>>> d = {"name": "s", "candidates": {"specs": ["torus:8x4"], "sweep": [{"family": "twisted", "t1": [1, 3]}]}}
>>> print(dumps(d), end="")
name = "s"
<BLANKLINE>
[candidates]
specs = ["torus:8x4"]
sweep = [{family = "twisted", t1 = [1, 3]}]
>>> tomllib.loads(dumps(d)) == d
True
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["dumps", "prune"]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def prune(d: Any) -> Any:
    """``d`` without ``None`` values and empty lists or tables, at every
    depth (what a study writes for fields left at their defaults)."""
    if isinstance(d, dict):
        out = {k: prune(v) for k, v in d.items() if v is not None}
        return {k: v for k, v in out.items() if v not in ([], {}, ())}
    if isinstance(d, (list, tuple)):
        return [prune(v) for v in d if v is not None]
    return d


def dumps(d: dict[str, Any]) -> str:
    """TOML text of a dict whose ``tomllib.loads`` is the same dict (tuples come back as lists)."""
    lines: list[str] = []
    _table(d, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_table(v: Any) -> bool:
    return isinstance(v, dict)


def _table(d: dict[str, Any], path: list[str], lines: list[str]) -> None:
    plain = [(k, v) for k, v in d.items() if not _is_table(v)]
    subs = [(k, v) for k, v in d.items() if _is_table(v)]
    if path and (plain or not subs):
        lines.append("")
        lines.append("[" + ".".join(_key(p) for p in path) + "]")
    for k, v in plain:
        lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in subs:
        _table(v, path + [k], lines)


def _key(k: Any) -> str:
    if not isinstance(k, str):
        raise TypeError(f"TOML keys are strings, got {k!r}")
    return k if _BARE.match(k) else _string(k)


def _string(s: str) -> str:
    out = []
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(v: Any) -> str:
    # bool before int: True is an int in Python
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)          # the shortest text that reads back as the same float
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    if v is None:
        raise TypeError("TOML has no null: drop unset fields first (toml_out.prune)")
    raise TypeError(f"no TOML form for {type(v).__name__} {v!r}")
