"""The PTAS's numba kernel (:func:`gk_fleischer`) and the named structures it
takes and returns; the shortest paths it runs are :mod:`flows._paths`'s."""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np
from numba import njit

from common.jitcache import refresh_kernel_cache

from . import _paths
from ._paths import arc_lengths, push_tree, scratch, sssp

__all__ = ["Resources", "PtasParams", "PtasOutcome", "gk_fleischer"]


class Resources(NamedTuple):
    """The packing constraints ``R @ flow <= capacity``: R by channel (CSC:
    ``col_ptr``, ``col_res``, ``col_val``) and by resource (CSR: ``row_ptr``,
    ``row_arc``, ``row_val``), pointers and indices int64, values float64."""

    col_ptr: np.ndarray
    col_res: np.ndarray
    col_val: np.ndarray
    row_ptr: np.ndarray
    row_arc: np.ndarray
    row_val: np.ndarray
    capacity: np.ndarray


class PtasParams(NamedTuple):
    """The PTAS's knobs (see :func:`flows.ptas.max_concurrent_flow`): the
    initial multiplicative ``step``, the phase budget, the gap to stop at,
    trees cached per group, checks every ``phases // check_div`` phases, the
    initial ``slack`` of a cached tree, and ``decide`` (> 0: stop once lambda
    is certified on either side of it; pre-scaled like the demands)."""

    step: float
    max_phases: int
    target_gap: float
    pool_size: int
    check_div: int
    slack: float
    decide: float


class PtasOutcome(NamedTuple):
    """What :func:`gk_fleischer` returns: the best flow (per channel, its
    congestion not yet divided out) and the lambda it routes (pre-scaled),
    the phases run, the best dual bound, the Dijkstras and pool steps taken,
    and the step and slack it ended with."""

    flow: np.ndarray
    lam: float
    phases: int
    bound: float
    dijkstras: int
    pool_steps: int
    step: float
    slack: float


@njit(cache=True, nogil=True)
def _pool_compact(slot_start, slot_len, gcnt, pa, pv, used, need):
    """Copy the live pool columns to fresh arrays (doubled when more than
    half full); returns (pa, pv, used)."""
    live = 0
    for g in range(slot_start.shape[0]):
        for s in range(gcnt[g]):
            live += slot_len[g, s]
    size = len(pa)
    while live + need > size // 2:
        size *= 2
    na = np.empty(size, dtype=np.int64)
    nv = np.empty(size)
    pos = 0
    for g in range(slot_start.shape[0]):
        for s in range(gcnt[g]):
            st = slot_start[g, s]
            for k in range(slot_len[g, s]):
                na[pos + k] = pa[st + k]
                nv[pos + k] = pv[st + k]
            slot_start[g, s] = pos
            pos += slot_len[g, s]
    return na, nv, pos


