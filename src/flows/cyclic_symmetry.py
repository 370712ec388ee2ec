"""Exact uniform capacity of a graph invariant under a cyclic shift of its routers.

A searched graph lifted over the cyclic group of order ``g``
(:mod:`candidates.search`) is invariant under ``sigma: x -> x + m (mod n)``,
``m = n / g``: the group acts on the routers with ``m`` orbits (fibres) of
``g`` routers each and on the channels with orbits of ``g`` channels. When
the demands and capacities are invariant too (uniform traffic on plain
channels), averaging an optimal flow over the group gives an invariant
optimal flow, determined by the flows of the ``m`` sources of fibre 0 (the
others' are their shifts). A channel ``b`` then carries, in all, the sum over
fibre 0's sources of their flow on every channel of ``b``'s orbit, so the
capacity constraints are one per channel orbit. The LP has ``m`` commodities
instead of ``n``: ``g`` times smaller, and exact (HiGHS's interior point with
without crossover: the interior point's primal, never above the bound its
row prices certify after re-pricing by shortest paths, as the PDLP solver
of :func:`flows.lp.solve_lp` does; the gap is about 1e-8). Lattice
translations (:mod:`flows.symmetry`) are the case ``m = 1``.

>>> import numpy as np, candidates as cd
>>> shift_symmetry(cd.torus((4, 4))), shift_symmetry(cd.complete_graph(5))
(4, 5)
>>> r = shift_symmetric_uniform(cd.torus((4, 4)))      # the lattice symmetry gives 1.875 too
>>> round(r.lam, 6), bool(r.gap < 1e-6)
(1.875, True)
"""

from __future__ import annotations

import time

import numpy as np
from scipy.sparse import csr_matrix

from candidates.topology import Topology

from .problem import FlowError, FlowProblem
from .result import FlowResult
from .symmetry import channel_capacities, orbit_lp

__all__ = ["shift_symmetry", "shift_orbits", "shift_symmetric_uniform", "SHIFT_LP_MAX_COLUMNS",
           "AUTO_SHIFT_MIN_ORDER", "AUTO_SHIFT_MAX_COLUMNS"]

#: the shift-symmetric LP is offered up to this many columns (commodities x channels): 4 million
#: columns took about a minute of HiGHS's interior point on this 2-core machine
SHIFT_LP_MAX_COLUMNS = 4_000_000
#: ``flows.solve``'s auto takes this LP for uniform traffic from this shift order up, and up to this many
#: columns: a 512-router degree-6 lift of order 8 (196,608 columns) in 20 s where column generation
#: certifies 1% in about a minute (docs/results/flows.md)
AUTO_SHIFT_MIN_ORDER = 4
AUTO_SHIFT_MAX_COLUMNS = 1_000_000


