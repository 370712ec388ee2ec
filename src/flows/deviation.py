"""Minimum average latency under the queueing load model, by flow deviation.

The problem (:mod:`flows.queueing`)::

    min  sum_a f_a latency[a] + tau f_a^2 / (w_a - f_a)
    over flows f routing every demand, and widths w with R w <= c
    (fixed widths: w = the channels' capacities)

is convex. Three methods (``method=``; ``auto`` picks by the widths):

- fixed widths: Bertsekas and Gafni's projected Newton method on each
  demand's paths (:func:`_projection`; kernels in
  :mod:`flows._deviation_kernels`): sweeps that add each demand's shortest
  path under the first derivatives and move flow onto its cheapest path by
  the second derivatives, then sweeps that only move flow; from an
  overloaded start it climbs a ramp of loads;
- shared widths: eliminating the widths leaves a convex function of the
  flow, ``phi(f) = latency . f + Q(f)`` with
  ``Q(f) = min { sum_a tau f_a^2 / u_a : R u <= c - R f }`` (``u = w - f``,
  the spare width; solved in its dual by projected Newton, where for a
  single resource it is Kleinrock's square-root capacity assignment),
  minimised by the flow deviation method of Fratta, Gerla and Kleinrock
  (1973) -- Frank-Wolfe on the multicommodity flow -- with the conjugate
  directions of Mitradjieva and Lindberg (2013), from the capacity-optimal
  flow scaled to the demand; near capacity it crawls, and where its inner
  allocations do not settle it has no reliable step: column generation
  with a second-order-cone master (:mod:`flows.conic`) takes over;
- the certified lower bound, in all of them, is Lagrangian: for resource
  prices ``y >= 0`` the cost ``latency_a + p_a + 2 sqrt(tau p_a)``
  (``p = R^T y``) gives ``sum_k d_k dist(k) - c . y <= OPT`` (with fixed
  widths this is the Frank-Wolfe gap ``phi(f) + grad phi(f) . (s - f)``;
  the projection method takes it for a cost continued beyond 99% of each
  width, which lies below the model's); the answer's gap is
  ``phi(f) / bound - 1``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ._deviation_kernels import (ArcCost, Paths, all_or_nothing, arc_flows, extended_value, first_derivatives,
                                 projection_sweep, seed_paths)
from .groups import DemandGroups, grouped
from .problem import DEFAULT_EPS, FlowError, FlowProblem
from .progress import Reporter
from ._spare import fit_spare
from .conic import conic_column_generation
from .ptas import max_concurrent_flow
from .queueing import QueueingModel, fixed_widths, terminal_wait
from .result import FlowResult

__all__ = ["min_latency_queueing", "deviation", "DeviationState", "METHODS"]

#: ``auto``: the projection method where the widths are fixed and the paths fit
#: :data:`_PATHS_BYTES`, else column generation with a conic master (:mod:`flows.conic`)
#: where its path table fits, else conjugate Frank-Wolfe
METHODS = ("auto", "projection", "conic", "frank-wolfe")

#: the conjugate point's weight is kept below 1 - this (Mitradjieva and Lindberg's delta)
_CONJUGATE_DELTA = 0.01
#: the inner allocation stops at this relative duality gap (a fraction of eps)
_INNER_GAP_OF_EPS = 0.02
#: at most this many Newton steps per inner allocation
_INNER_MAX_ROUNDS = 60
#: under auto with shared resources, Frank-Wolfe's iterations before the conic master takes over
_FW_FIRST = 30
#: the line search's derivative evaluations (each an inner allocation when resources are shared)
_SEARCH_STEPS = 40
#: every this many iterations the bound is also taken at the prices' average over the second half
_AVERAGE_EVERY = 4
#: the projection method keeps this many paths per demand: where waits outweigh the router and wire delays the
#: optimum spreads a demand over many routes (a BG/L composition under uniform wiring with NAS traffic: 8 slots
#: stalled at a 13% gap after 3000 sweeps, 139 s; 16 and 32 solve it in 1.5 s; the 8x8x8 torus's curves take the
#: same time with 32 as with 8)
_SLOTS = 32
#: ... of at most this many channels (or the routers less one, if fewer)
_MAX_PATH = 64
#: the projection method's paths may take this much memory (else Frank-Wolfe, which keeps none)
_PATHS_BYTES = 256 * 2**20
#: after each sweep that looks for new paths, at most this many that only move flow between the paths held
_SHIFT_SWEEPS = 30
#: the projection method's ramp of loads starts where the start's busiest channel is this full ...
_RAMP_FROM = 0.6
#: ... grows the load by at least this factor a stage ...
_RAMP_STEP = 1.25
#: ... and stops each stage but the last at this gap
_RAMP_EPS = 0.05
#: the cost is continued beyond this utilisation by its Taylor expansion (finite everywhere),
#: raised towards 1 while the iterate stays beyond it
_RHO0 = 0.99
#: a step stops this short of the domain's edge (where the wait is infinite)
_EDGE = 1e-9


@dataclass(frozen=True, eq=False)
class DeviationState:
    """Where a flow deviation run stopped, to warm-start a nearby one (a
    latency curve's next load): the flow ``arc_flow`` routing
    ``demand_total`` units, the resource prices ``prices`` (shared
    resources only, else None) and the projection method's paths (else None)."""

    arc_flow: np.ndarray
    demand_total: float
    prices: np.ndarray | None = None
    paths: Paths | None = None


# ------------------------------------------------------------------ widths
class _Fixed:
    """Channels of fixed width ``w``: Q(f) = sum tau f^2 / (w - f), closed form."""

    def __init__(self, w: np.ndarray, tau: float):
        self.w, self.tau = w, tau
        self.finite = np.isfinite(w)

    def inside(self, f: np.ndarray) -> bool:
        return bool(np.all(f[self.finite] < self.w[self.finite]))

    def max_step(self, f: np.ndarray, d: np.ndarray) -> float:
        up = (d > 0) & self.finite
        if not up.any():
            return math.inf
        return float(np.min((self.w[up] - f[up]) / d[up]))

    def evaluate(self, f: np.ndarray, prices=None):
        """(Q(f), Q'(f), the bound's offset, prices): the offset makes
        ``oracle total + offset`` the Frank-Wolfe bound."""
        w, fin = self.w, self.finite
        g = np.zeros_like(f)
        slack = w[fin] - f[fin]
        q = float(np.sum(self.tau * f[fin] ** 2 / slack))
        r = w[fin] / slack
        g[fin] = self.tau * (r * r - 1.0)
        prices = np.zeros_like(f)
        prices[fin] = self.tau * (f[fin] / slack) ** 2
        return q, g, q - float(g @ f), prices

    def bound_terms(self, prices: np.ndarray):
        """The Lagrangian bound's channel cost and offset at ``prices`` (one per channel)."""
        fin = self.finite
        p = np.where(fin, prices, 0.0)
        return p + 2.0 * np.sqrt(self.tau * p), -float(p[fin] @ self.w[fin])

    def curvature(self, f: np.ndarray, prices=None) -> np.ndarray:
        h = np.zeros_like(f)
        fin = self.finite
        h[fin] = 2.0 * self.tau * self.w[fin] ** 2 / (self.w[fin] - f[fin]) ** 3
        return h

    def widths(self, f: np.ndarray, prices=None) -> np.ndarray:
        return self.w


class _Unsettled(Exception):
    """An inner width allocation stopped short of its tolerance (raised only when asked to)."""


class _Shared:
    """Widths chosen with the flow within ``R w <= c`` (see the module docstring).
    ``strict``: an allocation that stops short of ``tol`` raises :class:`_Unsettled`."""

    strict = False

    def __init__(self, R: sp.csr_matrix, c: np.ndarray, tau: float, tol: float):
        self.R, self.Rt, self.c, self.tau, self.tol = R, R.T.tocsr(), c, tau, tol
        self.sqrtR = R.sqrt()
        self.Rc = R.tocsc()

    def inside(self, f: np.ndarray) -> bool:
        return bool(np.all(self.R @ f < self.c))

    def max_step(self, f: np.ndarray, d: np.ndarray) -> float:
        rd = self.R @ d
        up = rd > 0
        if not up.any():
            return math.inf
        return float(np.min((self.c[up] - (self.R @ f)[up]) / rd[up]))

    def allocate(self, f: np.ndarray, prices: np.ndarray | None):
        """Prices y and the spare widths u for flow f: the dual of
        ``min sum_a q_a / u_a s.t. R u <= s`` (q = tau f^2, s = c - R f),
        ``max_{y >= 0} H(y) = 2 sum_a sqrt(q_a p_a) - s . y`` with p = R^T y,
        by projected Newton (Bertsekas 1982) from ``prices`` (else from each
        resource alone: Kleinrock's square-root assignment), until the
        relative duality gap is below ``tol``; ``u_a = sqrt(q_a / p_a)``, shrunk to fit
        (:func:`flows._spare.fit_spare`)."""
        s = self.c - self.R @ f
        q = self.tau * f * f
        sq = np.sqrt(q)
        active = sq > 0
        # resources no flow crosses keep price 0 (their slack costs nothing)
        touched = (self.R @ active.astype(np.float64)) > 0
        alone = ((self.sqrtR @ sq) / s) ** 2
        if prices is None or len(prices) != len(s):
            y = alone
        else:
            # a warm start; a resource newly crossed by flow starts as if alone, so that every channel
            # with flow has a positive price (the Newton steps keep it so)
            y = np.array(prices, dtype=np.float64)
            y = np.where(y > 0, y, alone)
        y[~touched] = 0.0
        y = np.maximum(y, 0.0)
        rows = np.flatnonzero(touched)
        Rt_rows = self.Rt[:, rows]

        def dual(yv):
            pv = self.Rt @ yv
            return 2.0 * float(np.sum(np.sqrt(sq[active] ** 2 * pv[active]))) - float(s @ yv), pv

        h, p = dual(y)
        u = np.zeros_like(f)
        ru = np.zeros_like(s)
        settled = False
        for _ in range(_INNER_MAX_ROUNDS):
            u[:] = 0.0
            pos = active & (p > 0)
            u[pos] = sq[pos] / np.sqrt(p[pos])
            u[active & ~pos] = np.inf
            with np.errstate(invalid="ignore"):
                ru = self.R @ u
            if np.all(np.isfinite(ru)):
                primal, low, _ = self._bounds(q, u, s, y, p, active)
                if primal - low <= self.tol * max(primal, 1e-300):
                    settled = True
                    break
            # the ascent direction of H on the resources crossed by flow; the free ones: y > 0 or rising
            grad = np.where(np.isfinite(ru), ru, 1e300) - s
            free = (y[rows] > 0) | (grad[rows] > 0)
            fr = rows[free]
            if len(fr) == 0:
                break
            curv = np.zeros_like(f)
            curv[pos] = 0.5 * sq[pos] * p[pos] ** -1.5
            Rf = Rt_rows[:, free]
            Hm = (Rf.T @ sp.diags(curv) @ Rf).tocsc()
            Hm = Hm + sp.identity(len(fr), format="csc") * (1e-12 * max(float(Hm.diagonal().max()), 1e-300))
            g = np.minimum(grad[fr], 1e300)
            try:
                step = spla.spsolve(Hm, g)
            except RuntimeError:
                step = g / np.maximum(Hm.diagonal(), 1e-300)
            if not np.all(np.isfinite(step)):
                step = g / np.maximum(Hm.diagonal(), 1e-300)
            t = 1.0
            for _ in range(60):
                trial = y.copy()
                trial[fr] = np.maximum(0.0, y[fr] + t * step)
                h_new, p_new = dual(trial)
                # every channel with flow keeps a positive price (at the optimum it has one)
                if h_new >= h and np.all(p_new[active] > 0):
                    break
                t *= 0.5
            else:
                break
            if h_new - h <= 1e-15 * abs(h):
                y, h, p = trial, h_new, p_new
                break
            y, h, p = trial, h_new, p_new
        if self.strict and not settled:
            raise _Unsettled
        u[:] = 0.0
        pos = active & (p > 0)
        u[pos] = sq[pos] / np.sqrt(p[pos])
        _, _, fit = self._bounds(q, u, s, y, p, active)
        return y, fit, s, q, active

    def _bounds(self, q, u, s, y, p, active):
        """(the latency of the spare widths ``u`` shrunk to fit, the dual value at ``y``, the shrunk widths)."""
        fit = fit_spare(self.R, self.Rc, u, s)
        with np.errstate(divide="ignore"):
            # a channel with flow and no spare width waits forever: no upper bound from this allocation
            primal = float(np.sum(q[active] / fit[active]))
        dual = 2.0 * float(np.sum(np.sqrt(q[active] * p[active]))) - float(s @ y)
        return primal, dual, fit

    def evaluate(self, f: np.ndarray, prices: np.ndarray | None = None):
        y, u, s, q, active = self.allocate(f, prices)
        p = self.Rt @ y
        with np.errstate(divide="ignore"):
            primal = float(np.sum(q[active] / u[active]))
        g = p + 2.0 * np.sqrt(self.tau * p)
        return primal, g, -float(self.c @ y), y

    def bound_terms(self, prices: np.ndarray):
        """The Lagrangian bound's channel cost and offset at resource ``prices``."""
        p = self.Rt @ prices
        return p + 2.0 * np.sqrt(self.tau * p), -float(self.c @ prices)

    def curvature(self, f: np.ndarray, prices: np.ndarray | None = None) -> np.ndarray:
        # the fixed-width curvature at the allocated widths: an upper estimate (the widths move too)
        w = self.widths(f, prices)
        h = np.zeros_like(f)
        ok = w > f
        h[ok] = 2.0 * self.tau * w[ok] ** 2 / (w[ok] - f[ok]) ** 3
        return h

    def widths(self, f: np.ndarray, prices: np.ndarray | None = None) -> np.ndarray:
        _, u, _, _, _ = self.allocate(f, prices)
        return f + u


# ------------------------------------------------------------ line search
def _line_search(model, lat: np.ndarray, f: np.ndarray, d: np.ndarray, hi: float, prices, cap: float = 1.0):
    """The step in [0, min(hi, cap)] minimising phi(f + t d) (phi convex;
    ``hi`` the domain's edge, kept short of): bisection on the sign of the
    derivative, secant-guided; returns (t, evaluation)."""
    def slope(t):
        ev = model.evaluate(f + t * d, prices)
        return float((lat + ev[1]) @ d), ev

    lo_t, lo_s = 0.0, None
    top = min(hi * (1.0 - _EDGE) if math.isfinite(hi) else cap, cap)
    s_top, ev_top = slope(top)
    if s_top <= 0:
        return top, ev_top
    hi_t, hi_s = top, s_top
    s0, ev0 = slope(0.0)
    if s0 >= 0:
        return 0.0, ev0
    lo_s, lo_ev = s0, ev0
    best = (lo_t, lo_ev)
    for _ in range(_SEARCH_STEPS):
        # secant inside the bracket, pulled to the middle when it hugs an end
        t = lo_t - lo_s * (hi_t - lo_t) / (hi_s - lo_s)
        width = hi_t - lo_t
        if not (lo_t + 0.05 * width < t < hi_t - 0.05 * width):
            t = 0.5 * (lo_t + hi_t)
        st, ev = slope(t)
        if st < 0:
            lo_t, lo_s, lo_ev = t, st, ev
            best = (t, ev)
        else:
            hi_t, hi_s = t, st
            best = (t, ev)
        if abs(st) <= 1e-4 * abs(s0) or width <= 1e-12:
            break
    return best


def _scaled_start(problem: FlowProblem, start: DeviationState | None, model) -> np.ndarray | None:
    if start is None or len(start.arc_flow) != problem.num_arcs or not start.demand_total > 0:
        return None
    x = start.arc_flow * (problem.demands.total / start.demand_total)
    return x if model.inside(x) else None


def min_latency_queueing(problem: FlowProblem, model: QueueingModel | None = None, eps: float = DEFAULT_EPS, *,
                         capacity: FlowResult | None = None, start: DeviationState | None = None,
                         method: str = "auto", conjugate: bool = True, max_iterations: int = 5000,
                         time_limit: float | None = None, progress: Callable[[dict], None] | None = None,
                         progress_interval: float = 5.0) -> FlowResult:
    """Route every demand at (near) minimum average latency under the
    queueing load model ``model`` (:class:`flows.queueing.QueueingModel`;
    default: service 1, exponential).

    Returns a :class:`FlowResult` with objective ``"latency"``:
    ``arc_flow`` routes the demands, ``average_latency`` is its latency per
    unit of demand under the model (router and wire delays plus the queues'
    waits) and ``latency_bound`` a certified lower bound, within ``eps`` of
    each other unless ``max_iterations`` or ``time_limit`` ran out (then
    ``status`` says ``"gap ..."``; the flow is still feasible and the bound
    certified). ``extra`` holds ``latency_gap``, the two parts of the
    average (``zero_load_part``: router and wire delays; ``queueing_part``:
    the waits), ``max_channel_load`` (the largest ``f_a / w_a``) and the
    model. ``lam``/``upper_bound``: the capacity bracket (``capacity``, a
    :func:`flows.max_concurrent_flow` result for this very problem, or a
    fresh PTAS run at ``eps`` or the default eps if finer); the queueing latency is finite only below
    capacity: a demand above it is ``"infeasible"``, one within the
    capacity's bracket ``"undecided"``. ``start``: a :class:`DeviationState`
    of a nearby solve (:func:`deviation` returns it), scaled to this demand.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(3), Demands.uniform(3).scaled(0.5))
    >>> r = min_latency_queueing(p, QueueingModel(service=1.0), eps=1e-6)
    >>> round(r.average_latency, 6)   # one hop at utilisation 1/4: 1 + (1/4) / (3/4)
    1.333333
    """
    return deviation(problem, model, eps, capacity=capacity, start=start, method=method, conjugate=conjugate,
                     max_iterations=max_iterations, time_limit=time_limit, progress=progress,
                     progress_interval=progress_interval)[0]


def deviation(problem: FlowProblem, model: QueueingModel | None = None, eps: float = DEFAULT_EPS, *,
              capacity: FlowResult | None = None, start: DeviationState | None = None, method: str = "auto",
              conjugate: bool = True, max_iterations: int = 5000, time_limit: float | None = None,
              progress: Callable[[dict], None] | None = None,
              progress_interval: float = 5.0) -> tuple[FlowResult, DeviationState | None]:
    """:func:`min_latency_queueing` and where it stopped (None when it did not
    route the demands: infeasible, undecided), to warm-start a nearby solve."""
    model = QueueingModel() if model is None else model
    if method not in METHODS:
        raise FlowError(f"unknown flow deviation method {method!r}; use one of {', '.join(METHODS)}")
    if not (0 < eps < 1):
        raise FlowError(f"eps must be in (0, 1), got {eps}")
    if max_iterations < 1:
        raise FlowError(f"max_iterations must be >= 1, got {max_iterations}")
    t0 = time.perf_counter()
    report = Reporter(progress, progress_interval, t0)
    lat = np.asarray(problem.latency, dtype=np.float64)
    tau = model.tau
    w = fixed_widths(problem)
    widths: _Fixed | _Shared = (_Fixed(w, tau) if w is not None
                                else _Shared(problem.R, problem.capacity, tau, _INNER_GAP_OF_EPS * eps))
    ch, grp = grouped(problem)
    s = np.zeros(problem.num_arcs)
    lo_linear = all_or_nothing(ch, grp, lat, s)
    shortest = s.copy()
    extra_model = {"load_model": "queueing", "queueing": model.to_dict()}

    def give_up(status: str, message: str, cap: FlowResult) -> tuple[FlowResult, None]:
        return FlowResult("deviation", "latency", cap.lam, cap.upper_bound, cap.arc_flow, cap.utilisation,
                          problem.resource_names, time.perf_counter() - t0, status=status,
                          iterations=cap.iterations, extra={**extra_model, "message": message,
                                                            "method": "deviation"}), None

    x = _scaled_start(problem, start, widths)
    cap = capacity
    cap_eps = max(eps, DEFAULT_EPS)
    if cap is None:
        # the capacity gives the start and says whether the latency is finite: the default eps serves
        cap = max_concurrent_flow(problem, eps=cap_eps)
    if cap.objective != "concurrent" or len(cap.arc_flow) != problem.num_arcs:
        raise FlowError("capacity must be a max_concurrent_flow result for the same problem")
    if cap.upper_bound < 1.0:
        return give_up("infeasible", f"infeasible: capacity lambda = {cap.lam:.6g} < 1 (certified upper bound "
                                     f"{cap.upper_bound:.6g}); the queueing latency is finite below capacity only",
                       cap)
    if x is None and not cap.lam > 1.0:
        finer = max_concurrent_flow(problem, eps=cap_eps / 8.0, decide=1.0)
        if finer.upper_bound < 1.0:
            return give_up("infeasible", f"infeasible: capacity lambda <= {finer.upper_bound:.6g} < 1", finer)
        if not finer.lam > 1.0:
            return give_up("undecided", f"undecided: the demand is at capacity within eps/8 (lambda in "
                                        f"[{finer.lam:.6g}, {finer.upper_bound:.6g}]), where the queueing latency "
                                        "grows without bound; scale it down", finer)
        cap = finer
    terminal = terminal_wait(problem, model) if model.terminals else 0.0
    if not math.isfinite(terminal):
        return give_up("infeasible", "infeasible: a PE sends or receives a unit or more, all its own channel "
                                     "carries (the terminal channels' wait is infinite)", cap)
    prices = start.prices if start is not None else None
    paths = None
    use = method
    fw_first = 0
    if use == "auto":
        slots = len(grp.dst) * _SLOTS * min(problem.n - 1, _MAX_PATH)
        use = ("projection" if w is not None and 12 * slots <= _PATHS_BYTES
               else "conic" if 8 * len(grp.dst) * min(problem.n - 1, 4096) <= _PATHS_BYTES else "frank-wolfe")
        # shared resources: Frank-Wolfe's few iterations settle a light load (measured 0.5 s against the
        # master's 3.3 s on a BG/L midplane with local traffic); near capacity it crawls, and where its inner
        # width allocations do not settle (many overlapping resources: a midplane candidate with NAS traffic,
        # 150 s for 30 iterations) it has no reliable step; the conic master takes over in both cases
        fw_first = _FW_FIRST if use == "conic" else 0
    deadline = None if time_limit is None else t0 + time_limit
    done = None
    design_widths = None
    start_flow = cap.arc_flow / cap.lam * (1.0 - 1e-9) if x is None else x
    if fw_first:
        assert isinstance(widths, _Shared)
        widths.strict = True
        try:
            fx, fupper, flower, fit, fstatus, fprices = _frank_wolfe(
                problem, ch, grp, widths, lat, start_flow, shortest, lo_linear, prices, eps, conjugate,
                min(fw_first, max_iterations), time_limit, t0, report)
        except _Unsettled:
            use = "conic"
        else:
            if fstatus == "optimal":
                x, upper, lower, iterations, status, prices = fx, fupper, flower, fit, fstatus, fprices
                use, done = "frank-wolfe", True
            else:
                start_flow, lo_linear = fx, max(lo_linear, flower)
                use = "frank-wolfe, then conic"
        finally:
            widths.strict = False
    if use == "projection":
        if w is None:
            raise FlowError("the projection method needs fixed channel widths (every resource holding one channel); "
                            "shared resources take method='conic' or 'frank-wolfe'")
        done = _projection(problem, ch, grp, w, tau, eps, lo_linear, start, max_iterations, deadline, report)
        if done is not None:
            x, upper, lower, iterations, status, paths = done
    elif use in ("conic", "frank-wolfe, then conic") and done is None:
        x, upper, lower, iterations, status, prices, design_widths = conic_column_generation(
            problem, grp, ch, widths, tau, eps, lo_linear, max_iterations, deadline, report, start=start_flow)
        if use != "conic":
            iterations += fw_first
        done = True
    if done is None:
        if x is None:
            x = cap.arc_flow / cap.lam
            if not widths.inside(x):
                # the PTAS's flow fills a resource to 1/lambda of its capacity at most: a rounding hair
                x = x * (1.0 - 1e-9)
        x, upper, lower, iterations, status, prices = _frank_wolfe(
            problem, ch, grp, widths, lat, x, shortest, lo_linear, prices, eps, conjugate, max_iterations,
            time_limit, t0, report)
        use = "frank-wolfe"
    return _finish(problem, widths, cap, x, upper, lower, iterations, status, prices, paths, use, extra_model, t0,
                   terminal, design_widths)


def _frank_wolfe(problem, ch, grp, widths, lat, x, shortest, lower, prices, eps, conjugate, max_iterations,
                 time_limit, t0, report):
    """Flow deviation from the interior point ``x``: (flow, upper, lower, iterations, status, prices)."""
    total = problem.demands.total
    s = np.zeros(problem.num_arcs)
    # first step: towards the latency-shortest routing
    d = shortest - x
    step, ev = _line_search(widths, lat, x, d, widths.max_step(x, d), prices)
    x = x + step * d
    q, g, offset, prices = ev
    upper = float(lat @ x) + q
    avg_flow = np.zeros(problem.num_arcs)
    conj = None
    iterations = 0
    status = "optimal"
    history: list[np.ndarray] = []
    while True:
        cost = lat + g
        oracle = all_or_nothing(ch, grp, cost, s)
        lower = max(lower, oracle + offset)
        history.append(np.asarray(prices, dtype=np.float64))
        if len(history) >= _AVERAGE_EVERY and iterations % _AVERAGE_EVERY == 0 and upper / lower - 1.0 > eps:
            # the prices of the iterates zig-zag around the optimal ones near capacity, where the
            # wait is steep: their ergodic average over the second half bounds far better
            mean = np.mean(history[len(history) // 2:], axis=0)
            c_avg, off_avg = widths.bound_terms(mean)
            lower = max(lower, all_or_nothing(ch, grp, lat + c_avg, avg_flow) + off_avg)
        gap = upper / lower - 1.0 if lower > 0 else math.inf
        report(iterations, lower_bound=lower / total, upper_bound=upper / total, gap=gap)
        if gap <= eps:
            break
        if iterations >= max_iterations or (time_limit is not None and time.perf_counter() - t0 > time_limit):
            status = f"gap {gap:.3g} after {iterations} iterations"
            break
        iterations += 1
        target = s
        if conjugate and conj is not None:
            h = widths.curvature(x, prices)
            a, b = conj - x, s - x
            num = float(a @ (h * b))
            den = float(a @ (h * (s - conj)))
            alpha = 0.0
            if den != 0.0:
                alpha = min(max(num / den, 0.0), 1.0 - _CONJUGATE_DELTA)
            target = alpha * conj + (1.0 - alpha) * s
            if float(cost @ (target - x)) >= 0.0:
                target = s
        d = target - x
        step, ev = _line_search(widths, lat, x, d, widths.max_step(x, d), prices)
        conj = None if step >= 1.0 - 1e-12 else target.copy()
        x = x + step * d
        q, g, offset, prices = ev
        upper = min(upper, float(lat @ x) + q)
    return x, upper, lower, iterations, status, prices


def _finish(problem, widths, cap, x, upper, lower, iterations, status, prices, paths, method, extra_model, t0,
            terminal: float = 0.0, design_widths: np.ndarray | None = None):
    total = problem.demands.total
    if not math.isfinite(upper):
        # no design routed the whole demand below every channel's width (a scale inside the capacity's certified
        # bracket, where the conic master can find none): no latency to state, and the bracket says why
        why = (f"undecided: {status}; the demand is at capacity within the certified bracket (lambda in "
               f"[{cap.lam:.6g}, {cap.upper_bound:.6g}]), where the queueing latency grows without bound")
        return FlowResult("deviation", "latency", cap.lam, cap.upper_bound, cap.arc_flow, cap.utilisation,
                          problem.resource_names, time.perf_counter() - t0, status="undecided", iterations=iterations,
                          extra={**extra_model, "message": why, "method": f"deviation ({method})"}), None
    lower = min(lower, upper)     # at the optimum the two meet up to rounding
    lat = problem.latency
    # the widths of the design whose latency is ``upper`` where the method has them
    wid = widths.widths(x, prices) if design_widths is None else design_widths
    with np.errstate(divide="ignore", invalid="ignore"):
        load = np.where(wid > 0, x / wid, 0.0)
    util = (problem.R @ x) / problem.capacity
    zero_load = float(lat @ x)
    extra = {**extra_model, "latency_gap": max(0.0, upper / lower - 1.0) if lower > 0 else 0.0,
             "zero_load_part": zero_load / total, "queueing_part": (upper - zero_load) / total,
             "max_channel_load": float(load.max()) if len(load) else 0.0, "method": f"deviation ({method})"}
    if terminal:
        # the PEs' own channels: the same wait whatever the routing, on both bounds
        extra["terminal_part"] = terminal / total
        upper, lower = upper + terminal, lower + terminal
        extra["latency_gap"] = max(0.0, upper / lower - 1.0)
    state = DeviationState(x.copy(), total, None if prices is None or paths is not None else np.asarray(prices).copy(),
                           paths)
    return FlowResult("deviation", "latency", cap.lam, cap.upper_bound, x, util, problem.resource_names,
                      time.perf_counter() - t0, status=status, iterations=iterations,
                      average_latency=upper / total, latency_bound=lower / total, extra=extra), state


def _projection(problem: FlowProblem, ch, grp, w: np.ndarray, tau: float, eps: float, lower: float,
                start: DeviationState | None, max_iterations: int, deadline: float | None, report):
    """Bertsekas and Gafni's projected Newton method on path flows (fixed
    widths): returns (flow, upper, lower, sweeps, status, paths), or None
    when a demand's latency-shortest path is longer than a slot.

    From a start far beyond the widths (every demand on its shortest path,
    or a lighter load's paths scaled up) the method crawls through the
    steep continuation of the cost; it is run on a ramp of loads instead,
    from one where the start fits comfortably, each stage warm-starting the
    next (a stage stops at gap ``_RAMP_EPS``, the last at ``eps``)."""
    K = len(grp.dst)
    lat = np.asarray(problem.latency, dtype=np.float64)
    max_len = min(problem.n - 1, _MAX_PATH)
    x = np.zeros(problem.num_arcs)
    fin = np.isfinite(w)
    if start is not None and start.paths is not None and start.paths.flow.shape[0] == K and start.demand_total > 0:
        # a lighter load's paths: the ramp starts at that load (scaled down to this one if heavier)
        sigma = start.demand_total / problem.demands.total
        paths = Paths(start.paths.arcs.copy(), start.paths.length.copy(),
                      start.paths.flow / max(sigma, 1.0))
        sigma = min(sigma, 1.0)
        arc_flows(paths, x)
    else:
        paths = Paths(np.full((K, _SLOTS, max_len), -1, dtype=np.int32), np.zeros((K, _SLOTS), dtype=np.int64),
                      np.zeros((K, _SLOTS)))
        if not seed_paths(ch, grp, lat, paths, x):
            return None
        peak = float(np.max(x[fin] / w[fin])) if fin.any() else 0.0
        sigma = 1.0 if peak <= _RAMP_FROM else _RAMP_FROM / peak
        if sigma < 1.0:
            paths.flow[:] *= sigma
            x *= sigma
    sweeps = 0
    while True:
        last = sigma >= 1.0
        stage = DemandGroups(grp.ptr, grp.sources, grp.dst, grp.amount * sigma)
        budget = max_iterations - sweeps
        best, upper, low, used, status = _projection_stage(
            problem, ch, stage, w, tau, eps if last else max(eps, _RAMP_EPS), lower * sigma if last else 0.0,
            x, paths, budget, deadline, report if last else None, sweeps)
        sweeps += used
        if last or status != "optimal":
            if not last:
                status = f"stopped at {sigma:.3g} x the demand: " + status
                upper, low = math.inf, lower
            return best, upper, max(low, lower), sweeps, status, paths
        # next load: the stage's flow scaled up, as far as its busiest channel allows
        peak = float(np.max(best[fin] / w[fin])) if fin.any() else 0.0
        step = _RAMP_STEP if peak <= 0 else max(_RAMP_STEP, min(1.0 / sigma, _RAMP_FROM / peak))
        new = min(1.0, sigma * step)
        paths.flow[:] *= new / sigma
        arc_flows(paths, x)
        sigma = new


def _projection_stage(problem, ch, grp, w, tau, eps, lower, x, paths, max_sweeps, deadline, report, offset):
    """Sweeps of the projection method at one load until the gap is ``eps``:
    (best flow, its value, the bound, sweeps, status)."""
    lat = np.asarray(problem.latency, dtype=np.float64)
    rho0 = _RHO0
    cost = ArcCost(lat, w, np.array([tau]), np.array([rho0]))
    fin = np.isfinite(w)
    d1 = np.empty(problem.num_arcs)
    s = np.empty(problem.num_arcs)
    scratch = np.empty(problem.num_arcs)
    total = float(grp.amount.sum())
    upper = math.inf
    best = x.copy()
    beyond = 0
    sweeps = 0
    status = "optimal"
    while True:
        first_derivatives(cost, x, d1)
        oracle = all_or_nothing(ch, grp, d1, s)
        # the bound of the continued cost, which lies below the model's everywhere
        lower = max(lower, oracle + extended_value(cost, x) - float(d1 @ x))
        if np.all(x[fin] < w[fin]):
            value = float(lat @ x) + float(np.sum(tau * x[fin] ** 2 / (w[fin] - x[fin])))
            if value < upper:
                upper, best = value, x.copy()
        gap = upper / lower - 1.0 if lower > 0 else math.inf
        if report is not None:
            report(offset + sweeps, lower_bound=lower / total, upper_bound=upper / total, gap=gap)
        if gap <= eps:
            break
        if sweeps >= max_sweeps or (deadline is not None and time.perf_counter() > deadline):
            status = f"gap {gap:.3g} after {offset + sweeps} sweeps"
            break
        if np.any(x[fin] > rho0 * w[fin]):
            beyond += 1
            if beyond >= 3 and rho0 < 1.0 - 1e-6:
                # the continuation is in play where the optimum may lie: move it further out
                rho0 = 1.0 - (1.0 - rho0) / 4.0
                cost = ArcCost(lat, w, np.array([tau]), np.array([rho0]))
                beyond = 0
        else:
            beyond = 0
        projection_sweep(ch, grp, cost, x, paths, scratch, True)
        # moving flow between the paths held is cheap beside a sweep's shortest paths, and the demands'
        # moves disturb one another: without these the method crawls (measured: the 8x8x8 torus's
        # 20-point curve under 2048 random demands, 8.1 s CPU with 5 such sweeps, 4.8-5.0 with 20-30).
        # As many as cost about one search (counted in channels visited, so that the same problem
        # always takes the same steps), at least 2: where many demands share a source they cost more
        search = len(grp.sources) * (problem.num_arcs + problem.n)
        shift = int(paths.length.sum()) + len(grp.dst)
        for _ in range(max(2, min(_SHIFT_SWEEPS, search // max(shift, 1)))):
            projection_sweep(ch, grp, cost, x, paths, scratch, False)
        arc_flows(paths, x)
        sweeps += 1
    return best, upper, lower, sweeps, status

