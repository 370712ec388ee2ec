"""One entry point for the flow solvers: ``solve(problem, eps, solver=...)``.

The solvers are the entries of :data:`flows.solvers.SOLVER_REGISTRY`, each
declaring what it can do (objectives, certificate, what it needs, the
instances ``auto`` hands it); :func:`solve` is the only way to them that
``toposynth flow``, the studies and their cross-check take.

- ``"ptas"``: the Garg-Koenemann PTAS (:func:`flows.max_concurrent_flow`,
  :func:`flows.min_latency`), certified to ``eps``;
- ``"colgen"``: path-based column generation (:func:`flows.colgen.colgen_max_concurrent_flow`,
  its master chosen by :func:`colgen_master`; :func:`flows.colgen_min_latency`), certified to
  ``eps`` (``eps = 0``: to :data:`EXACT_TOL`);
- ``"lp"``: the arc LP by HiGHS's interior point (exact); ``"pdlp"``: the
  same LP by HiGHS's PDLP (upper bound re-priced, primal to 1e-7);
- ``"symmetry"``: uniform traffic exactly by the topology's symmetry
  (:func:`flows.symmetric_uniform`: one source's flow on a lattice family;
  :func:`flows.shift_symmetric_uniform`: the flows of one fibre's sources on
  a graph invariant under a cyclic shift of its routers, a searched graph's
  lift), or a one-line error where it does not apply;
- ``"deviation"``: the latency under the queueing load model (a
  ``queueing`` model given): flow deviation (:func:`flows.min_latency_queueing`),
  certified to ``eps``;
- ``"auto"``: the first solver of :func:`flows.solvers.auto_order` that
  applies: the registry's entries that ``auto`` may take, in their order of
  preference, whose capabilities fit the request. Today that is symmetry
  first (given the ``topology``, the capacity objective and uniform traffic
  on a lattice family, or on a shift-invariant graph whose LP is small
  enough), then the exact arc LP on tiny instances
  (:data:`AUTO_LP_BELOW_ROUTERS`), the PTAS for dense demands at eps >=
  :data:`AUTO_PTAS_MIN_EPS` (:data:`AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER`), and
  column generation otherwise, for the capacity whatever eps is asked
  (measured: with the potential master it is faster than the PTAS at eps =
  0.05 from 27 routers up) and for the latency (measured faster than the
  PTAS search and the exact LP at every load tried, and it needs no capacity run).

Every result names its method in ``extra["method"]`` and the solver asked for
in ``extra["solver_requested"]``, and carries its certified gap (``result.gap``).
"""

from __future__ import annotations

import dataclasses

from common import compiletime

from .compile_notice import prepare
from .problem import DEFAULT_EPS, FlowError, FlowProblem
from .queueing import QueueingModel
from .result import FlowResult
from .solvers import (AUTO_LP_BELOW_ROUTERS, AUTO_MWU_EPS, AUTO_MWU_EPS_LARGE, AUTO_MWU_LARGE_ROUTERS,
                      AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER, AUTO_PTAS_MIN_EPS, EXACT_TOL, OBJECTIVES, SolveRequest,
                      auto_order, colgen_master, solver_entry, solver_names)

__all__ = ["solve", "SOLVERS", "EXACT_TOL", "AUTO_LP_BELOW_ROUTERS", "AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER",
           "AUTO_PTAS_MIN_EPS", "AUTO_LATENCY_EPS", "AUTO_MWU_EPS", "AUTO_MWU_EPS_LARGE", "AUTO_MWU_LARGE_ROUTERS",
           "choose_solver", "colgen_master"]

#: ``"auto"`` and the registered solvers' names (:func:`flows.solvers.solver_names` as of import)
SOLVERS = solver_names()
#: the latency objective's threshold for the PTAS under auto: the capacity's (kept under its old name)
AUTO_LATENCY_EPS = AUTO_PTAS_MIN_EPS


