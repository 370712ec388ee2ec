"""toposynth.flows — ranking topologies by multicommodity flow.

:func:`solve` is the one entry to the solvers: each is an entry of the
registry :data:`SOLVER_REGISTRY` (:mod:`flows.solvers`) declaring what it
solves, certifies and needs and where ``solver="auto"`` takes it.

>>> import candidates as cd
>>> import flows
>>> p = flows.FlowProblem.from_topology(cd.ring(6), flows.Demands.uniform(6))
>>> round(flows.solve_lp(p).lam, 6)
1.111111
"""

from common.lazy import lazy_names

from .lp import build_lp_arrays, lp_columns, solve_lp
from .problem import Demands, FlowError, FlowProblem
from .export import to_pulp, write_model
from .physical import Board, Packaging, PhysicalModel, RouterDelay, Technology, physical_model, physical_problem
from .queueing import LOAD_MODELS, QueueingModel
from .result import FlowResult
from .solve import SOLVERS, choose_solver, solve
from .solvers import SOLVER_REGISTRY, Solver, register_solver, solver_entry
from .cyclic_symmetry import shift_symmetric_uniform, shift_symmetry
from .symmetry import arc_orbits, symmetric_uniform

# the iterative solvers load on first use (PEP 562): their numba kernels'
# import is ~0.2 s of a small `toposynth flow`'s ~0.5 s start-up (measured,
# -X importtime), and the LP answers small problems without them
_LAZY = {
    "check": ["CrossCheck", "cross_check"],
    "colgen": ["colgen_max_concurrent_flow"],
    "colgen_latency": ["colgen_min_latency"],
    "curve": ["LatencyCurve", "CurvePoint", "latency_curve"],
    "deviation": ["min_latency_queueing"],
    "latency": ["min_latency"],
    "ptas": ["max_concurrent_flow"],
}
__getattr__, __dir__ = lazy_names(__name__, {n: m for m, names in _LAZY.items() for n in names}, globals())

__all__ = ["Demands", "FlowError", "FlowProblem", "FlowResult", "solve_lp", "build_lp_arrays", "lp_columns", "max_concurrent_flow", "min_latency",
           "colgen_max_concurrent_flow", "colgen_min_latency", "solve", "choose_solver", "SOLVERS",
           "SOLVER_REGISTRY", "Solver", "register_solver", "solver_entry",
           "cross_check", "CrossCheck", "symmetric_uniform", "arc_orbits", "shift_symmetric_uniform", "shift_symmetry", "to_pulp", "write_model",
           "Technology", "RouterDelay", "Board", "Packaging", "PhysicalModel", "physical_model", "physical_problem",
           "QueueingModel", "LOAD_MODELS", "min_latency_queueing", "latency_curve", "LatencyCurve", "CurvePoint"]