def shift_symmetry(topo: Topology, *, min_base: int = 1) -> int:
    """The largest ``g`` dividing the router count for which the graph is
    invariant under ``x -> x + n/g (mod n)`` (1: none), among those with at
    least ``min_base`` routers per fibre; graphs with parallel links give 1.

    A ring turns onto itself by one router; a 4 x 4 torus (routers numbered
    ``4 x + y``) by a step in x, n/4; a 3-cube by flipping its top bit, n/2:

    >>> import candidates as cd
    >>> shift_symmetry(cd.ring(8)), shift_symmetry(cd.torus((4, 4))), shift_symmetry(cd.hypercube(3))
    (8, 4, 2)
    """
    n = topo.n
    if n < 2 or topo.has_parallel_links:
        return 1
    keys = np.sort(topo.arc_src * n + topo.arc_dst)
    small = [k for k in range(1, int(n ** 0.5) + 1) if n % k == 0]
    for g in sorted((set(small) | {n // k for k in small}) - {1}, reverse=True):
        m = n // g
        if m < min_base:
            continue
        shifted = ((topo.arc_src + m) % n) * n + (topo.arc_dst + m) % n
        if np.array_equal(np.sort(shifted), keys):
            return g
    return 1


def shift_orbits(topo: Topology, g: int) -> np.ndarray:
    """Orbit number of every channel under ``x -> x + n/g``: channels in one
    orbit are shifts of the same channel leaving fibre 0 (numbered by it)."""
    n = topo.n
    if g < 1 or n % g:
        raise FlowError(f"a shift symmetry of order {g} needs a router count divisible by it, got {n}")
    m = n // g
    src, dst = topo.arc_src, topo.arc_dst
    k = src // m
    rep = (src - k * m) * n + (dst - k * m) % n      # the orbit's channel that leaves fibre 0
    base = np.flatnonzero(src < m)
    order = np.argsort(rep[base])
    sorted_rep = rep[base][order]
    pos = np.searchsorted(sorted_rep, rep)
    if np.any(pos >= len(sorted_rep)) or np.any(sorted_rep[np.minimum(pos, len(sorted_rep) - 1)] != rep):
        raise FlowError(f"{topo.spec or topo.family!r} is not invariant under x -> x + {m}; the shift symmetry of "
                        f"order {g} does not apply")
    orbit = pos.astype(np.int64)
    if np.any(np.bincount(orbit, minlength=len(base)) != g):
        raise FlowError(f"the channels of {topo.spec or topo.family!r} do not fall into orbits of {g}; the shift "
                        "symmetry does not apply")
    return orbit


def shift_symmetric_uniform(topo: Topology, problem: FlowProblem | None = None, *, g: int | None = None,
                            capacity: float = 1.0, time_limit: float | None = None) -> FlowResult:
    """Exact maximum concurrent flow of uniform traffic on a shift-invariant
    graph (every router sends one unit in all, ``1 / (n - 1)`` to each other,
    over channels of capacity ``capacity``; or ``problem``'s demands and
    per-channel capacities, which must be uniform). ``g``: the shift's
    order (default :func:`shift_symmetry`'s).

    A ring of 8: one source's flow stands for all; each router sends 16/7
    hop-units over 16 channels, so lambda = 16 / (8 x 16/7) = 0.875.

    >>> import candidates as cd
    >>> r = shift_symmetric_uniform(cd.ring(8))
    >>> round(r.lam, 6), r.status, r.extra["shift_order"], r.extra["sources"]
    (0.875, 'optimal', 8, 1)
    """
    t0 = time.perf_counter()
    n, A = topo.n, topo.num_arcs
    if g is None:
        g = shift_symmetry(topo)
    if g < 2:
        raise FlowError(f"{topo.spec or topo.family!r} has no cyclic shift symmetry; use the PTAS, column generation "
                        "or the LP")
    m = n // g
    if m * A + 1 > SHIFT_LP_MAX_COLUMNS:
        raise FlowError(f"the shift-symmetric LP of {topo.spec or topo.family!r} has {m * A:,} columns (more than "
                        f"{SHIFT_LP_MAX_COLUMNS:,}); use column generation or the PTAS")
    orbit = shift_orbits(topo, g)
    cap_arc = np.full(A, float(capacity))
    names = tuple(f"{topo.arc_src[a]}->{topo.arc_dst[a]}" for a in range(A))
    if problem is not None:
        cap_arc, names = _check_uniform(topo, problem)
    elif not (np.isfinite(capacity) and capacity > 0):
        raise FlowError(f"capacity must be a positive number, got {capacity}")
    norb = int(orbit.max()) + 1
    cap_orb = np.zeros(norb)
    cap_orb[orbit] = cap_arc
    if not np.allclose(cap_arc, cap_orb[orbit], rtol=1e-9, atol=0.0):
        raise FlowError("the channel capacities differ within a shift orbit; the shift symmetry does not apply")
    lam, f, y = _solve(n, m, topo.arc_src, topo.arc_dst, orbit, cap_orb, time_limit)
    upper = _reprice(topo, m, orbit, cap_arc, y)
    lam = min(lam, upper)
    F = np.zeros(norb)
    for i in range(m):
        F += np.bincount(orbit, weights=f[i], minlength=norb)
    arc_flow = F[orbit]
    util = arc_flow / cap_arc
    if problem is not None:
        util = (problem.R.tocsr() @ arc_flow) / problem.capacity
    return FlowResult("shift symmetry", "concurrent", lam, upper, arc_flow, util, names, time.perf_counter() - t0,
                      extra={"orbits": norb, "shift_order": g, "sources": m, "lp_columns": m * A + 1})


def _check_uniform(topo: Topology, problem: FlowProblem) -> tuple[np.ndarray, tuple[str, ...]]:
    cap_arc = channel_capacities(topo, problem)
    n = topo.n
    dem = problem.demands
    each = 1.0 / (n - 1)
    if len(dem) != n * (n - 1) or not np.allclose(dem.amount, each, rtol=1e-9, atol=0.0):
        raise FlowError("the shift-symmetric LP solves uniform traffic (every router sending one unit in all); "
                        "use the PTAS, column generation or the LP")
    return cap_arc, problem.resource_names


def _solve(n, m, tail, head, orbit, cap_orb, time_limit):
    """max lambda: router i < m sends lambda / (n - 1) to every other router
    with flow f[i]; the orbit sums of all their flows within capacity."""
    A = len(tail)
    each = 1.0 / (n - 1)
    # column (i, a): +1 at row (i, tail), -1 at row (i, head), +1 in the orbit row n*m + orbit(a)
    i = np.repeat(np.arange(m), A)
    a = np.tile(np.arange(A), m)
    rows = np.stack([i * n + tail[a], i * n + head[a], n * m + orbit[a]], axis=1).reshape(-1)
    vals = np.tile([1.0, -1.0, 1.0], m * A)
    # lambda's column: source i supplies lambda, every other router takes lambda * each; on the left: -b
    lrows = np.arange(n * m)
    src = (lrows % n) == (lrows // n)
    lvals = np.where(src, -1.0, each)
    index = np.concatenate([rows, lrows]).astype(np.int32)
    value = np.concatenate([vals, lvals])
    start = np.concatenate([np.arange(0, 3 * m * A + 1, 3), [3 * m * A + n * m]]).astype(np.int32)
    # crossover to a vertex costs twice the interior point (512 routers: 62 s against 20 s); the prices
    # certify the interior point's answer instead (_reprice)
    x, dual = orbit_lp(start, index, value, n * m, cap_orb, time_limit, crossover=False)
    y = np.maximum(dual[n * m:], 0.0)   # the orbits' prices (as flows.lp reads HiGHS's duals)
    return float(x[-1]), np.maximum(x[:-1], 0.0).reshape(m, A), y


def _reprice(topo: Topology, m: int, orbit: np.ndarray, cap_arc: np.ndarray, y: np.ndarray) -> float:
    """The bound on lambda that orbit prices ``y >= 0`` certify (weak duality:
    capacity x length over the demands' shortest distances under the
    lengths), the distances from fibre 0's sources only (the others' are
    their shifts). Zero prices are lifted a little so every length is positive."""
    n = topo.n
    g = n // m
    length = y[orbit]
    length = length + 1e-9 * max(float(cap_arc @ length), 1e-300) / (len(length) * cap_arc)
    M = csr_matrix((length, (topo.arc_src, topo.arc_dst)), shape=(n, n))
    # deferred: scipy.sparse.csgraph pulls in scipy.sparse.linalg and scipy.linalg, ~40 ms of every
    # process that imports flows (measured, -X importtime), and only shift-symmetric graphs need it
    from scipy.sparse.csgraph import dijkstra

    dist = dijkstra(M, directed=True, indices=np.arange(m))
    alpha = g * dist.sum() / (n - 1)
    return float(cap_arc @ length) / alpha if alpha > 0 else float("inf")
