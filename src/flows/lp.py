"""Exact LPs with HiGHS, built from arrays.

Aggregated arc-flow formulation: one flow variable per (group, channel),
where a group is every demand sharing a source (or, when there are fewer
distinct destinations, sharing a destination, solved on the reversed
channels). Conservation rows per (group, router), one row per resource.

- ``"concurrent"``: maximise lambda such that lambda * demand is routable.
- ``"latency"``: route the demands themselves at minimum total latency
  ``sum_a latency[a] * flow[a]`` (infeasible when lambda* < 1).
"""

from __future__ import annotations

import os
import sys
import time

import highspy
import numpy as np
import scipy.sparse as sp

from .groups import grouped
from .problem import FlowError, FlowProblem
from .result import FlowResult

__all__ = ["solve_lp", "build_lp_arrays", "lp_columns", "reprice_bound"]


def reprice_bound(problem: FlowProblem, y: np.ndarray) -> float:
    """The upper bound on lambda* certified by resource prices ``y >= 0``:
    ``sum_r c_r y_r / sum_k d_k dist_y(k)`` (weak duality), by one
    shortest-path tree per source under the arc lengths ``R^T y``.
    Zero prices are lifted by 1e-9 of the mean so that every length is
    positive (a bound from the lifted prices, just as valid).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4))
    >>> round(reprice_bound(p, np.ones(8)), 6)   # 8 / (16/3): the optimum 1.5
    1.5
    """
    # the shared shortest-path kernel, imported here: numba loads only when a bound is re-priced
    from ._paths import dijkstra

    y = np.asarray(y, dtype=np.float64)
    cap = problem.capacity
    y = y + 1e-9 * max(float(cap @ y), 1e-300) / (len(cap) * cap)
    ch, grp = grouped(problem)
    length = problem.R.T @ y
    n = problem.n
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    alpha = 0.0
    for g in range(len(grp.sources)):
        dijkstra(ch, length, grp.sources[g], dist, parent, order)
        sl = slice(grp.ptr[g], grp.ptr[g + 1])
        alpha += float(grp.amount[sl] @ dist[grp.dst[sl]])
    return float(cap @ y) / alpha if alpha > 0 else float("inf")


def _residual(Amat, x, row_lo, row_hi) -> float:
    """Largest row violation of ``x``, relative to the row's scale."""
    ax = Amat @ x
    lo = np.where(np.isfinite(row_lo), row_lo, -np.inf)
    hi = np.where(np.isfinite(row_hi), row_hi, np.inf)
    viol = np.maximum(np.maximum(lo - ax, ax - hi), 0.0)
    scale = 1.0 + np.maximum(np.abs(np.where(np.isfinite(lo), lo, 0)), np.abs(np.where(np.isfinite(hi), hi, 0)))
    return float((viol / scale).max()) if len(viol) else 0.0


