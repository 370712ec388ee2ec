"""Two simulation results are the same run: every field equal (NaN equal to NaN) but the timings."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np

#: the fields that measure the machine, not the run
TIMINGS = {"seconds", "cpu_seconds", "compile_seconds"}


def fields(r) -> dict:
    """Every field of a result but its timings."""
    return {f.name: getattr(r, f.name) for f in dataclasses.fields(r) if f.name not in TIMINGS}


def equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return np.array_equal(a, b, equal_nan=a.dtype.kind == "f" and b.dtype.kind == "f")
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
        return equal(fields(a), fields(b))
    return a == b


def assert_same(a, b) -> None:
    fa, fb = fields(a), fields(b)
    bad = [k for k in fa if not equal(fa[k], fb[k])]
    assert not bad, f"fields differ: {bad}"


def cli_result(text: str) -> dict:
    """A ``simulate --json`` result without the fields that measure the machine."""
    d = json.loads(text)
    for k in TIMINGS | {"router_cycles_per_second"}:
        d.pop(k, None)
    return d
