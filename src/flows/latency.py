"""Minimum average latency at a given demand ('topology-synthesis-mcf-bgl').

The latency budget LT becomes one more packing constraint
``sum_a latency[a] * flow[a] <= LT``; the maximum concurrent flow lambda(LT)
with that constraint is non-decreasing in LT, and the minimum total latency
is the smallest LT with lambda(LT) >= 1. A search on LT brackets it:

- a PTAS run with lower bound ``lam >= 1`` gives an explicit flow routing
  every demand with total latency at most LT: a certified *upper* bound;
- a run whose dual bound is ``< 1`` proves LT infeasible: a certified *lower*
  bound;
- in between (lambda within eps of 1) the flow is combined with the
  capacity-optimal flow (lambda > 1) into a feasible flow routing exactly the
  demands, which still gives an upper bound.

The answer is the best feasible flow found, with ``average_latency`` (its
latency per unit of demand) and ``latency_bound`` (a certified lower bound).
Each search step warm-starts from the bracket of the last, so a handful of
PTAS runs suffice.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from ._paths import dijkstra, split_dag_flow, tree_flow
from .problem import DEFAULT_EPS, FlowError, FlowProblem
from .progress import Reporter
from .groups import grouped
from .ptas import max_concurrent_flow
from .result import FlowResult

__all__ = ["min_latency"]


def _with_budget(problem: FlowProblem, budget: float) -> FlowProblem:
    R = sp.vstack([problem.R, sp.csr_matrix(problem.latency.reshape(1, -1))]).tocsr()
    cap = np.append(problem.capacity, budget)
    names = tuple(problem.resource_names) + ("latency budget",)
    return FlowProblem(problem.n, problem.arc_src, problem.arc_dst, problem.demands, R, cap,
                       problem.latency, names, problem.name)


def _shortest_routings(problem: FlowProblem) -> tuple[float, np.ndarray, np.ndarray]:
    """Every demand on latency-shortest paths (no capacities): the total
    latency, the arc flow of one shortest-path tree per source, and the arc
    flow of the even split, router by router, over *all* shortest paths (the
    same total latency with the load spread: on tori and twisted tori the
    trees overload one direction of every tie)."""
    ch, grp = grouped(problem)
    n = problem.n
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    acc = np.zeros(n)
    tree = np.zeros(problem.num_arcs)
    split = np.zeros(problem.num_arcs)
    in_ptr = np.zeros(n + 1, dtype=np.int64)
    in_k = np.zeros(max(len(ch.heads), 1), dtype=np.int64)
    total = 0.0
    for g in range(len(grp.sources)):
        settled = dijkstra(ch, problem.latency, grp.sources[g], dist, parent, order)
        sl = slice(grp.ptr[g], grp.ptr[g + 1])
        total += float(grp.amount[sl] @ dist[grp.dst[sl]])
        np.add.at(acc, grp.dst[sl], grp.amount[sl])
        tree_flow(order, settled, parent, ch.tails, acc, tree)
        np.add.at(acc, grp.dst[sl], grp.amount[sl])
        split_dag_flow(ch, problem.latency, order, settled, dist, acc, split, in_ptr, in_k)
    return total, tree, split


def _latency_lower_bound(problem: FlowProblem) -> tuple[float, np.ndarray]:
    """Total latency with every demand on a latency-shortest path (no
    capacities), and the arc flow of one such routing (a tree per source)."""
    total, tree, _ = _shortest_routings(problem)
    return total, tree


def _shortest_split_flow(problem: FlowProblem) -> np.ndarray:
    """The even split over all latency-shortest paths (see :func:`_shortest_routings`)."""
    return _shortest_routings(problem)[2]


def _envelope(points):
    """Least latency of a flow routing exactly the demands, built by scaling
    one point or mixing two (lam_i < 1 < lam_j); (inf, None) if none."""
    best, flow = math.inf, None
    for lam, L, f in points:
        if lam >= 1.0 and L / lam < best:
            best, flow = L / lam, f / lam
    for lam_i, L_i, f_i in points:
        if lam_i >= 1.0:
            continue
        for lam_j, L_j, f_j in points:
            if lam_j <= 1.0:
                continue
            a = (lam_j - 1.0) / (lam_j - lam_i)
            val = a * L_i + (1 - a) * L_j
            if val < best:
                best, flow = val, a * f_i + (1 - a) * f_j
    return best, flow


def min_latency(problem: FlowProblem, eps: float = DEFAULT_EPS, *, max_steps: int = 40,
                max_phases: int = 100000, capacity: FlowResult | None = None,
                progress: Callable[[dict], None] | None = None, progress_interval: float = 5.0) -> FlowResult:
    """Route every demand at (near) minimum average latency.

    Returns a :class:`FlowResult` with objective ``"latency"``: ``arc_flow``
    routes the demands themselves, ``average_latency`` is its latency per
    unit of demand and ``latency_bound`` a certified lower bound, within
    ``eps`` of each other unless ``max_steps`` search steps or ``max_phases``
    PTAS phases (all the search's runs together, the capacity run aside)
    ran out: then ``status`` says ``"gap ..."`` and the flow is still
    feasible and the bound still certified. Near capacity (the demand within
    a few percent of lambda*) the search needs PTAS runs much finer than
    ``eps``; the phase budget keeps it finite there, and
    :func:`flows.lp.solve_lp` gives the exact answer when the LP fits.
    ``lam`` and
    ``upper_bound`` are the capacity (max concurrent flow) bracket. When
    the capacity is below 1 the status is ``"infeasible"`` and the message
    says so; when the demand sits at capacity within eps/8 it is
    ``"undecided"``.

    ``capacity``: a :func:`max_concurrent_flow` result for this very problem
    (same channels, resources and demands), when the caller has one already;
    it is used instead of a fresh capacity run.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.torus((4, 4)), Demands.uniform(16).scaled(0.5))
    >>> r = min_latency(p)
    >>> round(r.average_latency, 4)   # uncongested: the average distance 32/15
    2.1333
    """
    if not (0 < eps < 1):
        raise FlowError(f"eps must be in (0, 1), got {eps}")
    if max_phases < 1:
        raise FlowError(f"max_phases must be >= 1, got {max_phases}")
    t0 = time.perf_counter()
    report = Reporter(progress, progress_interval, t0)
    total = problem.demands.total
    cap = (max_concurrent_flow(problem, eps=eps, progress=progress, progress_interval=progress_interval)
           if capacity is None else capacity)
    if cap.objective != "concurrent" or len(cap.arc_flow) != problem.num_arcs:
        raise FlowError("capacity must be a max_concurrent_flow result for the same problem")
    if cap.lam < 1.0 <= cap.upper_bound:
        # the demand sits within eps of capacity: decide feasibility more finely
        # before searching, or no budget can ever show a feasible routing
        finer = max_concurrent_flow(problem, eps=eps / 8.0, decide=1.0)
        if finer.lam >= 1.0 or finer.upper_bound < 1.0:
            cap = finer
        else:
            msg = (f"undecided: the demand is at capacity within eps/8 (lambda in [{finer.lam:.6g}, "
                   f"{finer.upper_bound:.6g}]); scale it down to get a latency")
            return FlowResult("ptas", "latency", finer.lam, finer.upper_bound, finer.arc_flow, finer.utilisation,
                              problem.resource_names, time.perf_counter() - t0, status="undecided",
                              iterations=finer.iterations, extra={"message": msg})
    if cap.upper_bound < 1.0:
        msg = f"infeasible: capacity lambda = {cap.lam:.6g} < 1 (certified upper bound {cap.upper_bound:.6g})"
        return FlowResult("ptas", "latency", cap.lam, cap.upper_bound, cap.arc_flow, cap.utilisation,
                          problem.resource_names, time.perf_counter() - t0, status="infeasible",
                          iterations=cap.iterations, extra={"message": msg})
    lat = problem.latency
    lo, sp_flow, split = _shortest_routings(problem)
    sp_util = (problem.R @ sp_flow) / problem.capacity
    if sp_util.max() > 1.0:
        # the trees do not fit; the even split over all shortest paths may
        split_util = (problem.R @ split) / problem.capacity
        if split_util.max() < sp_util.max():
            sp_flow, sp_util = split, split_util
    if sp_util.max() <= 1.0:
        # latency-shortest paths fit: optimal, no search needed
        return FlowResult("ptas", "latency", cap.lam, cap.upper_bound, sp_flow, sp_util, problem.resource_names,
                          time.perf_counter() - t0, status="optimal", iterations=1 if capacity is None else 0,
                          average_latency=lo / total, latency_bound=lo / total,
                          extra={"ptas_runs": 1 if capacity is None else 0, "latency_gap": 0.0})
    # Every PTAS run yields a feasible flow routing lam_i * demands with
    # latency L_i. Scaling down and convex combinations keep feasibility, so
    # the best flow routing exactly the demands comes from the lower
    # envelope of the points (lam_i, L_i) at lambda = 1.
    u = float(sp_util.max())
    points: list[tuple[float, float, np.ndarray]] = [(cap.lam, float(lat @ cap.arc_flow), cap.arc_flow),
                                                     (1.0 / u, lo / u, sp_flow / u)]
    hi, best_flow = _envelope(points)
    inner = eps / 3.0
    steps = 0
    phases = 0
    runs = 1 if capacity is None else 0
    budget = hi if math.isfinite(hi) else 2.0 * lo
    while steps < max_steps and phases < max_phases and lo > 0 and not hi <= lo * (1 + eps):
        steps += 1
        if math.isfinite(hi):
            budget = math.sqrt(lo * hi)
        r = max_concurrent_flow(_with_budget(problem, budget), eps=inner, decide=1.0,
                                max_phases=max_phases - phases)
        runs += 1
        phases += r.iterations
        points.append((r.lam, float(lat @ r.arc_flow), r.arc_flow))
        if r.upper_bound < 1.0:
            lo = max(lo, budget)  # certified: no routing of the demands within this budget
            if not math.isfinite(hi):
                budget *= 2.0
        elif r.lam < 1.0:
            # lambda(budget) straddles 1: neither bound moves, so the next
            # run (at the same budget unless the envelope drops) must be finer
            inner = max(inner / 2.0, eps / 64.0)
        hi, best_flow = _envelope(points)
        report(steps, phases=phases, lower_bound=lo / total, upper_bound=hi / total,
               gap=hi / lo - 1 if lo > 0 else math.inf)
        if not math.isfinite(hi) and r.upper_bound >= 1.0:
            budget *= 1.5
    if best_flow is None:
        raise FlowError("no feasible routing found at lambda >= 1; raise max_steps or eps")
    util = (problem.R @ best_flow) / problem.capacity
    certified = hi <= lo * (1 + eps) + 1e-12
    status = "optimal" if certified else f"gap {hi / lo - 1:.3g} after {steps} steps ({phases} phases)"
    return FlowResult("ptas", "latency", cap.lam, cap.upper_bound, best_flow, util, problem.resource_names,
                      time.perf_counter() - t0, status=status, iterations=runs,
                      average_latency=hi / total, latency_bound=lo / total,
                      extra={"ptas_runs": runs, "phases": phases, "latency_gap": hi / lo - 1 if lo > 0 else 0.0})
