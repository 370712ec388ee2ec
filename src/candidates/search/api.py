"""The search's entry points: :func:`search_graph` and the assembly of a
result from restarts (:func:`finish_search`)."""


from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import compiletime

from ..errors import SpecError
from ..topology import Topology
from .engine import RestartResult, run_restart, score_links
from .layout import Layout, max_length_allowed
from .problem import SearchProblem, search_problem
from .resources import LinkResources
from .result import SEARCH_VERSION, SearchResult, result_topology, search_spec, summarise

__all__ = ["search_graph", "finish_search"]


def search_graph(routers: int, degree: int, *, objective: str = "aspl", weight: float | None = None, seed: int = 0,
                 moves: int | None = 100_000, time_limit: float | None = None, restarts: int = 1,
                 symmetry: int | str = "auto", regular: bool = True, fixed: Topology | Any = None,
                 restart: int | None = None, start: Topology | Any = None, temperature: float = 1.0,
                 layout: Layout | None = None, max_length: float | None = None, metric: str = "euclidean",
                 allowed=None, resources: LinkResources | None = None, demands=None, checkpoint=None,
                 progress: Callable[[dict[str, Any]], None] | None = None) -> SearchResult:
    """Search for the best graph of ``routers`` routers with ``degree`` ports.

    objective : a registered objective (``aspl``, ``throughput``, ``mix``;
        ``weight``: the share of latency in ``mix``).
    seed, moves, restarts : the random stream, the moves per restart and the
        number of independent restarts (the best is kept). ``moves=None``
        with ``time_limit`` (seconds per restart) runs on the clock instead,
        which is not reproducible; with both, the time limit stops a restart
        early.
    symmetry : the order ``g`` of the cyclic group the graph is invariant
        under (``x -> x + n/g``), 1 for none, ``"auto"`` (default) for
        :func:`auto_symmetry`.
    regular : every port used (default); ``False``: at most ``degree`` links
        per router, links may be added and removed.
    fixed : links kept as they are (a :class:`~candidates.Topology` on the
        same routers, e.g. a torus's local links, or an (k, 2) array).
    restart : run only restart ``restart`` (its graph is the same as in a
        search of more restarts: every restart has its own stream).
    start : a graph to start from instead of a random one (a topology or an
        (k, 2) array of links, on at most ``routers`` routers: routers it
        lacks, or ports it leaves free, are joined by splitting its links);
        with ``temperature`` below 1 the annealing polishes it rather than
        scrambling it.
    temperature : the first temperature, as a multiple of the one calibrated
        from the start graph's random moves.
    layout : where the routers sit (:func:`~candidates.search.layout.grid_layout`,
        :func:`~candidates.search.layout.box_layout` with a packaging
        placement); the graph carries it.
    max_length, metric : links at most this long between the layout's
        coordinates (``euclidean`` or ``manhattan``); ``allowed``: any other
        rule, an (n, n) boolean matrix of the pairs that may be links. Moves
        never make a link the rule forbids.
    resources, demands : the packaging's :class:`~candidates.search.resources.LinkResources`
        (``flows.physical.link_resources``) and the traffic (a
        ``flows.Demands`` or (src, dst, amount) rows; default uniform) the
        ``physical`` objective prices.
    checkpoint : a folder where each restart's state is saved every 30 s and
        at its end; a search started again with the same folder resumes.
    progress : called every few seconds with a dict of the running
        restart's figures.

    >>> r = search_graph(16, 4, moves=2000, seed=3, symmetry=1)
    >>> r.diameter, r.topology.degree.tolist() == [4] * 16
    (3, True)

    Twenty routers on a 5 x 4 grid, four ports, links at most 1.5 long:

    >>> from candidates.search.layout import grid_layout
    >>> r = search_graph(20, 4, moves=3000, seed=1, regular=False, layout=grid_layout(5, 4), max_length=1.5)
    >>> r.topology.spec
    'search:n=20:d=4:moves=3000:seed=1:grid=5x4:max_length=1.5:regular=0'
    """
    constraints: dict[str, Any] = {}
    if max_length is not None:
        if layout is None:
            raise SpecError("a maximum link length needs a layout (where the routers sit): give layout=grid_layout(...)")
        if allowed is not None:
            raise SpecError("give a maximum length or an allowed-pairs matrix, not both")
        constraints = {"layout": layout.name, "max_length": float(max_length), "metric": metric}
        allowed = max_length_allowed(layout.coords, max_length, metric)
    elif allowed is not None:
        constraints = {"allowed": "matrix"}
    problem = search_problem(routers, degree, objective=objective, weight=weight, seed=seed, symmetry=symmetry,
                             regular=regular, fixed=fixed, start=start, temperature=temperature, allowed=allowed,
                             resources=resources, demands=demands, layout=layout, constraints=constraints)
    if isinstance(restarts, bool) or not isinstance(restarts, int) or restarts < 1:
        raise SpecError(f"restarts must be a positive integer, got {restarts!r}")
    _check_budget(moves, time_limit)
    if checkpoint is not None:
        Path(checkpoint).mkdir(parents=True, exist_ok=True)
    # the search's time leaves out its kernels' first compile
    t0 = compiletime.clock()
    if restart is not None:
        if isinstance(restart, bool) or not isinstance(restart, int) or restart < 0:
            raise SpecError(f"restart must be an integer >= 0, got {restart!r}")
        indices = [restart]
    else:
        indices = list(range(restarts))
    results = [run_restart(problem, k, moves=moves, seconds=time_limit, checkpoint=checkpoint, progress=progress)
               for k in indices]
    seconds, comp = compiletime.run_seconds(t0)
    return finish_search(problem, results, moves, len(indices), symmetry, seconds, chosen=restart,
                         compile_seconds=comp)


