"""Scoring a searched graph (numba helpers): bit-parallel all-pairs BFS,
the uniform load of an even shortest-path split, and the objectives' energies.

All-pairs BFS runs from the ``m`` routers of fibre 0 (the lift's symmetry
gives every other source), 64 sources to a machine word: for every router
the set of sources that reached it, one level being an OR over its
neighbours' frontier words (the order/degree solvers' method). Sources go in
blocks of ``B`` words so that a block's three bit arrays stay in cache.

An energy is a pair compared lexicographically: ``primary`` (unreachable
pairs, and for ``aspl`` then the diameter) and ``secondary`` (what the
annealing weighs: the sum of distances, the busiest link's load, a mix, or
the busiest packaging resource's use).

The ``physical`` objective splits the given traffic (``Obj.dptr``...: every
source's demands; none: uniform) evenly over all shortest paths, adds each
link's two directions' loads onto the packaging resources the link uses
(board cross-sections crossed, connectors left, router pins: the same
resources as ``flows.physical``'s model, from the placement in ``Obj.runit``,
``Obj.rslot`` ...) and scores the busiest resource's use over its capacity
in wires -- 1 / lambda of a feasible flow, so a lower bound on the capacity
the physical flow certifies. With uniform wiring every resource is split
equally over the link directions that use it, and the score is the busiest
direction's load over its share.
A move is evaluated against a threshold: when a lower bound on its energy
already exceeds it, the BFS stops early (the move would be rejected anyway,
so the result does not depend on it).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ._bits import HELPER, popcount
from .objectives import OBJ_ASPL, OBJ_PHYSICAL, OBJ_THROUGHPUT

#: scratch of the evaluation: bit arrays of the BFS, the path-split arrays, results
Work = namedtuple("Work", [
    "vis", "fa", "fb", "acc", "full",      # (n, B) x3, (B,) x2 uint64: reached, frontiers, scratch
    "srclb",                               # (m + 1,) float64: cumulative lower bound of a source's distance sum
    "dist", "order", "sigma", "delta",     # (n,) int32, int32, float64, float64: one source's BFS
    "eload",                               # (E,) float64: load of each base link's lifted links
    "res",                                 # (NRES,) float64
    "aload", "tdem",                       # (2E,) float64: each link direction's load; (n,) one source's demands
    "ruse", "rusers", "rids",              # (R,) float64 x2: resource use, users; (k,) int64: one link's resources
])

#: what an objective needs: its code, the mix weight, normalisers
#: (``arcs``: the most directed arcs the port budgets allow, for the lower bounds)
Obj = namedtuple("Obj", [
    "code", "weight", "arcs", "npairs", "aspl_ref", "load_ref", "tie",
    "dptr", "ddst", "damt",                # the traffic by source (CSR; dptr of length 0: uniform)
    "runit", "rslot",                      # (n, L) int32, (n, L, 2) int32: unit and (row, column) slot per level
    "rcut", "rncol",                       # (L, U) int64, int32: a unit's first cut resource (-1: none), its columns
    "rconn", "rrouter",                    # (L,) int64: a level's first connector resource (-1: none); router pins'
    "rcap", "runiform",                    # (R,) float64: capacity in wires; uniform wiring (1) or flexible (0)
    "rpr", "rpc", "rrun",                  # (L, U) float64 x2: slot pitches (m); (L,) float64: connector runs (m)
    "rwire", "rdelay", "dtotal",           # wire ns per m, (D + 1,) router ns by links (none: hops); the traffic's total
])


# results
RES_PRIMARY = 0
RES_SECONDARY = 1
RES_DIAM = 2
RES_SUM = 3          # distances over all ordered router pairs (lifted)
RES_UNREACH = 4      # unreachable ordered pairs
RES_LOAD = 5         # busiest arc's load, unit demand per ordered router pair (throughput, mix)
RES_LAT = 6          # physical: the even split's average latency per unit of traffic (ns, or hops)
NRES = 7

_INF = np.inf


@njit(**HELPER)
def energy_of(O, n, diam, sumd, unr, load):
    """(primary, secondary) of a graph with these figures."""
    if O.code == OBJ_ASPL:
        return unr * (n + 1.0) + diam, sumd
    if O.code == OBJ_THROUGHPUT or O.code == OBJ_PHYSICAL:
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
                # distances bound the mean link's load, not a packaging resource's use
                lb_load = 0.0 if O.code == OBJ_PHYSICAL else lb_sum / O.arcs
                p, s2 = energy_of(O, n, max(diam, level + 1), lb_sum, 0.0, lb_load)
                if p > prim_cur or (p == prim_cur and s2 > limit):
                    return False
        unr += remaining
        sum_done += bsum
    W.res[RES_DIAM] = diam
    W.res[RES_SUM] = g * sum_done
    W.res[RES_UNREACH] = g * unr
    return True


@njit(**HELPER)
def path_counts(G, W, s, left):
    """Breadth-first search from ``s``: ``W.dist``, the number of shortest
    paths ``W.sigma`` and the visiting order ``W.order``; returns how many
    routers it reached. With ``left >= 0`` -- the targets (``W.tdem > 0``)
    still to reach -- it stops after the level of the farthest one (their
    path counts are complete once the level above is)."""
    n = G.n
    adj, deg = G.adj, G.deg
    dist, order, sigma, tdem = W.dist, W.order, W.sigma, W.tdem
    for v in range(n):
        dist[v] = -1
    dist[s] = 0
    sigma[s] = 1.0
    order[0] = s
    head = 0
    tail = 1
    far = n
    while head < tail:
        u = order[head]
        if dist[u] >= far:
            break
        head += 1
        du = dist[u] + 1
        for p in range(deg[u]):
            v = adj[u, p]
            if dist[v] < 0:
                dist[v] = du
                sigma[v] = 0.0
                order[tail] = v
                tail += 1
                if left > 0 and tdem[v] > 0.0:
                    left -= 1
                    if left == 0:
                        far = du
            if dist[v] == du:
                sigma[v] += sigma[u]
    return tail


@njit(**HELPER)
def split_load(G, W):
    """The busiest arc's load when every ordered router pair sends one unit
    split evenly over all its shortest paths (Brandes' accumulation from the
    sources of fibre 0; a lifted link's load is its base link's sum over
    the fibre's sources, and the two directions of a link carry the same)."""
    m = G.m
    adj, deg = G.adj, G.deg
    dist, order, sigma, delta, eload = W.dist, W.order, W.sigma, W.delta, W.eload
    ne = G.ecount[0]
    for e in range(ne):
        eload[e] = 0.0
    for s in range(m):
        tail = path_counts(G, W, s, -1)
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
def demand_split(G, W, O):
    """Each link direction's load (``W.aload[2e]``: ``eu -> ev`` of link
    ``e``, ``[2e + 1]`` back) when every demand is split evenly over all its
    shortest paths (Brandes' accumulation with the demands as weights; a
    plain graph, ``g = 1``)."""
    n = G.n
    adj, deg = G.adj, G.deg
    dist, order, sigma, delta, tdem, aload = W.dist, W.order, W.sigma, W.delta, W.tdem, W.aload
    ne = G.ecount[0]
    uniform = O.dptr.shape[0] == 0
    for a in range(2 * ne):
        aload[a] = 0.0
    for s in range(n):
        if uniform:
            for v in range(n):
                tdem[v] = 1.0
            tdem[s] = 0.0
        else:
            if O.dptr[s + 1] == O.dptr[s]:
                continue
            for v in range(n):
                tdem[v] = 0.0
            for k in range(O.dptr[s], O.dptr[s + 1]):
                tdem[O.ddst[k]] += O.damt[k]
        # targets still to reach: the BFS stops after the level of the farthest one (local traffic
        # reaches its targets in a few levels; path counts there are complete once the level above is)
        left = n - 1
        if not uniform:
            left = 0
            for k in range(O.dptr[s], O.dptr[s + 1]):
                if tdem[O.ddst[k]] > 0.0:
                    left += 1
                    tdem[O.ddst[k]] = -tdem[O.ddst[k]]   # marked: counted once
            for k in range(O.dptr[s], O.dptr[s + 1]):
                if tdem[O.ddst[k]] < 0.0:
                    tdem[O.ddst[k]] = -tdem[O.ddst[k]]
        tail = path_counts(G, W, s, left)
        for i in range(tail):
            delta[order[i]] = 0.0
        for i in range(tail - 1, 0, -1):
            v = order[i]
            f = (tdem[v] + delta[v]) / sigma[v]
            if f == 0.0:
                continue
            dv = dist[v] - 1
            for p in range(deg[v]):
                u = adj[v, p]
                if dist[u] == dv:
                    share = f * sigma[u]
                    delta[u] += share
                    e = G.bedge[v, p]
                    aload[2 * e + (0 if G.eu[e] == u else 1)] += share


@njit(**HELPER)
def link_resources(O, u, v, out):
    """The packaging resources a link ``u - v`` uses, into ``out``; returns how
    many: the cross-section cuts between the two routers' slots on the board
    of their lowest common unit (column gaps, then row gaps), the connectors
    of every unit below it on either side, the two routers' pins."""
    L = O.runit.shape[1]
    k = 0
    lvl = L
    for l in range(L):
        if O.runit[u, l] == O.runit[v, l]:
            lvl = l
            break
    if lvl < L:
        U = O.runit[u, lvl]
        base = O.rcut[lvl, U]
        if base >= 0:
            c1, c2 = O.rslot[u, lvl, 1], O.rslot[v, lvl, 1]
            if c1 > c2:
                c1, c2 = c2, c1
            for gap in range(c1, c2):
                out[k] = base + gap
                k += 1
            r1, r2 = O.rslot[u, lvl, 0], O.rslot[v, lvl, 0]
            if r1 > r2:
                r1, r2 = r2, r1
            off = base + O.rncol[lvl, U] - 1
            for gap in range(r1, r2):
                out[k] = off + gap
                k += 1
    for j in range(lvl):
        if O.rconn[j] >= 0:
            out[k] = O.rconn[j] + O.runit[u, j]
            out[k + 1] = O.rconn[j] + O.runit[v, j]
            k += 2
    if O.rrouter >= 0:
        out[k] = O.rrouter + u
        out[k + 1] = O.rrouter + v
        k += 2
    return k


@njit(**HELPER)
def _soft_top(x, top, acc):
    """Add ``(x / top) ** 8`` to ``acc`` (the smooth maximum's sum)."""
    y = x / top
    y2 = y * y
    y4 = y2 * y2
    return acc + y4 * y4


@njit(**HELPER)
def link_ns(O, u, v, du):
    """The latency of link ``u -> v`` out of a router of ``du`` links: its
    delay plus the wire's (its length as ``flows.physical`` measures it); 1
    (a hop) without delays."""
    if O.rdelay.shape[0] == 0:
        return 1.0
    L = O.runit.shape[1]
    lvl = L
    for l in range(L):
        if O.runit[u, l] == O.runit[v, l]:
            lvl = l
            break
    length = 0.0
    if lvl < L:
        U = O.runit[u, lvl]
        length += abs(O.rslot[u, lvl, 0] - O.rslot[v, lvl, 0]) * O.rpr[lvl, U]
        length += abs(O.rslot[u, lvl, 1] - O.rslot[v, lvl, 1]) * O.rpc[lvl, U]
    for j in range(lvl):
        length += 2.0 * O.rrun[j]
    return O.rdelay[min(du, O.rdelay.shape[0] - 1)] + O.rwire * length


@njit(**HELPER)
def split_latency(G, W, O):
    """The even split's average latency per unit of traffic: every link
    direction's load times its latency, over the traffic's total."""
    total = 0.0
    for e in range(G.ecount[0]):
        x0, x1 = _direction_loads(G, W, e)
        for c in range(G.g):
            a, b = _lifted_ends(G, e, c)
            total += x0 * link_ns(O, a, b, G.deg[a]) + x1 * link_ns(O, b, a, G.deg[b])
    return total / O.dtotal


@njit(**HELPER)
def _lifted_ends(G, e, k):
    """The routers of copy ``k`` of base link ``e``."""
    kk = k + G.es[e]
    if kk >= G.g:
        kk -= G.g
    return k * G.m + G.eu[e], kk * G.m + G.ev[e]


@njit(**HELPER)
def _direction_loads(G, W, e):
    """The loads of the two directions of (every copy of) base link ``e``:
    from the demand split (``g = 1``), or half the uniform split's orbit sum
    (a lift: every copy, both ways, carries the same)."""
    if G.g == 1:
        return W.aload[2 * e], W.aload[2 * e + 1]
    x = 0.5 * W.eload[e]
    return x, x


@njit(**HELPER)
def _share(O, W, k):
    """The equal share of the resources ``W.rids[:k]`` a link direction gets (uniform wiring)."""
    share = np.inf
    for i in range(k):
        c = O.rcap[W.rids[i]] / W.rusers[W.rids[i]]
        if c < share:
            share = c
    return share


@njit(**HELPER)
def resource_use(G, W, O):
    """The busiest packaging resource's use over its capacity (flexible
    wiring), or the busiest link direction's load over its equal share of
    its resources (uniform wiring): ``1 / lambda``; and a smooth maximum of
    the same ratios, ``top * (sum (x / top) ** 8) ** (1/8)``, which the
    annealing weighs -- a move that relieves one of several equally busy
    resources lowers it, where the maximum would not move. Every copy of a
    lifted link uses its own resources."""
    ne = G.ecount[0]
    g = G.g
    ruse, rids = W.ruse, W.rids
    R = ruse.shape[0]
    for r in range(R):
        ruse[r] = 0.0
        W.rusers[r] = 0.0
    top = 0.0
    acc = 0.0
    if O.runiform == 0:
        for e in range(ne):
            x0, x1 = _direction_loads(G, W, e)
            for c in range(g):
                a, b = _lifted_ends(G, e, c)
                k = link_resources(O, a, b, rids)
                for i in range(k):
                    ruse[rids[i]] += x0 + x1
        for r in range(R):
            if ruse[r] > top * O.rcap[r]:
                top = ruse[r] / O.rcap[r]
        if top > 0.0:
            for r in range(R):
                if ruse[r] > 0.0:
                    acc = _soft_top(ruse[r] / O.rcap[r], top, acc)
        return top, top * acc ** 0.125
    for e in range(ne):
        for c in range(g):
            a, b = _lifted_ends(G, e, c)
            k = link_resources(O, a, b, rids)
            for i in range(k):
                W.rusers[rids[i]] += 2.0
    for sweep in range(2):      # the largest ratio, then the smooth maximum's sum over every direction
        for e in range(ne):
            x0, x1 = _direction_loads(G, W, e)
            for c in range(g):
                a, b = _lifted_ends(G, e, c)
                k = link_resources(O, a, b, rids)
                if k == 0:
                    continue
                share = _share(O, W, k)
                for x in (x0, x1):
                    if x > 0.0:
                        if sweep == 0:
                            top = max(top, x / share)
                        elif top > 0.0:
                            acc = _soft_top(x / share, top, acc)
    return top, top * acc ** 0.125


@njit(**HELPER)
def score(G, W, O, prim_cur, limit):
    """Energy of the current graph into ``W.res``; False when stopped early."""
    if not apsp(G, W, O, prim_cur, limit):
        return False
    n = G.n
    sumd, unr = W.res[RES_SUM], W.res[RES_UNREACH]
    if O.code == OBJ_ASPL or unr > 0:
        load = sumd / (2.0 * G.g * G.ecount[0])   # the mean arc's load (what the busiest one is at least)
    elif O.code == OBJ_PHYSICAL:
        if G.g == 1:
            demand_split(G, W, O)
        else:
            split_load(G, W)     # uniform traffic on a lift: the orbit sums (problem.py refuses other traffic)
        load, soft = resource_use(G, W, O)
        W.res[RES_LOAD] = load
        if O.weight > 0.0:
            # the latency's share against the capacity's, each over the start graph's (load_ref, aspl_ref)
            lat = split_latency(G, W, O)
            W.res[RES_LAT] = lat
            soft = (1.0 - O.weight) * soft / O.load_ref + O.weight * lat / O.aspl_ref
        p, s2 = energy_of(O, n, W.res[RES_DIAM], sumd, unr, soft)
        W.res[RES_PRIMARY] = p
        W.res[RES_SECONDARY] = s2
        return True
    else:
        load = split_load(G, W)
    W.res[RES_LOAD] = load
    p, s2 = energy_of(O, n, W.res[RES_DIAM], sumd, unr, load)
    W.res[RES_PRIMARY] = p
    W.res[RES_SECONDARY] = s2
    return True
