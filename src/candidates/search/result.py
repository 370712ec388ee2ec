"""The result of a search: the best graph as a topology, its figures beside
the Moore bound's, and how the search went."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..analytics.moore import moore_bound
from ..topology import Topology
from .engine import RestartResult
from .problem import SearchProblem
from .state import lifted_links

__all__ = ["SearchResult", "result_topology", "search_spec"]

#: the version of the search's moves and schedule: a spec rebuilt by another
#: version may give another graph (the disk cache keys on it)
SEARCH_VERSION = 1


@dataclass(frozen=True)
class SearchResult:
    """The best graph a search found.

    topology : the graph (:class:`~candidates.Topology`, family ``search``,
        its ``spec`` rebuilds it; ``params`` carry the provenance).
    diameter, aspl : the best graph's; ``moore_diameter``, ``moore_aspl`` the
        Moore bound's for the same routers and degree; ``moore_gap`` the
        relative ASPL gap.
    split_throughput : uniform traffic per router (one unit per link
        direction, every router sending to all others) that an even split
        over all shortest paths carries: a lower bound on the capacity;
        ``throughput_bound``: links / (sum of distances), an upper bound.
    restarts : every restart's :class:`RestartResult`; ``best_restart`` the
        chosen one (the lowest energy, then the lowest index).
    seconds, cpu_seconds : wall time of the search and CPU time of its restarts,
        their kernels' first compile left out: that is ``compile_seconds``
        (the wall time during which the search's processes compiled).
    split_physical : with a packaging, the traffic's scale an even split over
        all shortest paths carries within the packaging's resources (wires):
        a lower bound on the physical flow's capacity (None without one);
        ``split_latency`` that split's average latency per unit of traffic
        (ns with the packaging's delays, else hops).
    """

    topology: Topology = field(repr=False)
    routers: int
    degree: int
    objective: str
    seed: int
    moves: int
    symmetry: int
    diameter: int
    aspl: float
    moore_diameter: int
    moore_aspl: float
    moore_gap: float
    split_throughput: float
    throughput_bound: float
    best_restart: int
    restarts: tuple[RestartResult, ...] = field(repr=False)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    stopped: str = "moves"
    split_physical: float | None = None
    split_latency: float | None = None
    compile_seconds: float = 0.0

    @property
    def graph(self):
        """The best graph as a networkx graph."""
        return self.topology.to_networkx()

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("topology", "restarts")}
        d["spec"] = self.topology.spec
        d["links"] = self.topology.num_links
        d["restarts"] = [{k: v for k, v in r.to_dict().items() if k != "links"} for r in self.restarts]
        return d


def nested_spec(spec: str) -> str | None:
    """A spec as a field of a ``search:`` spec (its colons written ``/``), or
    None when it cannot be one (a file's path, or a spec with a ``/``).

    >>> nested_spec("torus:8x8x8"), nested_spec("graph:/tmp/x.graphml")
    ('torus/8x8x8', None)
    """
    if not spec or "/" in spec or spec.startswith("graph:"):
        return None
    return spec.replace(":", "/")


def search_spec(problem: SearchProblem, moves: int, restarts: int, symmetry_arg, restart: int | None = None) -> str:
    """The spec that rebuilds this search's graph (``search:n=..:d=..:...``),
    or "" when it has none (fixed or start links from a file or an array);
    ``restart``: the graph is that one restart's (chosen by another measure
    than the search's own, such as a certified capacity)."""
    parts = [f"search:n={problem.routers}", f"d={problem.degree}", f"moves={moves}", f"seed={problem.seed}"]
    for key, links, spec in (("fixed", problem.fixed, problem.fixed_spec), ("start", problem.start, problem.start_spec)):
        if len(links):
            nested = nested_spec(spec)
            if nested is None:
                return ""
            parts.append(f"{key}={nested}")
    if problem.resources is not None or problem.demands is not None:
        return ""
    if problem.allow is not None:
        c = problem.constraints
        if set(c) - {"layout", "max_length", "metric"} or not str(c.get("layout", "")).startswith("grid:"):
            return ""
        parts.append(f"grid={c['layout'][5:]}")
        parts.append(f"max_length={c['max_length']:g}")
        if c.get("metric", "euclidean") != "euclidean":
            parts.append(f"metric={c['metric']}")
    elif problem.layout is not None:
        if not problem.layout.name.startswith("grid:"):
            return ""
        parts.append(f"grid={problem.layout.name[5:]}")
    if problem.temperature != 1.0:
        parts.append(f"temperature={problem.temperature:g}")
    if not problem.regular:
        parts.append("regular=0")
    if problem.objective != "aspl":
        parts.append(f"objective={problem.objective}")
        if problem.objective_entry.weighted:
            parts.append(f"weight={problem.weight:g}")
    if symmetry_arg != "auto":
        parts.append(f"symmetry={problem.lift.g}")
    if restart is not None:
        parts.append(f"restart={restart}")
    elif restarts != 1:
        parts.append(f"restarts={restarts}")
    return ":".join(parts)


def result_topology(problem: SearchProblem, best: RestartResult, spec: str, provenance: dict[str, Any]) -> Topology:
    """The best restart's graph as a topology (fixed links keep class ``fixed``, the others ``searched``)."""
    lift = problem.lift
    links = best.links
    lifted = lifted_links(lift, links[:, 0], links[:, 1], links[:, 2])
    nfix = len(problem.fixed_base)
    link_dim = np.ones(len(lifted), dtype=np.int64)
    link_dim[: nfix * lift.g] = 0
    dims = ("fixed", "searched") if nfix else ("link",)
    if not nfix:
        link_dim[:] = 0
    lay = problem.layout
    return Topology(n=lift.n, links=lifted, link_dim=link_dim, dims=dims, family="search", spec=spec,
                    params=dict(provenance), coords=None if lay is None else lay.coords,
                    shape=None if lay is None else lay.shape, placement=None if lay is None else lay.placement)


def summarise(problem: SearchProblem, best: RestartResult, split_load: float) -> dict[str, Any]:
    """The best graph's figures beside the Moore bound's; ``split_load`` is
    the busiest arc's load of the even split, unit demand per ordered pair."""
    n, d = problem.routers, problem.degree
    mb = moore_bound(n, d)
    npairs = n * (n - 1.0)
    aspl = best.sum_distances / npairs if best.unreachable == 0 else float("inf")
    links = problem.lift.g * len(best.links)
    return {
        "diameter": best.diameter if best.unreachable == 0 else -1,
        "aspl": aspl,
        "moore_diameter": mb.diameter,
        "moore_aspl": mb.aspl,
        "moore_gap": (aspl - mb.aspl) / mb.aspl,
        # per router, one unit per link direction: the split's busiest arc carries `load` per unit sent
        # from every router to every other, i.e. load / (n - 1) per unit a router spreads over the others
        "split_throughput": (n - 1.0) / split_load if split_load > 0 and best.unreachable == 0 else 0.0,
        "throughput_bound": 2.0 * links * (n - 1.0) / best.sum_distances if best.unreachable == 0 else 0.0,
    }
