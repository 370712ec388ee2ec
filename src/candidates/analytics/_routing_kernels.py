"""Private numba kernels of :mod:`candidates.analytics.routing` and
:mod:`candidates.analytics.equivalent`: plain arrays in, arrays out.

Conventions shared by the kernels:

- ``indptr, indices, arc_id`` are the CSR adjacency of a
  :class:`~candidates.topology.Topology`; bit ``k`` of a next-hop mask of
  router ``u`` is CSR position ``indptr[u] + k``.
- A routing algorithm is a small automaton over *phases*: ``arc_next[a, p]``
  is the phase a packet is in after taking channel ``a`` while in phase
  ``p`` (``-1``: not allowed). Minimal routing has one phase; up*/down* has
  phase 0 (no down link taken yet) and phase 1 (went down). Packets start in
  phase 0 and may stop at the destination in any phase.
- ``fwd[s, p, x]``: hops of the shortest allowed route from ``s`` (phase 0)
  to router ``x`` arriving in phase ``p``; ``bwd[t, p, y]``: hops of the
  shortest allowed route from router ``y`` in phase ``p`` to ``t``. ``-1``
  marks "no such route".
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def minimal_next_hops(indptr, indices, arc_id, dist):
    """Next-hop masks and lowest-channel first hops of minimal routing.

    ``dist`` is the (n, n) hop-distance matrix. Returns ``mask`` (n, n)
    uint64 and ``first`` (n, n) int64 (``-1`` for ``u == t`` or unreachable).
    """
    n = len(indptr) - 1
    mask = np.zeros((n, n), dtype=np.uint64)
    first = np.full((n, n), -1, dtype=np.int64)
    one = np.uint64(1)
    for u in range(n):
        base = indptr[u]
        for k in range(base, indptr[u + 1]):
            v = indices[k]
            bit = one << np.uint64(k - base)
            a = arc_id[k]
            for t in range(n):
                d = dist[u, t]
                if d > 0 and dist[v, t] == d - 1:
                    mask[u, t] |= bit
                    if first[u, t] < 0 or a < first[u, t]:
                        first[u, t] = a
    return mask, first


@njit(cache=True)
def bfs_tree_parent(indptr, indices, level):
    """Parent of every router in the BFS tree: its lowest-index neighbour one
    level closer to the root (``-1`` for the root)."""
    n = len(indptr) - 1
    parent = np.full(n, -1, dtype=np.int64)
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            if level[u] == level[v] - 1 and (parent[v] < 0 or u < parent[v]):
                parent[v] = u
    return parent


@njit(cache=True)
def updown_to_targets(indptr, indices, arc_up_csr):
    """Remaining legal up*/down* hops: ``bwd[t, p, y]`` from router ``y`` in
    phase ``p`` (0: may still go up, 1: down only) to ``t``, -1 if none.

    ``arc_up_csr[k]`` tells whether CSR out-arc ``k`` goes towards its up
    end. One backward BFS per target over the 2n states.
    """
    n = len(indptr) - 1
    bwd = np.full((n, 2, n), -1, dtype=np.int32)
    queue = np.empty(2 * n, dtype=np.int64)
    for t in range(n):
        bwd[t, 0, t] = 0
        bwd[t, 1, t] = 0
        queue[0] = t
        queue[1] = n + t
        head, tail = 0, 2
        while head < tail:
            state = queue[head]
            head += 1
            q = state // n
            y = state - q * n
            d = bwd[t, q, y] + 1
            for k in range(indptr[y], indptr[y + 1]):
                x = indices[k]
                # CSR arc k is y -> x; the predecessor arc x -> y is the
                # reverse channel, which goes up exactly when y -> x goes down.
                if q == 0:
                    if not arc_up_csr[k] and bwd[t, 0, x] < 0:
                        bwd[t, 0, x] = d
                        queue[tail] = x
                        tail += 1
                elif arc_up_csr[k]:
                    if bwd[t, 0, x] < 0:
                        bwd[t, 0, x] = d
                        queue[tail] = x
                        tail += 1
                    if bwd[t, 1, x] < 0:
                        bwd[t, 1, x] = d
                        queue[tail] = n + x
                        tail += 1
    return bwd


@njit(cache=True)
def updown_from_sources(indptr, indices, arc_up_csr):
    """Legal up*/down* hops ``fwd[s, p, x]`` from ``s`` (starting in phase
    0) to router ``x`` arriving in phase ``p``, -1 if none."""
    n = len(indptr) - 1
    fwd = np.full((n, 2, n), -1, dtype=np.int32)
    queue = np.empty(2 * n, dtype=np.int64)
    for s in range(n):
        fwd[s, 0, s] = 0
        queue[0] = s
        head, tail = 0, 1
        while head < tail:
            state = queue[head]
            head += 1
            p = state // n
            x = state - p * n
            d = fwd[s, p, x] + 1
            for k in range(indptr[x], indptr[x + 1]):
                y = indices[k]
                if arc_up_csr[k]:
                    if p == 0 and fwd[s, 0, y] < 0:
                        fwd[s, 0, y] = d
                        queue[tail] = y
                        tail += 1
                elif fwd[s, 1, y] < 0:
                    fwd[s, 1, y] = d
                    queue[tail] = n + y
                    tail += 1
    return fwd


@njit(cache=True)
def updown_next_hops(indptr, indices, arc_up_csr, dist_up, dist_down):
    """Next-hop masks of both up*/down* phases from the remaining-hop
    matrices ``dist_up[u, t]`` (phase 0) and ``dist_down[u, t]`` (phase 1)."""
    n = len(indptr) - 1
    mask_up = np.zeros((n, n), dtype=np.uint64)
    mask_down = np.zeros((n, n), dtype=np.uint64)
    one = np.uint64(1)
    for u in range(n):
        base = indptr[u]
        for k in range(base, indptr[u + 1]):
            v = indices[k]
            bit = one << np.uint64(k - base)
            up = arc_up_csr[k]
            for t in range(n):
                d0 = dist_up[u, t]
                if d0 > 0:
                    # an up arc keeps the packet in phase 0, a down arc
                    # commits it to phase 1
                    nxt = dist_up[v, t] if up else dist_down[v, t]
                    if nxt == d0 - 1:
                        mask_up[u, t] |= bit
                if not up:
                    d1 = dist_down[u, t]
                    if d1 > 0 and dist_down[v, t] == d1 - 1:
                        mask_down[u, t] |= bit
    return mask_up, mask_down


@njit(cache=True)
def _union_walk(indptr, indices, arc_id, arc_next, fwd, bwd, s, t, seen, on_link, states, links):
    """Collect the states and links of all shortest allowed routes s -> t.

    Breadth-first from (s, 0) over the arcs that lie on a shortest route
    (``fwd + 1 + bwd == total``), so only the route union is visited, in
    non-decreasing distance from ``s``. Writes visited states (``p * n + x``)
    to ``states`` and distinct link indices to ``links``; returns their
    counts. ``seen`` (P, n) and ``on_link`` (m,) must be all False on entry
    and are left all False.
    """
    n = len(indptr) - 1
    total = bwd[t, 0, s]
    nstates = 0
    nlinks = 0
    if total <= 0:
        return nstates, nlinks
    seen[0, s] = True
    states[0] = s
    nstates = 1
    head = 0
    while head < nstates:
        state = states[head]
        head += 1
        p = state // n
        x = state - p * n
        rest = total - fwd[s, p, x] - 1
        if rest < 0:
            continue
        for k in range(indptr[x], indptr[x + 1]):
            a = arc_id[k]
            q = arc_next[a, p]
            if q < 0:
                continue
            y = indices[k]
            if bwd[t, q, y] != rest:
                continue
            link = a >> 1
            if not on_link[link]:
                on_link[link] = True
                links[nlinks] = link
                nlinks += 1
            if not seen[q, y]:
                seen[q, y] = True
                states[nstates] = q * n + y
                nstates += 1
    for i in range(nstates):
        st = states[i]
        seen[st // n, st % n] = False
    for i in range(nlinks):
        on_link[links[i]] = False
    return nstates, nlinks


@njit(cache=True)
def route_union_links(indptr, indices, arc_id, arc_next, fwd, bwd, s, t, num_links):
    """Sorted link indices of the union of all shortest allowed routes s -> t."""
    n = len(indptr) - 1
    P = arc_next.shape[1]
    seen = np.zeros((P, n), dtype=np.bool_)
    on_link = np.zeros(num_links, dtype=np.bool_)
    states = np.empty(P * n, dtype=np.int64)
    links = np.empty(num_links, dtype=np.int64)
    _, nlinks = _union_walk(indptr, indices, arc_id, arc_next, fwd, bwd, s, t, seen, on_link, states, links)
    return np.sort(links[:nlinks])


@njit(cache=True)
def _effective_resistance(n, links, nlinks, link_u, link_v, states, nstates, s, t, local, order, G, x):
    """Effective resistance between ``s`` and ``t`` of the unit-resistor
    network formed by ``links[:nlinks]``; ``states[:nstates]`` lists its
    routers (as states) in order of discovery from ``s``.

    Solves the grounded Laplacian (``t`` at potential 0) for a unit current
    injected at ``s``; the resistance is the potential of ``s``. Routers are
    numbered in order of discovery, ``s`` first, so Gaussian elimination
    sweeps the layered route union from ``s`` towards ``t``: fill stays
    within layers, and along a chain of single links every pivot is exactly
    1, so unique routes give exact integer hop counts. ``local`` (n,) must be
    all -1 on entry and is left so; ``order`` (n,), ``G`` (n, n) and ``x``
    (n,) are workspaces.
    """
    K = 0
    for i in range(nstates):
        y = states[i] % n
        if y != t and local[y] < 0:
            local[y] = K
            order[K] = y
            K += 1
    for i in range(K):
        x[i] = 0.0
        for j in range(K):
            G[i, j] = 0.0
    x[local[s]] = 1.0
    for e in range(nlinks):
        li = links[e]
        a = local[link_u[li]] if link_u[li] != t else -1
        b = local[link_v[li]] if link_v[li] != t else -1
        if a >= 0:
            G[a, a] += 1.0
        if b >= 0:
            G[b, b] += 1.0
        if a >= 0 and b >= 0:
            G[a, b] -= 1.0
            G[b, a] -= 1.0
    for i in range(K):
        piv = G[i, i]
        for j in range(i + 1, K):
            gji = G[j, i]
            if gji != 0.0:
                f = gji / piv
                x[j] -= f * x[i]
                for l in range(i + 1, K):
                    gil = G[i, l]
                    if gil != 0.0:
                        G[j, l] -= f * gil
    for i in range(K - 1, -1, -1):
        acc = x[i]
        for l in range(i + 1, K):
            gil = G[i, l]
            if gil != 0.0:
                acc -= gil * x[l]
        x[i] = acc / G[i, i]
    for i in range(K):
        local[order[i]] = -1
    return x[0]


@njit(cache=True)
def equivalent_table(indptr, indices, arc_id, link_u, link_v, arc_next, fwd, bwd, symmetric):
    """(n, n) equivalent distances: effective resistance of the union of all
    shortest allowed routes for every pair (inf where no route exists).

    With ``symmetric`` only pairs s < t are solved and mirrored, which is
    exact when the allowed route set t -> s is the reverse of s -> t.
    """
    n = len(indptr) - 1
    m = len(link_u)
    P = arc_next.shape[1]
    out = np.zeros((n, n), dtype=np.float64)
    seen = np.zeros((P, n), dtype=np.bool_)
    on_link = np.zeros(m, dtype=np.bool_)
    states = np.empty(P * n, dtype=np.int64)
    links = np.empty(max(m, 1), dtype=np.int64)
    local = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    G = np.empty((n, n), dtype=np.float64)
    x = np.empty(n, dtype=np.float64)
    for s in range(n):
        t0 = s + 1 if symmetric else 0
        for t in range(t0, n):
            if t == s:
                continue
            if bwd[t, 0, s] < 0:
                r = np.inf
            else:
                nstates, nlinks = _union_walk(
                    indptr, indices, arc_id, arc_next, fwd, bwd, s, t, seen, on_link, states, links
                )
                r = _effective_resistance(n, links, nlinks, link_u, link_v, states, nstates, s, t, local, order, G, x)
            out[s, t] = r
            if symmetric:
                out[t, s] = r
    return out


@njit(cache=True)
def equivalent_rows(indptr, indices, arc_id, link_u, link_v, arc_next, fwd, bwd, sources):
    """Rows ``sources`` of :func:`equivalent_table`: (len(sources), n)."""
    n = len(indptr) - 1
    m = len(link_u)
    P = arc_next.shape[1]
    out = np.zeros((len(sources), n), dtype=np.float64)
    seen = np.zeros((P, n), dtype=np.bool_)
    on_link = np.zeros(m, dtype=np.bool_)
    states = np.empty(P * n, dtype=np.int64)
    links = np.empty(max(m, 1), dtype=np.int64)
    local = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    G = np.empty((n, n), dtype=np.float64)
    x = np.empty(n, dtype=np.float64)
    for i in range(len(sources)):
        s = sources[i]
        for t in range(n):
            if t == s:
                continue
            if bwd[t, 0, s] < 0:
                out[i, t] = np.inf
            else:
                nstates, nlinks = _union_walk(
                    indptr, indices, arc_id, arc_next, fwd, bwd, s, t, seen, on_link, states, links
                )
                out[i, t] = _effective_resistance(n, links, nlinks, link_u, link_v, states, nstates, s, t, local, order, G, x)
    return out