def _quiet_highs() -> "highspy.Highs":
    """A Highs instance without its two-line banner, which the constructor
    prints to file descriptor 1 before any option can silence it (every
    worker of a sweep would print it into the progress display)."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):
        return highspy.Highs()
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            return highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def lp_columns(problem: FlowProblem, objective: str = "concurrent") -> int:
    """How many columns :func:`build_lp_arrays` makes: one flow variable per
    (group, channel), plus lambda for ``"concurrent"``. The LP's memory and
    time grow with it (HiGHS's interior point: about 100 s at 570000
    columns, measured in docs/results/flows.md), so callers size it first.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> lp_columns(FlowProblem.from_topology(cd.ring(4), Demands.uniform(4)), "latency")   # 4 sources x 8 channels
    32
    """
    dem = problem.demands
    groups = min(len(np.unique(dem.src)), len(np.unique(dem.dst)))
    return groups * problem.num_arcs + (1 if objective == "concurrent" else 0)


def build_lp_arrays(problem: FlowProblem, objective: str = "concurrent"):
    """The LP as arrays: (c, A (csc), row_lo, row_hi, col_hi, meta).

    Columns: group-major flow variables ``g * num_arcs + a``, then lambda
    (concurrent only). Exposed for the PuLP exporter and for inspection.

    Uniform traffic on a ring of 4: 4 source groups x 8 channels and
    lambda, the objective; a conservation row per group and router and a
    capacity row per channel.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4))
    >>> c, A, row_lo, row_hi, col_hi, meta = build_lp_arrays(p)
    >>> A.shape, c.tolist()[-1], meta["groups"], meta["nnz"]
    ((24, 33), 1.0, 4, 112)
    >>> row_hi[16:].tolist()         # the capacity rows: one unit per channel
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    if objective not in ("concurrent", "latency"):
        raise FlowError(f"unknown objective {objective!r}; use 'concurrent' or 'latency'")
    dem = problem.demands
    n, A = problem.n, problem.num_arcs
    reverse = len(np.unique(dem.dst)) < len(np.unique(dem.src))
    if reverse:
        tail, head, gsrc, gdst = problem.arc_dst, problem.arc_src, dem.dst, dem.src
    else:
        tail, head, gsrc, gdst = problem.arc_src, problem.arc_dst, dem.src, dem.dst
    groups, ginv = np.unique(gsrc, return_inverse=True)
    G = len(groups)
    # b[g, v]: net supply of group g at router v
    b = np.zeros((G, n))
    np.add.at(b, (ginv, groups[ginv]), dem.amount)
    np.add.at(b, (ginv, gdst), -dem.amount)
    Rc = problem.R.tocsc()
    nres = problem.num_resources
    # flow column (g, a): +1 at row (g, tail a), -1 at (g, head a), then
    # column a of R in the resource rows
    g_idx = np.repeat(np.arange(G), A)
    a_idx = np.tile(np.arange(A), G)
    per_col_res = np.diff(Rc.indptr)
    start = np.zeros(G * A + 1, dtype=np.int64)
    np.cumsum(2 + per_col_res[a_idx], out=start[1:])
    index = np.empty(int(start[-1]), dtype=np.int64)
    value = np.empty(int(start[-1]))
    index[start[:-1]] = g_idx * n + tail[a_idx]
    value[start[:-1]] = 1.0
    index[start[:-1] + 1] = g_idx * n + head[a_idx]
    value[start[:-1] + 1] = -1.0
    if Rc.nnz:
        a_of_e = np.repeat(np.arange(A), per_col_res)  # column of each entry of R
        local = np.arange(Rc.nnz) - Rc.indptr[a_of_e]
        cols = (np.arange(G)[:, None] * A + a_of_e[None, :]).reshape(-1)
        dest = start[cols] + 2 + np.tile(local, G)
        index[dest] = G * n + np.tile(Rc.indices, G)
        value[dest] = np.tile(Rc.data, G)
    nrow = G * n + nres
    row_lo = np.concatenate([np.zeros(G * n), np.full(nres, -np.inf)])
    row_hi = np.concatenate([np.zeros(G * n), problem.capacity])
    ncol = G * A
    if objective == "concurrent":
        bnz = np.flatnonzero(b.reshape(-1))
        lam_index = bnz
        lam_value = -b.reshape(-1)[bnz]
        index = np.concatenate([index, lam_index])
        value = np.concatenate([value, lam_value])
        start = np.append(start, start[-1] + len(bnz))
        ncol += 1
        c = np.zeros(ncol)
        c[-1] = 1.0
    else:
        row_lo[: G * n] = b.reshape(-1)
        row_hi[: G * n] = b.reshape(-1)
        c = np.tile(problem.latency, G)
    Amat = sp.csc_matrix((value, index, start), shape=(nrow, ncol))
    col_hi = np.full(ncol, np.inf)
    meta = {"groups": G, "reverse": bool(reverse), "rows": nrow, "cols": ncol, "nnz": int(Amat.nnz),
            # each group's router: the source its demands leave (the destination they reach when reversed)
            "group_routers": [int(g) for g in groups]}
    return c, Amat, row_lo, row_hi, col_hi, meta


