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
def ecmp_weighted(indptr, indices, arc_class, nclass, w, source):
    """Expected load of every out-arc (CSR position) and per class when the
    traffic s -> t, w[s] * w[t], splits evenly over all shortest paths
    (Brandes-style: path counts forward, dependencies backward)."""
    n = len(indptr) - 1
    dist = np.full(n, -1, dtype=np.int64)
    sigma = np.zeros(n)
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
    delta = np.zeros(n)
    arc_load = np.zeros(len(indices))
    for i in range(tail - 1, -1, -1):
        x = order[i]
        if x != source:
            delta[x] += w[x]
        for k in range(indptr[x], indptr[x + 1]):
            v = indices[k]
            if dist[v] == dist[x] + 1:
                share = delta[v] * sigma[x] / sigma[v]
                arc_load[k] += share * w[source]
                delta[x] += share
    class_hops = np.zeros(nclass)
    for k in range(len(indices)):
        class_hops[arc_class[k]] += arc_load[k]
    return class_hops, arc_load, tail


@njit(cache=True)
def ecmp_all(indptr, indices, arc_class, nclass, w, sources):
    n = len(indptr) - 1
    class_tot = np.zeros(nclass)
    arc_tot = np.zeros(len(indices))
    pair_w = 0.0
    for i in range(len(sources)):
        s = sources[i]
        ch, al, _ = ecmp_weighted(indptr, indices, arc_class, nclass, w, s)
        for k in range(nclass):
            class_tot[k] += ch[k]
        for k in range(len(indices)):
            arc_tot[k] += al[k]
        tot = 0.0
        for v in range(n):
            if v != s:
                tot += w[v]
        pair_w += w[s] * tot
    return class_tot, arc_tot, pair_w


@njit(cache=True)
def bisection_exact(n, u, v):
    # Enumerate the subsets of size n//2 that contain router 0 (each balanced
    # partition once for even n), in the order of combinations of 1..n-1.
    half = n // 2
    m = len(u)
    best = m + 1
    best_mask = np.zeros(n, dtype=np.bool_)
    side = np.zeros(n, dtype=np.bool_)
    k = half - 1
    idx = np.arange(k)  # indices into 1..n-1
    while True:
        side[:] = False
        side[0] = True
        for i in range(k):
            side[idx[i] + 1] = True
        cut = 0
        for e in range(m):
            if side[u[e]] != side[v[e]]:
                cut += 1
        if cut < best:
            best = cut
            best_mask[:] = side
        # next combination of k out of n-1
        i = k - 1
        while i >= 0 and idx[i] == n - 1 - k + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, k):
            idx[j] = idx[j - 1] + 1
    return best, best_mask