def choose_solver(problem: FlowProblem, eps: float, objective: str = "concurrent", load_model: str = "linear") -> str:
    """The solver ``"auto"`` picks (see the module docstring).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.torus((8, 8, 8)), Demands.random(512, 2048, seed=1))
    >>> choose_solver(p, 0.05), choose_solver(p, 0.0), choose_solver(p, 0.05, "latency")
    ('colgen', 'colgen', 'colgen')
    """
    for entry in auto_order(problem, eps, objective, load_model=load_model):
        return entry.name
    raise FlowError(f"no solver takes the {objective} objective at eps {eps}")     # none registered


def solve(problem: FlowProblem | None, eps: float = DEFAULT_EPS, *, solver: str = "auto",
          objective: str = "concurrent", time_limit: float | None = None, max_phases: int = 100000, topology=None,
          progress=None, capacity: FlowResult | None = None, queueing: QueueingModel | None = None) -> FlowResult:
    """Solve ``problem`` to a certified relative gap ``eps`` (0: exact).
    ``solver``: ``"auto"`` or a name of :data:`flows.solvers.SOLVER_REGISTRY`.
    ``max_phases``: the PTAS's phase budget (a run stopped by it above eps
    says so in its status and is not :attr:`FlowResult.certified`).
    ``topology``: the :class:`~candidates.Topology` the problem was built
    on, which lets ``auto`` use symmetry where it applies; with it,
    ``problem=None`` stands for uniform traffic on its routers (one unit per
    router over channels of capacity 1), answered without building the
    n (n - 1) demands by the solvers that can (the lattice's symmetry). ``progress``: a
    callback every iterative solver reports to every few seconds (a dict:
    ``seconds``, ``phases`` (the PTAS) or ``rounds`` (column generation,
    the latency search's steps), ``gap``, and ``lam``/``upper_bound`` or
    for the latency ``lower_bound``/``upper_bound``). ``capacity``: for the
    latency objective, a capacity result for this very problem (the PTAS
    search starts from it instead of a capacity run of its own).
    ``queueing``: the latency's load model, a
    :class:`~flows.queueing.QueueingModel` (None: the linear model); the
    ``deviation`` solver takes it, and ``auto`` picks it.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> r = solve(FlowProblem.from_topology(cd.ring(6), Demands.uniform(6)), eps=0)
    >>> r.extra["method"], round(r.lam, 6), r.gap <= 1e-6
    ('lp (ipm)', 1.111111, True)
    >>> solve(None, solver="symmetry", topology=cd.ring(6)).extra["method"]
    'symmetry'
    """
    entry = None if solver == "auto" else solver_entry(solver)
    if objective not in OBJECTIVES:
        raise FlowError(f"unknown objective {objective!r}; use 'concurrent' or 'latency'")
    if not (0 <= eps < 1):
        raise FlowError(f"eps must be in [0, 1) (0 = exact), got {eps}")
    if problem is None and topology is None:
        raise FlowError("flows.solve needs the problem, or the topology for uniform traffic on it")
    if queueing is not None and objective != "latency":
        raise FlowError("a queueing load model is for the latency objective; the capacity does not depend on it")
    request = SolveRequest(problem, eps, objective, time_limit, max_phases, topology, progress, capacity,
                           strict=entry is not None, queueing=queueing)
    # the solvers time themselves; a kernel's first compile inside that time is taken out below
    t0 = compiletime.clock(import_numba=False)
    r = None
    if entry is not None:
        why = entry.refusal(problem, eps, objective, topology, request.load_model)
        if why:
            raise FlowError(why)
        prepare(entry.name)
        r = entry.run(request)
        # a solver asked for by name (a strict request) raises where it does not apply: None only under auto
        assert r is not None, f"solver {solver!r} returned None to a strict request"
    else:
        for candidate in auto_order(problem, eps, objective, topology, request.load_model):
            prepare(candidate.name)
            r = candidate.run(request)
            if r is not None:
                break
        if r is None:
            raise FlowError("no solver applies to uniform traffic on this topology without the flow problem; "
                            "build the FlowProblem")
    extra = dict(r.extra)
    extra["solver_requested"] = solver
    # the compiles happen inside the solver's own timing (its kernels' first calls): at most all of it
    comp = min(compiletime.compile_seconds(t0), r.seconds)
    return dataclasses.replace(r, extra=extra, seconds=r.seconds - comp, compile_seconds=r.compile_seconds + comp)
