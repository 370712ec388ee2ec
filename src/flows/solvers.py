"""The registry of the flow solvers: what each solves, certifies and needs, and where ``auto`` takes it.

Every solver is one :class:`Solver` entry, registered once (a duplicate name
is an error), declaring the objectives it solves (``"concurrent"``: the
maximum concurrent flow, the capacity; ``"latency"``: the minimum average
latency at the given demand) and load models (``"linear"``: the paper's
delay per unit of flow; ``"queueing"``: Kleinrock's wait on every channel,
:mod:`flows.queueing`), what it certifies (``"gap"``: to the eps asked,
``"exact"``: the optimum whatever eps), whether it answers eps = 0, what it
needs beyond the problem (the ``topology`` and a symmetry group of it:
``lattice`` translations, a cyclic ``shift`` of the routers), the instances
``auto`` hands it (:class:`Suits`: the thresholds measured in
docs/results/flows.md) and the function that runs it. :func:`flows.solve` is
the one entry to them: it looks a name up with :func:`solver_entry` (one
error line listing the valid names), checks the request against the entry's
capabilities, and for ``"auto"`` walks :func:`auto_order` -- the entries
``auto`` may take, in their order of preference, whose capabilities fit the
problem -- and runs the first that applies.

>>> SOLVER_REGISTRY["ptas"].certifies, SOLVER_REGISTRY["symmetry"].needs, SOLVER_REGISTRY["colgen"].exact_at_zero
('gap', ('topology',), True)
>>> solver_entry("nope")
Traceback (most recent call last):
...
flows.problem.FlowError: unknown solver 'nope'; use one of auto, ptas, colgen, lp, pdlp, symmetry, deviation
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from .cyclic_symmetry import AUTO_SHIFT_MAX_COLUMNS, AUTO_SHIFT_MIN_ORDER, shift_symmetric_uniform, shift_symmetry
from .lp import solve_lp
from .problem import FlowError, FlowProblem
from .queueing import LOAD_MODELS, QueueingModel
from .result import FlowResult
from .symmetry import symmetric_uniform

__all__ = ["Solver", "Suits", "SolveRequest", "SOLVER_REGISTRY", "register_solver", "solver_entry", "auto_order",
           "solver_names", "OBJECTIVES", "CERTIFICATES", "NEEDS", "SYMMETRIES", "EXACT_TOL", "AUTO_LP_BELOW_ROUTERS",
           "AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER", "AUTO_PTAS_MIN_EPS", "AUTO_MWU_EPS", "AUTO_MWU_EPS_LARGE",
           "AUTO_MWU_LARGE_ROUTERS", "colgen_master"]

#: the objectives: the maximum concurrent flow (the capacity) and the minimum average latency
OBJECTIVES = ("concurrent", "latency")
#: what a solver's answer certifies: ``gap`` within the eps asked, ``exact`` the optimum,
#: ``tolerance`` the optimum to the method's own tolerance (PDLP's primal: 1e-7) below a certified bound
CERTIFICATES = ("gap", "exact", "tolerance")
#: what a solver may need beyond the problem: the topology it was built on
NEEDS = ("topology",)
#: the symmetry groups of a topology a solver may exploit: the translations of a lattice family,
#: a cyclic shift of the routers (a searched graph's lift)
SYMMETRIES = ("lattice", "shift")

#: the certified gap column generation runs to when eps = 0 ("exact")
EXACT_TOL = 1e-6
#: auto solves the arc LP exactly below this many routers: there it takes
#: 3-20 ms (8-16 routers, 4 random demands each; docs/results/flows.md), less
#: than the ~0.3 s the first numba kernel of a process costs (numba loads its
#: typing registries) that the PTAS and column generation pay in a fresh
#: `toposynth flow`; in-process the PTAS would be quicker (0.4-1.3 ms) but
#: not exact. From 27 routers up column generation with the potential master
#: beats the PTAS (3.9 against 11 ms at 27 routers; bench_auto_small.py)
AUTO_LP_BELOW_ROUTERS = 24
#: auto takes the PTAS (eps >= AUTO_PTAS_MIN_EPS) when there are more demands
#: than this per router, for the capacity and for the latency: column
#: generation's master has a row per demand, and on uniform traffic (n - 1 per
#: router) a 512-router packaging instance grew past 3 GB in 6 minutes where
#: the PTAS certifies it in seconds; measured colgen wins are at 4 per router
#: (docs/results/flows.md)
AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER = 16
#: the smallest eps auto hands the PTAS (below it column generation, whatever the demands)
AUTO_PTAS_MIN_EPS = 0.02
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


@dataclass(frozen=True)
class SolveRequest:
    """One call of :func:`flows.solve`, as every solver's ``run`` receives it.

    problem : the :class:`FlowProblem`, or None: uniform traffic on
        ``topology`` (every router sending one unit in all over channels of
        capacity 1), which only solvers with ``implicit_uniform`` answer.
    eps, objective, time_limit, max_phases, progress : as :func:`flows.solve` takes them.
    topology : the :class:`~candidates.Topology` the problem was built on, or None.
    capacity : a capacity result for this very problem, which the latency solvers reuse.
    queueing : the latency's load model: None for the linear model, a
        :class:`~flows.queueing.QueueingModel` for the queueing one.
    strict : the solver was asked for by name: one that does not apply to the
        instance raises its one-line error (under ``auto`` it returns None).
    """

    problem: FlowProblem | None
    eps: float
    objective: str = "concurrent"
    time_limit: float | None = None
    max_phases: int = 100000
    topology: Any = None
    progress: Callable[[dict], None] | None = None
    capacity: FlowResult | None = None
    strict: bool = True
    queueing: QueueingModel | None = None

    @property
    def load_model(self) -> str:
        """``"queueing"`` with a queueing model, else ``"linear"``."""
        return "linear" if self.queueing is None else "queueing"

    def built_problem(self) -> FlowProblem:
        """The problem, for a solver without ``implicit_uniform``: :meth:`Solver.refusal`
        turns a request without it away from such a solver before its ``run``."""
        assert self.problem is not None, "a solver that needs the flow problem was run without it"
        return self.problem


@dataclass(frozen=True)
class Suits:
    """The instances ``auto`` hands a solver: all of the conditions hold.

    rank : auto's order of preference (the lowest first among those that fit).
    below_routers : fewer routers than this (None: any number).
    min_eps : eps at least this.
    above_demands_per_router : more demands than this times the routers (None: any number).
    """

    rank: int
    below_routers: int | None = None
    min_eps: float = 0.0
    above_demands_per_router: float | None = None

    def fits(self, problem: FlowProblem | None, eps: float) -> bool:
        """Whether ``problem`` at ``eps`` is one of these instances (None: uniform traffic, not built)."""
        if eps < self.min_eps:
            return False
        if problem is None:
            return self.below_routers is None and self.above_demands_per_router is None
        if self.below_routers is not None and not problem.n < self.below_routers:
            return False
        return (self.above_demands_per_router is None
                or len(problem.demands) > self.above_demands_per_router * problem.n)


@dataclass(frozen=True)
class Solver:
    """A named flow solver.

    name, summary : the name (``flows.solve(..., solver=name)``, ``--solver``) and a one-line description.
    run : ``run(request: SolveRequest) -> FlowResult | None``: the answer with
        ``extra["method"]`` naming how it was reached; None (only when the
        request is not ``strict``) where the solver does not apply to the instance.
    label : how an error message names it (``"the PTAS"``).
    objectives : the objectives it solves (of :data:`OBJECTIVES`).
    load_models : the latency's load models it solves (of :data:`flows.queueing.LOAD_MODELS`).
    certifies : ``"gap"`` (within the eps asked), ``"exact"`` or ``"tolerance"`` (of :data:`CERTIFICATES`).
    exact_at_zero : it takes eps = 0 (a ``gap`` solver then certifies to :data:`EXACT_TOL`).
    needs : what it needs beyond the problem (of :data:`NEEDS`).
    symmetries : the symmetry groups of the topology it exploits, tried in this order (of :data:`SYMMETRIES`).
    implicit_uniform : it answers uniform traffic on the topology without the
        problem (``problem=None``: the n (n - 1) demands are never built).
    auto : where ``auto`` takes it (None: only by name).

    >>> s = SOLVER_REGISTRY["lp"]
    >>> s.name, s.label, s.objectives, s.certifies, s.needs
    ('lp', 'the arc LP', ('concurrent', 'latency'), 'exact', ())
    >>> s = SOLVER_REGISTRY["symmetry"]
    >>> s.needs, s.symmetries, s.implicit_uniform
    (('topology',), ('lattice', 'shift'), True)
    """

    name: str
    summary: str
    run: Callable[[SolveRequest], FlowResult | None]
    label: str = ""
    objectives: tuple[str, ...] = OBJECTIVES
    load_models: tuple[str, ...] = ("linear",)
    certifies: str = "gap"
    exact_at_zero: bool = False
    needs: tuple[str, ...] = ()
    symmetries: tuple[str, ...] = ()
    implicit_uniform: bool = False
    auto: Suits | None = None

    def __post_init__(self) -> None:
        if not self.name or self.name == "auto" or self.name != self.name.lower():
            raise ValueError(f"solver name {self.name!r}: lower case, and not 'auto' (the policy)")
        if not self.objectives or set(self.objectives) - set(OBJECTIVES):
            raise ValueError(f"solver {self.name}: objectives must be some of {', '.join(OBJECTIVES)}")
        if not self.load_models or set(self.load_models) - set(LOAD_MODELS):
            raise ValueError(f"solver {self.name}: load_models must be some of {', '.join(LOAD_MODELS)}")
        if self.certifies not in CERTIFICATES:
            raise ValueError(f"solver {self.name}: certifies must be one of {', '.join(CERTIFICATES)}")
        if set(self.needs) - set(NEEDS):
            raise ValueError(f"solver {self.name}: needs must be some of {', '.join(NEEDS)}")
        if set(self.symmetries) - set(SYMMETRIES) or (self.symmetries and "topology" not in self.needs):
            raise ValueError(f"solver {self.name}: symmetries must be some of {', '.join(SYMMETRIES)}, and need "
                             "the topology")
        if self.implicit_uniform and "topology" not in self.needs:
            raise ValueError(f"solver {self.name}: implicit_uniform needs the topology")

    def answers_exactly(self, eps: float) -> bool:
        """Whether it answers at this eps (eps = 0 asks for the optimum)."""
        return eps > 0 or self.certifies != "gap" or self.exact_at_zero

    def refusal(self, problem: FlowProblem | None, eps: float, objective: str, topology,
                load_model: str = "linear") -> str | None:
        """Why this solver cannot take the request (one line naming all it needs), or None."""
        if objective == "latency" and load_model not in self.load_models:
            takes = [s.name for s in SOLVER_REGISTRY.values() if load_model in s.load_models
                     and "latency" in s.objectives]
            return (f"the {self.name} solver takes the {' or '.join(self.load_models)} load model, not "
                    f"{load_model}; use --solver {' or '.join(['auto'] + takes)}")
        missing_topology = "topology" in self.needs and topology is None
        if objective not in self.objectives or missing_topology:
            wants = []
            if "topology" in self.needs:
                wants.append("the topology (flows.solve(..., topology=topo))")
            if len(self.objectives) < len(OBJECTIVES):
                wants.append(" or ".join(f"the {_OBJECTIVE_WORDS[o]} objective" for o in self.objectives))
            return f"the {self.name} solver needs {' and '.join(wants)}"
        if problem is None and not self.implicit_uniform:
            return f"the {self.name} solver needs the flow problem (flows.FlowProblem)"
        if not self.answers_exactly(eps):
            exact = [s.name for s in SOLVER_REGISTRY.values()
                     if s.auto is not None and not s.needs and objective in s.objectives and s.answers_exactly(0.0)]
            return f"{self.label or self.name} needs eps > 0; use --solver {' or '.join(exact)} for an exact answer"
        return None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("run")
        return d


_OBJECTIVE_WORDS = {"concurrent": "capacity", "latency": "latency"}

#: The registry of flow solvers: name -> :class:`Solver` (:func:`register_solver` adds one).
SOLVER_REGISTRY: dict[str, Solver] = {}


def register_solver(entry: Solver) -> Solver:
    """Add a solver; a name already registered is an error.

    The built-in solvers are registered when :mod:`flows` is imported; a
    second entry of a name is refused:

    >>> register_solver(SOLVER_REGISTRY["lp"])
    Traceback (most recent call last):
    ...
    ValueError: solver 'lp' is already registered
    """
    if entry.name in SOLVER_REGISTRY:
        raise ValueError(f"solver {entry.name!r} is already registered")
    SOLVER_REGISTRY[entry.name] = entry
    return entry


def solver_names() -> tuple[str, ...]:
    """``"auto"`` and the registered solvers' names, in registration order."""
    return ("auto",) + tuple(SOLVER_REGISTRY)


