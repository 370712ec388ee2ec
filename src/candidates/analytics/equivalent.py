"""Equivalent distance: a routing-aware communication cost between routers.

Arnau, Orduña, Ruiz and Duato ("On the characterization of interconnection
networks with irregular topology: a new model of communication cost")
define the *equivalent distance* of a pair ``(s, t)`` as the electrical
resistance between ``s`` and ``t`` of the network formed by every link that
lies on some shortest route the routing algorithm allows from ``s`` to
``t``, each link a unit resistor (parallel links are parallel resistors;
links on no such route are left out). With a unique shortest route it is
the hop count; several routes in parallel lower it.

Routing is ``"minimal"`` (all shortest paths) or ``"updown"`` (all shortest
legal up*/down* routes, see :mod:`candidates.analytics.routing`; they can be longer
than the graph distance). Both route sets are closed under reversal (a
reversed legal up*/down* route is legal), so the table is symmetric and only
pairs ``s < t`` are solved.

Each pair costs one walk over its route union and one elimination of the
union's grounded Laplacian, in a numba kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import SpecError, TopologyError
from ..topology import Topology
from ._kernels import all_pairs_bfs
from ._routing_kernels import equivalent_rows, equivalent_table, route_union_links, updown_from_sources
from .routing import _check_router, _check_topology, _updown_orientation, _updown_remaining

__all__ = [
    "ROUTINGS",
    "EquivalentDistanceStats",
    "equivalent_distance",
    "equivalent_distance_rows",
    "equivalent_distance_stats",
    "route_union",
]

#: Routing algorithms whose route sets the equivalent distance understands.
ROUTINGS = ("minimal", "updown")


def _route_automaton(topo: Topology, routing: Any, root: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(arc_next, fwd, bwd)`` of a routing (see :mod:`._routing_kernels`)."""
    if routing not in ROUTINGS:
        raise SpecError(f"unknown routing {routing!r}: choose one of {', '.join(map(repr, ROUTINGS))}")
    if routing == "minimal":
        _check_router(topo, root, "root")  # unused, but a bad value is still a mistake
        dist = all_pairs_bfs(topo.indptr, topo.indices)
        arc_next = np.zeros((topo.num_arcs, 1), dtype=np.int64)
        # undirected graph: distance from s to x equals distance from x to s,
        # so one matrix serves as both the forward and the backward table
        both = np.ascontiguousarray(dist[:, None, :])
        return arc_next, both, both
    _, _, arc_up = _updown_orientation(topo, root)
    arc_next = np.empty((topo.num_arcs, 2), dtype=np.int64)
    arc_next[:, 0] = np.where(arc_up, 0, 1)
    arc_next[:, 1] = np.where(arc_up, -1, 1)
    fwd = updown_from_sources(topo.indptr, topo.indices, arc_up[topo.arc_id])
    bwd = _updown_remaining(topo, arc_up)
    return arc_next, fwd, bwd


def equivalent_distance(topo: Topology, routing: str = "minimal", root: int = 0) -> np.ndarray:
    """The table of equivalent distances of every router pair.

    Parameters
    ----------
    topo : Topology
        Any topology; parallel links count as parallel resistors.
    routing : {"minimal", "updown"}
        Which shortest routes form the resistor network of a pair: all
        shortest paths, or all shortest legal up*/down* routes.
    root : int
        Root of the up*/down* spanning tree (checked but unused for
        ``"minimal"``).

    Returns
    -------
    numpy.ndarray
        float64 (n, n), symmetric, 0 on the diagonal, ``inf`` for pairs in
        different components (``"minimal"`` only: up*/down* needs a
        connected topology).

    Examples
    --------
    Between opposite corners of a 4-ring the two 2-hop paths are in
    parallel; on a path the distance is the hop count:

    >>> from candidates import ring, path
    >>> float(equivalent_distance(ring(4))[0, 2])
    1.0
    >>> equivalent_distance(path(4))[0].tolist()
    [0.0, 1.0, 2.0, 3.0]

    Up*/down* from 2 to 4 on a 6-ring rooted at 0 must go over the root:

    >>> float(equivalent_distance(ring(6), "updown")[2, 4])
    4.0
    """
    topo = _check_topology(topo)
    return equivalent_table(*_kernel_args(topo, routing, root), True)


#: the arrays both table kernels take first (eight of them)
_KernelArgs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _kernel_args(topo: Topology, routing: str, root: int) -> _KernelArgs:
    """The arrays both table kernels take: CSR, link ends, route automaton."""
    arc_next, fwd, bwd = _route_automaton(topo, routing, root)
    return (topo.indptr, topo.indices, topo.arc_id, np.ascontiguousarray(topo.links[:, 0]),
            np.ascontiguousarray(topo.links[:, 1]), arc_next, fwd, bwd)


