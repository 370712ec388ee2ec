"""Every graph on n vertices with bounded degree, up to isomorphism, streamed.

The method is McKay's canonical construction path, the method of nauty's
``geng``: graphs grow one vertex at a time, and a graph on k+1 vertices is
accepted only from its canonical parent, the graph left when its canonical
*deletion vertex* is removed. That vertex is chosen, in an
isomorphism-invariant way, among the eligible vertices (the non-cut vertices
when only connected graphs are wanted, so that every ancestor is connected
too; all vertices otherwise): those of smallest degree, then of largest
local invariant (sum of neighbour degrees, triangles, second neighbourhood),
then, when several remain, the one first in nauty's canonical labelling (via
``pynauty``). A child is accepted when its new vertex lies in the
automorphism orbit of its deletion vertex; one child is tried per orbit of
Aut(parent) on neighbour sets. Each isomorphism class is then output exactly
once, with no table of graphs seen: memory is one depth-first path of
pending children (at most n levels). Most children are decided by the
degree and invariant tests in a numba kernel; nauty runs only on ties.

Output graphs keep their construction labelling: vertex i was added joined
to some of the vertices < i, and with ``connected=True`` every prefix 0..i
is connected.

Counts, checked in ``tests/candidates/test_enumeration.py`` against
networkx's graph atlas (every graph up to 7 vertices) and published
sequences:

- connected, maximum degree <= 3, n = 1..10: 1, 1, 2, 6, 10, 29, 64, 194,
  531, 1733 (S. Wolfram, *A New Kind of Science*, notes to ch. 9, sec. 7,
  "Trivalent networks"; OEIS A112410, sometimes quoted for this, is a
  different sequence);
- connected cubic, n = 4, 6, ..., 14: 1, 2, 5, 19, 85, 509 (OEIS A002851);
- connected, maximum degree <= 4, n = 1..9: 1, 1, 2, 6, 21, 78, 353, 1929,
  12207 (OEIS A121941); 4-regular, n = 5..9: 1, 1, 2, 6, 16 (A006820);
- cubic, not necessarily connected (A005638); maximum degree exactly 2
  (A324740); all degrees 1 or 2 (A186417); all graphs and all connected
  graphs, n <= 9 (A000088, A001349);
- with ``connected=False``, the Euler transform of the connected counts.

The 192 "isomorph-free topologies of 8 nodes, the degree of each node no
more than 3" of 'topology-synthesis-mcf-bgl' (Sec. IV) are the connected
graphs on 8 vertices with maximum degree exactly 3:
``count_graphs(8, 3, exact_max_degree=True) == 192``; the 194 connected
graphs of maximum degree <= 3 include also the path P8 and the cycle C8
(maximum degree 2). Without connectivity the counts are 378 (maximum degree
exactly 3) and 424 (<= 3), so "connected, maximum degree exactly 3" is the
only one of these readings that gives 192.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pynauty

from common.size import SizeError, check_memory, format_count, format_seconds

from ..errors import SpecError
from ..io import from_graph6
from ..topology import Topology

__all__ = ["iter_graph6", "iter_graphs", "count_graphs", "estimate_count", "search_bytes", "check_enumeration"]

#: Largest n: graph6's one-byte size field and 64-bit adjacency masks.
MAX_NODES = 62

# Connected graphs (OEIS A001349) and all graphs (OEIS A000088) on n = 0..16
# vertices, up to isomorphism; n <= 9 is checked against count_graphs in
# tests/candidates/test_enumeration.py.
_CONNECTED = (1, 1, 1, 2, 6, 21, 112, 853, 11117, 261080, 11716571, 1006700565, 164059830476,
              50335907869219, 29003487462848061, 31397381142761241960, 63969560113225176176277)
_ALL = (1, 1, 2, 4, 11, 34, 156, 1044, 12346, 274668, 12005168, 1018997864, 165091172592,
        50502031367952, 29054155657235488, 31426485969804308768, 64001015704527557894928)

#: The fastest enumeration rate measured (count_graphs(9, 9): 1.5e5 graphs/s;
#: bounded degree and regular graphs run at 300-70000 graphs/s), so time
#: estimates from it are lower bounds.
GRAPHS_PER_SECOND = 1.5e5
#: Requests estimated to produce more graphs than this are refused: at the
#: fastest rate that is more than a week, and over a terabyte of graph6.
MAX_GRAPHS = 1e11


def _check(n: Any, max_degree: Any, min_degree: Any, exact_max_degree: bool,
           regular: bool) -> tuple[int, int, int, bool]:
    """Validate the parameters; return (n, d, min_degree, exact)."""
    for name, val in (("n", n), ("max_degree", max_degree), ("min_degree", min_degree)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)):
            raise SpecError(f"{name} must be an integer, got {val!r}")
    n, d, mn = int(n), int(max_degree), int(min_degree)
    if n < 1:
        raise SpecError(f"n must be at least 1 (the number of vertices), got n={n}")
    if n > MAX_NODES:
        raise SpecError(f"n={n} is too large: enumeration supports at most {MAX_NODES} vertices")
    if d < 0:
        raise SpecError(f"max_degree must be >= 0, got {d}")
    if mn < 0:
        raise SpecError(f"min_degree must be >= 0, got {mn}")
    if mn > d:
        raise SpecError(f"min_degree={mn} exceeds max_degree={d}: lower min_degree or raise max_degree")
    if regular:
        mn = d
    return n, d, mn, bool(exact_max_degree or regular)


def _regular_count(n: int, r: int) -> float:
    """Estimated number of r-regular graphs on n vertices up to isomorphism:
    the labelled count (Bender-Canfield / McKay-Wormald asymptotics,
    (rn)! / ((rn/2)! 2^(rn/2) r!^n) exp(-(r^2-1)/4)) over n!, as almost all
    of them have no symmetry; within 25% of the exact counts of cubic graphs
    at n = 18..24 and of 4-regular graphs at n = 11..13 (OEIS A002851,
    A006820). Valid for sparse graphs (r small against n)."""
    N = n * r
    if N % 2 or r >= n:
        return 0.0
    log = (math.lgamma(N + 1) - math.lgamma(N / 2 + 1) - (N / 2) * math.log(2) - n * math.lgamma(r + 1)
           - (r * r - 1) / 4 - math.lgamma(n + 1))
    return math.exp(min(log, 700.0))


def estimate_count(n: int, max_degree: int, *, min_degree: int = 0, exact_max_degree: bool = False,
                   regular: bool = False, connected: bool = True) -> float:
    """An estimate of how many graphs :func:`iter_graph6` yields, without
    enumerating: the exact count of all (or all connected) graphs where the
    degree is not restricted (OEIS A000088 / A001349, then the asymptotic
    2^(n(n-1)/2) / n!), else the estimated count of the r-regular graphs
    that qualify (a lower bound on the bounded-degree count). 0 when no
    estimate applies (small or dense degree-restricted cases, which are
    fast anyway).

    >>> estimate_count(11, 10), round(estimate_count(20, 3, regular=True), -4)
    (1006700565.0, 440000.0)
    """
    n, d, mn, exact = _check(n, max_degree, min_degree, exact_max_degree, regular)
    if _empty(n, d, mn, exact, regular):
        return 0.0
    if d >= n - 1 and mn == 0 and not exact:
        table = _CONNECTED if connected else _ALL
        if n < len(table):
            return float(table[n])
        return math.exp(min(n * (n - 1) / 2 * math.log(2) - math.lgamma(n + 1), 700.0))
    best = 0.0
    for r in range(max(mn, 3), d + 1):
        if exact and r != d:
            continue
        if r * r <= 2 * n:  # sparse range of the asymptotics
            best = max(best, _regular_count(n, r))
    return best


def search_bytes(n: int, max_degree: int, *, connected: bool = True) -> float:
    """Peak memory of the search: the children array of one augmentation
    step (a row of n int64 words plus status and tie per subset of at most
    d of the k free vertices), largest at k = n - 1.

    >>> search_bytes(40, 39) > 1e14, search_bytes(10, 3) < 1e5
    (True, True)
    """
    d = min(int(max_degree), n - 1)
    k = n - 1
    lo = 1 if connected else 0
    subsets = sum(math.comb(k, s) for s in range(lo, min(d, k) + 1))
    return float(subsets) * (8.0 * n + 9.0)


def check_enumeration(n: int, max_degree: int, *, min_degree: int = 0, exact_max_degree: bool = False,
                      regular: bool = False, connected: bool = True) -> float:
    """Refuse (:class:`SizeError`, one line) an enumeration that will not fit
    in memory or is estimated to produce more than ``MAX_GRAPHS`` graphs;
    returns the estimated count (0 if unknown)."""
    n, d, mn, exact = _check(n, max_degree, min_degree, exact_max_degree, regular)
    what = f"enumerating graphs of {n} nodes with maximum degree {d}"
    check_memory(what, search_bytes(n, d, connected=connected), "lower --nodes or --max-degree")
    est = estimate_count(n, d, min_degree=mn, exact_max_degree=exact_max_degree, regular=regular,
                         connected=connected)
    if est > MAX_GRAPHS:
        raise SizeError(
            f"{what} would produce about {format_count(est)} graphs (more than {format_seconds(est / GRAPHS_PER_SECOND)} "
            f"at {format_count(GRAPHS_PER_SECOND)} graphs/s; the limit is {format_count(MAX_GRAPHS)}); "
            "lower --nodes or --max-degree"
        )
    return est


def _bits(x: int) -> list[int]:
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


class _Nauty:
    """nauty calls on graphs given as adjacency masks.

    One ``pynauty.Graph`` per vertex count is reused: pynauty 2.8.8.1 leaks
    a reference to a graph's (empty) ``vertex_coloring`` list on every call,
    so fresh Graph objects would leak one list per call and memory would
    grow with the number of graphs generated.
    """

    def __init__(self) -> None:
        self._pynauty = pynauty
        self._graphs: dict[int, Any] = {}

    def graph(self, rows: list[int], k: int):
        g = self._graphs.get(k)
        adjacency = {u: _bits(rows[u]) for u in range(k)}
        if g is None:
            g = self._graphs[k] = self._pynauty.Graph(k, adjacency_dict=adjacency)
        else:
            g.set_adjacency_dict(adjacency)
        return g

    def automorphism_generators(self, rows: list[int], k: int) -> np.ndarray:
        if k <= 1:
            return np.zeros((0, max(k, 1)), dtype=np.int64)
        gens = self._pynauty.autgrp(self.graph(rows, k))[0]
        return np.asarray(gens, dtype=np.int64).reshape(-1, k)

    def resolve_tie(self, child: np.ndarray, k: int, candidates: int) -> tuple[bool, np.ndarray]:
        """Is the new vertex ``k - 1`` in the orbit of the canonical deletion
        vertex, the candidate first in canonical order? Also returns the
        generators of Aut(child), which its own children need."""
        g = self.graph(child[:k].tolist(), k)
        gens, _, _, orbits, _ = self._pynauty.autgrp(g)
        gens_arr = np.asarray(gens, dtype=np.int64).reshape(-1, k)
        ov = orbits[k - 1]
        if all(orbits[u] == ov for u in _bits(candidates)):
            return True, gens_arr
        for u in self._pynauty.canon_label(g):
            if (candidates >> u) & 1:
                return orbits[u] == ov, gens_arr
        raise AssertionError("canonical labelling misses a vertex")  # pragma: no cover


def _search(n: int, d: int, mn: int, exact: bool, connected: bool) -> Iterator[np.ndarray]:
    """Adjacency-mask arrays of the graphs, one per isomorphism class.

    The arrays yielded may be views into buffers; use them before resuming.
    """
    from ._kernels import augmentations  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    if n == 1:
        if mn == 0 and (not exact or d == 0):
            yield np.zeros(1, dtype=np.int64)
        return
    d = min(d, n - 1)
    nauty = _Nauty()
    root = np.zeros(n, dtype=np.int64)
    no_gens = np.zeros((0, 1), dtype=np.int64)
    # depth-first: a stack of (adjacency, vertices, Aut generators or None)
    stack: list[tuple[np.ndarray, int, np.ndarray | None]] = [(root, 1, no_gens)]
    while stack:
        adj, k, gens = stack.pop()
        if gens is None:
            gens = nauty.automorphism_generators(adj[:k].tolist(), k)
        children, status, tie = augmentations(adj, k, d, connected, gens, n, mn, exact)
        final = k + 1 == n
        pending = []
        for i in range(len(status)):
            child = children[i]
            child_gens = None
            if status[i] == 2:
                ok, child_gens = nauty.resolve_tie(child, k + 1, int(tie[i]))
                if not ok:
                    continue
            if final:
                yield child
            else:
                pending.append((child, k + 1, child_gens))
        stack.extend(reversed(pending))


def iter_graph6(n: int, max_degree: int, *, min_degree: int = 0, exact_max_degree: bool = False,
                regular: bool = False, connected: bool = True) -> Iterator[str]:
    """Every graph on ``n`` vertices with maximum degree <= ``max_degree``,
    one per isomorphism class, as graph6 strings, streamed.

    Parameters
    ----------
    n : int
        Number of vertices, 1..62.
    max_degree : int
        Upper bound d on every vertex degree.
    min_degree : int, optional
        Lower bound on every vertex degree (default 0).
    exact_max_degree : bool, optional
        Only graphs whose maximum degree equals ``max_degree``.
    regular : bool, optional
        Only graphs in which every vertex has degree ``max_degree`` (implies
        ``min_degree = max_degree`` and ``exact_max_degree``).
    connected : bool, optional
        Only connected graphs (default); ``False`` includes disconnected ones.

    Yields
    ------
    str
        graph6 of each graph, as :func:`networkx.to_graph6_bytes` writes it
        without header and newline. Vertices are numbered in construction
        order (not nauty's canonical order): with ``connected=True`` the
        vertices 0..i induce a connected graph for every i.

    Raises
    ------
    SpecError
        If n is not in 1..62, a degree is negative, or min_degree >
        max_degree.
    SizeError
        If the search's widest step would not fit in memory
        (:func:`search_bytes`).

    Notes
    -----
    McKay's canonical construction path (see the module docstring); memory
    does not grow with the number of graphs output.

    Examples
    --------
    >>> list(iter_graph6(4, 3, regular=True))  # K4
    ['C~']
    >>> sum(1 for _ in iter_graph6(8, 3, exact_max_degree=True))
    192
    """
    n, d, mn, exact = _check(n, max_degree, min_degree, exact_max_degree, regular)
    # the depth-first search reaches its widest step with the first graph
    check_memory(f"enumerating graphs of {n} nodes with maximum degree {d}",
                 search_bytes(n, d, connected=connected), "lower n or max_degree")
    return _iter_graph6(n, d, mn, exact, bool(connected), regular)


def _iter_graph6(n: int, d: int, mn: int, exact: bool, connected: bool, regular: bool) -> Iterator[str]:
    from ._kernels import graph6_codes  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    if _empty(n, d, mn, exact, regular):
        return
    for adj in _search(n, d, mn, exact, connected):
        yield graph6_codes(adj, n).tobytes().decode("ascii")


def _empty(n: int, d: int, mn: int, exact: bool, regular: bool) -> bool:
    """Cases with no graph at all, answered without a search."""
    if exact and d > n - 1:
        return True  # no vertex of a simple graph has degree >= n
    if mn > n - 1:
        return True
    return regular and (n * d) % 2 == 1  # odd degree sum


def iter_graphs(n: int, max_degree: int, *, min_degree: int = 0, exact_max_degree: bool = False,
                regular: bool = False, connected: bool = True) -> Iterator[Topology]:
    """The graphs of :func:`iter_graph6` as topologies.

    Each is ``Topology.from_networkx`` of the graph with ``family="enumerated"``,
    ``spec="g6:<graph6>"`` (rebuilt by :func:`candidates.from_spec`) and
    ``params={"graph6": <graph6>, "n": n}``. Parameters as for
    :func:`iter_graph6`.

    Examples
    --------
    >>> [t.num_links for t in iter_graphs(4, 2)]  # the path P4 and the cycle C4
    [3, 4]
    >>> next(iter_graphs(4, 3, regular=True)).spec
    'g6:C~'
    """
    gen = iter_graph6(n, max_degree, min_degree=min_degree, exact_max_degree=exact_max_degree,
                      regular=regular, connected=connected)
    return (from_graph6(g6, family="enumerated") for g6 in gen)


def count_graphs(n: int, max_degree: int, *, min_degree: int = 0, exact_max_degree: bool = False,
                 regular: bool = False, connected: bool = True) -> int:
    """The number of graphs :func:`iter_graph6` yields (without encoding them).

    Parameters as for :func:`iter_graph6`.

    Examples
    --------
    >>> count_graphs(8, 3)  # connected, maximum degree <= 3
    194
    >>> count_graphs(8, 3, exact_max_degree=True)  # the 192 of 'topology-synthesis-mcf-bgl'
    192
    >>> [count_graphs(n, 3, regular=True) for n in (4, 6, 8, 10)]  # OEIS A002851
    [1, 2, 5, 19]
    """
    check_enumeration(n, max_degree, min_degree=min_degree, exact_max_degree=exact_max_degree, regular=regular,
                      connected=connected)
    n, d, mn, exact = _check(n, max_degree, min_degree, exact_max_degree, regular)
    if _empty(n, d, mn, exact, regular):
        return 0
    return sum(1 for _ in _search(n, d, mn, exact, bool(connected)))
