"""Memory and time of a flow problem and its solvers, estimated from sizes.

The numbers (routers, channels, demands, source groups, resource
coefficients) are known before anything large is built: the demand count
from the traffic pattern (uniform: n (n - 1)), the rest from the topology.
:func:`flow_cost` adds up what the problem and the chosen solver allocate;
:func:`check_flow` refuses, with one line, what will not fit
(:class:`common.size.SizeError`). The byte counts per item are read off
the code (arrays and their dtypes) and checked against peak RSS in
tests/flows/test_flow_size.py (within 0.5x-2x).

>>> c = flow_cost(n=512, arcs=3072, demands=512 * 511, groups=512)
>>> c.parts["ptas"] > c.parts["problem"] > 0
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from common.size import check_memory, format_count, format_seconds

__all__ = ["FlowCost", "flow_cost", "symmetry_cost", "demand_bytes", "check_flow", "large_problem_note",
           "LARGE_SECONDS"]

#: Problems estimated to take longer print a note before starting.
LARGE_SECONDS = 30.0

# bytes per demand while demands are built and merged (src, dst, amount;
# the mask, key, unique/inverse and first-index arrays of Demands.merged)
_PER_DEMAND = 100.0
# the PTAS kernel: 64 checkpoint flows of every channel plus about a dozen
# other per-channel arrays
_PTAS_PER_ARC = 64 * 8 + 12 * 8
# pool of cached trees: up to 6 trees per group of (channel, value) pairs,
# 16 bytes each, copied while compacting into a doubled array; runs hold
# about 4 trees' worth per group at their peak (measured, uniform traffic on
# 1000 and 1728 routers: 190 and 460 MB in all)
_POOL_TREES = 4.0
# HiGHS on the arc LP: our column arrays, scipy's CSC copy and HiGHS's own
# copy and factors, per nonzero (measured peak RSS: 300 MB at 840,000 nonzeros)
_LP_PER_NNZ = 340.0


@dataclass(frozen=True)
class FlowCost:
    """Estimated peak bytes of each stage (``parts``), their maximum over
    what is held at once (``nbytes``), the LP's columns and a rough time."""

    n: int
    arcs: int
    demands: int
    groups: int
    parts: dict[str, float]
    nbytes: float
    lp_columns: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def demand_bytes(n: int, demands: int, *, uniform: bool = False) -> float:
    """Peak bytes of building ``demands`` point-to-point demands on ``n``
    routers (uniform traffic first builds an n x n mask)."""
    return _PER_DEMAND * float(demands) + (float(n) * n if uniform else 0.0)


