"""The search's compiled entry points: anneal a run of moves, score a graph,
sample the energy changes of random moves.

The annealing is resumable at any move: everything it needs between calls
is in the graph (:data:`~._graph.Graph`), the best graph seen
(:data:`Best`), the generator state and the statistics vector ``st``
(``ST_*``), so a search run in chunks of any size -- or saved and continued
in another process -- makes exactly the same moves.
"""

from __future__ import annotations

import math
import sys
from collections import namedtuple

from numba import njit

from common.jitcache import refresh_kernel_cache

from . import _bits, _evaluate, _graph, objectives
from ._bits import HELPER, rng_float, rng_int
from ._evaluate import RES_DIAM, RES_LOAD, RES_PRIMARY, RES_SECONDARY, RES_SUM, RES_UNREACH, link_resources, score
from ._graph import dart_ok, drop_port, free_router, log_reset, propose, relift, set_deg, undo, write_link

KERNEL = dict(cache=True, _nrt=False, error_model="numpy")

#: the best graph seen: a copy of the base ports and links
Best = namedtuple("Best", ["bto", "bvolt", "bedge", "bdeg", "eu", "ev", "es", "epu", "epv", "ecount"])

#: the annealing's schedule: run until move ``t_stop``; temperature
#: ``temp0 * (temp1 / temp0) ** (t / hill_from)`` until move ``hill_from``,
#: then 0 (hill climbing: only moves that do not worsen the energy)
Sched = namedtuple("Sched", ["t_stop", "hill_from", "temp0", "temp1", "weights"])

# the statistics vector
ST_T = 0            # moves made so far (the next move's index)
ST_ACCEPTED = 1
ST_IMPROVED = 2     # new best graphs
ST_ABORTED = 3      # evaluations stopped early (rejected)
ST_INVALID = 4      # proposals that were impossible or made an invalid graph
ST_CUR = 5          # the current graph: primary, secondary, diameter, sum, unreachable, load (6 entries)
ST_BEST = 11        # the best graph: the same 6 entries
ST_BEST_T = 17      # the move at which the best was found
NST = 18


@njit(**KERNEL)
def evaluate(G, W, O):
    """Score the graph ``G`` (no early stop); the figures are in ``W.res``."""
    score(G, W, O, math.inf, math.inf)


@njit(**KERNEL)
def resources_of_link(O, u, v, out):
    """The packaging resources link ``u - v`` uses (the ``physical`` objective's), into ``out``; how many."""
    return link_resources(O, u, v, out)


@njit(**HELPER)
def _keep(W, st, at):
    st[at] = W.res[RES_PRIMARY]
    st[at + 1] = W.res[RES_SECONDARY]
    st[at + 2] = W.res[RES_DIAM]
    st[at + 3] = W.res[RES_SUM]
    st[at + 4] = W.res[RES_UNREACH]
    st[at + 5] = W.res[RES_LOAD]


@njit(**HELPER)
def _save_best(G, B):
    m = G.m
    for u in range(m):
        B.bdeg[u] = G.bdeg[u]
        for p in range(G.bdeg[u]):
            B.bto[u, p] = G.bto[u, p]
            B.bvolt[u, p] = G.bvolt[u, p]
            B.bedge[u, p] = G.bedge[u, p]
    ne = G.ecount[0]
    B.ecount[0] = ne
    for e in range(ne):
        B.eu[e] = G.eu[e]
        B.ev[e] = G.ev[e]
        B.es[e] = G.es[e]
        B.epu[e] = G.epu[e]
        B.epv[e] = G.epv[e]


@njit(**KERNEL)
def anneal(G, B, L, W, O, S, rs, st):
    """Make moves ``st[ST_T] .. S.t_stop - 1`` of the annealing. The current
    graph's energy must be in ``st`` (``ST_CUR``), the best in ``ST_BEST``."""
    t = int(st[ST_T])
    cur_p, cur_s = st[ST_CUR], st[ST_CUR + 1]
    ratio = math.log(S.temp1 / S.temp0) if S.temp0 > 0 and S.temp1 > 0 else 0.0
    while t < S.t_stop:
        temp = S.temp0 * math.exp(ratio * t / S.hill_from) if t < S.hill_from else 0.0
        u = rng_float(rs)
        kind = propose(G, L, rs, S.weights)
        t += 1
        if kind < 0:
            st[ST_INVALID] += 1
            continue
        # accept a worse energy with probability exp(-delta / temp): drawn up front, as a threshold
        limit = cur_s - temp * math.log(1.0 - u) if temp > 0 else cur_s
        if not score(G, W, O, cur_p, limit):
            st[ST_ABORTED] += 1
            undo(G, L)
            continue
        p, s2 = W.res[RES_PRIMARY], W.res[RES_SECONDARY]
        if p < cur_p or (p == cur_p and s2 <= limit):
            cur_p, cur_s = p, s2
            st[ST_ACCEPTED] += 1
            _keep(W, st, ST_CUR)
            if p < st[ST_BEST] or (p == st[ST_BEST] and s2 < st[ST_BEST + 1]):
                _keep(W, st, ST_BEST)
                st[ST_BEST_T] = t
                st[ST_IMPROVED] += 1
                _save_best(G, B)
        else:
            undo(G, L)
    st[ST_T] = t


