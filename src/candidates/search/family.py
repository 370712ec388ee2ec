"""The ``search`` family of the registry: a graph found by search, rebuilt from its spec.

``search:n=64:d=4:moves=20000:seed=1`` runs the search when the spec is first
built; the graph is then cached in memory and on disk (:mod:`.cache`), so a
study's records, reports and simulations rebuild the same graph.
"""

from __future__ import annotations

from typing import Any

from ..errors import SpecError
from ..registry import Family, from_spec, keyed_fields, parse_int, parse_shape, register
from ..topology import Topology
from .cache import cached_search

__all__: list[str] = []

_fields = keyed_fields("search", ("n", "d"),
                       ("moves", "seed", "objective", "weight", "symmetry", "restarts", "restart", "fixed",
                        "start", "temperature", "regular", "grid", "max_length", "metric"),
                       ("n", "d", "moves", "seed", "restarts", "restart", "regular"))


def _args(pos: list[str], kw: dict[str, str]) -> dict[str, Any]:
    f = _fields(pos, kw)
    args: dict[str, Any] = {"routers": f["n"], "degree": f["d"], "moves": f.get("moves", 100_000),
                            "seed": f.get("seed", 0), "restarts": f.get("restarts", 1),
                            "objective": f.get("objective", "aspl")}
    for key, what in (("weight", "a number in [0, 1]"), ("temperature", "a number > 0"),
                      ("max_length", "a length > 0 in grid units")):
        if key in f:
            try:
                args[key] = float(f[key])
            except ValueError:
                raise SpecError(f"search: {key} must be {what}, got {f[key]!r}") from None
    if "restart" in f:
        args["restart"] = f["restart"]
    if "regular" in f:
        args["regular"] = bool(f["regular"])
    if "grid" in f:     # kept as text: the cache keys on the fields (candidates.search.cache)
        shape = parse_shape("search", str(f["grid"]))
        if len(shape) != 2:
            raise SpecError(f"search: grid must be COLUMNSxROWS, got {f['grid']!r}")
        if shape[0] * shape[1] != f["n"]:
            raise SpecError(f"search: a {f['grid']} grid holds {shape[0] * shape[1]} routers, the search {f['n']}")
        args["grid"] = f"{shape[0]}x{shape[1]}"
    if "metric" in f:
        args["metric"] = str(f["metric"])
    if ("max_length" in args or "metric" in args) and "grid" not in args:
        raise SpecError("search: max_length needs a grid (grid=COLUMNSxROWS) to measure links on")
    for key in ("fixed", "start"):   # a nested spec, its colons written as / (built by cached_search)
        if key in f:
            args[key] = str(f[key]).replace("/", ":")
    sym = f.get("symmetry", "auto")
    args["symmetry"] = sym if sym == "auto" else parse_int("search", "symmetry", str(sym))
    return args


def _build(pos: list[str], kw: dict[str, str]) -> Topology:
    return cached_search(_args(pos, kw), from_spec)


def _size(pos: list[str], kw: dict[str, str]):
    # the links of a regular search; at most that many with regular=0
    a = _args(pos, kw)
    return a["routers"], a["routers"] * a["degree"] // 2, 2 if "grid" in a else 0


register(Family("search", "a graph found by search (toposynth search): n routers of degree d, the best of "
                "`restarts` annealings of `moves` moves from `seed`; rebuilt by searching again (cached)",
                (("n", "routers"), ("d", "ports per router (degree)"),
                 ("moves", "optional: moves per restart (default 100000)"), ("seed", "optional: default 0"),
                 ("objective", "optional: aspl (default), throughput, mix"), ("weight", "optional: mix's latency share"),
                 ("symmetry", "optional: cyclic group order, or auto (default)"),
                 ("restarts", "optional: default 1"),
                 ("restart", "optional: only this restart's graph (chosen by a certified capacity)"),
                 ("fixed", "optional: a spec whose links are kept, colons written / (torus/8x8x8)"),
                 ("start", "optional: a spec to start from, colons written / (polarfly/q=31)"),
                 ("temperature", "optional: first temperature x the calibrated one (default 1)"),
                 ("regular", "optional: 0 for at most d links per router (default 1: every port used)"),
                 ("grid", "optional: COLUMNSxROWS, router i at (i mod COLUMNS, i div COLUMNS)"),
                 ("max_length", "optional: links at most this long on the grid"),
                 ("metric", "optional: euclidean (default) or manhattan")),
                "search:n=64:d=4:moves=20000:seed=1", _build, _size))