def flow_cost(n: int, arcs: int, demands: int, groups: int, *, nnz: int | None = None,
              solver: str = "ptas", tree_arcs: float | None = None, uniform: bool = False) -> FlowCost:
    """Estimate the memory (and roughly the time) of a flow problem.

    ``groups`` is the number of PTAS/LP source groups (distinct sources, or
    destinations when fewer); ``nnz`` the nonzeros of the resource matrix
    (default one per channel); ``tree_arcs`` the channels of one group's
    shortest-path tree (default: every router for a group with many
    demands, else a few hops per demand). ``solver``: ``ptas``, ``lp``,
    ``both``, ``colgen`` (sized as the PTAS, timed as measured) or
    ``deviation`` (the PTAS's capacity run, then the projection method's
    paths: 32 per demand of up to 64 channels, at most 256 MiB). ``uniform``: the demands are yet to be built as uniform
    traffic (which first makes an n x n mask).
    """
    n, arcs, demands, groups = int(n), int(arcs), int(demands), max(1, int(groups))
    nnz = arcs if nnz is None else int(nnz)
    if tree_arcs is None:
        per_group = demands / groups
        tree_arcs = min(n - 1.0, per_group * max(2.0, n ** (1.0 / 3.0)))
    problem = demand_bytes(n, demands, uniform=uniform) + 48.0 * arcs + 32.0 * nnz + 64.0 * n
    parts: dict[str, float] = {"problem": problem}
    if solver in ("ptas", "both", "colgen", "deviation"):
        pool = max(3072.0 * groups, 16.0 * groups * _POOL_TREES * tree_arcs)
        parts["ptas"] = _PTAS_PER_ARC * arcs + 40.0 * demands + pool + 64.0 * n
    if solver == "deviation":
        parts["paths"] = min(12.0 * 32 * min(n - 1, 64) * demands, 256.0 * 2**20)
    cols = groups * arcs + 1
    if solver in ("lp", "both"):
        per_col = 2.0 + nnz / max(arcs, 1)
        parts["lp"] = _LP_PER_NNZ * cols * per_col + 32.0 * groups * n
    held = problem + max((v for k, v in parts.items() if k != "problem"), default=0.0)
    # Extrapolated from PTAS runs at eps 0.05 on k x k x k tori (measured,
    # one core): uniform traffic 1.5 s at 512 and 5.9 s at 1000 routers, about
    # 40 phases, 8e-7 s per (group x (routers + channels)); 4 random demands
    # per router 3.6 s at 512 and 164 s at 4096 routers, 2-3 times that.
    seconds = 8e-7 * groups * (n + arcs)
    if demands / groups < n / 2:
        seconds *= 2.5
    if solver == "colgen":
        # column generation with the potential master at eps 0.05 (what auto
        # runs on such instances): 13 s CPU at 4096 routers with 4 demands
        # per router, time growing as routers^1.6 (docs/results/flows.md)
        seconds = 13.0 * (n / 4096.0) ** 1.6 * (demands / (4.0 * n))
        if demands < n:
            # fewer demands than routers: the time stops shrinking with the demands, for every round still
            # prices each source group with a shortest-path search that crosses most of the graph (its
            # destinations lie a diameter away, about n^(1/3) hops on a 3-D lattice). Calibrated to the
            # point above (1.1e-7 s per group and router-or-channel at 4096 routers) and measured at
            # 216,000 routers with 100 random demands: 88 s (this floor: 62 s; the line above: 0.9 s)
            seconds = max(seconds, 1.1e-7 * groups * (n + arcs) * (n / 4096.0) ** (1.0 / 3.0))
    return FlowCost(n, arcs, demands, groups, parts, held, cols, seconds)


def symmetry_cost(n: int, arcs: int) -> FlowCost:
    """Estimate the memory and time of :func:`flows.symmetric_uniform`: one
    interior-point LP of ``arcs + 1`` columns and ``n + degree`` rows.

    Measured on k x k x k tori (one core; peak RSS above the baseline
    measured as tests/flows/test_flow_size.py does): 0.8, 8.7, 37 and 146 s CPU at 4096,
    13824, 32768 and 64000 routers -- the factorisation of a 3-D lattice's
    flow LP grows about as n^2 (nested dissection) -- and 940-1190 bytes
    per channel above the process's baseline (12^3 to 32^3).

    >>> c = symmetry_cost(64000, 384000)
    >>> round(c.seconds), round(c.nbytes / 2**20)
    (143, 403)
    """
    n, arcs = int(n), int(arcs)
    nbytes = 1100.0 * arcs
    seconds = 3.5e-8 * float(n) * n
    return FlowCost(n, arcs, n * (n - 1), 1, {"symmetry": nbytes}, nbytes, arcs + 1, seconds)


def check_flow(what: str, cost: FlowCost) -> None:
    """Refuse (one line) a flow problem whose estimate exceeds the memory limit."""
    size = (f"{format_count(cost.n)} routers, {format_count(cost.arcs)} channels, "
            f"{format_count(cost.demands)} demands")
    hint = "use fewer routers or demands (e.g. --traffic random:COUNT)"
    if "lp" in cost.parts and cost.parts["lp"] >= cost.parts.get("ptas", 0.0):
        size += f", {format_count(cost.lp_columns)} LP columns"
        hint = "use --solver ptas, or fewer routers or demands"
    check_memory(f"{what} ({size})", cost.nbytes, hint)


def large_problem_note(cost: FlowCost) -> str | None:
    """A one-line note for stderr when the problem is large, else None."""
    if cost.seconds < LARGE_SECONDS:
        return None
    if "symmetry" in cost.parts:
        return (f"large problem: uniform traffic on {format_count(cost.n)} routers by symmetry, one LP of "
                f"{format_count(cost.lp_columns)} columns; roughly {format_seconds(cost.seconds)} (HiGHS's "
                "interior point: no progress lines until it ends)")
    return (f"large problem: {format_count(cost.n)} routers, {format_count(cost.demands)} demands in "
            f"{format_count(cost.groups)} source groups; roughly {format_seconds(cost.seconds)} or more "
            f"(a rough guess from measured runs)")