@njit(**KERNEL)
def sample_deltas(G, L, W, O, rs, weights, out):
    """Propose ``len(out)`` random moves from the current graph, score each
    and undo it; ``out[i]`` is the secondary energy's change, NaN where the
    move was impossible or changed the primary energy. Returns how many
    were scored."""
    score(G, W, O, math.inf, math.inf)
    p0, s0 = W.res[RES_PRIMARY], W.res[RES_SECONDARY]
    k = 0
    for i in range(len(out)):
        out[i] = math.nan
        kind = propose(G, L, rs, weights)
        if kind < 0:
            continue
        score(G, W, O, math.inf, math.inf)
        if W.res[RES_PRIMARY] == p0:
            out[i] = W.res[RES_SECONDARY] - s0
            k += 1
        undo(G, L)
    score(G, W, O, math.inf, math.inf)
    return k


@njit(**KERNEL)
def fill(G, L, rs, stubs, tries, shuffles, weights):
    """Fill the free ports with random links, then randomise: with a start
    graph, routers with two free ports or more first split its links; the
    free ports are paired at random (a pair that would make a self-loop or a
    duplicate link is skipped), ports still free are joined by splitting a
    random link (``x, y`` free, ``a - b`` a link: ``x - a`` and ``y - b``) up to
    ``tries`` times, and ``shuffles`` random valid moves follow. Returns the
    ports left free."""
    m, g = G.m, G.g
    if G.ecount[0] > G.nfix:
        # a start graph: a router with two free ports or more splits random links a - b into a - x - b
        # (growing a graph by inserting routers into its links keeps its other distances)
        for x in range(m):
            t = 0
            while G.cap[x] - G.bdeg[x] >= 2 and t < 50 * G.cap[x]:
                t += 1
                log_reset(L, G.ecount[0])
                e = G.nfix + rng_int(rs, G.ecount[0] - G.nfix)
                a, b, s, pa, pb = G.eu[e], G.ev[e], G.es[e], G.epu[e], G.epv[e]
                px = G.bdeg[x]
                set_deg(G, L, x, px + 2)
                ne = G.ecount[0]
                G.ecount[0] = ne + 1
                r = rng_int(rs, g)
                write_link(G, L, e, a, x, r, pa, px)
                write_link(G, L, ne, x, b, (s - r + g) % g, px + 1, pb)
                if dart_ok(G, a, pa) and dart_ok(G, x, px) and dart_ok(G, x, px + 1) and dart_ok(G, b, pb):
                    relift(G, L)
                else:
                    undo(G, L)
    k = 0
    for u in range(m):
        for _ in range(G.cap[u] - G.bdeg[u]):
            stubs[k] = u
            k += 1
    for i in range(k - 1, 0, -1):
        j = rng_int(rs, i + 1)
        stubs[i], stubs[j] = stubs[j], stubs[i]
    for i in range(0, k - 1, 2):
        u, w = stubs[i], stubs[i + 1]
        log_reset(L, G.ecount[0])
        pu = G.bdeg[u]
        set_deg(G, L, u, pu + 1)
        pw = G.bdeg[w]
        set_deg(G, L, w, pw + 1)
        e = G.ecount[0]
        G.ecount[0] = e + 1
        write_link(G, L, e, u, w, rng_int(rs, g), pu, pw)
        if dart_ok(G, u, pu) and dart_ok(G, w, pw):
            relift(G, L)
        else:
            undo(G, L)
    free = 0
    for u in range(m):
        free += G.cap[u] - G.bdeg[u]
    t = 0
    while free > 0 and t < tries and G.ecount[0] - G.nfix > 0:
        t += 1
        log_reset(L, G.ecount[0])
        # free b's end of a random link a - b first, then join a - x and y - b for routers x, y with free ports
        e = G.nfix + rng_int(rs, G.ecount[0] - G.nfix)
        a, b, s = G.eu[e], G.ev[e], G.es[e]
        if a == b:
            continue
        drop_port(G, L, b, G.epv[e])
        pa = G.epu[e]
        x = free_router(G, rs)
        px = G.bdeg[x]
        set_deg(G, L, x, px + 1)
        y = free_router(G, rs)
        if y < 0:
            undo(G, L)
            break
        py = G.bdeg[y]
        set_deg(G, L, y, py + 1)
        pb = G.bdeg[b]
        if pb >= G.cap[b]:
            undo(G, L)
            continue
        set_deg(G, L, b, pb + 1)
        ne = G.ecount[0]
        G.ecount[0] = ne + 1
        r = rng_int(rs, g)
        write_link(G, L, e, a, x, (s + r) % g, pa, px)
        write_link(G, L, ne, y, b, r, py, pb)
        if dart_ok(G, a, pa) and dart_ok(G, x, px) and dart_ok(G, y, py) and dart_ok(G, b, pb):
            relift(G, L)
            free -= 2
        else:
            undo(G, L)
    for _ in range(shuffles):
        propose(G, L, rs, weights)
    return free


refresh_kernel_cache(sys.modules[__name__], (_bits, _evaluate, _graph, objectives))
