"""The shortest-path kernels every flow solver walks (the PTAS, column
generation's pricing, the latency's trees and splits, the LP's re-priced
bound): Dijkstra over :class:`flows.groups.Channels`, and pushing demand up
a tree or over every shortest path. Numba kernels; the arrays in named
structures (numba takes NamedTuples of arrays as they are).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["Scratch", "scratch", "dijkstra", "sssp", "arc_lengths", "tree_flow", "push_tree", "split_dag_flow"]


class Scratch(NamedTuple):
    """What :func:`sssp` writes and works in: ``dist`` (float64, n),
    ``parent`` and ``order`` (int64, n), ``mark`` and ``done`` (int64, n:
    stamped per call), ``heap_d`` (float64) and ``heap_v`` (int64) of size
    ``len(heads) + 1``."""

    dist: np.ndarray
    parent: np.ndarray
    order: np.ndarray
    mark: np.ndarray
    done: np.ndarray
    heap_d: np.ndarray
    heap_v: np.ndarray


@njit(cache=True, nogil=True)
def scratch(n, m):
    """A fresh :class:`Scratch` for ``n`` routers and ``m`` channels
    (``parent`` -1, ``mark`` and ``done`` 0: stamps start at 1)."""
    return Scratch(np.empty(n), np.full(n, -1, dtype=np.int64), np.empty(n, dtype=np.int64),
                   np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.empty(m + 1),
                   np.empty(m + 1, dtype=np.int64))


@njit(cache=True, nogil=True)
def dijkstra(channels, length, source, dist, parent, order):
    """The full shortest-path tree from ``source`` into ``dist``, ``parent``
    (-1 for the source and unreached routers) and ``order`` (see
    :func:`sssp`); returns how many routers were settled."""
    n = len(channels.indptr) - 1
    for v in range(n):
        parent[v] = -1
    m = len(channels.heads)
    none = np.zeros(0, dtype=np.int64)
    # fresh scratch; `done` starts at a value that is not the stamp
    work = Scratch(dist, parent, order, none, np.full(n, 1, dtype=np.int64), np.empty(m + 1),
                   np.empty(m + 1, dtype=np.int64))
    return sssp(channels, length, source, work, none, 0)


@njit(cache=True, nogil=True)
def arc_lengths(col_ptr, col_res, col_val, y, extra, out):
    """out[a] = sum_r R[r, a] * y[r] + extra[a]  (R in CSC form)."""
    for a in range(len(col_ptr) - 1):
        s = extra[a]
        for k in range(col_ptr[a], col_ptr[a + 1]):
            s += col_val[k] * y[col_res[k]]
        out[a] = s


@njit(cache=True, nogil=True)
def tree_flow(order, settled, parent, arc_src, acc, flow):
    """Push ``acc`` (demand at each router) up the tree: flow on tree arcs
    (``arc_src``: each channel's tail in the tree's orientation)."""
    for i in range(settled - 1, 0, -1):
        v = order[i]
        if acc[v] != 0.0:
            a = parent[v]
            flow[a] += acc[v]
            acc[arc_src[a]] += acc[v]
            acc[v] = 0.0
    # what reached the root was routed: clear it for the next tree
    acc[order[0]] = 0.0


@njit(cache=True, nogil=True)
def sssp(channels, length, source, work, targets, stamp):
    """Shortest-path tree from ``source`` under channel ``length`` (binary
    heap with lazy deletion) into ``work`` (a :class:`Scratch`): ``dist``, ``parent`` (the
    channel entering v on the tree, -1 for the source; entries of routers not
    reached are left as they were) and ``order`` (routers in the order they
    were settled); returns how many were settled. The scratch is the
    caller's, so that the hundreds of thousands of
    calls of one solve allocate nothing.

    With ``targets`` (and ``work.mark``, stamped here with ``stamp``)
    the search stops once every target is settled: the tree then spans the
    settled routers only, which is all that routing to those targets and
    measuring their distances needs. ``work.done`` must hold no entry
    equal to ``stamp`` (a fresh stamp per call).
    """
    indptr, heads, arcs = channels.indptr, channels.heads, channels.arcs
    dist, parent, order, mark = work.dist, work.parent, work.order, work.mark
    done, heap_d, heap_v = work.done, work.heap_d, work.heap_v
    ntarget = len(targets)
    for i in range(ntarget):
        mark[targets[i]] = stamp
    found = 0
    n = len(indptr) - 1
    for v in range(n):
        dist[v] = np.inf
    parent[source] = -1
    dist[source] = 0.0
    heap_d[0] = 0.0
    heap_v[0] = source
    size = 1
    settled = 0
    while size > 0:
        d = heap_d[0]
        u = heap_v[0]
        size -= 1
        if size > 0:
            ld = heap_d[size]
            lv = heap_v[size]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= size:
                    break
                if c + 1 < size and heap_d[c + 1] < heap_d[c]:
                    c += 1
                if heap_d[c] < ld:
                    heap_d[i] = heap_d[c]
                    heap_v[i] = heap_v[c]
                    i = c
                else:
                    break
            heap_d[i] = ld
            heap_v[i] = lv
        if done[u] == stamp or d > dist[u]:
            continue
        done[u] = stamp
        order[settled] = u
        settled += 1
        if ntarget > 0 and mark[u] == stamp:
            found += 1
            if found == ntarget:
                break
        for k in range(indptr[u], indptr[u + 1]):
            v = heads[k]
            nd = d + length[arcs[k]]
            if nd < dist[v]:
                dist[v] = nd
                parent[v] = arcs[k]
                i = size
                size += 1
                while i > 0:
                    p = (i - 1) // 2
                    if heap_d[p] > nd:
                        heap_d[i] = heap_d[p]
                        heap_v[i] = heap_v[p]
                        i = p
                    else:
                        break
                heap_d[i] = nd
                heap_v[i] = v
    return settled


@njit(cache=True, nogil=True)
def push_tree(order, settled, parent, tails, acc, flow, touched, nt):
    """:func:`tree_flow` that appends newly used arcs to ``touched[nt:]``
    (returns the new count), so callers never scan every arc."""
    for i in range(settled - 1, 0, -1):
        v = order[i]
        x = acc[v]
        if x != 0.0:
            a = parent[v]
            if flow[a] == 0.0:
                touched[nt] = a
                nt += 1
            flow[a] += x
            acc[tails[a]] += x
            acc[v] = 0.0
    acc[order[0]] = 0.0
    return nt


@njit(cache=True, nogil=True)
def split_dag_flow(channels, length, order, settled, dist, acc, flow, in_ptr, in_k):
    """Route ``acc`` (amount per destination, the tree's root at
    ``order[0]``) back over *every* shortest-path arc, splitting each
    router's amount equally over its shortest in-arcs: a routing of minimum
    total length that spreads load where plain trees pile it up. Clears
    ``acc``. ``in_ptr`` (n + 1) and ``in_k`` (len(heads)) are scratch."""
    indptr, heads, arcs = channels.indptr, channels.heads, channels.arcs
    n = len(indptr) - 1
    for v in range(n + 1):
        in_ptr[v] = 0
    fill = np.zeros(n, dtype=np.int64)
    # two passes over the shortest-path arcs: count per head, then bucket
    for rnd in range(2):
        for i in range(settled):
            u = order[i]
            for k in range(indptr[u], indptr[u + 1]):
                v = heads[k]
                nd = dist[u] + length[arcs[k]]
                if abs(nd - dist[v]) <= 1e-12 * max(1.0, abs(nd)):
                    if rnd == 0:
                        in_ptr[v + 1] += 1
                    else:
                        in_k[fill[v]] = k
                        fill[v] += 1
        if rnd == 0:
            for v in range(n):
                in_ptr[v + 1] += in_ptr[v]
            for v in range(n):
                fill[v] = in_ptr[v]
    # the tail of CSR entry k: kept per entry while scanning
    for i in range(settled - 1, 0, -1):
        v = order[i]
        if acc[v] == 0.0:
            continue
        cnt = in_ptr[v + 1] - in_ptr[v]
        share = acc[v] / cnt
        for j in range(in_ptr[v], in_ptr[v + 1]):
            k = in_k[j]
            flow[arcs[k]] += share
            # tail of entry k: the u with indptr[u] <= k < indptr[u + 1]
            lo, hi = 0, n
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if indptr[mid] <= k:
                    lo = mid
                else:
                    hi = mid
            acc[lo] += share
        acc[v] = 0.0
    acc[order[0]] = 0.0

