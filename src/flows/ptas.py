"""Maximum concurrent flow by the Garg–Könemann / Karakostas PTAS.

Garg and Könemann's primal-dual scheme with Karakostas' improvement: the
commodities sharing a source are routed together along one shortest-path
tree per step, so a phase costs one Dijkstra per source (or per destination,
on the reversed channels, when there are fewer destinations), not one per
commodity. Resources are general packing constraints ``R @ flow <= c``: the
length of a channel is ``sum_r R[r, a] * y_r``.

Every answer is certified: ``lam`` is the throughput of an explicit feasible
flow (the routed flow scaled by its worst congestion) and ``upper_bound`` is
``D(y) / alpha(y)`` for dual lengths y (weak LP duality), so the true optimum
lies in ``[lam, upper_bound]``. The run stops as soon as the gap is at most
``eps`` (or at ``max_phases``, reporting the gap it reached).

Demands are pre-scaled by the throughput of hop-shortest-path routing (a
lower bound on lambda*), which keeps the number of phases small. The primal
is the best of the flows routed since checkpoints at phases 1, 2, 4, ...,
which discards the early phases routed under uninformed lengths.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ._kernels import arc_lengths, dijkstra, gk_concurrent
from .problem import FlowError, FlowProblem
from .result import FlowResult

__all__ = ["max_concurrent_flow", "grouped"]


def grouped(problem: FlowProblem, extra_length: np.ndarray | None = None):
    """Commodities grouped by source (or by destination on reversed channels).

    Returns (indptr, heads, arcs, tails, grp_ptr, grp_src, dem_dst, dem_amt)
    where channel numbers are the problem's, whichever orientation is used.
    """
    dem = problem.demands
    reverse = len(np.unique(dem.dst)) < len(np.unique(dem.src))
    if reverse:
        tail, head, gsrc, gdst = problem.arc_dst, problem.arc_src, dem.dst, dem.src
    else:
        tail, head, gsrc, gdst = problem.arc_src, problem.arc_dst, dem.src, dem.dst
    n = problem.n
    order = np.lexsort((np.arange(len(tail)), tail))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tail, minlength=n), out=indptr[1:])
    heads = head[order].astype(np.int64)
    arcs = order.astype(np.int64)
    o = np.argsort(gsrc, kind="stable")
    srcs, counts = np.unique(gsrc[o], return_counts=True)
    grp_ptr = np.zeros(len(srcs) + 1, dtype=np.int64)
    np.cumsum(counts, out=grp_ptr[1:])
    return (indptr, heads, arcs, np.asarray(tail, dtype=np.int64), grp_ptr, srcs.astype(np.int64),
            np.asarray(gdst[o], dtype=np.int64), np.asarray(dem.amount[o], dtype=np.float64))


def _shortest_path_congestion(problem, G) -> float:
    """Worst resource utilisation when every demand takes one hop-shortest path."""
    indptr, heads, arcs, tails, grp_ptr, grp_src, dem_dst, dem_amt = G
    n = problem.n
    ones = np.ones(problem.num_arcs)
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    flow = np.zeros(problem.num_arcs)
    from ._kernels import _tree_flow

    acc = np.zeros(n)
    for g in range(len(grp_src)):
        settled = dijkstra(indptr, heads, arcs, ones, grp_src[g], dist, parent, order)
        np.add.at(acc, dem_dst[grp_ptr[g]:grp_ptr[g + 1]], dem_amt[grp_ptr[g]:grp_ptr[g + 1]])
        _tree_flow(order, settled, parent, tails, acc, flow)
    return float(((problem.R @ flow) / problem.capacity).max())


def max_concurrent_flow(problem: FlowProblem, eps: float = 0.05, *, max_phases: int = 100000,
                        check_every: int = 1) -> FlowResult:
    """The largest lambda such that lambda times every demand can be routed.

    Certified to within ``eps``: ``upper_bound <= (1 + eps) * lam`` unless
    ``max_phases`` ran out first (then ``status`` says so).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> r = max_concurrent_flow(FlowProblem.from_topology(cd.rtt(4), Demands.uniform(32)), eps=0.02)
    >>> r.lam <= 1.4761905 <= r.upper_bound and r.gap <= 0.02   # the LP optimum is 31/21
    True
    """
    if not (0 < eps < 1):
        raise FlowError(f"eps must be in (0, 1), got {eps}")
    t0 = time.perf_counter()
    G = grouped(problem)
    indptr, heads, arcs, tails, grp_ptr, grp_src, dem_dst, dem_amt = G
    # pre-scale so that lambda* >= 1: shortest-path routing is feasible at 1/congestion
    scale = 1.0 / _shortest_path_congestion(problem, G)
    Rc = problem.R.tocsc()
    nres = problem.num_resources
    # Step size: GK's worst-case analysis wants eps/3, but every answer here
    # is certified by the primal/dual pair, and a larger multiplicative step
    # needed 10-20x fewer phases on tightly constrained instances (measured:
    # benchmarks/RESULTS.md). delta follows GK for that step.
    e = min(0.3, 4.0 * eps)
    delta = (1.0 + e) * ((1.0 + e) * nres) ** (-1.0 / e)
    delta = max(delta, 1e-290)
    flow, lam_s, phases, bound, ndijk = gk_concurrent(
        problem.n, indptr, heads, arcs, tails,
        Rc.indptr.astype(np.int64), Rc.indices.astype(np.int64), Rc.data.astype(np.float64),
        problem.capacity.astype(np.float64), grp_ptr, grp_src, dem_dst, dem_amt * scale,
        e, delta, int(max_phases), int(check_every), float(eps),
    )
    # re-derive the primal from the returned flow: lam is what it certifies
    cong = float(((problem.R @ flow) / problem.capacity).max())
    lam = lam_s / cong * scale
    upper = bound * scale
    arc_flow = flow / cong
    util = (problem.R @ arc_flow) / problem.capacity
    status = "optimal" if upper <= lam * (1 + eps) + 1e-12 else f"stopped after {phases} phases"
    return FlowResult("ptas", "concurrent", float(lam), float(max(upper, lam)), arc_flow, util,
                      problem.resource_names, time.perf_counter() - t0, status=status, iterations=int(phases),
                      extra={"dijkstras": int(ndijk), "eps": eps})
