"""The machine a study designs, and what each candidate costs.

A study compares networks for *one* machine: a number of processing
elements (PEs), optionally with budgets on router radix, links and wire
length. Every candidate must realise that machine -- as many PEs, reached
with concentration (``torus:4x4:c=2`` is 32 PEs on 16 routers) where the
router count differs -- or it is refused before anything is evaluated;
``compare_sizes = true`` keeps other sizes but ranks each size on its own.

The cost of a candidate is reported beside its performance, never folded
into it: routers, router radix (network ports + PEs), links and ports,
and, when a packaging prices the wires, wire length, wires and connector
pins. Budgets turn "performance at equal cost" into a pruning rule; the
Pareto front of performance against one cost measure shows the rest.

>>> m = machine_from_table({"pes": 32, "links": 64})
>>> from candidates import from_spec
>>> c = structural_cost(from_spec("hypercube:5"))
>>> c.links, c.radix, m.over_budget(c)
(80, 6, 'links 80 > machine.links 64')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from common.errors import ToposynthError
from candidates.registry import from_spec, spec_size
from candidates.topology import Topology

__all__ = ["Machine", "Cost", "COST_MEASURES", "FIELDS", "machine_from_table", "structural_cost", "physical_cost",
           "check_machine", "pareto_front"]

#: cost measures a study can put on the Pareto axis (``ranking.cost``): field of :class:`Cost`, unit
COST_MEASURES = {"links": "links", "ports": "ports", "radix": "ports per router", "routers": "routers",
                 "wire_length": "m of wire", "wires": "wires", "pins": "connector pins"}
#: the fields of a study's ``[machine]`` table
FIELDS = ("pes", "radix", "links", "wire_length", "compare_sizes", "max_length")


class MachineError(ToposynthError):
    """A candidate does not realise the study's machine."""


