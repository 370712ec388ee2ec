"""toposynth.flows — ranking topologies by multicommodity flow.

>>> import candidates as cd
>>> import flows
>>> p = flows.FlowProblem.from_topology(cd.ring(6), flows.Demands.uniform(6))
>>> round(flows.solve_lp(p).lam, 6)
1.111111
"""

from .lp import build_lp_arrays, lp_columns, solve_lp
from .problem import Demands, FlowError, FlowProblem
from .check import CrossCheck, cross_check
from .export import to_pulp, write_model
from .latency import min_latency
from .physical import Board, Packaging, PhysicalModel, RouterDelay, Technology, physical_model, physical_problem
from .ptas import max_concurrent_flow
from .result import FlowResult
from .colgen import colgen_max_concurrent_flow
from .colgen_latency import colgen_min_latency
from .solve import SOLVERS, choose_solver, solve
from .symmetry import arc_orbits, symmetric_uniform

__all__ = ["Demands", "FlowError", "FlowProblem", "FlowResult", "solve_lp", "build_lp_arrays", "lp_columns", "max_concurrent_flow", "min_latency",
           "colgen_max_concurrent_flow", "colgen_min_latency", "solve", "choose_solver", "SOLVERS",
           "cross_check", "CrossCheck", "symmetric_uniform", "arc_orbits", "to_pulp", "write_model",
           "Technology", "RouterDelay", "Board", "Packaging", "PhysicalModel", "physical_model", "physical_problem"]
