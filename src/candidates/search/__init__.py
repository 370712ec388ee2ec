"""Synthesis by search: the best graph of ``n`` routers with ``d`` ports each.

A search anneals random graphs by degree-preserving moves (2-opt link
swaps; with a port budget, also moving, adding and removing links),
optionally keeping some links fixed and optionally *lifted*: invariant under
a cyclic group of order ``g`` acting on the routers, which divides the
evaluation's work by ``g`` and makes every move on ``g`` copies at once. Each
move is scored by bit-parallel all-pairs BFS (64 sources per machine word).
Objectives are registry entries (:data:`OBJECTIVES`): ``aspl`` (the
order/degree problem: diameter, then average shortest-path length),
``throughput`` (the busiest link of an even shortest-path split of uniform
traffic), ``mix``.

The result is a deterministic function of (routers, degree, objective,
symmetry, fixed links, seed, moves, restarts): its spec
(``search:n=512:d=6:moves=200000:seed=1``) rebuilds it anywhere.

>>> from candidates.search import search_graph
>>> r = search_graph(32, 3, moves=4000, seed=1)
>>> r.diameter, r.moore_diameter, r.topology.n, r.topology.num_links
(4, 4, 32, 48)
>>> round(r.aspl, 3) >= round(r.moore_aspl, 3)
True
"""

from common.lazy import lazy_names

from .objectives import OBJECTIVES, Objective, objective, register_objective

# the engine's names load on first use (PEP 562): its numba kernels cost ~0.2 s of start-up that a
# command only parsing `toposynth search`'s options (or any other command) does not need
_LAZY = {
    "api": ["search_graph", "finish_search"],
    "engine": ["RestartResult", "run_restart"],
    "problem": ["SearchProblem", "search_problem", "auto_symmetry"],
    "result": ["SearchResult", "SEARCH_VERSION"],
}
__getattr__, __dir__ = lazy_names(__name__, {n: m for m, names in _LAZY.items() for n in names}, globals())

__all__ = ["search_graph", "SearchResult", "SearchProblem", "search_problem", "RestartResult", "run_restart",
           "OBJECTIVES", "Objective", "objective", "register_objective", "auto_symmetry", "finish_search",
           "SEARCH_VERSION"]
