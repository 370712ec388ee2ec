"""Every graph of n vertices and bounded degree, up to isomorphism, streamed.

The method is McKay's canonical construction path (the method of nauty's
``geng``), with canonical labelling by nauty through ``pynauty``. A graph on
k+1 vertices is generated from exactly one parent: itself minus its
canonical *deletion vertex*, the vertex of largest canonical label among the
eligible vertices of smallest degree. For connected graphs only non-cut
vertices are eligible, so every ancestor is connected too. Children are made
by joining a new vertex to a set of vertices of degree < d; a child is
accepted when the new vertex lies in the automorphism orbit of the child's
deletion vertex, and siblings are deduplicated by canonical form. Memory is
one parent's children at a time per level (a depth-first stream).

Counts (checked in the tests against networkx's graph atlas for n <= 7 and
against OEIS A112410, A005967 and A002851): connected graphs of maximum
degree <= 3 on n = 1..10 vertices: 1, 1, 2, 6, 10, 29, 64, 194, 531, 1733.

The 192 "isomorph-free topologies of 8 nodes with degree no more than 3" of
'topology-synthesis-mcf-bgl' are the connected graphs on 8 vertices whose
maximum degree is exactly 3: the 194 connected graphs of maximum degree <= 3
minus the path and the cycle (``toposynth enumerate --nodes 8 --max-degree 3
--exact-max-degree --count`` prints 192).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import numpy as np

from .errors import SpecError
from .topology import Topology

__all__ = ["iter_graph6", "iter_graphs", "count_graphs", "graph6_encode"]


def _validate(n, max_degree, min_degree, exact_max_degree, regular):
    try:
        n, d, mn = int(n), int(max_degree), int(min_degree)
    except (TypeError, ValueError):
        raise SpecError("nodes, max degree and min degree must be integers") from None
    if n < 1:
        raise SpecError(f"the number of nodes must be at least 1, got {n}")
    if n > 62:
        raise SpecError(f"enumeration is limited to 62 nodes (graph6 short form), got {n}")
    if d < 0 or mn < 0:
        raise SpecError("degrees must be non-negative")
    if regular:
        mn = max(mn, d)
        exact_max_degree = True
    if mn > d:
        raise SpecError(f"min degree {mn} exceeds max degree {d}")
    if d > n - 1:
        d = n - 1  # a simple graph has no vertex of degree >= n
        if exact_max_degree and int(max_degree) > n - 1:
            raise SpecError(f"no graph on {n} nodes has maximum degree {max_degree}")
    return n, d, mn, exact_max_degree


def graph6_encode(n: int, edges) -> str:
    """graph6 string (no header) of a graph on vertices 0..n-1 (n <= 62).

    >>> graph6_encode(3, [(0, 1), (1, 2), (0, 2)])
    'Bw'
    """
    adj = set()
    for u, v in edges:
        adj.add((min(u, v), max(u, v)))
    bits = [1 if (i, j) in adj else 0 for j in range(1, n) for i in range(j)]
    bits += [0] * (-len(bits) % 6)
    out = [chr(n + 63)]
    for k in range(0, len(bits), 6):
        val = 0
        for b in bits[k : k + 6]:
            val = (val << 1) | b
        out.append(chr(val + 63))
    return "".join(out)


def _articulation(adj: list[set[int]], k: int) -> set[int]:
    """Cut vertices of the graph on vertices 0..k-1 (iterative DFS)."""
    disc = [-1] * k
    low = [0] * k
    cut: set[int] = set()
    t = 0
    for root in range(k):
        if disc[root] >= 0:
            continue
        disc[root] = low[root] = t
        t += 1
        children = 0
        stack = [(root, -1, iter(adj[root]))]
        while stack:
            u, parent, it = stack[-1]
            advanced = False
            for w in it:
                if disc[w] < 0:
                    disc[w] = low[w] = t
                    t += 1
                    if u == root:
                        children += 1
                    stack.append((w, u, iter(adj[w])))
                    advanced = True
                    break
                if w != parent:
                    low[u] = min(low[u], disc[w])
            if not advanced:
                stack.pop()
                if stack:
                    p = stack[-1][0]
                    low[p] = min(low[p], low[u])
                    if p != root and low[u] >= disc[p]:
                        cut.add(p)
        if children > 1:
            cut.add(root)
    return cut


class _Enumerator:
    def __init__(self, n: int, d: int, min_degree: int, connected: bool):
        import pynauty

        self.pynauty = pynauty
        self.n = n
        self.d = d
        self.min_degree = min_degree
        self.connected = connected

    def _nauty(self, adj: list[set[int]], k: int):
        g = self.pynauty.Graph(k, adjacency_dict={v: sorted(adj[v]) for v in range(k) if adj[v]})
        orbits = self.pynauty.autgrp(g)[3]
        lab = self.pynauty.canon_label(g)  # lab[i] = vertex at canonical position i
        return orbits, lab

    def _deletion_candidates(self, adj: list[set[int]], k: int) -> list[int]:
        verts = range(k)
        if self.connected and k > 2:
            cut = _articulation(adj, k)
            verts = [v for v in verts if v not in cut]
        mindeg = min(len(adj[v]) for v in verts)
        return [v for v in verts if len(adj[v]) == mindeg]

    def run(self) -> Iterator[tuple[int, list[set[int]], list[int]]]:
        """Yield (n, adjacency, canonical labelling) of every accepted graph."""
        n = self.n
        adj: list[set[int]] = [set() for _ in range(n)]
        yield from self._extend(adj, 1)

    def _extend(self, adj: list[set[int]], k: int):
        n, d = self.n, self.d
        if k == n:
            orbits, lab = self._nauty(adj, k) if k > 1 else ([0], [0])
            yield k, adj, lab
            return
        # a vertex needs min_degree neighbours by the end; each of the
        # n - k vertices still to come adds at most one
        remaining = n - k
        for v in range(k):
            if len(adj[v]) + remaining < self.min_degree:
                return
        free = [v for v in range(k) if len(adj[v]) < d]
        lo = 1 if self.connected else 0
        seen: set[bytes] = set()
        new = k
        for size in range(lo, min(d, len(free)) + 1):
            if size + (remaining - 1) < self.min_degree:
                continue
            for S in combinations(free, size):
                for u in S:
                    adj[u].add(new)
                adj[new] = set(S)
                kk = k + 1
                if self._accept(adj, kk, new, seen):
                    child = [set(a) for a in adj]
                    yield from self._extend(child, kk)
                for u in S:
                    adj[u].discard(new)
                adj[new] = set()

    def _accept(self, adj, k, new, seen) -> bool:
        cands = self._deletion_candidates(adj, k)
        if new not in cands:
            return False  # cheap invariant test before calling nauty
        orbits, lab = self._nauty(adj, k)
        pos = {v: i for i, v in enumerate(lab)}
        w = max(cands, key=lambda v: pos[v])
        if orbits[w] != orbits[new]:
            return False
        key = repr(sorted((min(pos[a], pos[b]), max(pos[a], pos[b])) for a in range(k) for b in adj[a] if a < b)).encode()
        if key in seen:
            return False
        seen.add(key)
        return True


def iter_graph6(n: int, max_degree: int, *, min_degree: int = 0, exact_max_degree: bool = False,
                regular: bool = False, connected: bool = True) -> Iterator[str]:
    """graph6 strings of every graph on ``n`` vertices with maximum degree
    <= ``max_degree``, one per isomorphism class, in canonical labelling.

    ``exact_max_degree``: the maximum degree equals ``max_degree``;
    ``regular``: every vertex has degree ``max_degree``; ``connected=False``
    includes disconnected graphs.

    >>> sum(1 for _ in iter_graph6(6, 3))
    29
    >>> sorted(iter_graph6(4, 3, regular=True))  # K4
    ['C~']
    """
    n, d, mn, exact = _validate(n, max_degree, min_degree, exact_max_degree, regular)
    if n == 1:
        if mn == 0 and (not exact or d == 0):
            yield graph6_encode(1, [])
        return
    if connected and n > 1 and d == 0:
        return
    en = _Enumerator(n, d, mn, connected)
    for k, adj, lab in en.run():
        degs = [len(adj[v]) for v in range(k)]
        if min(degs) < mn or (exact and max(degs) != d):
            continue
        pos = {v: i for i, v in enumerate(lab)}
        edges = [(pos[a], pos[b]) for a in range(k) for b in adj[a] if a < b]
        yield graph6_encode(k, edges)


def iter_graphs(n: int, max_degree: int, **options) -> Iterator[Topology]:
    """The graphs of :func:`iter_graph6` as topologies (spec ``g6:...``).

    >>> sorted(t.num_links for t in iter_graphs(4, 2))  # the path and the cycle
    [3, 4]
    """
    from .io import from_graph6

    for g6 in iter_graph6(n, max_degree, **options):
        yield from_graph6(g6)


def count_graphs(n: int, max_degree: int, **options) -> int:
    """The number of graphs :func:`iter_graph6` yields.

    >>> count_graphs(8, 3, exact_max_degree=True)
    192
    """
    return sum(1 for _ in iter_graph6(n, max_degree, **options))