def solver_entry(name: str) -> Solver:
    """The entry of solver ``name``; one error line for an unknown name (``"auto"`` is the policy, no entry).

    >>> e = solver_entry("ptas")
    >>> e.label, e.certifies, e.exact_at_zero
    ('the PTAS', 'gap', False)
    >>> solver_entry("lp").summary
    "the arc LP by HiGHS's interior point"
    """
    try:
        return SOLVER_REGISTRY[name]
    except (KeyError, TypeError):
        raise FlowError(f"unknown solver {name!r}; use one of {', '.join(solver_names())}") from None


def auto_order(problem: FlowProblem | None, eps: float, objective: str = "concurrent", topology=None,
               load_model: str = "linear") -> Iterator[Solver]:
    """The solvers ``auto`` may take for this request, in its order of
    preference: those with a :class:`Suits` that fits, that solve the
    objective and have what they need (``flows.solve`` runs them in turn
    until one applies; the last needs nothing but the problem)."""
    ranked = sorted(((s.auto, s) for s in SOLVER_REGISTRY.values() if s.auto is not None), key=lambda p: p[0].rank)
    for suits, s in ranked:
        if s.refusal(problem, eps, objective, topology, load_model) is None and suits.fits(problem, eps):
            yield s


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


def _with_method(r: FlowResult, method: str) -> FlowResult:
    return dataclasses.replace(r, extra={**r.extra, "method": method})