def solve_lp(problem: FlowProblem, objective: str = "concurrent", *, time_limit: float | None = None,
             threads: int = 1, method: str = "ipm", verbose: bool = False) -> FlowResult:
    """Solve the problem exactly with HiGHS.

    ``method`` is HiGHS's ``solver`` option: ``"ipm"`` (interior point with
    crossover, the default: 6-19x faster than simplex on these arc-flow LPs,
    measured in docs/results/flows.md), ``"simplex"``, ``"choose"`` or
    ``"pdlp"`` (HiGHS's first-order primal-dual method: 2-21x faster than the
    interior point on the benchmark tori, but its primal and dual are
    feasible only to a relative tolerance of 1e-7). For ``"pdlp"`` and the
    concurrent objective the upper bound is certified independently: the
    resource duals are re-priced by shortest paths (``sum c y / sum d
    dist_y``, valid for any y >= 0), and ``extra["primal_residual"]`` gives
    the largest relative violation of the primal's flow conservation and
    capacity rows (``lam`` is PDLP's primal, exact only up to it).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4))
    >>> round(solve_lp(p).lam, 6)  # 8 unit channels carry 16/3 hop-units per unit of lambda
    1.5
    """
    t0 = time.perf_counter()
    c, Amat, row_lo, row_hi, col_hi, meta = build_lp_arrays(problem, objective)
    h = _quiet_highs()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("threads", int(threads))
    if method not in ("ipm", "simplex", "choose", "pdlp"):
        raise FlowError(f"unknown HiGHS method {method!r}; use ipm, simplex, choose or pdlp")
    h.setOptionValue("solver", method)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    lp = highspy.HighsLp()
    lp.num_col_ = Amat.shape[1]
    lp.num_row_ = Amat.shape[0]
    lp.col_cost_ = c
    lp.col_lower_ = np.zeros(Amat.shape[1])
    lp.col_upper_ = np.where(np.isfinite(col_hi), col_hi, highspy.kHighsInf)
    lp.row_lower_ = np.where(np.isfinite(row_lo), row_lo, -highspy.kHighsInf)
    lp.row_upper_ = np.where(np.isfinite(row_hi), row_hi, highspy.kHighsInf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = Amat.indptr.astype(np.int32)
    lp.a_matrix_.index_ = Amat.indices.astype(np.int32)
    lp.a_matrix_.value_ = Amat.data
    lp.sense_ = highspy.ObjSense.kMaximize if objective == "concurrent" else highspy.ObjSense.kMinimize
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    st = h.modelStatusToString(status)
    seconds = time.perf_counter() - t0
    A = problem.num_arcs
    G = meta["groups"]
    if status == highspy.HighsModelStatus.kInfeasible:
        if objective == "latency":
            cap = solve_lp(problem, "concurrent", time_limit=time_limit, threads=threads, method=method)
            return FlowResult("lp", "latency", cap.lam, cap.lam, cap.arc_flow, cap.utilisation,
                              problem.resource_names, time.perf_counter() - t0, status="infeasible",
                              extra={"message": f"infeasible: capacity lambda = {cap.lam:.6g} < 1"})
        raise FlowError("the LP is infeasible")
    if status != highspy.HighsModelStatus.kOptimal:
        if time_limit is not None and status == highspy.HighsModelStatus.kTimeLimit:
            raise FlowError(f"HiGHS ({method}) reached the time limit of {time_limit:g} s before an optimum; "
                            f"raise the limit or use the column generation (solver colgen)")
        raise FlowError(f"HiGHS stopped with status '{st}' before an optimum")
    sol = h.getSolution()
    x = np.asarray(sol.col_value)
    flow = np.maximum(x[: G * A], 0.0).reshape(G, A).sum(axis=0)
    util = (problem.R @ flow) / problem.capacity
    if objective == "concurrent":
        lam = float(x[-1])
        if method == "pdlp":
            y = np.maximum(np.asarray(sol.row_dual)[G * problem.n:], 0.0)
            upper = reprice_bound(problem, y)
            resid = _residual(Amat, x, row_lo, row_hi)
            # PDLP's primal may overshoot the optimum within its tolerance:
            # never report a lambda above the certified bound
            lam = min(lam, upper)
            return FlowResult("lp", "concurrent", lam, upper, flow, util, problem.resource_names,
                              time.perf_counter() - t0, status="optimal",
                              extra={"lp": meta, "method": "lp (pdlp)", "primal_residual": resid})
        return FlowResult("lp", "concurrent", lam, lam, flow, util, problem.resource_names, seconds,
                          extra={"lp": meta, "method": f"lp ({method})"})
    total = float(problem.latency @ flow)
    avg = total / problem.demands.total
    # capacity is not computed here; lam = 1 is what was routed
    return FlowResult("lp", "latency", 1.0, 1.0, flow, util, problem.resource_names, seconds,
                      average_latency=avg, latency_bound=avg, extra={"lp": meta})
