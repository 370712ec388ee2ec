"""One entry point for the flow solvers: ``solve(problem, eps, solver=...)``.

- ``"ptas"``: the Garg-Koenemann PTAS (:func:`flows.max_concurrent_flow`,
  :func:`flows.min_latency`), certified to ``eps``;
- ``"colgen"``: path-based column generation (:func:`flows.colgen.colgen_max_concurrent_flow`,
  its master chosen by :func:`colgen_master`; :func:`flows.colgen_min_latency`), certified to
  ``eps`` (``eps = 0``: to :data:`EXACT_TOL`);
- ``"lp"``: the arc LP by HiGHS's interior point (exact); ``"pdlp"``: the
  same LP by HiGHS's PDLP (upper bound re-priced, primal to 1e-7);
- ``"auto"``: the exact arc LP on tiny instances (:data:`AUTO_LP_BELOW_ROUTERS`);
  column generation for the capacity whatever eps is asked (measured: with
  the potential master it is faster than the PTAS at eps = 0.05 from 27
  routers up), the PTAS for dense demands (:data:`AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER`);
  for the latency objective column generation
  too (measured faster than the PTAS search and the exact LP at every load
  tried, and it needs no capacity run), except the PTAS search for dense
  demands at eps >= :data:`AUTO_LATENCY_EPS`; given the
  ``topology``, uniform traffic on a lattice family (the same demands and
  capacities seen from every router, no shared resources) is solved exactly
  by symmetry (:func:`flows.symmetric_uniform`: one source's flow) first, and
  on a graph invariant under a cyclic shift of its routers (a searched graph's
  lift) by that symmetry (:func:`flows.shift_symmetric_uniform`: the flows of
  one fibre's sources) where its LP is small enough;
- ``"symmetry"``: that, or a one-line error where it does not apply.

Every result names its method in ``extra["method"]`` and carries its
certified gap (``result.gap``).
"""

from __future__ import annotations

import dataclasses

from .lp import solve_lp
from .problem import DEFAULT_EPS, FlowError, FlowProblem
from .result import FlowResult
from .cyclic_symmetry import AUTO_SHIFT_MAX_COLUMNS, AUTO_SHIFT_MIN_ORDER, shift_symmetric_uniform, shift_symmetry
from .symmetry import symmetric_uniform

__all__ = ["solve", "SOLVERS", "EXACT_TOL", "AUTO_LP_BELOW_ROUTERS", "AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER",
           "AUTO_LATENCY_EPS", "AUTO_MWU_EPS", "AUTO_MWU_EPS_LARGE", "AUTO_MWU_LARGE_ROUTERS", "choose_solver",
           "colgen_master"]

SOLVERS = ("auto", "ptas", "colgen", "lp", "pdlp", "symmetry")
#: the certified gap column generation runs to when eps = 0 ("exact")
EXACT_TOL = 1e-6
#: auto solves the arc LP exactly below this many routers: there it takes
#: 3-20 ms (8-16 routers, 4 random demands each; benchmarks/RESULTS.md), less
#: than the ~0.3 s the first numba kernel of a process costs (numba loads its
#: typing registries) that the PTAS and column generation pay in a fresh
#: `toposynth flow`; in-process the PTAS would be quicker (0.4-1.3 ms) but
#: not exact. From 27 routers up column generation with the potential master
#: beats the PTAS (3.9 against 11 ms at 27 routers; bench_auto_small.py)
AUTO_LP_BELOW_ROUTERS = 24
#: auto takes the PTAS (eps >= 0.02) when there are more demands than this
#: per router: column generation's master has a row per demand, and on
#: uniform traffic (n - 1 per router) a 512-router packaging instance grew
#: past 3 GB in 6 minutes where the PTAS certifies it in seconds; measured
#: colgen wins are at 4 per router (benchmarks/RESULTS.md)
AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER = 16
#: column generation's master under auto: the exponential-potential
#: ("mwu") master from this eps up (faster than the PDLP master at every
#: size measured, 64-4096 routers, at gap 5%), and from AUTO_MWU_EPS_LARGE
#: on instances of at least AUTO_MWU_LARGE_ROUTERS routers (4096 routers at
#: gap 1%: 74 s CPU where the PDLP master's first solve did not finish in
#: 15 minutes); the PDLP master below (it reaches 1e-6 where the potential
#: stalls near 3e-3 at 512 routers)
AUTO_MWU_EPS = 0.02
AUTO_MWU_EPS_LARGE = 0.01
AUTO_MWU_LARGE_ROUTERS = 2000
#: the latency objective: auto runs column generation, or the PTAS search from
#: this eps up where the demands are dense (above
#: AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER per router, as for the capacity)
AUTO_LATENCY_EPS = 0.02


def choose_solver(problem: FlowProblem, eps: float, objective: str = "concurrent") -> str:
    """The solver ``"auto"`` picks (see the module docstring).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.torus((8, 8, 8)), Demands.random(512, 2048, seed=1))
    >>> choose_solver(p, 0.05), choose_solver(p, 0.0), choose_solver(p, 0.05, "latency")
    ('colgen', 'colgen', 'colgen')
    """
    if problem.n < AUTO_LP_BELOW_ROUTERS:
        return "lp"
    if objective == "latency":
        dense = len(problem.demands) > AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER * problem.n
        return "ptas" if eps >= AUTO_LATENCY_EPS and dense else "colgen"
    if eps >= 0.02 and len(problem.demands) > AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER * problem.n:
        return "ptas"
    return "colgen"


