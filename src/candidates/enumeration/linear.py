"""Linear placements of a small graph: its vertices on positions 0..n-1 of a row.

A placement puts vertex ``order[i]`` at position i. Two placements are the
same when they occupy the same multiset of position pairs with links (they
then differ by an automorphism of the graph) or when one is the mirror image
of the other (position i <-> n-1-i). So a graph on n vertices has
``(n! + F) / (2 |Aut|)`` distinct placements, where F counts the orders whose
placement is its own mirror image (Burnside's lemma); without such orders,
``n! / (2 |Aut|)``. Each class is represented by its lexicographically
smallest ``order``.

For each placement: its *cut width*, the most links crossing any of the n-1
gaps between neighbouring positions (what a board row's wiring channel must
hold), and its *wire length*, the sum over links of |pos(u) - pos(v)| in
slot pitches.

The 2092 of 'topology-synthesis-mcf-bgl'
----------------------------------------
Sec. IV places each of its 192 topologies of 8 nodes (connected, maximum
degree exactly 3; see :mod:`candidates.enumeration.graphs`) "in a line, which
results 2092 different linear placements", without saying which placements
it keeps. Sums over the 192 graphs of the number of placements kept
(``tests/candidates/test_linear.py`` checks those marked *):

- all distinct placements*: 1,829,144;
- of minimum cut width for their graph*: 22,052;
- of minimum wire length for their graph*: 1,085 (these have minimum cut
  width too: the same 1,085 are the Pareto front in (cut width, wire
  length) and the minimum wire length among minimum cut width);
- cut width <= 2* / <= 3* / <= 4: 574 / 27,381 / 210,480;
- minimum bandwidth (longest link) / bandwidth <= 2 / <= 3: 2,677 / 540 /
  14,212;
- mirror images counted apart (up to automorphism only): all 3,652,320;
  minimum cut width 43,745; minimum wire length* 2,060; cut width <= 2
  1,126;
- orders (nothing identified): minimum wire length 9,066; minimum cut
  width 100,216.

No natural reading gives 2092. The nearest: minimum-wire-length placements
with mirror images counted apart give 2,060 for the 192 graphs; adding the
cycle C8 (32 such placements) gives exactly 2,092 and adding the path P8
too gives 2,093. That is 193 graphs, not the paper's 192, so it is more
likely a coincidence than the paper's rule; the rule behind 2092 is not
reproduced here.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import SpecError
from ..topology import Topology

__all__ = ["LinearPlacement", "linear_placements", "count_linear_placements", "min_cutwidth"]

#: Largest graph whose placements are enumerated (n! orders are scanned).
MAX_PLACEMENT_NODES = 10
#: Largest graph for :func:`min_cutwidth` (a 2^n dynamic programme).
MAX_CUTWIDTH_NODES = 24


@dataclass(frozen=True)
class LinearPlacement:
    """One linear placement: ``order[i]`` is the vertex at position i.

    Vertices are router indices of a :class:`~candidates.Topology`, or
    indices into ``list(G.nodes())`` of a networkx graph.

    >>> p = LinearPlacement((0, 1, 2), cutwidth=1, wirelength=2)
    >>> p.to_dict()
    {'order': [0, 1, 2], 'cutwidth': 1, 'wirelength': 2}
    """

    order: tuple[int, ...]
    cutwidth: int
    wirelength: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {"order": list(self.order), "cutwidth": self.cutwidth, "wirelength": self.wirelength}


def _links(graph: Any, limit: int, what: str) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(n, link ends u, link ends v, copy layer of each link) of a Topology
    or networkx graph; parallel links get layers 0, 1, ..."""
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    if isinstance(graph, Topology):
        n = graph.n
        pairs = [tuple(sorted(p)) for p in graph.links.tolist()]
    elif isinstance(graph, nx.Graph):
        if graph.is_directed():
            raise SpecError(f"{what} needs an undirected graph: pass G.to_undirected()")
        n = graph.number_of_nodes()
        index = {v: i for i, v in enumerate(graph.nodes())}
        pairs = []
        for a, b in graph.edges():
            if a == b:
                raise SpecError(f"{what}: self-loop at node {a!r}; remove self-loops first")
            pairs.append(tuple(sorted((index[a], index[b]))))
    else:
        raise SpecError(f"{what} needs a Topology or a networkx Graph, got {type(graph).__name__}")
    if n < 1:
        raise SpecError(f"{what} needs a graph with at least one vertex")
    if n > limit:
        raise SpecError(f"{what} is limited to graphs of at most {limit} vertices, got {n}")
    seen: dict[tuple[int, int], int] = {}
    layer = []
    for p in pairs:
        layer.append(seen.get(p, 0))
        seen[p] = layer[-1] + 1
    e = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return n, e[:, 0].copy(), e[:, 1].copy(), np.asarray(layer, dtype=np.int64)