@dataclass(frozen=True)
class Machine:
    """What every candidate must realise, and the budgets it must fit.

    ``pes``: processing elements (``None``: the baseline's, or the first
    candidate's, count); ``radix``: largest router radix (network ports +
    PEs); ``links``: most links; ``wire_length``: most metres of wire (needs
    a packaging); ``max_length``: the longest link allowed (grid units
    between routers at their coordinates, or metres of wire under a
    packaging; a list sweeps it, each value a variant of the study);
    ``compare_sizes``: keep candidates of other PE counts and rank each size
    class on its own.
    """

    pes: int | None = None
    radix: int | None = None
    links: int | None = None
    wire_length: float | None = None
    compare_sizes: bool = False
    max_length: float | tuple[float, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if isinstance(self.max_length, tuple):
            d["max_length"] = list(self.max_length)
        return d

    def over_budget(self, cost: "Cost") -> str | None:
        """Why the candidate exceeds a budget (``None`` if it fits)."""
        for name, limit, have in (("radix", self.radix, cost.radix), ("links", self.links, cost.links),
                                  ("wire_length", self.wire_length, cost.wire_length)):
            if limit is not None and have is not None and have > limit:
                return f"{name} {have:g} > machine.{name} {limit:g}"
        if self.max_length is not None:
            if isinstance(self.max_length, tuple):
                raise ToposynthError(f"machine.max_length is a sweep ({list(self.max_length)}); run the study's "
                                     "variants()")
            if cost.longest_link is None:
                return "machine.max_length: the candidate has no coordinates or placement to measure its links on"
            if cost.longest_link > self.max_length * (1 + 1e-9):
                return f"longest link {cost.longest_link:.4g} > machine.max_length {self.max_length:g}"
        return None


@dataclass(frozen=True)
class Cost:
    """What building a candidate takes. ``wire_length`` (m), ``wires`` and
    ``pins`` need a packaging; under flexible wiring they are what the
    capacity flow uses at lambda (the wires the design would be built
    with), under uniform wiring what the fixed wiring provides."""

    routers: int
    pes: int
    radix: int
    ports: int
    links: int
    wire_length: float | None = None
    wires: float | None = None
    pins: float | None = None
    cables: int | None = None
    #: the longest link: grid units between the routers' coordinates, or metres of wire under a packaging
    longest_link: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def measure(self, name: str) -> float | None:
        return getattr(self, name)


def _int_field(d: dict, key: str) -> int | None:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ToposynthError(f"study field machine.{key}: must be a positive integer, got {v!r}")
    return v


def machine_from_table(d: Any) -> Machine:
    """Validate the ``[machine]`` table of a study."""
    if not isinstance(d, dict):
        raise ToposynthError("study field machine: must be a table ([machine] pes = ...)")
    valid = set(FIELDS)
    unknown = set(d) - valid
    if unknown:
        raise ToposynthError(f"study field machine.{sorted(unknown)[0]}: unknown field; valid fields of [machine]: "
                             f"{', '.join(sorted(valid))}")
    wl = d.get("wire_length")
    if wl is not None and (isinstance(wl, bool) or not isinstance(wl, (int, float)) or not wl > 0):
        raise ToposynthError(f"study field machine.wire_length: must be a positive number of metres, got {wl!r}")
    cs = d.get("compare_sizes", False)
    if not isinstance(cs, bool):
        raise ToposynthError(f"study field machine.compare_sizes: must be true or false, got {cs!r}")
    ml = d.get("max_length")
    one = lambda x: not isinstance(x, bool) and isinstance(x, (int, float)) and x > 0  # noqa: E731
    if ml is not None and not (one(ml) or (isinstance(ml, list) and ml and all(one(x) for x in ml))):
        raise ToposynthError("study field machine.max_length: must be a positive length (grid units, or metres "
                             f"under a packaging) or a list of them to sweep, got {ml!r}")
    max_length = None if ml is None else (tuple(float(x) for x in ml) if isinstance(ml, list) else float(ml))
    return Machine(_int_field(d, "pes"), _int_field(d, "radix"), _int_field(d, "links"),
                   None if wl is None else float(wl), cs, max_length)


def structural_cost(topo: Topology) -> Cost:
    """The cost a topology has before any packaging: routers, PEs, radix, ports, links."""
    term = np.asarray(topo.terminals, dtype=np.int64)
    ports = topo.degree + term
    longest = None
    if topo.coords is not None and topo.num_links:
        # routers at their coordinates, unit spacing (a chip's grid)
        d = (topo.coords[topo.links[:, 0]] - topo.coords[topo.links[:, 1]]).astype(np.float64)
        longest = float(np.sqrt((d ** 2).sum(axis=1)).max())
    return Cost(routers=int(topo.n), pes=int(topo.num_terminals), radix=int(ports.max()), ports=int(ports.sum()),
                links=int(topo.num_links), longest_link=longest)


def physical_cost(topo: Topology, model, problem, arc_flow: np.ndarray | None) -> Cost:
    """:func:`structural_cost` plus wires, wire length, connector pins and
    cables from the packaging (``model``: a :class:`flows.PhysicalModel`).
    Wires per channel: the capacity flow's (flexible wiring, ``arc_flow``
    at lambda) or the fixed share (uniform wiring, the problem's channel
    capacities)."""
    base = structural_cost(topo)
    base = Cost(**{**base.to_dict(), "longest_link": float(model.length.max()) if len(model.length) else None})
    if problem.meta.get("wiring") == "uniform":
        wires = np.asarray(problem.capacity, dtype=np.float64)
    elif arc_flow is not None:
        wires = np.asarray(arc_flow, dtype=np.float64)
    else:
        wires = None
    L = len(model.levels)
    cables = int(np.count_nonzero(model.level == L)) // 2
    if wires is None:
        return Cost(**{**base.to_dict(), "cables": cables})
    # a wire that leaves a card at level j uses pins on the cards of both ends, at every level below its own
    pins_per_wire = problem.meta.get("packaging", {}).get("pins_per_wire", 2)
    pins = float(np.sum(wires * 2 * pins_per_wire * model.level))
    return Cost(**{**base.to_dict(), "wire_length": float(wires @ model.length), "wires": float(wires.sum()),
                   "pins": pins, "cables": cables})


def check_machine(machine: Machine, sizes: dict[str, int], baseline: str | None) -> int:
    """The machine's PE count; refuses (one line) a pool with candidates of
    another size unless ``compare_sizes``. ``sizes``: spec -> PEs, pool order."""
    if not sizes:
        raise MachineError("the candidate pool is empty")
    pes = machine.pes
    if pes is None:
        pes = sizes[baseline] if baseline is not None and baseline in sizes else next(iter(sizes.values()))
    if machine.compare_sizes:
        return pes
    other = [(s, p) for s, p in sizes.items() if p != pes]
    if other:
        spec, p = other[0]
        more = f" (and {len(other) - 1} more)" if len(other) > 1 else ""
        hint = ""
        c = _concentration_for(spec, p, pes) if p < pes and ":c=" not in spec else None
        if c is not None:
            hint = f" write {spec}:c={c} to concentrate it,"
        raise MachineError(f"candidate {spec!r} has {p} PEs but the machine has {pes}{more}:{hint} remove it, "
                           "or set machine.compare_sizes = true to rank each size on its own")
    return pes


#: largest candidate (routers) built to tell which :c= would realise the machine
_HINT_BUILD_LIMIT = 1_000_000


def _concentration_for(spec: str, have: int, pes: int) -> int | None:
    """The ``:c=`` that gives ``spec`` (``have`` PEs) ``pes`` PEs: ``c`` on
    every router that carries PEs (a fat tree's spines stay without), or None."""
    try:
        size = spec_size(spec)
        if size is not None and size.routers > _HINT_BUILD_LIMIT:
            return None   # not worth building a huge candidate for a hint
        carriers = int(np.count_nonzero(from_spec(spec).terminals))
    except ToposynthError:
        return None
    return pes // carriers if carriers and pes % carriers == 0 else None


def pareto_front(points: list[tuple[str, float, float]]) -> list[str]:
    """Names of the points no other point dominates, for (name, cost,
    performance) with lower cost and higher performance better; in order of
    cost. Equal points are all kept.

    >>> pareto_front([("a", 64, 1.0), ("b", 80, 1.2), ("c", 96, 1.1), ("d", 64, 0.9)])
    ['a', 'b']
    """
    out = []
    for name, c, p in sorted(points, key=lambda x: (x[1], -x[2])):
        dominated = any((c2 <= c and p2 >= p) and (c2 < c or p2 > p) for _, c2, p2 in points)
        if not dominated:
            out.append(name)
    return out