def equivalent_distance_rows(topo: Topology, sources: Any, routing: str = "minimal", root: int = 0) -> np.ndarray:
    """Rows ``sources`` of :func:`equivalent_distance` without the rest.

    On a vertex-transitive topology under minimal routing one row holds
    every value the table has, at ``1/n`` of the cost.

    >>> from candidates import torus
    >>> t = torus((6, 6))
    >>> bool(np.allclose(equivalent_distance_rows(t, [3]), equivalent_distance(t)[[3]]))
    True
    """
    topo = _check_topology(topo)
    src = np.atleast_1d(np.asarray(sources))
    if src.ndim != 1 or src.size == 0 or not np.issubdtype(src.dtype, np.integer):
        raise SpecError(f"sources must be a non-empty list of router indices, got {sources!r}")
    for s in src.tolist():
        _check_router(topo, s, "source")
    return equivalent_rows(*_kernel_args(topo, routing, root), src.astype(np.int64))


def route_union(topo: Topology, s: int, t: int, routing: str = "minimal", root: int = 0) -> np.ndarray:
    """Link indices (ascending) of the union of all shortest allowed routes
    from ``s`` to ``t``: the resistor network of their equivalent distance.

    Empty for ``s == t`` and for unreachable pairs. Each call builds the
    routing's all-pairs distance tables, so it costs about as much as one
    :func:`equivalent_distance` row sweep; it is meant for inspection.

    Examples
    --------
    >>> from candidates import ring
    >>> route_union(ring(6), 0, 3).tolist()    # both halves of the ring
    [0, 1, 2, 3, 4, 5]
    >>> route_union(ring(6), 2, 4, "updown").tolist()
    [0, 1, 4, 5]
    """
    topo = _check_topology(topo)
    s = _check_router(topo, s, "source")
    t = _check_router(topo, t, "destination")
    arc_next, fwd, bwd = _route_automaton(topo, routing, root)
    return route_union_links(topo.indptr, topo.indices, topo.arc_id, arc_next, fwd, bwd, s, t, topo.num_links)


@dataclass(frozen=True, eq=False)
class EquivalentDistanceStats:
    """Summary of a table of equivalent distances.

    Attributes
    ----------
    mean : float
        Mean over ordered pairs of distinct routers (``inf`` if some pair
        is disconnected; ``nan`` for a single router).
    values : float64 (k,)
        The distinct off-diagonal values, ascending (rounded to ``decimals``
        so that equal resistances reached through different floating-point
        paths count as one).
    counts : int64 (k,)
        How many ordered pairs ``(s, t)``, ``s != t``, have each value; the
        occurrence weights of the paper's weighted correlation.

    Examples
    --------
    On a ring of 8 (:func:`candidates.equivalent_distance_stats`), pairs 1, 2
    and 3 hops apart have one minimal route; the 4-hop pairs have two of 4
    hops in parallel, equivalent to 2.

    >>> import candidates as cd
    >>> st = cd.equivalent_distance_stats(cd.equivalent_distance(cd.ring(8)))
    >>> st.values.tolist(), st.counts.tolist(), st.mean
    ([1.0, 2.0, 3.0], [16, 24, 16], 2.0)
    """

    mean: float
    values: np.ndarray
    counts: np.ndarray

    @property
    def histogram(self) -> dict[float, int]:
        """``{value: number of ordered pairs}``."""
        return {float(v): int(c) for v, c in zip(self.values, self.counts)}

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "values": self.values.tolist(), "counts": self.counts.tolist()}


def equivalent_distance_stats(table: np.ndarray, decimals: int = 9) -> EquivalentDistanceStats:
    """Mean and occurrence histogram of a table of equivalent distances.

    Parameters
    ----------
    table : array (n, n)
        As returned by :func:`equivalent_distance`.
    decimals : int
        Values are rounded to this many decimals before being grouped.

    Examples
    --------
    On a 6-ring: neighbours at 1, two hops at 2, and the antipodes at 3/2
    (two 3-hop paths in parallel):

    >>> from candidates import ring
    >>> st = equivalent_distance_stats(equivalent_distance(ring(6)))
    >>> st.histogram
    {1.0: 12, 1.5: 6, 2.0: 12}
    >>> st.mean
    1.5
    """
    tab = np.asarray(table, dtype=np.float64)
    if tab.ndim != 2 or tab.shape[0] != tab.shape[1] or tab.shape[0] == 0:
        raise TopologyError(f"an equivalent-distance table must be a non-empty square (n, n) array, got shape {tab.shape}")
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
        raise SpecError(f"decimals must be a non-negative integer, got {decimals!r}")
    n = tab.shape[0]
    off = tab[~np.eye(n, dtype=bool)]
    if np.any(np.isnan(off)) or np.any(off < 0):
        raise TopologyError("an equivalent-distance table holds non-negative numbers (inf for disconnected pairs)")
    mean = float(off.mean()) if off.size else float("nan")
    values, counts = np.unique(np.round(off, int(decimals)), return_counts=True)
    return EquivalentDistanceStats(mean=mean, values=values, counts=counts.astype(np.int64))
