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
is the best of the flows routed since checkpoints (taken at every bound
check, thinned geometrically), which discards the early phases routed under
uninformed lengths.

Fleischer's lazy shortest paths: each group caches its last few trees and
routes on the cheapest one while it costs at most ``1 + slack`` times a lower
bound on its current shortest-tree cost (the cost of its last exact tree:
lengths only grow), so most steps need no Dijkstra. At 512 routers with 2048
random demands this cut the Dijkstras from about 305000 to 43000 and the time
from 17 s to 2.3 s, though the phases rose from 302 to 457 (the cached trees
are up to ``slack`` longer than shortest). The bound check every
``phases // check_div`` phases runs exact trees and refreshes those bounds.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import numpy as np

from ._paths import dijkstra, tree_flow
from ._ptas_kernels import PtasOutcome, PtasParams, Resources, gk_fleischer
from .groups import DemandGroups, Grouped, grouped
from .problem import DEFAULT_EPS, FlowError, FlowProblem
from .result import FlowResult

__all__ = ["max_concurrent_flow"]


def _shortest_path_congestion(problem, G: Grouped) -> float:
    """Worst resource utilisation when every demand takes one hop-shortest path."""
    ch, grp = G
    n = problem.n
    ones = np.ones(problem.num_arcs)
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    flow = np.zeros(problem.num_arcs)
    acc = np.zeros(n)
    for g in range(len(grp.sources)):
        settled = dijkstra(ch, ones, grp.sources[g], dist, parent, order)
        sl = slice(grp.ptr[g], grp.ptr[g + 1])
        np.add.at(acc, grp.dst[sl], grp.amount[sl])
        tree_flow(order, settled, parent, ch.tails, acc, flow)
    return float(((problem.R @ flow) / problem.capacity).max())


