"""Minimum average latency at a given demand by path-based column generation.

The restricted master LP has one column per path found so far::

    min  sum_p lat(p) x_p + M sum_k a_k
    s.t. sum_p R(p)_r x_p          <= c_r   resource r    (dual -y_r, y_r >= 0)
         sum_{p of k} x_p + a_k     = d_k   commodity k   (dual z_k)

The master is one ``Highs`` instance that grows by ``addCols``. ``a_k`` is
an artificial column per commodity (no resource, cost ``M``): the
master is feasible from the first solve, and pricing drives the artificial
flow out (``M`` grows fourfold whenever pricing finds nothing while some
remains). A path column of commodity k has reduced cost
``lat(p) + sum_r R(p)_r y_r - z_k``, so one shortest-path tree per source
under ``latency_a + sum_r R[r, a] y_r`` prices all of that source's
commodities (the kernels of :mod:`flows.colgen`).

Certificates at every pricing round:

- lower bound: for any ``y >= 0`` relaxing the resource rows gives
  ``sum_k d_k dist_y(k) - sum_r c_r y_r <= OPT`` (Lagrangian duality), with
  ``dist_y`` exactly what the pricing computes;
- upper bound: the master's path flows once no artificial flow remains,
  rescaled per commodity to route exactly ``d_k``, checked against every
  capacity (the master's resource rows are tightened by 1e-7 relative, and
  its primal tolerance is 1e-9 absolute, so that the simplex's tolerance does
  not overrun them; where it still does the tightening grows tenfold and the
  master is solved again).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import highspy
import numpy as np

from .colgen import _certified as _capacity_certified
from .colgen import Pricing, _PathPool, _set_master_method, colgen_max_concurrent_flow, round_limit, run_master
from .lp import _quiet_highs, reprice_bound
from .problem import FlowError, FlowProblem
from .progress import Reporter
from .result import FlowResult

__all__ = ["colgen_min_latency"]

#: relative tightening of the master's resource rows (the simplex's primal
#: tolerance is absolute; see the module docstring); tenfold more whenever
#: the master's flow still overruns a capacity
_TIGHTEN = 1e-7


def colgen_min_latency(problem: FlowProblem, tol: float = 1e-4, *, capacity: FlowResult | None = None,
                       time_limit: float | None = None, max_rounds: int = 1000, master: str = "ipm",
                       verbose: bool = False, trace: bool = False, progress: Callable[[dict], None] | None = None,
                       progress_interval: float = 5.0) -> FlowResult:
    """Route every demand at minimum total latency, to a certified relative gap ``tol``.

    Returns a :class:`FlowResult` with objective ``"latency"`` as
    :func:`flows.min_latency` does: ``arc_flow`` routes the demands
    themselves within every capacity, ``average_latency`` is its latency per
    unit of demand and ``latency_bound`` a certified (Lagrangian) lower bound;
    ``extra["latency_gap"]`` is their relative gap. ``lam``/``upper_bound``
    are the capacity bracket when ``capacity`` (a max-concurrent-flow result
    for this very problem) is given or had to be computed; otherwise ``lam``
    is 1 (what is routed) and ``upper_bound`` the capacity bound of the final
    prices (certified, but loose where few resources carry a price), and
    ``extra["capacity_from"]`` says so.
    Infeasible demands (capacity below 1) give status
    ``"infeasible"``, as the other solvers do.

    ``master``: HiGHS's method for the master: ``"ipm"`` (interior point
    without crossover, from scratch every round; the default), ``"simplex"``
    (primal simplex from the last basis after ``addCols``) or ``"pdlp"``.
    Measured at eps 0.05 (CPU s, 0.9 / 0.985 x lambda): the 8x8x4 torus with
    1024 random demands ipm 0.44 / 1.1, simplex 1.2 / 3.3, pdlp 3.1 / 6.6;
    the BG/L NAS CG row of ``bench_flows.py --near-capacity`` ipm 1.7 / 3.2,
    simplex 2.0 / 6.8, pdlp 23 / 46. The warm basis does not pay: every
    round adds hundreds of columns and the primal simplex then needs
    thousands of pivots on the degenerate master.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(6), Demands.uniform(6).scaled(0.9))
    >>> r = colgen_min_latency(p)
    >>> round(r.average_latency, 6), r.extra["latency_gap"] <= 1e-4   # ring(6) capacity is 10/9
    (1.8, True)
    """
    if not (0 <= tol < 1):
        raise FlowError(f"tol must be in [0, 1), got {tol}")
    if master not in ("pdlp", "simplex", "ipm"):
        raise FlowError(f"unknown master method {master!r}; use simplex, ipm or pdlp")
    if capacity is not None and (capacity.objective != "concurrent" or len(capacity.arc_flow) != problem.num_arcs):
        raise FlowError("capacity must be a max-concurrent-flow result for the same problem")
    t0 = time.perf_counter()
    report = Reporter(progress, progress_interval, t0)
    c0 = time.process_time()
    if capacity is not None and capacity.upper_bound < 1.0:
        return _infeasible(problem, capacity, t0)
    pr = Pricing(problem)
    K, nres, dem_amt = pr.K, pr.nres, pr.dem_amt
    cap = problem.capacity
    lat = problem.latency
    zero_y = np.zeros(nres)
    total = float(dem_amt.sum())

    def price(y, z, select):
        return pr.round(lat + pr.RcT @ y, z, None, select)

    h = _quiet_highs()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("threads", 1)
    h.setOptionValue("presolve", "off")
    _set_master_method(h, master)
    h.setOptionValue("primal_feasibility_tolerance", 1e-9)
    if master == "ipm":
        # no crossover: the certificates need neither a vertex nor exact duals
        h.setOptionValue("run_crossover", "off")
    if master == "pdlp":
        h.setOptionValue("pdlp_optimality_tolerance", float(min(1e-4, max(1e-8, tol / 20))))
    tighten = _TIGHTEN
    inf = highspy.kHighsInf
    h.addRows(nres + K, np.concatenate([np.full(nres, -inf), dem_amt]),
              np.concatenate([cap * (1.0 - tighten), dem_amt]), 0, np.zeros(nres + K, dtype=np.int32),
              np.zeros(0, dtype=np.int32), np.zeros(0))
    h.changeObjectiveSense(highspy.ObjSense.kMinimize)
    pool = _PathPool()
    t_price = t_master = 0.0

    # Round 0: the latency-shortest paths (y = 0): the columns to start from,
    # and the first lower bound (no capacities at all)
    tp = time.perf_counter()
    out = price(zero_y, np.zeros(0), False)
    dist0 = out.dist
    best_lb = float(dem_amt @ dist0)
    t_price += time.perf_counter() - tp
    # the artificial columns' cost: M = mu * the longest latency-shortest
    # path. A small M keeps the master's prices bounded while artificial flow
    # remains, so the Lagrangian bound is useful early (BG/L row at 0.985 x
    # lambda, tol 1e-4, simplex master: 23 rounds, 6.8 s CPU at mu = 1.5;
    # 25, 9.0 s at 3; 26, 11.6 s at 10; 27, 13.9 s at 100); when it is too
    # small pricing stalls with artificial flow left and M grows
    scale = float(dist0.max()) if dist0.max() > 0 else 1.0
    mu = 2.0
    h.addCols(K, np.full(K, mu * scale), np.zeros(K), np.full(K, inf), K, np.arange(K, dtype=np.int32),
              pr.row_of_dem.astype(np.int32), np.ones(K))

    def add(out):
        ncol = out.count
        cost = np.add.reduceat(lat[out.path_arcs], out.path_ptr[:-1])
        h.addCols(ncol, cost, np.zeros(ncol), np.full(ncol, inf), len(out.col_rows), out.col_ptr[:-1].astype(np.int32),
                  out.col_rows, out.col_vals)
        pool.add(out.commodity, out.path_ptr, out.path_arcs)

    add(out)
    best_ub, best_flow = math.inf, None
    history: list[dict[str, float]] = []     # one entry per round
    rounds = 0
    status = "optimal"
    y = zero_y
    cap_r = capacity
    asked = False
    undecided: FlowResult | None = None     # the capacity result that left the latency undecided
    while True:
        sol, dt = run_master(h, "latency master LP")
        t_master += dt
        xs = np.asarray(sol.col_value)
        duals = np.asarray(sol.row_dual)
        art = float(np.maximum(xs[:K], 0.0).sum())
        ub, flow, overrun = _certified_flow(problem, pool, np.maximum(xs[K:], 0.0), dem_amt, art)
        if ub < best_ub:
            best_ub, best_flow = ub, flow
        if overrun > 0 and tighten < 1e-4:
            # the simplex's tolerance let the flow past a capacity: tighten the rows and solve again
            tighten *= 10.0
            # highspy's stub (1.16) lacks changeRowsBounds, which its binding has
            h.changeRowsBounds(nres, np.arange(nres, dtype=np.int32), np.full(nres, -inf),  # type: ignore[attr-defined]
                               cap * (1.0 - tighten))
            continue
        y = np.maximum(-duals[:nres], 0.0)
        z = duals[nres:]
        rounds += 1
        tp = time.perf_counter()
        out = price(y, z, True)
        lb = float(dem_amt @ out.dist) - float(cap @ y)
        best_lb = max(best_lb, lb)
        t_price += time.perf_counter() - tp
        history.append({"round": rounds, "lower_bound": best_lb / total, "upper_bound": best_ub / total,
                        "artificial": art / total, "new_columns": int(out.count), "seconds": time.perf_counter() - t0})
        report(rounds, lower_bound=best_lb / total, upper_bound=best_ub / total, gap=_gap(best_ub, best_lb))
        if trace:
            print(f"round {rounds}: ub {best_ub / total:.8g} lb {best_lb / total:.8g} art {art / total:.3g} "
                  f"cols +{out.count} total {pool.count} mu {mu:g} master {t_master:.2f}s price {t_price:.2f}s "
                  f"t {time.perf_counter() - t0:.2f}s", flush=True)
        if best_ub <= best_lb * (1 + tol) + 1e-12 * abs(best_lb):
            break
        if out.count == 0:
            if art <= 1e-9 * total:
                # no improving column yet the gap is open: the master is less accurate than tol asks
                status = f"stalled at gap {_gap(best_ub, best_lb):.3g} after {rounds} rounds (master accuracy)"
                break
            # artificial flow remains at the master's optimum: M is too small or
            # the demands do not fit. The master's prices decide the latter
            # when they certify a capacity below 1 (weak duality, one pricing
            # round); the path flows give the capacity's lower side
            cap_ub = reprice_bound(problem, y) if cap_r is None else cap_r.upper_bound
            if cap_ub < 1.0:
                if cap_r is None:
                    lam_lo, f_lo = _capacity_certified(problem, pool, np.maximum(xs[K:], 0.0), dem_amt)
                    cap_r = FlowResult("colgen", "concurrent", lam_lo, cap_ub, f_lo, (problem.R @ f_lo) / cap,
                                       problem.resource_names, time.perf_counter() - t0,
                                       extra={"method": f"colgen ({master} master)"})
                    # the master's path flows give only a weak lower side: say what is certified
                    return _infeasible(problem, cap_r, t0, upper_only=True)
                return _infeasible(problem, cap_r, t0)
            if mu >= 1e6 and not asked:
                # M is huge and the prices decide nothing: ask the capacity itself
                asked = True
                cap_r = colgen_max_concurrent_flow(problem, tol=1e-6, time_limit=time_limit)
                if cap_r.upper_bound < 1.0:
                    return _infeasible(problem, cap_r, t0)
            if (cap_r is not None and cap_r.lam < 1.0 / (1.0 - 10 * tighten)) or mu >= 1e12:
                assert cap_r is not None    # from mu >= 1e6 on, the capacity has been asked for (just above)
                undecided = cap_r
                status = (f"undecided: the demand is at capacity (lambda in [{cap_r.lam:.8g}, "
                          f"{cap_r.upper_bound:.8g}]); scale it down to get a latency")
                break
            mu *= 4.0
            h.changeColsCost(K, np.arange(K, dtype=np.int32), np.full(K, mu * scale))
            continue
        stop = round_limit(rounds, max_rounds, t0, time_limit)
        if stop:
            status = f"gap {_gap(best_ub, best_lb):.3g} after {rounds} rounds ({stop})"
            break
        add(out)
    if best_flow is None:
        if undecided is not None:
            return FlowResult("colgen", "latency", undecided.lam, undecided.upper_bound, undecided.arc_flow,
                              undecided.utilisation,
                              problem.resource_names, time.perf_counter() - t0, status="undecided",
                              iterations=rounds, extra={"message": status, "method": f"colgen ({master} master)"})
        raise FlowError(f"column generation found no routing of the demands ({status}); "
                        f"raise the time limit or use --solver lp")
    extra_cap = {}
    if cap_r is not None:
        lam, upper = cap_r.lam, cap_r.upper_bound
    else:
        # this flow routes the demands: lambda >= 1; the final prices bound it from above
        lam, upper = 1.0, max(1.0, reprice_bound(problem, y))
        extra_cap = {"capacity_from": "latency prices"}
    util = (problem.R @ best_flow) / cap
    return FlowResult("colgen", "latency", lam, upper, best_flow, util, problem.resource_names,
                      time.perf_counter() - t0, status=status, iterations=rounds,
                      average_latency=best_ub / total, latency_bound=best_lb / total,
                      extra={"method": f"colgen ({master} master)", "tol": tol, "latency_gap": _gap(best_ub, best_lb),
                             "start": "latency-shortest paths + artificial columns", "columns": int(pool.count),
                             "pricing_rounds": rounds, "master_seconds": t_master, "pricing_seconds": t_price,
                             "cpu_seconds": time.process_time() - c0, **extra_cap, "history": history})


def _gap(ub: float, lb: float) -> float:
    if lb > 0:
        return max(0.0, ub / lb - 1.0)
    return 0.0 if ub <= lb else math.inf


def _certified_flow(problem: FlowProblem, pool: _PathPool, x: np.ndarray, dem_amt: np.ndarray, art: float):
    """The total latency and arc flow of the path flows ``x`` rescaled to
    route every demand exactly, and 0; or (inf, None, 0) while artificial
    flow remains; or (inf, None, overrun) when the flow exceeds a capacity
    (by ``overrun`` relative): then it certifies nothing."""
    total = float(dem_amt.sum())
    if art > 1e-9 * total:
        return math.inf, None, 0.0
    ptr, arcs, dem = pool.ptr[0], pool.arcs[0], pool.dem[0]
    share = np.bincount(dem, weights=x, minlength=len(dem_amt)) / dem_amt
    if share.min() <= 0:
        return math.inf, None, 0.0
    xs = x / share[dem]
    flow = np.bincount(arcs, weights=np.repeat(xs, np.diff(ptr)), minlength=problem.num_arcs)
    over = float(((problem.R @ flow) / problem.capacity).max()) - 1.0
    if over > 0:
        return math.inf, None, over
    return float(problem.latency @ flow), flow, 0.0


def _infeasible(problem: FlowProblem, cap: FlowResult, t0: float, upper_only: bool = False) -> FlowResult:
    if cap.lam > 0 and not upper_only:
        msg = f"infeasible: capacity lambda = {cap.lam:.6g} < 1 (certified upper bound {cap.upper_bound:.6g})"
    else:
        msg = f"infeasible: the demands do not fit (capacity lambda <= {cap.upper_bound:.6g} < 1, certified)"
    return FlowResult("colgen", "latency", cap.lam, cap.upper_bound, cap.arc_flow, cap.utilisation,
                      problem.resource_names, time.perf_counter() - t0, status="infeasible",
                      extra={"message": msg, "method": cap.extra.get("method", "colgen")})