def colgen_master(problem: FlowProblem, eps: float) -> str:
    """The master LP method column generation uses for ``eps`` (see
    :data:`AUTO_MWU_EPS`).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.torus((8, 8, 8)), Demands.random(512, 2048, seed=1))
    >>> colgen_master(p, 0.05), colgen_master(p, 0.01), colgen_master(p, 0.0)
    ('mwu', 'pdlp', 'pdlp')
    """
    if eps >= AUTO_MWU_EPS or (eps >= AUTO_MWU_EPS_LARGE and problem.n >= AUTO_MWU_LARGE_ROUTERS):
        return "mwu"
    return "pdlp"


def _by_shift(topology, problem: FlowProblem, time_limit: float | None) -> FlowResult | None:
    """The exact uniform capacity by the routers' cyclic shift symmetry
    (:func:`flows.shift_symmetric_uniform`), where the graph has one of order
    at least :data:`AUTO_SHIFT_MIN_ORDER` and its LP is small enough; else None."""
    if topology.has_parallel_links or problem.n != topology.n:
        return None
    g = shift_symmetry(topology)
    if g < AUTO_SHIFT_MIN_ORDER or (topology.n // g) * topology.num_arcs > AUTO_SHIFT_MAX_COLUMNS:
        return None
    try:
        return shift_symmetric_uniform(topology, problem, g=g, time_limit=time_limit)
    except FlowError:
        return None


def solve(problem: FlowProblem, eps: float = DEFAULT_EPS, *, solver: str = "auto", objective: str = "concurrent",
          time_limit: float | None = None, max_phases: int = 100000, topology=None,
          progress=None) -> FlowResult:
    """Solve ``problem`` to a certified relative gap ``eps`` (0: exact).
    ``max_phases``: the PTAS's phase budget (a run stopped by it above eps
    says so in its status and is not :attr:`FlowResult.certified`).
    ``topology``: the :class:`~candidates.Topology` the problem was built
    on, which lets ``auto`` use symmetry where it applies. ``progress``: a
    callback every iterative solver reports to every few seconds (a dict:
    ``seconds``, ``phases`` (the PTAS) or ``rounds`` (column generation,
    the latency search's steps), ``gap``, and ``lam``/``upper_bound`` or
    for the latency ``lower_bound``/``upper_bound``).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> r = solve(FlowProblem.from_topology(cd.ring(6), Demands.uniform(6)), eps=0)
    >>> r.extra["method"], round(r.lam, 6), r.gap <= 1e-6
    ('lp (ipm)', 1.111111, True)
    """
    if solver not in SOLVERS:
        raise FlowError(f"unknown solver {solver!r}; use one of {', '.join(SOLVERS)}")
    if objective not in ("concurrent", "latency"):
        raise FlowError(f"unknown objective {objective!r}; use 'concurrent' or 'latency'")
    if not (0 <= eps < 1):
        raise FlowError(f"eps must be in [0, 1) (0 = exact), got {eps}")
    chosen = choose_solver(problem, eps, objective) if solver == "auto" else solver
    if solver in ("auto", "symmetry") and objective == "concurrent" and topology is not None:
        try:
            r = symmetric_uniform(topology, problem, time_limit=time_limit)
        except FlowError as lattice_error:
            r = _by_shift(topology, problem, time_limit)
            if r is None and solver == "symmetry":
                raise lattice_error
        if r is not None:
            method = "symmetry" if r.solver == "symmetry" else "shift symmetry"
            return dataclasses.replace(r, extra={**r.extra, "method": method, "solver_requested": solver})
    if chosen == "symmetry":
        raise FlowError("the symmetry solver needs the topology (flows.solve(..., topology=topo)) and the capacity "
                        "objective")
    # the iterative solvers are imported where chosen, not at the top: their
    # numba kernels' import is ~0.2 s of a small `toposynth flow`'s ~0.5 s
    # start-up (measured, -X importtime), and the LP answers small problems
    if chosen == "ptas":
        from .latency import min_latency
        from .ptas import max_concurrent_flow

        if eps == 0:
            raise FlowError("the PTAS needs eps > 0; use --solver colgen or lp for an exact answer")
        r = (min_latency(problem, eps=eps, max_phases=max_phases, progress=progress) if objective == "latency"
             else max_concurrent_flow(problem, eps=eps, max_phases=max_phases, progress=progress))
        method = "ptas"
    elif chosen == "colgen":
        from .colgen import colgen_max_concurrent_flow
        from .colgen_latency import colgen_min_latency

        tol = eps if eps > 0 else EXACT_TOL
        if objective == "latency":
            r = colgen_min_latency(problem, tol=tol, time_limit=time_limit, progress=progress)
        else:
            master = colgen_master(problem, eps)
            r = colgen_max_concurrent_flow(problem, tol=tol, time_limit=time_limit, master=master, progress=progress)
            if master == "mwu" and r.status.startswith("stalled"):
                # the potential's sweeps can stall short of a small gap; the LP master gets there (slower)
                left = None if time_limit is None else max(1.0, time_limit - r.seconds)
                r2 = colgen_max_concurrent_flow(problem, tol=tol, time_limit=left, master="pdlp", progress=progress)
                r = dataclasses.replace(r2, seconds=r.seconds + r2.seconds,
                                        extra={**r2.extra, "stalled_first": r.extra["method"]})
        method = r.extra["method"]
    else:
        method_ = "ipm" if chosen == "lp" else "pdlp"
        r = solve_lp(problem, objective, time_limit=time_limit, method=method_)
        method = f"lp ({method_})"
    extra = dict(r.extra)
    extra["method"] = method
    extra["solver_requested"] = solver
    return dataclasses.replace(r, extra=extra)