def max_concurrent_flow(problem: FlowProblem, eps: float = DEFAULT_EPS, *, max_phases: int = 100000,
                        check_div: int = 4, pool_size: int = 6, step: float | None = None,
                        slack: float | None = None, decide: float | None = None,
                        progress: Callable[[dict], None] | None = None,
                        progress_interval: float = 5.0) -> FlowResult:
    """The largest lambda such that lambda times every demand can be routed.

    Certified to within ``eps``: ``upper_bound <= (1 + eps) * lam`` unless
    ``max_phases`` ran out first (then ``status`` says so). The tuning knobs
    (``step``: GK's multiplicative step, default ``min(0.1, 4 eps)``;
    ``slack``: how much longer than shortest a cached tree may be, default
    ``min(0.5, 10 eps)`` and capped there; ``pool_size`` trees cached per group;
    ``check_div``) change the speed, never the certificates; where the gap
    stops closing the run halves the step (not below eps/4) and the slack,
    whose final values ``extra`` reports. With
    ``decide``, the run also stops as soon as ``lam >= decide`` or
    ``upper_bound < decide`` (a certified yes/no, all a search needs).
    With ``progress``, the kernel runs in a thread and ``progress`` is called
    about every ``progress_interval`` seconds with ``{"phases", "lam",
    "upper_bound", "gap", "dijkstras", "seconds"}`` as of the kernel's last
    bound check (the results are the same as without it).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> r = max_concurrent_flow(FlowProblem.from_topology(cd.rtt(4), Demands.uniform(32)), eps=0.02)
    >>> r.lam <= 1.4761905 <= r.upper_bound and r.gap <= 0.02   # the LP optimum is 31/21
    True
    """
    if not (0 < eps < 1):
        raise FlowError(f"eps must be in (0, 1), got {eps}")
    if isinstance(max_phases, bool) or not isinstance(max_phases, (int, np.integer)) or max_phases < 1:
        raise FlowError(f"max_phases must be a positive integer, got {max_phases!r}")
    if max_phases > 2**62:   # the kernel counts phases in int64
        raise FlowError(f"max_phases must be at most 2**62 (a phase budget no run reaches), got {max_phases:,}")
    t0 = time.perf_counter()
    G = grouped(problem)
    # pre-scale so that lambda* >= 1: shortest-path routing is feasible at 1/congestion
    scale = 1.0 / _shortest_path_congestion(problem, G)
    R = problem.R.tocsr(copy=True)
    R.eliminate_zeros()
    Rc = R.tocsc()
    # Step size: GK's worst-case analysis wants eps/3, but every answer here
    # is certified by the primal/dual pair, and a larger multiplicative step
    # needed 10-20x fewer phases on tightly constrained instances (measured:
    # docs/results/flows.md). GK is invariant under scaling the lengths, so
    # the kernel starts from y = 1/c and renormalises instead of using delta.
    # A cached tree up to 50% longer than shortest looks reckless, but on
    # the benchmark instances it was the fastest (wall time; e.g. torus
    # 8x8x4 random 4N: slack 0.025 1.8 s, 0.5 0.6 s, 1.0 0.65 s), and a
    # step above 0.2 with a large slack sometimes needed thousands of phases.
    # Step 0.1 rather than 0.2 at eps 0.05: smaller steps change the lengths
    # less, so cached trees stay usable longer; over ten benchmark instances
    # (32-512 routers, uniform and 4N random) 11% less CPU in all, 25% less on
    # the 512-router torus with 2048 demands (2.29 -> 1.72 s).
    e = min(0.1, 4.0 * eps) if step is None else float(step)
    # the slack also caps how far the gap can close (explicit slack 1.0 at
    # eps 0.02 stalled in tests), hence at most 10 eps
    sl = min(0.5, 10.0 * eps) if slack is None else min(float(slack), 10.0 * eps)
    resources = Resources(Rc.indptr.astype(np.int64), Rc.indices.astype(np.int64), Rc.data.astype(np.float64),
                          R.indptr.astype(np.int64), R.indices.astype(np.int64), R.data.astype(np.float64),
                          problem.capacity.astype(np.float64))
    groups = DemandGroups(G.groups.ptr, G.groups.sources, G.groups.dst, G.groups.amount * scale)
    params = PtasParams(float(e), int(max_phases), float(eps), int(pool_size), int(check_div), float(sl),
                        0.0 if decide is None else float(decide) / scale)
    kernel_status = np.zeros(4)     # the kernel writes phases, lam, bound, Dijkstras into it as it runs
    args = (G.channels, resources, groups, params, kernel_status)
    if progress is None:
        out = gk_fleischer(*args)
    else:
        out = _run_reporting(args, kernel_status, scale, t0, progress, progress_interval)
    # re-derive the primal from the returned flow: lam is what it certifies
    cong = float(((problem.R @ out.flow) / problem.capacity).max())
    lam = out.lam / cong * scale
    upper = out.bound * scale
    arc_flow = out.flow / cong
    util = (problem.R @ arc_flow) / problem.capacity
    if upper <= lam * (1 + eps) + 1e-12:
        status = "optimal"
    elif decide is not None and (lam >= decide or upper < decide):
        status = "decided"
    else:
        status = f"stopped after {out.phases} phases"
    return FlowResult("ptas", "concurrent", float(lam), float(max(upper, lam)), arc_flow, util,
                      problem.resource_names, time.perf_counter() - t0, status=status, iterations=int(out.phases),
                      extra={"dijkstras": int(out.dijkstras), "pool_steps": int(out.pool_steps), "eps": eps,
                             "step": float(out.step), "slack": float(out.slack)})


def _run_reporting(args, status, scale, t0, progress, interval) -> PtasOutcome:
    """The kernel in a thread (it releases the GIL), reporting ``status``
    every ``interval`` seconds until it returns."""
    box: dict = {}

    def work() -> None:
        try:
            box["out"] = gk_fleischer(*args)
        except BaseException as exc:  # re-raised in the caller's thread
            box["err"] = exc

    # daemon: an interrupted command must not wait for the kernel to finish
    th = threading.Thread(target=work, name="gk_fleischer", daemon=True)
    th.start()
    while True:
        th.join(interval)
        if not th.is_alive():
            break
        phases, lam, bound, ndijk = (float(x) for x in status)
        lam, upper = lam * scale, bound * scale
        progress({"phases": int(phases), "lam": lam, "upper_bound": upper,
                  "gap": upper / lam - 1.0 if lam > 0 and math.isfinite(upper) else math.inf,
                  "dijkstras": int(ndijk), "seconds": time.perf_counter() - t0})
    if "err" in box:
        raise box["err"]
    return box["out"]
