"""What a search looks for: router count, ports, the objective, the symmetry,
links kept fixed -- validated up front, one line per mistake.

>>> p = search_problem(512, 6, symmetry="auto")
>>> p.lift.g, p.lift.m
(32, 16)
>>> search_problem(9, 3)
Traceback (most recent call last):
...
candidates.errors.SpecError: 9 routers of degree 3 make 27 port ends, an odd number: no 3-regular graph has 9 routers; use an even degree or router count, or let degrees be at most 3 (regular=False)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from common.size import check_memory, format_count

from ..errors import SpecError, TopologyError
from .layout import Layout
from .objectives import Objective, objective
from .resources import LinkResources
from .state import Lift, base_of_links, pack_allowed, search_bytes

__all__ = ["SearchProblem", "search_problem", "auto_symmetry", "AUTO_MIN_BASE", "AUTO_MIN_ORDER"]

#: ``symmetry="auto"`` lifts over the largest cyclic group that leaves at least
#: this many base routers. Measured with equal move budgets, best of 2 seeds
#: (every lift of 64 base routers or fewer costs the same per move: one machine
#: word of BFS sources): (256, 8), 5 M moves: 8 / 16 / 32 / 64 / 256 (plain)
#: base routers ASPL 2.7525 / 2.7539 / 2.7545 / 2.7575 / 2.7609, the plain
#: graph in 270 s against ~20 s; (1024, 8), 3 M: 16 / 32 / 64 / 128: 3.5192 /
#: 3.5214 / 3.5230 / 3.5252; (1024, 32), 1 M: 16 / 32 / 64: 2.1991 / 2.2065 /
#: 2.2146 (docs/results/candidates.md, "Synthesis by search", "Lifts"). 16 is the
#: smallest base measured on every pair; 8 gained a further 0.05% on the
#: smallest pair, a difference within the spread of seeds elsewhere.
AUTO_MIN_BASE = 16
#: ... and only over groups of at least this order: a lift of order 2 or 3 halves the search space for
#: little speed (32 routers of degree 3, 20,000 moves, three seeds: diameter 5 twice lifted, 4 plain)
AUTO_MIN_ORDER = 4


@dataclass(frozen=True)
class SearchProblem:
    """A validated search: ``routers`` routers with ``degree`` ports each
    (all used when ``regular``, at most otherwise), lifted over a cyclic
    group of order ``lift.g``, some links fixed."""

    routers: int
    degree: int
    objective: str
    weight: float
    seed: int
    regular: bool
    lift: Lift
    caps: np.ndarray = field(repr=False, compare=False)
    fixed: np.ndarray = field(repr=False, compare=False)        # lifted fixed links (k, 2)
    fixed_base: np.ndarray = field(repr=False, compare=False)   # their orbits as base links (u, v, s)
    start: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64), repr=False, compare=False)
    start_base: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64), repr=False, compare=False)
    temperature: float = 1.0     # the annealing's first temperature, as a multiple of the calibrated one
    fixed_spec: str = ""         # the specs the fixed and the start links came from ("" for arrays)
    start_spec: str = ""
    allow: np.ndarray | None = field(default=None, repr=False, compare=False)   # packed pairs that may be links
    resources: LinkResources | None = field(default=None, repr=False, compare=False)
    demands: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)
    layout: Layout | None = field(default=None, repr=False, compare=False)
    constraints: dict = field(default_factory=dict, compare=False)   # how the allowed pairs were given (provenance)

    @property
    def objective_entry(self) -> Objective:
        return objective(self.objective)


def _positive_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SpecError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise SpecError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def auto_symmetry(n: int, d: int, regular: bool = True, fixed: np.ndarray | None = None,
                  start: np.ndarray | None = None) -> int:
    """The group order ``symmetry="auto"`` picks: the largest divisor ``g`` of
    ``n`` with ``n / g >= AUTO_MIN_BASE`` base routers (an even number of port
    ends per fibre when regular) under which the fixed and the start links are
    symmetric, if that order is at least ``AUTO_MIN_ORDER``; else 1.

    >>> auto_symmetry(1024, 32), auto_symmetry(100, 4), auto_symmetry(1000, 3), auto_symmetry(24, 3)
    (64, 5, 50, 1)
    >>> auto_symmetry(32, 3), auto_symmetry(64, 4)
    (1, 4)
    """
    small = [k for k in range(1, int(n ** 0.5) + 1) if n % k == 0]
    for g in sorted(set(small) | {n // k for k in small}, reverse=True):
        m = n // g
        if g > 1 and (m < AUTO_MIN_BASE or g < AUTO_MIN_ORDER):
            continue
        if regular and (m * d) % 2:
            continue
        if g > 1:
            try:
                for links in (fixed, start):
                    if links is not None and len(links):
                        base_of_links(links, Lift(n, m, g, d))
            except TopologyError:
                continue
        return g
    return 1


def search_problem(routers: int, degree: int, *, objective: str = "aspl", weight: float | None = None, seed: int = 0,
                   symmetry: int | str = 1, regular: bool = True, fixed=None, start=None,
                   temperature: float = 1.0, allowed=None, resources: LinkResources | None = None,
                   demands=None, layout: Layout | None = None, constraints: dict | None = None) -> SearchProblem:
    """Validate a search's parameters (see :func:`candidates.search.search_graph`)."""
    n = _positive_int("routers", routers, 2)
    d = _positive_int("degree", degree, 1)
    if d >= n:
        raise SpecError(f"degree {d} needs more routers than {n}: a router has at most {n - 1} distinct neighbours "
                        f"(use a degree below {n})")
    entry = globals()["objective"](objective)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise SpecError(f"seed must be an integer in 0 .. 2**63 - 1, got {seed!r}")
    w = entry.default_weight if weight is None else float(weight)
    if not 0.0 <= w <= 1.0:
        raise SpecError(f"weight must be in [0, 1] (the share of latency), got {weight}")
    try:
        temp = float(temperature)
    except (TypeError, ValueError):
        raise SpecError(f"temperature must be a number > 0, got {temperature!r}") from None
    if not 0.0 < temp < float("inf"):
        raise SpecError(f"temperature must be a number > 0 (a multiple of the calibrated first temperature), "
                        f"got {temperature!r}")
    if regular and (n * d) % 2:
        raise SpecError(f"{n} routers of degree {d} make {n * d} port ends, an odd number: no {d}-regular graph has "
                        f"{n} routers; use an even degree or router count, or let degrees be at most {d} "
                        "(regular=False)")
    if d == 1 and n > 2:
        raise SpecError(f"{n} routers of degree 1 cannot be connected; use degree 2 or more")
    # the least any search of n routers holds (its neighbour lists), checked before the symmetry is
    # chosen: choosing it factors n, which for an absurd n takes longer than refusing it
    check_memory(f"a search of {format_count(n)} routers of degree {d}", 8.0 * n * d,
                 "search fewer routers or a lower degree")
    fixed_links = np.zeros((0, 2), dtype=np.int64)
    if fixed is not None:
        fixed_links = _fixed_links(fixed, n)
    start_links = np.zeros((0, 2), dtype=np.int64)
    if start is not None:
        start_links = _fixed_links(start, n, "start", fewer=True)
        both = np.sort(np.concatenate([fixed_links, start_links]), axis=1)
        if len(np.unique(both, axis=0)) != len(both):
            raise SpecError("a start link repeats a fixed link; give the start graph without the fixed links")
    # auto: no lift under a placement (lengths and resources differ from copy to copy; a lift of a
    # packaging whose boards the shift maps onto each other is asked for by its order)
    placed = allowed is not None or resources is not None or demands is not None
    if layout is not None and layout.n != n:
        raise SpecError(f"the layout places {layout.n} routers, the search has {n}")
    if resources is not None and resources.n != n:
        raise SpecError(f"the packaging's resources cover {resources.n} routers, the search has {n}")
    if entry.needs_packaging and resources is None:
        raise SpecError(f"the {entry.name} objective prices links by a packaging: give one (--packaging, or "
                        "resources=flows.physical.link_resources(...))")
    if demands is not None and not entry.needs_packaging:
        raise SpecError(f"a traffic other than uniform is scored by the physical objective only, not {entry.name}")
    if symmetry == "auto":
        g = 1 if placed else auto_symmetry(n, d, regular, fixed_links, start_links)
    else:
        g = _positive_int("symmetry", symmetry, 1)
        if n % g:
            raise SpecError(f"symmetry {g} must divide the router count {n} (the lift has {n} / g base routers)")
        if regular and ((n // g) * d) % 2:
            raise SpecError(f"symmetry {g} leaves {n // g} base routers of degree {d}, an odd number of port ends; "
                            "use a symmetry that leaves an even number of base routers")
        if g > 1 and demands is not None:
            raise SpecError(f"symmetry {g} splits uniform traffic by the lift's symmetry; a traffic of given "
                            "demands is not symmetric: use symmetry 1")
        if g > 1 and allowed is not None:
            raise SpecError(f"symmetry {g} repeats every link on {g} copies shifted by {n // g} routers; a maximum "
                            "length allows a link in one place and not in another: use symmetry 1")
    lift = Lift(n, n // g, g, d)
    check_memory(f"a search of {format_count(n)} routers of degree {d}",
                 search_bytes(lift) + (n * ((n + 63) // 64) * 8.0 + n * n if allowed is not None else 0.0),
                 "search fewer routers or a lower degree")
    allow = None
    if allowed is not None:
        ok = np.asarray(allowed, dtype=bool)
        if ok.shape != (n, n):
            raise SpecError(f"the allowed links must be an ({n}, {n}) matrix of router pairs, got shape {ok.shape}")
        if not np.array_equal(ok, ok.T):
            raise SpecError("the allowed links must be symmetric (a link joins both ways)")
        both = np.concatenate([fixed_links, start_links])
        bad = np.flatnonzero(~ok[both[:, 0], both[:, 1]]) if len(both) else np.zeros(0, dtype=np.intp)
        if len(bad):
            u, v = (int(x) for x in both[bad[0]])
            what = "fixed" if bad[0] < len(fixed_links) else "start"
            raise SpecError(f"the {what} link {u}-{v} is not allowed by the placement's constraint "
                            f"({_describe(constraints)}); relax it or leave the link out")
        allow = pack_allowed(ok)
    fixed_base = base_of_links(fixed_links, lift) if len(fixed_links) else np.zeros((0, 3), dtype=np.int64)
    start_base = base_of_links(start_links, lift) if len(start_links) else np.zeros((0, 3), dtype=np.int64)
    for what, links in (("fixed", fixed_links), ("fixed and start", np.concatenate([fixed_links, start_links]))):
        deg = np.bincount(links.reshape(-1), minlength=n) if len(links) else np.zeros(n, dtype=np.int64)
        if deg.max(initial=0) > d:
            v = int(np.argmax(deg))
            raise SpecError(f"router {v} has {int(deg[v])} {what} links but only {d} ports; raise the degree")
    caps = np.full(lift.m, d, dtype=np.int32)
    return SearchProblem(n, d, entry.name, w, int(seed), bool(regular), lift, caps, fixed_links, fixed_base,
                         start_links, start_base, temp, str(getattr(fixed, "spec", "") or ""),
                         str(getattr(start, "spec", "") or ""), allow, resources, _demands_csr(demands, n),
                         layout, dict(constraints or {}))


def _describe(constraints: dict | None) -> str:
    if not constraints:
        return "allowed pairs"
    return ", ".join(f"{k} {v}" for k, v in constraints.items())


def _demands_csr(demands, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Demands (an object with ``src``, ``dst``, ``amount`` arrays, such as
    ``flows.Demands``, or a (k, 3) array) by source: ``(indptr, dst, amount)``."""
    if demands is None:
        return None
    if all(hasattr(demands, a) for a in ("src", "dst", "amount")):
        src, dst, amt = (np.asarray(getattr(demands, a)) for a in ("src", "dst", "amount"))
    else:
        arr = np.asarray(demands, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[1] != 3:
            raise SpecError(f"demands must be (src, dst, amount) rows or a flows.Demands, got shape {arr.shape}")
        src, dst, amt = arr[:, 0], arr[:, 1], arr[:, 2]
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    amt = np.asarray(amt, dtype=np.float64)
    if len(src) == 0:
        raise SpecError("the traffic has no demands")
    if src.min() < 0 or dst.min() < 0 or max(src.max(), dst.max()) >= n:
        raise SpecError(f"demands must join routers 0 .. {n - 1}")
    if not np.all(np.isfinite(amt)) or amt.min() < 0:
        raise SpecError("demand amounts must be finite numbers >= 0")
    keep = (src != dst) & (amt > 0)
    src, dst, amt = src[keep], dst[keep], amt[keep]
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    return np.cumsum(indptr), dst[order].astype(np.int32), amt[order]


def _fixed_links(fixed, n: int, what: str = "fixed", fewer: bool = False) -> np.ndarray:
    """Fixed (or start) links from a topology or an (k, 2) array of router
    pairs; ``fewer``: the topology may have fewer routers than the search
    (the others start without links)."""
    links = getattr(fixed, "links", fixed)
    tn = getattr(fixed, "n", None)
    if tn is not None and (tn > n if fewer else tn != n):
        raise SpecError(f"the {what} links' topology has {tn} routers, the search {n}")
    arr = np.asarray(links, dtype=np.int64)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise SpecError(f"{what} links must be router pairs, an array of shape (k, 2); got shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= n:
        raise SpecError(f"{what} links must join routers 0 .. {n - 1}")
    if (arr[:, 0] == arr[:, 1]).any():
        raise SpecError(f"a {what} link joins a router to itself")
    key = np.sort(arr, axis=1)
    if len(np.unique(key, axis=0)) != len(key):
        raise SpecError(f"the {what} links repeat a router pair; a searched graph has at most one link per pair")
    return arr
