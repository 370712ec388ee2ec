"""Maximum concurrent flow by path-based column generation (HiGHS master).

The restricted master LP has one column per path found so far (the
commodity's row, and R summed along the path in the resource rows) and
lambda::

    max lambda
    s.t. sum_p R(p)_r x_p       <= c_r     resource r     (dual y_r >= 0)
         sum_{p of k} x_p - d_k lambda >= 0  commodity k  (dual z_k >= 0)

Pricing: a column of commodity k has reduced cost ``len_y(p) - z_k``, so one
shortest-path tree per source under the arc lengths ``sum_r R[r, a] y_r``
prices all of that source's commodities (the Dijkstra kernel of the PTAS).
Every pricing round also certifies: for any ``y > 0``,
``sum_r c_r y_r / sum_k d_k dist_y(k)`` bounds lambda* from above (weak
duality; the PTAS's bound), and the master's path flows are a feasible
routing, so the optimum lies in ``[lam, upper_bound]`` at every iteration.
The master is re-solved by HiGHS's simplex from the previous basis after
``addCols`` (one ``Highs`` instance for the whole run).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import highspy
import numpy as np

from ._colgen_kernels import PathResources, PricedColumns, price_round
from ._pool_kernels import PathPool, SweepParams, pool_min_lengths, potential_sweeps
from .lp import _quiet_highs
from .problem import FlowError, FlowProblem
from .progress import Reporter
from .groups import grouped
from .result import FlowResult

__all__ = ["colgen_max_concurrent_flow"]


def _set_master_method(h, master: str) -> None:
    if master == "pdlp":
        # HiGHS's own PDLP where it has one (0.6 s vs 1.5 s for cuPDLP-C on
        # the 512-router master); the tolerance is relative
        try:
            h.setOptionValue("solver", "hipdlp")
        except Exception:
            h.setOptionValue("solver", "pdlp")
        if h.getOptionValue("solver") not in ("hipdlp", "pdlp"):
            h.setOptionValue("solver", "pdlp")
    elif master == "simplex":
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("simplex_strategy", 4)  # primal: added columns keep the basis primal feasible
    else:
        h.setOptionValue("solver", "ipm")


def _subset(out: PricedColumns, idx) -> PricedColumns:
    """The columns ``idx`` of a :func:`price_round` output."""
    ck, pptr, parc, cptr, crow, cval = out.commodity, out.path_ptr, out.path_arcs, out.col_ptr, out.col_rows, out.col_vals
    plen = np.diff(pptr)[idx]
    clen = np.diff(cptr)[idx]
    pp = np.concatenate([[0], np.cumsum(plen)])
    cp = np.concatenate([[0], np.cumsum(clen)])
    pa = parc[np.repeat(pptr[idx], plen) + (np.arange(pp[-1]) - np.repeat(pp[:-1], plen))]
    ce = np.repeat(cptr[idx], clen) + (np.arange(cp[-1]) - np.repeat(cp[:-1], clen))
    return PricedColumns(None, len(idx), ck[idx], pp, pa, cp, crow[ce], cval[ce])


def colgen_max_concurrent_flow(problem: FlowProblem, tol: float = 1e-4, *, time_limit: float | None = None,
                               max_rounds: int = 1000, master: str = "pdlp", smoothing: float = 0.5,
                               warm_phases: int | None = None, warm_step: float = 0.3, verbose: bool = False,
                               trace: bool = False, beta: float | None = None, max_sweeps: int = 200,
                               progress: Callable[[dict], None] | None = None,
                               progress_interval: float = 5.0) -> FlowResult:
    """Max concurrent flow to a certified relative gap ``tol``.

    ``master`` is the HiGHS method for the restricted master: ``"pdlp"``
    (first-order, from scratch each round; the default: on the 512-router
    torus master with 16000 paths 0.6 s where dual simplex ran for minutes
    and the interior point, slowed by the dense congestion column, 24 s) or
    ``"simplex"`` (primal simplex warm-started from the last basis after
    ``addCols``; fine on small instances, stalls on degenerate large ones).
    ``"mwu"`` solves the restricted master with no LP solver: an
    exponential potential over the pool's paths minimised by Gauss-Seidel
    Newton sweeps (numba), its weights the prices for pricing; on the
    4096-router torus with 16384 random demands gap 5% in 12 s CPU where
    the first PDLP master solve alone took minutes (docs/results/flows.md).
    ``smoothing`` is Wentges' weight on the best-bound prices when pricing
    (the mwu master halves it every round); ``warm_phases``
    multiplicative-weights phases seed the master (default 10, 3 for mwu);
    ``beta`` fixes the mwu potential's stiffness relative to the congestion
    (default: it follows the gap) and ``max_sweeps`` caps its sweeps per round.
    ``progress`` is called after a round, at most every ``progress_interval``
    seconds, with ``{"rounds", "seconds", "lam", "upper_bound", "gap"}``
    (a round is one master solve and one pricing: the first PDLP master of
    a large instance can take minutes on its own).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> r = colgen_max_concurrent_flow(FlowProblem.from_topology(cd.ring(6), Demands.uniform(6)))
    >>> round(r.lam, 6), r.gap <= 1e-4
    (1.111111, True)
    """
    if not (0 <= tol < 1):
        raise FlowError(f"tol must be in [0, 1), got {tol}")
    if master not in ("pdlp", "simplex", "ipm", "mwu"):
        raise FlowError(f"unknown master method {master!r}; use pdlp, simplex, ipm or mwu")
    if not (0 <= smoothing < 1):
        raise FlowError(f"smoothing must be in [0, 1), got {smoothing}")
    if warm_phases is None:
        # measured: the mwu master does better with few warm phases (4096
        # routers, gap 5%: 3 phases 11.7 s CPU, 1 phase 17.9 s, 10 phases 27 s)
        warm_phases = 3 if master == "mwu" else 10
    if master == "mwu":
        return _colgen_mwu(problem, tol, time_limit, max_rounds, warm_phases, warm_step, beta, max_sweeps, smoothing,
                           trace, progress, progress_interval)
    t0 = time.perf_counter()
    c0 = time.process_time()
    report = Reporter(progress, progress_interval, t0)
    pr = Pricing(problem)
    K, nres, dem_amt = pr.K, pr.nres, pr.dem_amt
    cap = problem.capacity
    price = _capacity_price(pr, cap)
    h = _quiet_highs()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("threads", 1)
    h.setOptionValue("presolve", "off")
    _set_master_method(h, master)
    if master == "pdlp":
        # PDLP's relative tolerance follows the gap asked for: the certified
        # lambda is re-derived from the path flows, so a looser master only
        # costs gap, never validity (at 4096 routers the master at 1e-7 took
        # 10 minutes)
        h.setOptionValue("pdlp_optimality_tolerance", float(min(1e-4, max(1e-7, tol / 20))))
    inf = highspy.kHighsInf
    # min mu: R(paths) <= mu c, every demand routed exactly (lambda = 1/mu)
    lo = np.concatenate([np.full(nres, -inf), dem_amt])
    hi = np.concatenate([np.zeros(nres), dem_amt])
    h.addRows(nres + K, lo, hi, 0, np.zeros(nres + K, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
    h.addCols(1, np.ones(1), np.zeros(1), np.full(1, inf), nres, np.zeros(1, dtype=np.int32),
              np.arange(nres, dtype=np.int32), -cap)
    h.changeObjectiveSense(highspy.ObjSense.kMinimize)
    pool = _PathPool()
    t_master = t_price = 0.0

    def add(out: PricedColumns):
        if out.count:
            ncol = out.count
            h.addCols(ncol, np.zeros(ncol), np.zeros(ncol), np.full(ncol, inf), len(out.col_rows),
                      out.col_ptr[:-1].astype(np.int32), out.col_rows, out.col_vals)
            pool.add(out.commodity, out.path_ptr, out.path_arcs)

    tp = time.perf_counter()
    best_bound, y_c = _warm_start(problem, price, add, dem_amt, warm_phases, warm_step)
    t_price += time.perf_counter() - tp
    if trace:
        print(f"warm start: {warm_phases} phases, {pool.count} columns, bound {best_bound:.8g}, {t_price:.2f}s", flush=True)
    history: list[dict[str, float]] = []     # one entry per round
    rounds = 0
    status = "optimal"
    lam = 0.0
    alpha = smoothing
    x = np.zeros(0)
    while True:
        sol, dt = run_master(h, "master LP")
        t_master += dt
        duals = np.asarray(sol.row_dual)
        x = np.maximum(np.asarray(sol.col_value)[1:], 0.0)
        lam, _ = _certified(problem, pool, x, dem_amt)
        y = np.maximum(-duals[:nres], 0.0)
        z = duals[nres:]
        # y + delta: strictly positive lengths (any y > 0 certifies) at a
        # cost of 1e-9 relative in the bound
        y += 1e-9 * max(float(cap @ y), 1e-300) / (nres * cap)
        rounds += 1
        tp = time.perf_counter()
        # exact pricing at the master's duals: its bound is the one that
        # closes the gap once the master is optimal
        bound, out = price(y, None, z, True)
        if bound < best_bound:
            best_bound, y_c = bound, y
        if smoothing > 0 and out.count > 0 and not best_bound <= lam * (1 + tol):
            # Wentges smoothing: price at a point between the best-bound
            # prices (the centre, rescaled to the master's) and the
            # master's; the columns found there that have negative reduced
            # cost at the master's duals replace the exact ones (fewer
            # degenerate rounds); none found (mis-pricing): keep the exact ones
            ys = smoothing * (y_c * (float(cap @ y) / float(cap @ y_c))) + (1 - smoothing) * y
            bound_s, out_s = price(ys, y, z, True)
            if bound_s < best_bound:
                best_bound, y_c = bound_s, ys
            if out_s.count > 0:
                out = out_s
        t_price += time.perf_counter() - tp
        _record_round(history, report, rounds, lam, best_bound, int(out.count), t0)
        if trace:
            print(f"round {rounds}: lam {lam:.8g} bound {best_bound:.8g} gap {best_bound / lam - 1 if lam > 0 else math.inf:.3g} "
                  f"cols +{out.count} total {pool.count} alpha {alpha:.3g} master {t_master:.2f}s price {t_price:.2f}s "
                  f"t {time.perf_counter() - t0:.2f}s", flush=True)
        if lam > 0 and best_bound <= lam * (1 + tol):
            break
        if out.count == 0:
            # no improving column at the master's prices yet the gap is open:
            # the master's solution is less accurate than tol asks
            status = f"stalled at gap {best_bound / lam - 1:.3g} after {rounds} rounds (master accuracy)"
            break
        stop = round_limit(rounds, max_rounds, t0, time_limit)
        if stop:
            status = f"{stop} after {rounds} rounds"
            break
        add(out)
    lam, arc_flow = _certified(problem, pool, x, dem_amt)
    util = (problem.R @ arc_flow) / cap
    return FlowResult("colgen", "concurrent", lam, max(best_bound, lam), arc_flow, util, problem.resource_names,
                      time.perf_counter() - t0, status=status, iterations=rounds,
                      extra={"method": f"colgen ({master} master)", "tol": tol, "columns": int(pool.count),
                             "pricing_rounds": rounds, "master_seconds": t_master, "pricing_seconds": t_price,
                             "cpu_seconds": time.process_time() - c0, "warm_phases": warm_phases,
                             "history": history})


class Pricing:
    """What every pricing round needs, built once per solve: the channels
    grouped by source (:func:`flows.groups.grouped`) and the resource matrix
    by channel (a path's column) and transposed (channel lengths from
    resource prices)."""

    def __init__(self, problem: FlowProblem):
        self.channels, self.groups = grouped(problem)
        self.dem_amt = self.groups.amount
        self.K = len(self.groups.dst)
        self.nres = problem.num_resources
        Rc = problem.R.tocsc()
        Rc.eliminate_zeros()
        self.RcT = Rc.T.tocsr()
        self.row_of_dem = (self.nres + np.arange(self.K)).astype(np.int64)
        self.paths = PathResources(Rc.indptr.astype(np.int64), Rc.indices.astype(np.int64), Rc.data.astype(np.float64),
                                   self.nres, self.row_of_dem)

    def round(self, length: np.ndarray, z: np.ndarray, check: np.ndarray | None, select: bool) -> PricedColumns:
        """One tree per source under channel ``length``: :func:`price_round`'s
        output (distances, then the columns priced below ``z``; ``check``:
        channel lengths the columns must also improve under)."""
        return price_round(self.channels, self.groups, length, z, 1e-9, _NONE if check is None else check,
                           self.paths, select)


_NONE = np.zeros(0)


def _record_round(history: list[dict[str, float]], report: Reporter, rounds: int, lam: float, bound: float, new: int,
                  t0: float) -> None:
    """A capacity round into ``history`` and to the progress reporter."""
    history.append({"round": rounds, "lambda": lam, "upper_bound": bound, "new_columns": new,
                    "seconds": time.perf_counter() - t0})
    report(rounds, lam=lam, upper_bound=bound, gap=bound / lam - 1 if lam > 0 else math.inf)


def round_limit(rounds: int, max_rounds: int, t0: float, time_limit: float | None) -> str | None:
    """Why column generation must stop now (``"round limit"``, ``"time limit"``), or None."""
    if rounds >= max_rounds:
        return "round limit"
    if time_limit is not None and time.perf_counter() - t0 > time_limit:
        return "time limit"
    return None


def run_master(h, what: str):
    """Solve the master ``h`` as it stands: ``(solution, seconds)``. A status
    other than optimal with primal and dual values is accepted (PDLP at a
    loose tolerance sometimes ends 'Unknown' with a usable solution: every
    certificate is computed from it independently); without them, a one-line
    :class:`FlowError` naming ``what``."""
    t = time.perf_counter()
    h.run()
    dt = time.perf_counter() - t
    ms = h.getModelStatus()
    sol = h.getSolution()
    if ms != highspy.HighsModelStatus.kOptimal and not (sol.value_valid and sol.dual_valid):
        raise FlowError(f"HiGHS stopped the {what} with status '{h.modelStatusToString(ms)}'")
    return sol, dt


def _capacity_price(pr: Pricing, cap: np.ndarray):
    """``price(y, check_y, z, select) -> (bound, out)``: a pricing round at
    resource prices ``y`` and the capacity bound ``c.y / sum d dist_y`` it certifies."""

    def price(y, check_y, z, select):
        out = pr.round(pr.RcT @ y, z, None if check_y is None else pr.RcT @ check_y, select)
        alpha = float(pr.dem_amt @ out.dist)
        return (float(cap @ y) / alpha if alpha > 0 else math.inf), out

    return price


def _warm_start(problem: FlowProblem, price, add, dem_amt, warm_phases: int, warm_step: float):
    """Warm start by multiplicative weights: route every demand on its
    shortest path, raise each resource's price by exp(step * its
    utilisation relative to the most used one), repeat. Every phase's paths
    go to ``add`` (duplicates dropped) and every phase's prices give a
    certified bound; returns the best bound and its prices."""
    cap = problem.capacity
    A = problem.num_arcs
    y_c = 1.0 / cap
    best_bound = math.inf
    cum = np.zeros(problem.num_resources)
    hkey = np.random.default_rng(12345).integers(1, 2**62, size=A, dtype=np.int64)
    seen: set = set()
    y_w = y_c
    for _ in range(max(1, warm_phases)):
        bound, out = price(y_w, None, _NONE, False)
        if bound < best_bound:
            best_bound, y_c = bound, y_w
        ck, pptr, parc = out.commodity, out.path_ptr, out.path_arcs
        f = np.bincount(parc, weights=np.repeat(dem_amt[ck], np.diff(pptr)), minlength=A)
        util = (problem.R @ f) / cap
        cum += util / util.max()
        keys = np.add.reduceat(hkey[parc], pptr[:-1]) + ck * 1000003
        new = np.array([kk not in seen for kk in keys.tolist()], dtype=bool)
        seen.update(keys.tolist())
        if new.all():
            add(out)
        elif new.any():
            add(_subset(out, np.flatnonzero(new)))
        y_w = np.exp(warm_step * (cum - cum.max())) / cap
    return best_bound, y_c


class _SortedPool:
    """Columns sorted by commodity (``k_ptr``) for the ``"mwu"`` master:
    path arcs (``pptr``/``parc``), resource entries (``cptr``/``crow``/
    ``cval``, R summed along the path) and the path flows ``x``."""

    def __init__(self, K: int) -> None:
        self.K = K
        self.ck = np.zeros(0, dtype=np.int64)
        self.pptr = np.zeros(1, dtype=np.int64)
        self.parc = np.zeros(0, dtype=np.int64)
        self.cptr = np.zeros(1, dtype=np.int64)
        self.crow = np.zeros(0, dtype=np.int64)
        self.cval = np.zeros(0)
        self.x = np.zeros(0)
        self.k_ptr = np.zeros(K + 1, dtype=np.int64)

    @property
    def count(self) -> int:
        return len(self.ck)

    def arrays(self) -> PathPool:
        """The pool as the mwu kernels take it."""
        return PathPool(self.k_ptr, self.cptr, self.crow, self.cval)

    def add(self, out: PricedColumns, nres: int) -> None:
        """Append a :func:`price_round` output (its commodity-row entries
        dropped) with zero flow, then re-sort by commodity."""
        if not out.count:
            return
        ck, pptr, parc, cptr, crow, cval = out.commodity, out.path_ptr, out.path_arcs, out.col_ptr, out.col_rows, out.col_vals
        keep = crow < nres
        # each column ends with exactly one commodity-row entry
        cptr = cptr - np.arange(len(cptr))
        ck_all = np.concatenate([self.ck, ck])
        pptr_all = np.concatenate([self.pptr, self.pptr[-1] + pptr[1:]])
        parc_all = np.concatenate([self.parc, parc])
        cptr_all = np.concatenate([self.cptr, self.cptr[-1] + cptr[1:]])
        crow_all = np.concatenate([self.crow, crow[keep].astype(np.int64)])
        cval_all = np.concatenate([self.cval, cval[keep]])
        x_all = np.concatenate([self.x, np.zeros(len(ck))])
        o = np.argsort(ck_all, kind="stable")
        self.ck = ck_all[o]
        self.x = x_all[o]
        self.pptr, self.parc = _gather(pptr_all, parc_all, o)
        self.cptr, idx = _gather_idx(cptr_all, o)
        self.crow, self.cval = crow_all[idx], cval_all[idx]
        self.k_ptr = np.zeros(self.K + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.ck, minlength=self.K), out=self.k_ptr[1:])


def _gather_idx(ptr, idx):
    """CSR rows ``idx`` of a CSR pointer: the new pointer and the entry indices."""
    ln = np.diff(ptr)[idx]
    newp = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(ln, out=newp[1:])
    ent = np.repeat(ptr[idx], ln) + (np.arange(newp[-1]) - np.repeat(newp[:-1], ln))
    return newp, ent


def _gather(ptr, val, idx):
    newp, ent = _gather_idx(ptr, idx)
    return newp, val[ent]


def _colgen_mwu(problem: FlowProblem, tol: float, time_limit: float | None, max_rounds: int, warm_phases: int,
                warm_step: float, beta: float | None, max_sweeps: int, smoothing: float, trace: bool,
                progress: Callable[[dict], None] | None = None, progress_interval: float = 5.0) -> FlowResult:
    """Column generation whose restricted master is solved approximately by
    :func:`potential_sweeps` (no LP solver). Certificates as in
    :func:`colgen_max_concurrent_flow`: lambda from the pool's path flows,
    the bound from exact pricing at the potential's weights."""
    t0 = time.perf_counter()
    c0 = time.process_time()
    report = Reporter(progress, progress_interval, t0)
    pr = Pricing(problem)
    K, nres, dem_amt = pr.K, pr.nres, pr.dem_amt
    cap = problem.capacity.astype(np.float64)
    price = _capacity_price(pr, cap)
    pool = _SortedPool(K)
    t_master = t_price = 0.0

    def add(out):
        pool.add(out, nres)

    tp = time.perf_counter()
    best_bound, y_c = _warm_start(problem, price, add, dem_amt, warm_phases, warm_step)
    t_price += time.perf_counter() - tp
    # start from every demand split evenly over its warm paths (the average
    # of the multiplicative-weights phases, duplicates counted once)
    cnt = np.diff(pool.k_ptr)
    pool.x = (dem_amt / cnt)[pool.ck]
    load = _load(pool, nres)
    if trace:
        print(f"warm start: {warm_phases} phases, {pool.count} columns, bound {best_bound:.8g}, {t_price:.2f}s", flush=True)
    # beta relative to the congestion: resources within 1/beta of the most
    # congested one carry the weight; it starts soft and stiffens as the
    # restricted gap closes (potential_sweeps)
    bt = 8.0 if beta is None else float(beta)
    bt_max = 16.0 / max(tol, 1e-6) if beta is None else float(beta)
    history: list[dict[str, float]] = []     # one entry per round
    rounds = 0
    status = "optimal"
    lam = 0.0
    sweeps_total = 0
    alpha = smoothing
    idle = 0
    while True:
        tm = time.perf_counter()
        sw = potential_sweeps(pool.arrays(), dem_amt, cap, pool.x, load,
                              SweepParams(float(bt), float(bt_max), int(max_sweeps), tol / 2, 1.0, 4))
        sweeps, rgap, y, zk, bt = sw.sweeps, sw.gap, sw.y, sw.zk, sw.beta_rel
        sweeps_total += sweeps
        t_master += time.perf_counter() - tm
        lam, _ = _certified_sorted(problem, pool, dem_amt)
        rounds += 1
        tp = time.perf_counter()
        if alpha > 0:
            # Wentges smoothing: the potential's prices sit on the pool's
            # bottleneck, which paths outside the pool avoid at no cost (at
            # 4096 routers with 3 warm phases their bound was 2.7x the
            # optimum); price at a point between them and the best-bound
            # prices, with a weight halved every round (moving it towards
            # 1 when the bound did not improve kept pricing at the centre at
            # 4096 routers, where the centre is the trivial bound 1/c)
            y = alpha * (y_c * (float(cap @ y) / float(cap @ y_c))) + (1 - alpha) * y
            zk = pool_min_lengths(pool.arrays(), y)
        bound, out = price(y, None, zk, True)
        if bound < best_bound:
            best_bound, y_c = bound, y
        alpha /= 2
        t_price += time.perf_counter() - tp
        _record_round(history, report, rounds, lam, best_bound, int(out.count), t0)
        if trace:
            print(f"round {rounds}: lam {lam:.8g} bound {best_bound:.8g} (this {bound:.8g}) gap "
                  f"{best_bound / lam - 1 if lam > 0 else math.inf:.3g} restricted {rgap:.3g} sweeps {sweeps} beta {bt:.3g} alpha {alpha:.3g} "
                  f"cols +{out.count} total {pool.count} master {t_master:.2f}s price {t_price:.2f}s "
                  f"t {time.perf_counter() - t0:.2f}s cpu {time.process_time() - c0:.2f}s", flush=True)
        if lam > 0 and best_bound <= lam * (1 + tol):
            break
        if out.count == 0:
            # nothing new at the smoothed prices: price at the master's own
            # next, and give the master more sweeps; several such rounds in
            # a row: the master cannot get closer
            alpha = 0.0
            idle += 1
            if idle >= 3:
                status = f"stalled at gap {best_bound / lam - 1:.3g} after {rounds} rounds (master accuracy)"
                break
        else:
            idle = 0
        stop = round_limit(rounds, max_rounds, t0, time_limit)
        if stop:
            status = f"{stop} after {rounds} rounds"
            break
        add(out)
    lam, arc_flow = _certified_sorted(problem, pool, dem_amt)
    util = (problem.R @ arc_flow) / cap
    return FlowResult("colgen", "concurrent", lam, max(best_bound, lam), arc_flow, util, problem.resource_names,
                      time.perf_counter() - t0, status=status, iterations=rounds,
                      extra={"method": "colgen (mwu master)", "tol": tol, "columns": int(pool.count),
                             "pricing_rounds": rounds, "master_seconds": t_master, "pricing_seconds": t_price,
                             "cpu_seconds": time.process_time() - c0, "warm_phases": warm_phases,
                             "sweeps": sweeps_total, "beta": bt, "history": history})