# the iterative solvers are imported where they run, not at the top: their
# numba kernels take ~0.2 s of a small `toposynth flow`'s ~0.5 s start-up
# (measured, -X importtime), and the LP and symmetry answer small problems
def _run_ptas(q: SolveRequest) -> FlowResult:
    problem = q.built_problem()
    if q.objective == "latency":
        from .latency import min_latency  # per solver: loads numba, which the LP and symmetry never need

        r = min_latency(problem, eps=q.eps, max_phases=q.max_phases, capacity=q.capacity, progress=q.progress)
    else:
        from .ptas import max_concurrent_flow  # per solver: loads numba

        r = max_concurrent_flow(problem, eps=q.eps, max_phases=q.max_phases, progress=q.progress)
    return _with_method(r, "ptas")


def _run_colgen(q: SolveRequest) -> FlowResult:
    problem = q.built_problem()
    tol = q.eps if q.eps > 0 else EXACT_TOL
    if q.objective == "latency":
        from .colgen_latency import colgen_min_latency  # per solver: loads numba

        return colgen_min_latency(problem, tol=tol, capacity=q.capacity, time_limit=q.time_limit,
                                  progress=q.progress)
    from .colgen import colgen_max_concurrent_flow  # per solver: loads numba

    master = colgen_master(problem, q.eps)
    r = colgen_max_concurrent_flow(problem, tol=tol, time_limit=q.time_limit, master=master, progress=q.progress)
    if master == "mwu" and r.status.startswith("stalled"):
        # the potential's sweeps can stall short of a small gap; the LP master gets there (slower)
        left = None if q.time_limit is None else max(1.0, q.time_limit - r.seconds)
        r2 = colgen_max_concurrent_flow(problem, tol=tol, time_limit=left, master="pdlp", progress=q.progress)
        r = dataclasses.replace(r2, seconds=r.seconds + r2.seconds,
                                extra={**r2.extra, "stalled_first": r.extra["method"]})
    return r