def _check_budget(moves, time_limit) -> None:
    if moves is None and time_limit is None:
        raise SpecError("a search needs a budget: moves, a time limit, or both")
    if moves is not None and (isinstance(moves, bool) or not isinstance(moves, int) or moves < 1):
        raise SpecError(f"moves must be a positive integer, got {moves!r}")
    if time_limit is not None and not (float(time_limit) > 0):
        raise SpecError(f"the time limit must be a positive number of seconds, got {time_limit!r}")


def finish_search(problem: SearchProblem, results: list[RestartResult], moves: int | None, restarts: int,
                  symmetry_arg, seconds: float, chosen: int | None = None,
                  compile_seconds: float = 0.0) -> SearchResult:
    """The search's result from its restarts' results: the best restart's
    graph (or restart ``chosen``'s, picked by another measure) as a topology;
    ``seconds`` the search's wall time without its kernels' first compile,
    ``compile_seconds`` that compile."""
    best = results[0]
    for r in results[1:]:
        if (r.restart == chosen) if chosen is not None else r.better_than(best):
            best = r
    diam, sumd, unr, load, use = score_links(problem, best.links)
    figures = summarise(problem, best, load)
    reproducible = moves is not None and all(r.stopped == "moves" for r in results)
    single = chosen if chosen is not None and (chosen != 0 or len(results) > 1) else None
    spec = (search_spec(problem, moves, restarts, symmetry_arg, single)
            if moves is not None and reproducible else "")
    provenance = {"routers": problem.routers, "degree": problem.degree, "objective": problem.objective,
                  "seed": problem.seed, "restart": best.restart, "moves": moves if reproducible else max(r.moves for r in results),
                  "restarts": restarts, "symmetry": problem.lift.g, "diameter": figures["diameter"],
                  "aspl": figures["aspl"], "moore_gap": figures["moore_gap"], "search_version": SEARCH_VERSION}
    if problem.objective_entry.weighted:
        provenance["weight"] = problem.weight
    if problem.temperature != 1.0:
        provenance["temperature"] = problem.temperature
    provenance.update({k: v for k, v in problem.constraints.items() if k != "allowed"})
    if problem.layout is not None and "layout" not in provenance:
        provenance["layout"] = problem.layout.name
    if use is not None:
        provenance["split_physical"] = 1.0 / use[0] if use[0] > 0 else float("inf")
        provenance["split_latency"] = use[1]
    topo = result_topology(problem, best, spec or f"search:n={problem.routers}:d={problem.degree}", provenance)
    if not spec:
        topo = topo.replace(spec="")
    return SearchResult(
        topology=topo, routers=problem.routers, degree=problem.degree, objective=problem.objective,
        seed=problem.seed, moves=provenance["moves"], symmetry=problem.lift.g,
        diameter=figures["diameter"], aspl=figures["aspl"], moore_diameter=figures["moore_diameter"],
        moore_aspl=figures["moore_aspl"], moore_gap=figures["moore_gap"],
        split_throughput=figures["split_throughput"], throughput_bound=figures["throughput_bound"],
        best_restart=best.restart, restarts=tuple(results), seconds=seconds,
        cpu_seconds=sum(r.cpu_seconds for r in results), compile_seconds=compile_seconds,
        stopped="moves" if reproducible else next((r.stopped for r in results if r.stopped != "moves"), "time"),
        split_physical=None if use is None else (1.0 / use[0] if use[0] > 0 else float("inf")),
        split_latency=None if use is None else use[1])
