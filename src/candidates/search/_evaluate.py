"""Scoring a searched graph (numba helpers): bit-parallel all-pairs BFS,
the uniform load of an even shortest-path split, and the objectives' energies.

All-pairs BFS runs from the ``m`` routers of fibre 0 (the lift's symmetry
gives every other source), 64 sources to a machine word: for every router
the set of sources that reached it, one level being an OR over its
neighbours' frontier words (the order/degree solvers' method). Sources go in
blocks of ``B`` words so that a block's three bit arrays stay in cache.

An energy is a pair compared lexicographically: ``primary`` (unreachable
pairs, and for ``aspl`` then the diameter) and ``secondary`` (what the
annealing weighs: the sum of distances, the busiest link's load, or a mix).
A move is evaluated against a threshold: when a lower bound on its energy
already exceeds it, the BFS stops early (the move would be rejected anyway,
so the result does not depend on it).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ._bits import HELPER, popcount
from .objectives import OBJ_ASPL, OBJ_THROUGHPUT

#: scratch of the evaluation: bit arrays of the BFS, the path-split arrays, results
Work = namedtuple("Work", [
    "vis", "fa", "fb", "acc", "full",      # (n, B) x3, (B,) x2 uint64: reached, frontiers, scratch
    "srclb",                               # (m + 1,) float64: cumulative lower bound of a source's distance sum
    "dist", "order", "sigma", "delta",     # (n,) int32, int32, float64, float64: one source's BFS
    "eload",                               # (E,) float64: load of each base link's lifted links
    "res",                                 # (NRES,) float64
])

#: what an objective needs: its code, the mix weight, normalisers
#: (``arcs``: the most directed arcs the port budgets allow, for the lower bounds)
Obj = namedtuple("Obj", ["code", "weight", "arcs", "npairs", "aspl_ref", "load_ref", "tie"])


# results
RES_PRIMARY = 0
RES_SECONDARY = 1
RES_DIAM = 2
RES_SUM = 3          # distances over all ordered router pairs (lifted)
RES_UNREACH = 4      # unreachable ordered pairs
RES_LOAD = 5         # busiest arc's load, unit demand per ordered router pair (throughput, mix)
NRES = 6

_INF = np.inf


@njit(**HELPER)
def energy_of(O, n, diam, sumd, unr, load):
    """(primary, secondary) of a graph with these figures."""
    if O.code == OBJ_ASPL:
        return unr * (n + 1.0) + diam, sumd
    if O.code == OBJ_THROUGHPUT:
        return unr, load + O.tie * sumd
    return unr, O.weight * (sumd / O.npairs) / O.aspl_ref + (1.0 - O.weight) * load / O.load_ref


@njit(**HELPER)
def apsp(G, W, O, prim_cur, limit):
    """Distances by bit-parallel BFS into ``W.res``; False when stopped early
    because the energy's lower bound exceeds (``prim_cur``, ``limit``)."""
    n, m, g = G.n, G.m, G.g
    adj, deg = G.adj, G.deg
    vis, fa, fb, acc, full = W.vis, W.fa, W.fb, W.acc, W.full
    B = vis.shape[1]
    one = np.uint64(1)
    ones = ~np.uint64(0)
    check = limit < _INF
    diam = 0
    sum_done = 0.0
    unr = 0.0
    bs = 64 * B
    for b0 in range(0, m, bs):
        ns = min(bs, m - b0)
        nw = (ns + 63) >> 6
        for w in range(nw):
            full[w] = ones
        if ns & 63:
            full[nw - 1] = (one << np.uint64(ns & 63)) - one
        rest_lb = W.srclb[m] - W.srclb[b0 + ns]
        for v in range(n):
            for w in range(nw):
                vis[v, w] = 0
                fa[v, w] = 0
        for s in range(ns):
            bit = one << np.uint64(s & 63)
            vis[b0 + s, s >> 6] |= bit
            fa[b0 + s, s >> 6] |= bit
        remaining = ns * (n - 1)
        bsum = 0.0
        level = 0
        cur, nxt = fa, fb
        while remaining > 0:
            level += 1
            cnt = 0
            if nw == 1:
                f0 = full[0]
                for v in range(n):
                    seen = vis[v, 0]
                    if seen == f0:      # every source of the block has reached v
                        nxt[v, 0] = 0
                        continue
                    a = np.uint64(0)
                    for p in range(deg[v]):
                        a |= cur[adj[v, p], 0]
                    x = a & ~seen
                    nxt[v, 0] = x
                    if x != 0:
                        vis[v, 0] = seen | x
                        cnt += popcount(x)
            else:
                for v in range(n):
                    done = True
                    for w in range(nw):
                        acc[w] = 0
                        if vis[v, w] != full[w]:
                            done = False
                    if done:
                        for w in range(nw):
                            nxt[v, w] = 0
                        continue
                    for p in range(deg[v]):
                        u = adj[v, p]
                        for w in range(nw):
                            acc[w] |= cur[u, w]
                    for w in range(nw):
                        x = acc[w] & ~vis[v, w]
                        nxt[v, w] = x
                        if x != 0:
                            vis[v, w] |= x
                            cnt += popcount(x)
            if cnt == 0:
                break
            bsum += level * cnt
            remaining -= cnt
            cur, nxt = nxt, cur
            if level > diam:
                diam = level
            if check and remaining > 0:
                lb_sum = g * (sum_done + bsum + (level + 1.0) * remaining + rest_lb)
                p, s2 = energy_of(O, n, max(diam, level + 1), lb_sum, 0.0, lb_sum / O.arcs)
                if p > prim_cur or (p == prim_cur and s2 > limit):
                    return False
        unr += remaining
        sum_done += bsum
    W.res[RES_DIAM] = diam
    W.res[RES_SUM] = g * sum_done
    W.res[RES_UNREACH] = g * unr
    return True


