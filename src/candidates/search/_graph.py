"""The searched graph's state and its moves (numba helpers).

A searched graph is the lift of a *base* multigraph over the cyclic group
``Z_g`` (a voltage graph): base router ``u`` (``0 <= u < m``) stands for the
``g`` routers ``k*m + u``, and a base link ``u -> v`` with voltage ``s`` stands
for the ``g`` links ``(k*m + u, ((k+s) mod g)*m + v)``. The lift is invariant
under ``x -> x + m (mod n)``, so distances need breadth-first searches from
the ``m`` routers of fibre 0 only (``g`` times less work), and every move is
made on all ``g`` copies at once. ``g = 1`` is a plain graph (voltages 0);
``m = 1`` a circulant.

A placement may forbid links (a maximum length, say): ``allow`` is then an
``(n, ceil(n / 64))`` bit matrix, bit ``v`` of row ``u`` set when ``u - v`` may
be a link, and a move that would make a forbidden link in any copy is
refused like a duplicate link. ``allow`` of no rows allows every pair.

Every router of a fibre has the same ports: port ``p`` of base router ``u``
holds the dart ``(bto[u,p], bvolt[u,p])`` of base link ``bedge[u,p]``; the
lifted adjacency ``adj`` follows from it (:func:`lift_port`). Base links
``0 .. nfix-1`` are fixed (never moved); ``nfix .. ecount-1`` are the
search's. A link is a loop when both ends are the same base router (two
ports there, voltages ``s`` and ``-s``; ``2s != 0 mod g``).

A move writes ports and link records through a log (:data:`Log`); a
rejected move is undone from the log, so the kernels never copy the graph.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ._bits import HELPER, rng_float, rng_int

#: the graph: sizes, lifted adjacency and degree, base ports, base links
Graph = namedtuple("Graph", [
    "n", "m", "g", "nfix",
    "adj", "deg",                          # (n, D) int32, (n,) int32: the lifted graph
    "bto", "bvolt", "bedge", "bdeg", "cap",  # (m, D) int32 x3, (m,) int32 x2: base ports and budgets
    "eu", "ev", "es", "epu", "epv",        # (E,) int32: base link u -> v, voltage s, at ports epu / epv
    "ecount",                              # int64[1]: base links in use
    "allow",                               # (n, W) uint64: pairs that may be links (no rows: all)
])

#: the undo log of one move: port writes, link-record writes, degree changes
Log = namedtuple("Log", [
    "pu", "pp", "pto", "pvolt", "pedge",   # ports written: where, and the old dart
    "le", "leu", "lev", "les", "lepu", "lepv",  # link records written: which, and the old record
    "du", "dold",                          # base degrees changed: where, and the old degree
    "cnt",                                 # int64[4]: ports, links, degrees logged; old ecount
])

# move kinds (the weights in the schedule are indexed by these)
MOVE_SWAP = 0      # 2-opt: (a-b, c-e) -> (a-e, c-b), on the lift's copies at a random shift
MOVE_VOLT = 1      # a new voltage for one link (g > 1)
MOVE_END = 2       # one end of a link to a router with a free port
MOVE_ADD = 3       # a new link between free ports
MOVE_DEL = 4       # remove a link
NMOVES = 5


@njit(**HELPER)
def log_reset(L, ecount):
    L.cnt[0] = 0
    L.cnt[1] = 0
    L.cnt[2] = 0
    L.cnt[3] = ecount


@njit(**HELPER)
def lift_port(G, u, p):
    """Write port ``p`` of base router ``u`` into the lifted adjacency (all ``g`` copies)."""
    m, g = G.m, G.g
    to = G.bto[u, p]
    s = G.bvolt[u, p]
    d = G.bdeg[u]
    for k in range(g):
        v = k * m + u
        G.deg[v] = d
        if p < d:
            kk = k + s
            if kk >= g:
                kk -= g
            G.adj[v, p] = kk * m + to


@njit(**HELPER)
def set_port(G, L, u, p, to, volt, edge):
    i = L.cnt[0]
    L.pu[i] = u
    L.pp[i] = p
    L.pto[i] = G.bto[u, p]
    L.pvolt[i] = G.bvolt[u, p]
    L.pedge[i] = G.bedge[u, p]
    L.cnt[0] = i + 1
    G.bto[u, p] = to
    G.bvolt[u, p] = volt
    G.bedge[u, p] = edge


@njit(**HELPER)
def set_link(G, L, e, u, v, s, pu, pv):
    i = L.cnt[1]
    L.le[i] = e
    L.leu[i] = G.eu[e]
    L.lev[i] = G.ev[e]
    L.les[i] = G.es[e]
    L.lepu[i] = G.epu[e]
    L.lepv[i] = G.epv[e]
    L.cnt[1] = i + 1
    G.eu[e] = u
    G.ev[e] = v
    G.es[e] = s
    G.epu[e] = pu
    G.epv[e] = pv


@njit(**HELPER)
def set_deg(G, L, u, d):
    i = L.cnt[2]
    L.du[i] = u
    L.dold[i] = G.bdeg[u]
    L.cnt[2] = i + 1
    G.bdeg[u] = d


@njit(**HELPER)
def relift(G, L):
    """Lift every port and degree the log touched (after a move or its undo)."""
    for i in range(L.cnt[0]):
        lift_port(G, L.pu[i], L.pp[i])
    for i in range(L.cnt[2]):
        u = L.du[i]
        for p in range(G.bdeg[u]):
            lift_port(G, u, p)
        if G.bdeg[u] == 0:
            for k in range(G.g):
                G.deg[k * G.m + u] = 0


@njit(**HELPER)
def undo(G, L):
    for i in range(L.cnt[0] - 1, -1, -1):
        u, p = L.pu[i], L.pp[i]
        G.bto[u, p] = L.pto[i]
        G.bvolt[u, p] = L.pvolt[i]
        G.bedge[u, p] = L.pedge[i]
    for i in range(L.cnt[1] - 1, -1, -1):
        e = L.le[i]
        G.eu[e] = L.leu[i]
        G.ev[e] = L.lev[i]
        G.es[e] = L.les[i]
        G.epu[e] = L.lepu[i]
        G.epv[e] = L.lepv[i]
    for i in range(L.cnt[2] - 1, -1, -1):
        G.bdeg[L.du[i]] = L.dold[i]
    G.ecount[0] = L.cnt[3]
    relift(G, L)


@njit(**HELPER)
def neg(s, g):
    return 0 if s == 0 else g - s


@njit(**HELPER)
def allowed(G, a, b):
    """Routers ``a`` and ``b`` of the lifted graph may be joined by a link."""
    if G.allow.shape[0] == 0:
        return True
    return (G.allow[a, b >> 6] >> np.uint64(b & 63)) & np.uint64(1) != 0


@njit(**HELPER)
def dart_ok(G, u, p):
    """Port ``p`` of ``u`` is not a self-loop in the lift, duplicates no other
    port of ``u`` and is an allowed link in every copy."""
    to = G.bto[u, p]
    s = G.bvolt[u, p]
    if to == u and (s == 0 or 2 * s == G.g):
        return False
    for q in range(G.bdeg[u]):
        if q != p and G.bto[u, q] == to and G.bvolt[u, q] == s:
            return False
    if G.allow.shape[0] > 0:
        m, g = G.m, G.g
        for k in range(g):
            kk = k + s
            if kk >= g:
                kk -= g
            if not allowed(G, k * m + u, kk * m + to):
                return False
    return True


@njit(**HELPER)
def write_link(G, L, e, u, v, s, pu, pv):
    """Link ``e`` becomes ``u -> v`` (voltage ``s``) at ports ``pu`` of ``u`` and ``pv`` of ``v``."""
    g = G.g
    set_port(G, L, u, pu, v, s, e)
    set_port(G, L, v, pv, u, neg(s, g), e)
    set_link(G, L, e, u, v, s, pu, pv)


@njit(**HELPER)
def drop_port(G, L, u, p):
    """Free port ``p`` of ``u``: the last port moves into its place (ports stay packed)."""
    last = G.bdeg[u] - 1
    if p != last:
        e = G.bedge[u, last]
        set_port(G, L, u, p, G.bto[u, last], G.bvolt[u, last], e)
        # the moved dart's link record points at its new port (for a loop, the end that was there)
        if G.eu[e] == u and G.epu[e] == last:
            set_link(G, L, e, G.eu[e], G.ev[e], G.es[e], p, G.epv[e])
        else:
            set_link(G, L, e, G.eu[e], G.ev[e], G.es[e], G.epu[e], p)
    # the freed slot is logged too, so an undo restores (and relifts) it
    set_port(G, L, u, last, G.bto[u, last], G.bvolt[u, last], G.bedge[u, last])
    set_deg(G, L, u, last)


@njit(**HELPER)
def free_router(G, rs):
    """A random base router with a free port, or -1 (a few draws, then a scan from a random start)."""
    m = G.m
    for _ in range(8):
        u = rng_int(rs, m)
        if G.bdeg[u] < G.cap[u]:
            return u
    start = rng_int(rs, m)
    for i in range(m):
        u = start + i
        if u >= m:
            u -= m
        if G.bdeg[u] < G.cap[u]:
            return u
    return -1


@njit(**HELPER)
def propose(G, L, rs, weights):
    """Make one random move (logged); returns the move kind, or -1 when the
    drawn move was impossible or made an invalid dart (then nothing changed)."""
    g = G.g
    nfix = G.nfix
    log_reset(L, G.ecount[0])
    total = 0.0
    for k in range(NMOVES):
        total += weights[k]
    x = rng_float(rs) * total
    kind = NMOVES - 1
    acc = 0.0
    for k in range(NMOVES):
        acc += weights[k]
        if x < acc:
            kind = k
            break
    nmov = G.ecount[0] - nfix
    if kind == MOVE_SWAP:
        if nmov < 2:
            return -1
        e1 = nfix + rng_int(rs, nmov)
        e2 = nfix + rng_int(rs, nmov - 1)
        if e2 >= e1:
            e2 += 1
        a, b, s, pa, pb = G.eu[e1], G.ev[e1], G.es[e1], G.epu[e1], G.epv[e1]
        c, e, t, pc, pe = G.eu[e2], G.ev[e2], G.es[e2], G.epu[e2], G.epv[e2]
        if rng_float(rs) < 0.5:   # either orientation of the second link
            c, e, t, pc, pe = e, c, neg(t, g), pe, pc
        j = rng_int(rs, g)        # which copy of the second link's orbit the first meets
        x_ = (j + t) % g
        y_ = (s - j + g) % g
        write_link(G, L, e1, a, e, x_, pa, pe)
        write_link(G, L, e2, c, b, y_, pc, pb)
        if not (dart_ok(G, a, pa) and dart_ok(G, e, pe) and dart_ok(G, c, pc) and dart_ok(G, b, pb)):
            undo(G, L)
            return -1
    elif kind == MOVE_VOLT:
        if nmov < 1 or g < 2:
            return -1
        e1 = nfix + rng_int(rs, nmov)
        s = (G.es[e1] + 1 + rng_int(rs, g - 1)) % g
        u, v, pu, pv = G.eu[e1], G.ev[e1], G.epu[e1], G.epv[e1]
        write_link(G, L, e1, u, v, s, pu, pv)
        if not (dart_ok(G, u, pu) and dart_ok(G, v, pv)):
            undo(G, L)
            return -1
    elif kind == MOVE_END:
        if nmov < 1:
            return -1
        w = free_router(G, rs)
        if w < 0:
            return -1
        e1 = nfix + rng_int(rs, nmov)
        u, v, s, pu, pv = G.eu[e1], G.ev[e1], G.es[e1], G.epu[e1], G.epv[e1]
        flip = rng_float(rs) < 0.5
        if flip:
            u, v, s, pu, pv = v, u, neg(s, g), pv, pu
        # the end at v moves to w; packing v's ports may move the u end of a loop: read it back
        drop_port(G, L, v, pv)
        pu = G.epv[e1] if flip else G.epu[e1]
        pw = G.bdeg[w]
        if pw >= G.cap[w]:
            undo(G, L)
            return -1
        set_deg(G, L, w, pw + 1)
        s2 = s if g == 1 or rng_float(rs) < 0.5 else rng_int(rs, g)
        write_link(G, L, e1, u, w, s2, pu, pw)
        if not (dart_ok(G, u, pu) and dart_ok(G, w, pw)):
            undo(G, L)
            return -1
    elif kind == MOVE_ADD:
        u = free_router(G, rs)
        if u < 0:
            return -1
        pu = G.bdeg[u]
        set_deg(G, L, u, pu + 1)
        w = free_router(G, rs)
        if w < 0:
            undo(G, L)
            return -1
        pw = G.bdeg[w]
        set_deg(G, L, w, pw + 1)
        e1 = G.ecount[0]
        if e1 >= len(G.eu):
            undo(G, L)
            return -1
        G.ecount[0] = e1 + 1
        write_link(G, L, e1, u, w, rng_int(rs, g), pu, pw)
        if not (dart_ok(G, u, pu) and dart_ok(G, w, pw)):
            undo(G, L)
            return -1
    else:  # MOVE_DEL
        if nmov < 1:
            return -1
        e1 = nfix + rng_int(rs, nmov)
        last = G.ecount[0] - 1
        u, v = G.eu[e1], G.ev[e1]
        # drop the higher port first when both ends are on one router (a loop)
        pu, pv = G.epu[e1], G.epv[e1]
        if u == v and pu < pv:
            drop_port(G, L, v, pv)
            drop_port(G, L, u, G.epu[e1])
        else:
            drop_port(G, L, u, pu)
            drop_port(G, L, v, G.epv[e1])
        if e1 != last:   # the last link takes e1's id
            lu, lv, ls, lpu, lpv = G.eu[last], G.ev[last], G.es[last], G.epu[last], G.epv[last]
            set_port(G, L, lu, lpu, G.bto[lu, lpu], G.bvolt[lu, lpu], e1)
            set_port(G, L, lv, lpv, G.bto[lv, lpv], G.bvolt[lv, lpv], e1)
            set_link(G, L, e1, lu, lv, ls, lpu, lpv)
        G.ecount[0] = last
    relift(G, L)
    return kind