def _run_deviation(q: SolveRequest) -> FlowResult:
    from .deviation import min_latency_queueing  # per solver: loads numba

    deadline = q.time_limit
    return min_latency_queueing(q.built_problem(), q.queueing, q.eps, capacity=q.capacity, time_limit=deadline,
                                progress=q.progress)


def _lp_runner(method: str) -> Callable[[SolveRequest], FlowResult]:
    def run(q: SolveRequest) -> FlowResult:
        return _with_method(solve_lp(q.built_problem(), q.objective, time_limit=q.time_limit, method=method),
                            f"lp ({method})")

    return run


def _by_shift(topology, problem: FlowProblem, time_limit: float | None) -> FlowResult | None:
    """The exact uniform capacity by the routers' cyclic shift symmetry
    (:func:`flows.shift_symmetric_uniform`), where the graph has one of order
    at least ``AUTO_SHIFT_MIN_ORDER`` and its LP is small enough; else None."""
    if topology.has_parallel_links or problem.n != topology.n:
        return None
    g = shift_symmetry(topology)
    if g < AUTO_SHIFT_MIN_ORDER or (topology.n // g) * topology.num_arcs > AUTO_SHIFT_MAX_COLUMNS:
        return None
    try:
        return shift_symmetric_uniform(topology, problem, g=g, time_limit=time_limit)
    except FlowError:
        return None


def _run_symmetry(q: SolveRequest) -> FlowResult | None:
    """The lattice's translations, else (with the problem built) the routers'
    cyclic shift; neither: the translations' error, or None under auto."""
    r: FlowResult | None
    try:
        r = symmetric_uniform(q.topology, q.problem, time_limit=q.time_limit)
    except FlowError as lattice_error:
        r = None if q.problem is None else _by_shift(q.topology, q.problem, q.time_limit)
        if r is None:
            if q.strict:
                raise lattice_error
            return None
    return _with_method(r, "symmetry" if r.solver == "symmetry" else "shift symmetry")


for _entry in (
    Solver("ptas", "the Garg-Koenemann PTAS with Karakostas' grouping and Fleischer's cached trees (the latency: "
           "a search over a latency budget of PTAS runs), certified to eps > 0", _run_ptas, label="the PTAS",
           auto=Suits(2, min_eps=AUTO_PTAS_MIN_EPS, above_demands_per_router=AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER)),
    Solver("colgen", "path-based column generation (the master by the potential or HiGHS's PDLP; the latency: an "
           "interior-point master), certified to eps (eps 0: to EXACT_TOL)", _run_colgen, label="column generation",
           exact_at_zero=True, auto=Suits(3)),
    Solver("lp", "the arc LP by HiGHS's interior point", _lp_runner("ipm"), label="the arc LP", certifies="exact",
           auto=Suits(1, below_routers=AUTO_LP_BELOW_ROUTERS)),
    Solver("pdlp", "the arc LP by HiGHS's PDLP: the upper bound certified by re-pricing the duals, lambda PDLP's "
           "primal (feasible to 1e-7)", _lp_runner("pdlp"), label="the arc LP by PDLP", certifies="tolerance"),
    Solver("symmetry", "uniform traffic exactly, by the topology's symmetry: one source's flow on a lattice family, "
           "one fibre's sources on a graph invariant under a cyclic shift of its routers", _run_symmetry,
           label="the symmetry solver", objectives=("concurrent",), certifies="exact", needs=("topology",),
           symmetries=("lattice", "shift"), implicit_uniform=True, auto=Suits(0)),
    Solver("deviation", "flow deviation for the queueing load model: Bertsekas and Gafni's projected Newton method "
           "on paths where the channels' widths are fixed, conjugate Frank-Wolfe where they share resources; "
           "certified to eps > 0 by a Lagrangian bound", _run_deviation, label="flow deviation",
           objectives=("latency",), load_models=("queueing",), auto=Suits(4)),
):
    register_solver(_entry)
