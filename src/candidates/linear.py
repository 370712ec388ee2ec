"""Linear placements of a small graph: its vertices on positions 0..n-1 of a row.

Two placements are the same when they occupy the same set of position pairs
(then they differ by an automorphism of the graph) or mirror images of it
(position i <-> n-1-i). For each distinct placement: its cut width (the most
links crossing any of the n-1 gaps between neighbouring positions) and its
total wire length (sum of |pos(u) - pos(v)| over links, in slot pitches).
These are what a board row's wiring channel and wire delay depend on
('topology-synthesis-mcf-bgl', Sec. IV: graphs placed along the rows and
columns of a node card).

The paper reports 2092 linear placements of its 192 8-node graphs but not
the rule that selects them. Over those 192 graphs: all distinct placements
1,829,144; of minimum cut width 22,052; cut width <= 2: 574; of minimum wire
length 1,085 (2,060 when mirror images count separately). None is 2092; the
paper's rule is not reproduced (see the issue's closing note).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numba import njit

from .errors import SpecError
from .topology import Topology

__all__ = ["LinearPlacement", "linear_placements", "count_linear_placements", "min_cutwidth"]


@dataclass(frozen=True)
class LinearPlacement:
    """``order[i]`` is the vertex at position i."""

    order: tuple[int, ...]
    cutwidth: int
    wirelength: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@njit(cache=True)
def _all_placements(n, eu, ev):
    """For every permutation in lexicographic order: its canonical key (the
    smaller of the positioned edge set and its mirror, as a bit mask over
    position pairs), cut width and wire length."""
    total = 1
    for i in range(2, n + 1):
        total *= i
    keys = np.empty(total, dtype=np.uint64)
    cws = np.empty(total, dtype=np.int64)
    wls = np.empty(total, dtype=np.int64)
    perm = np.arange(n)  # perm[position] = vertex
    pos = np.empty(n, dtype=np.int64)
    m = len(eu)
    cross = np.empty(n, dtype=np.int64)
    for idx in range(total):
        for i in range(n):
            pos[perm[i]] = i
        key = np.uint64(0)
        mkey = np.uint64(0)
        for i in range(n):
            cross[i] = 0
        wl = 0
        for e in range(m):
            a = pos[eu[e]]
            b = pos[ev[e]]
            if a > b:
                a, b = b, a
            wl += b - a
            cross[a] += 1
            cross[b] -= 1
            key |= np.uint64(1) << np.uint64(a * n + b)
            ra = n - 1 - b
            rb = n - 1 - a
            mkey |= np.uint64(1) << np.uint64(ra * n + rb)
        cw = 0
        run = 0
        for i in range(n - 1):
            run += cross[i]
            if run > cw:
                cw = run
        keys[idx] = key if key < mkey else mkey
        cws[idx] = cw
        wls[idx] = wl
        # next permutation (lexicographic)
        i = n - 2
        while i >= 0 and perm[i] >= perm[i + 1]:
            i -= 1
        if i < 0:
            break
        j = n - 1
        while perm[j] <= perm[i]:
            j -= 1
        perm[i], perm[j] = perm[j], perm[i]
        lo, hi = i + 1, n - 1
        while lo < hi:
            perm[lo], perm[hi] = perm[hi], perm[lo]
            lo += 1
            hi -= 1
    return keys, cws, wls


def _edges(graph) -> tuple[int, np.ndarray, np.ndarray]:
    if isinstance(graph, Topology):
        if graph.has_parallel_links:
            raise SpecError("linear placements are defined for simple graphs; this topology has parallel links")
        return graph.n, graph.links[:, 0].copy(), graph.links[:, 1].copy()
    import networkx as nx

    if isinstance(graph, nx.Graph):
        nodes = list(graph.nodes())
        idx = {v: i for i, v in enumerate(nodes)}
        e = np.array([(idx[u], idx[v]) for u, v in graph.edges()], dtype=np.int64).reshape(-1, 2)
        return len(nodes), e[:, 0].copy(), e[:, 1].copy()
    raise SpecError("linear placements need a Topology or a networkx Graph")


def _unique_nth_perm(n: int, rank: int) -> tuple[int, ...]:
    """The permutation of 0..n-1 with the given lexicographic rank."""
    items = list(range(n))
    out = []
    fact = [1] * (n + 1)
    for i in range(1, n + 1):
        fact[i] = fact[i - 1] * i
    for i in range(n, 0, -1):
        q, rank = divmod(rank, fact[i - 1])
        out.append(items.pop(q))
    return tuple(out)


def linear_placements(graph, *, max_cutwidth: int | None = None, max_wirelength: int | None = None) -> list[LinearPlacement]:
    """Every distinct linear placement, sorted by (cut width, wire length, order).

    The representative of each class is its lexicographically smallest
    ``order``.

    >>> import networkx as nx
    >>> [(p.cutwidth, p.wirelength) for p in linear_placements(nx.path_graph(3))]
    [(1, 2), (2, 3)]
    """
    n, eu, ev = _edges(graph)
    if n < 1:
        raise SpecError("a placement needs at least one vertex")
    if n > 11:
        raise SpecError(f"linear placements enumerate n! orders; limited to 11 vertices, got {n}")
    keys, cws, wls = _all_placements(n, eu, ev)
    # first occurrence in lexicographic order = smallest order of the class
    _, first = np.unique(keys, return_index=True)
    out = []
    for rank in first.tolist():
        cw, wl = int(cws[rank]), int(wls[rank])
        if max_cutwidth is not None and cw > max_cutwidth:
            continue
        if max_wirelength is not None and wl > max_wirelength:
            continue
        out.append(LinearPlacement(_unique_nth_perm(n, rank), cw, wl))
    out.sort(key=lambda p: (p.cutwidth, p.wirelength, p.order))
    return out


def count_linear_placements(graph, **filters) -> int:
    """The number of distinct linear placements (with the same filters).

    >>> import networkx as nx
    >>> count_linear_placements(nx.cycle_graph(5))  # Burnside: 5!/20 = 6 plus 2 mirror-symmetric
    8
    """
    return len(linear_placements(graph, **filters))


def min_cutwidth(graph) -> int:
    """The smallest cut width over all linear placements (the cutwidth).

    >>> import networkx as nx
    >>> min_cutwidth(nx.cycle_graph(6)), min_cutwidth(nx.complete_graph(4))
    (2, 4)
    """
    n, eu, ev = _edges(graph)
    if n > 11:
        raise SpecError(f"exact cutwidth enumerates n! orders; limited to 11 vertices, got {n}")
    _, cws, _ = _all_placements(n, eu, ev)
    return int(cws.min())