# nogil: the caller may run it in a thread and read ``status`` meanwhile
@njit(cache=True, nogil=True)
def gk_fleischer(channels, resources, groups, params, status):
    """Garg-Könemann maximum concurrent flow with Karakostas' grouping by
    source and Fleischer's lazy shortest paths.

    Each group keeps its last ``pool_size`` shortest-path trees (as arc
    flows of its whole demand). A step routes on the cheapest cached tree
    while that costs at most ``(1 + e)`` times a lower bound on the group's
    current shortest-tree cost (lengths only grow, so the cost of the last
    exact tree is one); only otherwise it runs Dijkstra. This keeps GK's
    approximation argument (a (1 + e)-approximate oracle) and makes most
    steps cost a few dozen flops instead of a Dijkstra.

    Demands must be pre-scaled (lambda* of order 1). At phases 1..4 and then
    every ``phases // check_div`` phases the lengths are frozen for a
    certified dual bound D(y)/alpha(y) (one exact tree per group, which also
    refreshes the pool and the lower bounds); the run stops once the best
    primal is within ``target_gap`` of it, or (``decide > 0``) once the
    primal reaches ``decide`` or the bound drops below it. The primal is the best of the
    flows routed since the checkpoints (each a feasible
    routing of every demand (phases - checkpoint) times, scaled by its
    congestion); checkpoints are taken at every check, so the early phases
    routed under uninformed lengths can be dropped at a fine granularity.
    The step ``e`` and the ``slack`` shrink where the gap stops closing (see
    the comments at the check).

    ``channels``: :class:`flows.groups.Channels`; ``resources``:
    :class:`Resources`; ``groups``: :class:`flows.groups.DemandGroups`
    (amounts pre-scaled); ``params``: :class:`PtasParams`. Returns a
    :class:`PtasOutcome`. At every check it writes (phases, best lambda,
    best bound, Dijkstras) into ``status`` (float64, length 4), for progress
    reports only.
    """
    n = len(channels.indptr) - 1
    tails = channels.tails
    heads = channels.heads
    col_ptr, col_res, col_val = resources.col_ptr, resources.col_res, resources.col_val
    row_ptr, row_arc, row_val = resources.row_ptr, resources.row_arc, resources.row_val
    capacity = resources.capacity
    grp_ptr, grp_src, dem_dst, dem_amt = groups.ptr, groups.sources, groups.dst, groups.amount
    e = params.step
    max_phases = params.max_phases
    target_gap = params.target_gap
    pool_size = params.pool_size
    check_div = params.check_div
    slack = params.slack
    decide = params.decide
    A = len(tails)
    m = len(heads)
    nres = len(capacity)
    G = len(grp_src)
    y = np.empty(nres)
    for r in range(nres):
        y[r] = 1.0 / capacity[r]
    length = np.zeros(A)
    arc_lengths(col_ptr, col_res, col_val, y, np.zeros(A), length)
    work = scratch(n, m)
    dist, parent, order = work.dist, work.parent, work.order
    acc = np.zeros(n)
    tree = np.zeros(A)
    tree_t = np.empty(A, dtype=np.int64)
    total_flow = np.zeros(A)
    load = np.zeros(nres)
    res_t = np.empty(nres, dtype=np.int64)
    rmark = np.zeros(nres, dtype=np.int64)
    lb = np.zeros(G)  # lower bound on each group's current shortest-tree cost
    slot_start = np.zeros((G, pool_size), dtype=np.int64)
    slot_len = np.zeros((G, pool_size), dtype=np.int64)
    gcnt = np.zeros(G, dtype=np.int64)
    pa = np.empty(max(1024, 4 * G * pool_size * 8), dtype=np.int64)
    pv = np.empty(len(pa))
    used = 0
    stamp = 0
    dijkstras = 0
    pool_steps = 0
    chk_flow = np.zeros((64, A))
    chk_phase = np.zeros(64, dtype=np.int64)
    nchk = 1
    best_lam = 0.0
    best_flow = np.zeros(A)
    best_bound = np.inf
    phases = 0
    next_check = 1
    last_gap = np.inf
    e_min = min(e, 0.25 * target_gap)
    last_halving = 0
    hist_gap = np.empty(256)
    hist_phase = np.empty(256, dtype=np.int64)
    nhist = 0
    while phases < max_phases:
        for g in range(G):
            remaining = 1.0
            while remaining > 1e-12:
                # cheapest cached tree (and the dearest, to evict)
                bj = -1
                bc = np.inf
                wj = -1
                wc = -1.0
                for s in range(gcnt[g]):
                    c = 0.0
                    st = slot_start[g, s]
                    for k in range(st, st + slot_len[g, s]):
                        c += length[pa[k]] * pv[k]
                    if c < bc:
                        bc = c
                        bj = s
                    if c > wc:
                        wc = c
                        wj = s
                if bj < 0 or bc > (1.0 + slack) * lb[g]:
                    stamp += 1
                    settled = sssp(channels, length, grp_src[g], work, dem_dst[grp_ptr[g]:grp_ptr[g + 1]], stamp)
                    dijkstras += 1
                    c = 0.0
                    for k in range(grp_ptr[g], grp_ptr[g + 1]):
                        acc[dem_dst[k]] += dem_amt[k]
                        c += dem_amt[k] * dist[dem_dst[k]]
                    lb[g] = c
                    nt = push_tree(order, settled, parent, tails, acc, tree, tree_t, 0)
                    if used + nt > len(pa):
                        pa, pv, used = _pool_compact(slot_start, slot_len, gcnt, pa, pv, used, nt)
                    if gcnt[g] < pool_size:
                        bj = gcnt[g]
                        gcnt[g] += 1
                    else:
                        bj = wj
                    slot_start[g, bj] = used
                    slot_len[g, bj] = nt
                    for i in range(nt):
                        a = tree_t[i]
                        pa[used + i] = a
                        pv[used + i] = tree[a]
                        tree[a] = 0.0
                    used += nt
                else:
                    pool_steps += 1
                # route `remaining` of the group on cached tree bj
                stamp += 1
                st = slot_start[g, bj]
                nr = 0
                for k in range(st, st + slot_len[g, bj]):
                    a = pa[k]
                    f = remaining * pv[k]
                    for kk in range(col_ptr[a], col_ptr[a + 1]):
                        r = col_res[kk]
                        if rmark[r] != stamp:
                            rmark[r] = stamp
                            res_t[nr] = r
                            nr += 1
                        load[r] += col_val[kk] * f
                sigma = 1.0
                for i in range(nr):
                    r = res_t[i]
                    if load[r] > 0.0:
                        s_ = capacity[r] / load[r]
                        if s_ < sigma:
                            sigma = s_
                for k in range(st, st + slot_len[g, bj]):
                    total_flow[pa[k]] += sigma * remaining * pv[k]
                for i in range(nr):
                    r = res_t[i]
                    old = y[r]
                    y[r] = old * (1.0 + e * sigma * load[r] / capacity[r])
                    load[r] = 0.0
                    dy = y[r] - old
                    for kk in range(row_ptr[r], row_ptr[r + 1]):
                        length[row_arc[kk]] += row_val[kk] * dy
                remaining *= 1.0 - sigma
        phases += 1
        # keep the lengths representable (GK is invariant under scaling y)
        Dy = 0.0
        for r in range(nres):
            Dy += capacity[r] * y[r]
        for r in range(nres):
            y[r] /= Dy
        for g in range(G):
            lb[g] /= Dy
        if phases >= next_check or phases >= max_phases:
            next_check = phases + max(1, phases // check_div)
            # exact lengths, then one exact tree per group: the dual bound
            arc_lengths(col_ptr, col_res, col_val, y, np.zeros(A), length)
            alpha = 0.0
            for g in range(G):
                stamp += 1
                sssp(channels, length, grp_src[g], work, dem_dst[grp_ptr[g]:grp_ptr[g + 1]], stamp)
                dijkstras += 1
                c = 0.0
                for k in range(grp_ptr[g], grp_ptr[g + 1]):
                    c += dem_amt[k] * dist[dem_dst[k]]
                lb[g] = c
                alpha += c
            if alpha > 0.0 and 1.0 / alpha < best_bound:
                best_bound = 1.0 / alpha
            for c in range(nchk):
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
            status[0] = phases
            status[1] = best_lam
            status[2] = best_bound
            status[3] = dijkstras
            if best_bound <= best_lam * (1.0 + target_gap):
                break
            # decide by a margin: the caller re-derives lam and the bound
            # in unscaled units, a few ulps off these; with decide equal to
            # lambda* (to the last bit) the kernel stopped on a tie that the
            # re-derived lam then missed, and the run ended undecided
            if decide > 0.0 and (best_lam >= decide * (1.0 + 1e-9) or best_bound * (1.0 + 1e-9) < decide):
                break
            # a cached tree up to `slack` longer than shortest can stall the
            # gap above eps (seen on 4-router instances at eps 0.02): past
            # 1000 phases, halve the slack at every check without progress,
            # and below with the step
            gap = best_bound / best_lam - 1.0 if best_lam > 0.0 else np.inf
            if phases >= 1000 and gap >= last_gap * (1.0 - 1e-3):
                slack *= 0.5
            # The step floors the gap too: with a fixed step e the lengths
            # keep oscillating by a factor of about 1 + e, so the averaged
            # primal and the bound from the current lengths each stay O(e)
            # off the optimum however long it runs (a 7-router instance at
            # eps 0.02, step 0.08: primal 0.991 and bound 1.014 of the LP
            # optimum from phase 1500 to 100000, with slack 0 as well; step
            # 0.04 closed it in 4200 phases). While that floor is far away
            # the excess gap falls like 1/phases, nearly halving whenever
            # the phases double; so past 1000 phases, where the gap is above
            # 0.7 times the gap at half the phases, halve the step: at most
            # once per doubling (the new step needs that long to show in the
            # averaged primal) and not below eps/4. Halving at every check
            # without progress, like the slack, drove the step to 1e-21 with
            # check_div 16 and froze the lengths, and the bound, for good.
            if nhist == len(hist_gap):
                hist_gap = np.concatenate((hist_gap, np.empty(nhist)))
                hist_phase = np.concatenate((hist_phase, np.empty(nhist, dtype=np.int64)))
            hist_gap[nhist] = gap
            hist_phase[nhist] = phases
            nhist += 1
            # The slack floors the gap like the step, and a gap that keeps
            # closing slowly never triggers the no-progress rule above: on
            # the BG/L NAS CG candidate with uniform wiring (capacities from
            # 0.39 to 206 wires) the bound sat 13-17% above the primal from
            # phase 2000 to 16000 with slack 0.5 and dropped within a check
            # of each halving of the slack. So the slack halves with the step.
            if phases >= 1000 and phases >= 2 * last_halving:
                h = nhist - 1
                while h > 0 and 2 * hist_phase[h] > phases:
                    h -= 1
                if gap > 0.7 * hist_gap[h]:
                    e = max(0.5 * e, e_min)
                    slack *= 0.5
                    last_halving = phases
            last_gap = min(last_gap, gap)
            # checkpoint at every check; when full, thin out every other
            # one (keeping the first): spacing stays roughly geometric
            if nchk == 64:
                k = 1
                for c in range(2, 64, 2):
                    for a in range(A):
                        chk_flow[k, a] = chk_flow[c, a]
                    chk_phase[k] = chk_phase[c]
                    k += 1
                nchk = k
            for a in range(A):
                chk_flow[nchk, a] = total_flow[a]
            chk_phase[nchk] = phases
            nchk += 1
        else:
            for a in range(A):
                length[a] /= Dy
    return PtasOutcome(best_flow, best_lam, phases, best_bound, dijkstras, pool_steps, e, slack)


# numba checks only this file's source for freshness: the shortest-path
# kernels compiled into gk_fleischer count too
refresh_kernel_cache(sys.modules[__name__], (_paths,))