def _check_bound(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise SpecError(f"{name} must be a non-negative integer or None, got {value!r}")
    return int(value)


def _classes(graph: Any, max_cutwidth: Any, max_wirelength: Any, what: str):
    """Ranks (lexicographic, of the smallest order of each class), cut widths
    and wire lengths of the placements passing the filters; and n."""
    from ._kernels import placement_table  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    cw_max = _check_bound("max_cutwidth", max_cutwidth)
    wl_max = _check_bound("max_wirelength", max_wirelength)
    n, eu, ev, layer = _links(graph, MAX_PLACEMENT_NODES, what)
    keys, cws, wls = placement_table(n, eu, ev, layer)
    # orders are scanned in lexicographic order: the first of each key is
    # the class's smallest order
    if keys.shape[1] == 1:  # a simple graph: one mask per order
        _, first = np.unique(keys[:, 0], return_index=True)
    else:
        _, first = np.unique(keys, axis=0, return_index=True)
    cw, wl = cws[first], wls[first]
    keep = np.ones(len(first), dtype=bool)
    if cw_max is not None:
        keep &= cw <= cw_max
    if wl_max is not None:
        keep &= wl <= wl_max
    return n, first[keep], cw[keep], wl[keep]


def linear_placements(graph: Any, *, max_cutwidth: int | None = None,
                      max_wirelength: int | None = None) -> list[LinearPlacement]:
    """Every distinct linear placement of a graph, with its cut width and
    wire length.

    Parameters
    ----------
    graph : Topology or networkx.Graph
        At most 10 vertices (n! orders are scanned; 10! = 3,628,800).
        Parallel links count as separate links.
    max_cutwidth, max_wirelength : int, optional
        Keep only placements within these bounds.

    Returns
    -------
    list of LinearPlacement
        One per class of placements equal up to automorphism of the graph
        and reflection of the row, represented by its lexicographically
        smallest ``order``; sorted by (cutwidth, wirelength, order).

    Raises
    ------
    SpecError
        For more than 10 vertices, an empty or directed graph, self-loops,
        or a negative bound.

    Examples
    --------
    >>> import networkx as nx
    >>> [(p.order, p.cutwidth, p.wirelength) for p in linear_placements(nx.path_graph(3))]
    [((0, 1, 2), 1, 2), ((0, 2, 1), 2, 3)]
    >>> best = linear_placements(nx.cycle_graph(6))[0]
    >>> best.order, best.cutwidth, best.wirelength
    ((0, 1, 2, 3, 4, 5), 2, 10)
    """
    from ._kernels import unrank_permutations  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    n, ranks, cw, wl = _classes(graph, max_cutwidth, max_wirelength, "linear_placements")
    # lexicographic rank order is the order of ``order`` tuples
    sort = np.lexsort((ranks, wl, cw))
    orders = unrank_permutations(n, ranks[sort].astype(np.int64)).tolist()
    # millions of small objects: pausing the cyclic garbage collector (they
    # hold no cycles) makes building them about 3x faster
    paused = gc.isenabled()
    gc.disable()
    try:
        return [LinearPlacement(tuple(o), c, w) for o, c, w in zip(orders, cw[sort].tolist(), wl[sort].tolist())]
    finally:
        if paused:
            gc.enable()


def count_linear_placements(graph: Any, *, max_cutwidth: int | None = None,
                            max_wirelength: int | None = None) -> int:
    """The number of placements :func:`linear_placements` returns (without
    building them).

    Examples
    --------
    >>> import networkx as nx
    >>> count_linear_placements(nx.path_graph(4))  # (4! + 8) / (2 * |Aut| = 4)
    8
    >>> count_linear_placements(nx.cycle_graph(5))  # (5! + 40) / (2 * |Aut| = 20)
    8
    >>> count_linear_placements(nx.cycle_graph(5), max_cutwidth=2)
    3
    """
    return int(len(_classes(graph, max_cutwidth, max_wirelength, "count_linear_placements")[1]))


def min_cutwidth(graph: Any) -> int:
    """The cut width of a graph: the smallest cut width of its linear
    placements.

    Computed by dynamic programming over the 2^n sets of vertices placed
    first, so it works to 24 vertices (independently of
    :func:`linear_placements`).

    Examples
    --------
    >>> import networkx as nx
    >>> min_cutwidth(nx.path_graph(7)), min_cutwidth(nx.cycle_graph(7)), min_cutwidth(nx.complete_graph(4))
    (1, 2, 4)
    """
    from ._kernels import min_cutwidth_dp  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    n, eu, ev, _ = _links(graph, MAX_CUTWIDTH_NODES, "min_cutwidth")
    return int(min_cutwidth_dp(n, eu, ev))