def _load(pool: _SortedPool, nres: int) -> np.ndarray:
    """R times the path flows."""
    return np.bincount(pool.crow, weights=np.repeat(pool.x, np.diff(pool.cptr)) * pool.cval, minlength=nres)


def _certified_sorted(problem: FlowProblem, pool: _SortedPool, dem_amt: np.ndarray):
    """:func:`_certified` for a :class:`_SortedPool`."""
    flow = np.bincount(pool.parc, weights=np.repeat(pool.x, np.diff(pool.pptr)), minlength=problem.num_arcs)
    share = np.bincount(pool.ck, weights=pool.x, minlength=len(dem_amt)) / dem_amt
    cong = float(((problem.R @ flow) / problem.capacity).max())
    if cong <= 0 or share.min() <= 0:
        return 0.0, np.zeros(problem.num_arcs)
    lam = float(share.min()) / cong
    return lam, flow * (float(share.min()) / cong)


class _PathPool:
    """The arcs of every column (for the arc flow), in column order."""

    def __init__(self) -> None:
        self.ptr = [np.zeros(1, dtype=np.int64)]
        self.arcs: list[np.ndarray] = []
        self.dem: list[np.ndarray] = []
        self.count = 0

    def add(self, dem, ptr, arcs) -> None:
        # one array each: every round reads them all
        self.ptr = [np.concatenate([self.ptr[0], self.ptr[0][-1] + ptr[1:]])]
        self.arcs = [np.concatenate(self.arcs + [arcs])]
        self.dem = [np.concatenate(self.dem + [dem])]
        self.count += len(dem)


def _certified(problem: FlowProblem, pool: _PathPool, x: np.ndarray, dem_amt: np.ndarray):
    """lambda certified by the path flows ``x`` (whatever the master's
    accuracy): they route share_k of demand k, so min share / congestion
    times every demand fits. Returns it and the arc flow that routes it."""
    ptr, arcs, dem = pool.ptr[0], pool.arcs[0], pool.dem[0]
    flow = np.bincount(arcs, weights=np.repeat(x, np.diff(ptr)), minlength=problem.num_arcs)
    share = np.bincount(dem, weights=x, minlength=len(dem_amt)) / dem_amt
    cong = float(((problem.R @ flow) / problem.capacity).max())
    if cong <= 0 or share.min() <= 0:
        return 0.0, np.zeros(problem.num_arcs)
    lam = float(share.min()) / cong
    return lam, flow * (float(share.min()) / cong)
