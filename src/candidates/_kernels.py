"""Private numba kernels of ``candidates``: plain arrays in, arrays out."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def bfs_distances(indptr, indices, source):
    """Hop distance from ``source`` to every router (-1 if unreachable)."""
    n = len(indptr) - 1
    dist = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    dist[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if dist[v] < 0:
                dist[v] = du
                queue[tail] = v
                tail += 1
    return dist


@njit(cache=True)
def all_pairs_bfs(indptr, indices):
    """(n, n) hop-distance matrix; -1 marks unreachable pairs."""
    n = len(indptr) - 1
    out = np.empty((n, n), dtype=np.int32)
    for s in range(n):
        d = bfs_distances(indptr, indices, s)
        for v in range(n):
            out[s, v] = d[v]
    return out


@njit(cache=True)
def distance_histogram(indptr, indices, sources):
    """Counts of (source, destination) pairs at each distance, over the
    given sources and all destinations (self included at distance 0).
    The last entry counts unreachable pairs."""
    n = len(indptr) - 1
    hist = np.zeros(n + 1, dtype=np.int64)
    for i in range(len(sources)):
        d = bfs_distances(indptr, indices, sources[i])
        for v in range(n):
            if d[v] < 0:
                hist[n] += 1
            else:
                hist[d[v]] += 1
    return hist


@njit(cache=True)
def bfs_displacements(indptr, indices, arc_delta, source):
    """BFS from ``source`` carrying the unwrapped lattice displacement of the
    first shortest path found to every router: (distance, displacement).

    ``arc_delta[k]`` is the lattice step (a row of length D) of CSR entry
    ``k``. Neighbours are scanned in CSR order, so ties are broken by the
    order of the out-arcs of each router (lowest dimension first for the
    lattice generators)."""
    n = len(indptr) - 1
    D = arc_delta.shape[1]
    dist = np.full(n, -1, dtype=np.int64)
    disp = np.zeros((n, D), dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    dist[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                for j in range(D):
                    disp[v, j] = disp[u, j] + arc_delta[k, j]
                queue[tail] = v
                tail += 1
    return dist, disp


@njit(cache=True)
def ecmp_class_hops(indptr, indices, arc_class, nclass, source):
    """Expected hops per link class from ``source`` to each other router when
    a packet picks uniformly among all shortest paths, summed over
    destinations; also returns the expected load of every directed arc
    (indexed by CSR position) for one unit sent to every other router.

    Brandes-style: path counts forward, dependency accumulation backward."""
    n = len(indptr) - 1
    dist = np.full(n, -1, dtype=np.int64)
    sigma = np.zeros(n, dtype=np.float64)
    order = np.empty(n, dtype=np.int64)
    dist[source] = 0
    sigma[source] = 1.0
    order[0] = source
    head, tail = 0, 1
    while head < tail:
        u = order[head]
        head += 1
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                order[tail] = v
                tail += 1
            if dist[v] == dist[u] + 1:
                sigma[v] += sigma[u]
    # delta[v]: expected number of (packets to destinations at or beyond v)
    # that pass through v, for one packet to every reachable router != source.
    delta = np.zeros(n, dtype=np.float64)
    arc_load = np.zeros(len(indices), dtype=np.float64)
    for i in range(tail - 1, -1, -1):
        w = order[i]
        if w != source:
            delta[w] += 1.0  # the packet destined to w itself
        for k in range(indptr[w], indptr[w + 1]):
            v = indices[k]
            # arcs w->v with v one step further carry delta[v] * sigma[w]/sigma[v]
            if dist[v] == dist[w] + 1:
                share = delta[v] * sigma[w] / sigma[v]
                arc_load[k] += share
                delta[w] += share
    class_hops = np.zeros(nclass, dtype=np.float64)
    for k in range(len(indices)):
        class_hops[arc_class[k]] += arc_load[k]
    return class_hops, arc_load, tail