@njit(**HELPER)
def split_load(G, W):
    """The busiest arc's load when every ordered router pair sends one unit
    split evenly over all its shortest paths (Brandes' accumulation from the
    sources of fibre 0; a lifted link's load is its base link's sum over
    the fibre's sources, and the two directions of a link carry the same)."""
    n, m = G.n, G.m
    adj, deg = G.adj, G.deg
    dist, order, sigma, delta, eload = W.dist, W.order, W.sigma, W.delta, W.eload
    ne = G.ecount[0]
    for e in range(ne):
        eload[e] = 0.0
    for s in range(m):
        for v in range(n):
            dist[v] = -1
        dist[s] = 0
        sigma[s] = 1.0
        order[0] = s
        head = 0
        tail = 1
        while head < tail:
            u = order[head]
            head += 1
            du = dist[u] + 1
            for p in range(deg[u]):
                v = adj[u, p]
                if dist[v] < 0:
                    dist[v] = du
                    sigma[v] = 0.0
                    order[tail] = v
                    tail += 1
                if dist[v] == du:
                    sigma[v] += sigma[u]
        for i in range(tail):
            delta[order[i]] = 0.0
        for i in range(tail - 1, 0, -1):
            v = order[i]
            f = (1.0 + delta[v]) / sigma[v]
            bv = v % m
            dv = dist[v] - 1
            for p in range(deg[v]):
                u = adj[v, p]
                if dist[u] == dv:
                    share = f * sigma[u]
                    delta[u] += share
                    eload[G.bedge[bv, p]] += share
    top = 0.0
    for e in range(ne):
        if eload[e] > top:
            top = eload[e]
    return top / 2.0


@njit(**HELPER)
def score(G, W, O, prim_cur, limit):
    """Energy of the current graph into ``W.res``; False when stopped early."""
    if not apsp(G, W, O, prim_cur, limit):
        return False
    n = G.n
    sumd, unr = W.res[RES_SUM], W.res[RES_UNREACH]
    if O.code == OBJ_ASPL or unr > 0:
        load = sumd / (2.0 * G.g * G.ecount[0])   # the mean arc's load (what the busiest one is at least)
    else:
        load = split_load(G, W)
    W.res[RES_LOAD] = load
    p, s2 = energy_of(O, n, W.res[RES_DIAM], sumd, unr, load)
    W.res[RES_PRIMARY] = p
    W.res[RES_SECONDARY] = s2
    return True
