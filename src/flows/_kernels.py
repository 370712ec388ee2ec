"""Private numba kernels of ``flows``: plain arrays in, arrays out."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def dijkstra(indptr, heads, arcs, length, source, dist, parent, order):
    """Full shortest-path tree (see :func:`dijkstra_to`)."""
    none = np.zeros(0, dtype=np.int64)
    return dijkstra_to(indptr, heads, arcs, length, source, dist, parent, order, none, none, 0)


@njit(cache=True)
def dijkstra_to(indptr, heads, arcs, length, source, dist, parent, order, mark, targets, stamp):
    """Shortest-path tree from ``source`` under arc ``length``.

    CSR by tail: out-arcs of v at ``indptr[v]:indptr[v+1]``, their heads in
    ``heads`` and channel numbers in ``arcs``. Fills ``dist``, ``parent``
    (channel entering v on the tree, -1 for the source/unreached) and
    ``order`` (routers in the order they were settled); returns how many
    were settled. Binary heap with lazy deletion.

    With ``targets`` (and ``mark[t] == stamp`` for each of them, a scratch
    array the caller stamps) the search stops once every target is settled:
    the tree then spans the settled routers only, which is all that routing
    to those targets and measuring their distances needs.
    """
    ntarget = len(targets)
    for i in range(ntarget):
        mark[targets[i]] = stamp
    found = 0
    n = len(indptr) - 1
    for v in range(n):
        dist[v] = np.inf
        parent[v] = -1
    m = len(heads)
    heap_d = np.empty(m + 1)
    heap_v = np.empty(m + 1, dtype=np.int64)
    size = 0
    dist[source] = 0.0
    heap_d[0] = 0.0
    heap_v[0] = source
    size = 1
    done = np.zeros(n, dtype=np.bool_)
    settled = 0
    while size > 0:
        d = heap_d[0]
        u = heap_v[0]
        size -= 1
        if size > 0:
            # sift the last element down from the root
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
        if done[u] or d > dist[u]:
            continue
        done[u] = True
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
                # sift up
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


@njit(cache=True)
def arc_lengths(col_ptr, col_res, col_val, y, extra, out):
    """out[a] = sum_r R[r, a] * y[r] + extra[a]  (R in CSC form)."""
    for a in range(len(col_ptr) - 1):
        s = extra[a]
        for k in range(col_ptr[a], col_ptr[a + 1]):
            s += col_val[k] * y[col_res[k]]
        out[a] = s


@njit(cache=True)
def _tree_flow(order, settled, parent, arc_src, acc, flow):
    """Push ``acc`` (demand at each router) up the tree: flow on tree arcs."""
    for i in range(settled - 1, 0, -1):
        v = order[i]
        if acc[v] != 0.0:
            a = parent[v]
            flow[a] += acc[v]
            acc[arc_src[a]] += acc[v]
            acc[v] = 0.0
    # what reached the root was routed: clear it for the next tree
    acc[order[0]] = 0.0


@njit(cache=True)
def gk_concurrent(
    n, indptr, heads, arcs, arc_src, col_ptr, col_res, col_val, capacity,
    grp_ptr, grp_src, dem_dst, dem_amt, eps, delta, max_phases, check_every, target_gap,
):
    grp_dst = dem_dst
    """Garg-Könemann maximum concurrent flow with Karakostas' grouping of
    commodities by source: one shortest-path tree per source per step.

    Demands must be pre-scaled (lambda* of order 1). Every ``check_every``
    phases the lengths are frozen for a certified dual bound D(y)/alpha(y)
    and the run stops once the primal (phases routed over the worst
    congestion) is within ``target_gap`` of it. Returns the best feasible
    flow found (it routes ``best_lam`` times every demand), ``best_lam``,
    the phases, the best dual bound and the number of Dijkstra runs.
    """
    A = len(arc_src)
    nres = len(capacity)
    ngrp = len(grp_src)
    y = np.empty(nres)
    for r in range(nres):
        y[r] = delta / capacity[r]
    zero = np.zeros(A)
    length = np.empty(A)
    arc_lengths(col_ptr, col_res, col_val, y, zero, length)
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    acc = np.zeros(n)
    step_flow = np.zeros(A)
    total_flow = np.zeros(A)
    load = np.zeros(nres)
    best_bound = np.inf
    dijkstras = 0
    phases = 0
    touched = np.empty(A, dtype=np.int64)
    mark = np.zeros(n, dtype=np.int64)
    stamp = 0
    # cumulative flow saved at phases 1, 2, 4, ...: the flow of the phases
    # since a checkpoint drops the early, badly informed routing
    chk_flow = np.zeros((64, A))
    chk_phase = np.zeros(64, dtype=np.int64)
    nchk = 1  # checkpoint 0: the empty flow at phase 0
    next_chk = 1
    best_lam = 0.0
    best_flow = np.zeros(A)
    while phases < max_phases:
        # ---- one phase: route every group's full demand once
        for g in range(ngrp):
            remaining = 1.0
            while remaining > 1e-12:
                stamp += 1
                settled = dijkstra_to(indptr, heads, arcs, length, grp_src[g], dist, parent, order,
                                      mark, grp_dst[grp_ptr[g]:grp_ptr[g + 1]], stamp)
                dijkstras += 1
                for k in range(grp_ptr[g], grp_ptr[g + 1]):
                    acc[dem_dst[k]] += remaining * dem_amt[k]
                _tree_flow(order, settled, parent, arc_src, acc, step_flow)
                # resource loads of this step
                nt = 0
                for a in range(A):
                    if step_flow[a] != 0.0:
                        touched[nt] = a
                        nt += 1
                        for kk in range(col_ptr[a], col_ptr[a + 1]):
                            load[col_res[kk]] += col_val[kk] * step_flow[a]
                sigma = 1.0
                for r in range(nres):
                    if load[r] > 0.0:
                        s = capacity[r] / load[r]
                        if s < sigma:
                            sigma = s
                for i in range(nt):
                    a = touched[i]
                    total_flow[a] += sigma * step_flow[a]
                    step_flow[a] = 0.0
                for r in range(nres):
                    if load[r] > 0.0:
                        y[r] *= 1.0 + eps * sigma * load[r] / capacity[r]
                        load[r] = 0.0
                arc_lengths(col_ptr, col_res, col_val, y, zero, length)
                remaining *= 1.0 - sigma
            # group g fully routed in this phase
        phases += 1
        # ---- certified dual bound: D(y) / alpha(y), lengths frozen
        if phases % check_every == 0 or phases >= max_phases:
            Dy = 0.0
            for r in range(nres):
                Dy += capacity[r] * y[r]
            alpha = 0.0
            for g in range(ngrp):
                stamp += 1
                dijkstra_to(indptr, heads, arcs, length, grp_src[g], dist, parent, order,
                            mark, grp_dst[grp_ptr[g]:grp_ptr[g + 1]], stamp)
                dijkstras += 1
                for k in range(grp_ptr[g], grp_ptr[g + 1]):
                    alpha += dem_amt[k] * dist[dem_dst[k]]
            if alpha > 0.0 and Dy / alpha < best_bound:
                best_bound = Dy / alpha
            # primal: the phases since checkpoint c routed every demand
            # (phases - chk_phase[c]) times; keep the best certified one
            for c in range(nchk):
                for r in range(nres):
                    load[r] = 0.0
                for a in range(A):
                    f = total_flow[a] - chk_flow[c, a]
                    if f != 0.0:
                        for kk in range(col_ptr[a], col_ptr[a + 1]):
                            load[col_res[kk]] += col_val[kk] * f
                cong = 0.0
                for r in range(nres):
                    u = load[r] / capacity[r]
                    if u > cong:
                        cong = u
                    load[r] = 0.0
                lam = (phases - chk_phase[c]) / cong
                if lam > best_lam:
                    best_lam = lam
                    for a in range(A):
                        best_flow[a] = (total_flow[a] - chk_flow[c, a]) / cong
            if best_bound <= best_lam * (1.0 + target_gap):
                break
        if phases == next_chk and nchk < 64:
            for a in range(A):
                chk_flow[nchk, a] = total_flow[a]
            chk_phase[nchk] = phases
            nchk += 1
            next_chk *= 2
    return best_flow, best_lam, phases, best_bound, dijkstras
