"""Private numba helpers: BookSim2's routing functions, as the iq router runs them.

The iq router (:mod:`sim.routers._iq`) routes a head flit when it reaches
the front of its input VC: :func:`route` writes the head's route set --
output ports with a VC range and a priority each, as BookSim2's routing
functions give them (commit 28f4329) -- into the VC's row. The routings are
the registry's entries with an ``iq_code``
(:data:`sim.routing.registry.ROUTING_REGISTRY`):

- ``dor``: ``dim_order_torus`` / ``dim_order_mesh``; on a wrapped dimension
  the VCs split into two classes fixed on entering the dimension
  (:func:`dor_next`, with BookSim2's dateline convention: class 1 for a
  packet that crosses the dateline going +, and for one that does NOT cross
  it going -), the k/2 tie broken at random (:func:`tie_draw`);
- ``min_adapt``: ``min_adapt_torus`` / ``min_adapt_mesh``: DOR escape VCs
  and every productive direction on the others (of equal priority, only
  the first survives BookSim2's ``std::set`` unless ``output_set="all"``);
- ``valiant``: ``valiant_torus`` / ``valiant_mesh``: DOR to a random
  intermediate router, then DOR on; the VCs split by phase.

These are not the simple router's ``dor`` and ``valiant``
(:mod:`sim.routing._simple`: routing records, their own datelines, any
graph); the BookSim2 side-by-side (``benchmarks/bench_booksim.py``) depends
on these semantics.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._draw import mix
from .._jit import HELPER
from ..routers._iq_layout import F_IP, F_RTN, K_DC, K_DIM, K_DIR, K_DR, K_DST, K_HOPS, K_INTM, K_PH, K_TINJ, K_VPH, P_INJ
from .registry import ROUTING_REGISTRY

# BookSim2's routing functions (the registry's ``iq_code``)
RT_DOR = ROUTING_REGISTRY["dor"].iq_code                # dim_order_torus / dim_order_mesh
RT_MIN_ADAPT = ROUTING_REGISTRY["min_adapt"].iq_code    # min_adapt_mesh / min_adapt_torus
RT_VALIANT = ROUTING_REGISTRY["valiant"].iq_code        # valiant_mesh / valiant_torus


@njit(**HELPER)
def tie_draw(seed, p, t_inj, hop):
    """0 or 1, each with probability 1/2: the k/2 tie of packet ``p``
    (injected at ``t_inj``) at its ``hop``-th router. A hash of the run's
    seed and these, not a draw from a generator: the routers of one cycle
    route their heads in any order (on several threads) and still draw the
    same. A packet number is reused only after its packet left, so (number,
    injection cycle) names one packet of the run (splitmix64's finaliser
    spreads the key over the bits: :func:`sim._draw.mix`)."""
    key = (np.uint64(p) << np.uint64(32)) | (np.uint64(t_inj) & np.uint64(0xFFFFFFFF))
    return np.int64(mix(seed, key, hop) >> np.uint64(63))


@njit(**HELPER)
def _add(g, op, v0, v1, pri, net, buf):
    """Add (port, VC range) to the route set of ``g``. BookSim2's OutputSet is
    a ``std::set`` ordered by priority alone, so a second entry of the same
    priority is dropped: its min_adapt keeps only the first productive
    direction. ``net.one_per_pri`` reproduces that; off, every entry counts."""
    k = buf.vcr[g, F_RTN]
    if net.one_per_pri != 0:
        for e in range(k):
            if buf.vcr[g, net.rt0 + 4 * (e) + 3] == pri:
                return
    buf.vcr[g, net.rt0 + 4 * (k)] = op
    buf.vcr[g, net.rt0 + 4 * (k) + 1] = v0
    buf.vcr[g, net.rt0 + 4 * (k) + 2] = v1
    buf.vcr[g, net.rt0 + 4 * (k) + 3] = pri
    buf.vcr[g, F_RTN] = k + 1


@njit(**HELPER)
def dor_next(p, u, tr, turning, net, buf):
    """BookSim2's ``dor_next_torus`` / ``dor_next_mesh`` from router ``u``
    towards router ``tr``: the output port; on entering a dimension (or with
    ``turning``) it fixes the direction (a k/2 tie at random) and, on a
    wrapped dimension, the VC class ``pk_ph``: 1 for a packet that crosses
    the dateline going +, and, as BookSim2 at 28f4329, for one that does NOT
    cross it going -. -1 when ``u`` is ``tr``."""
    own = net.dcp != 0 and tr == buf.pkr[p, K_DR]
    k = -1
    dst = 0
    for kk in range(net.D):
        k2 = net.dim_order[kk]
        c2 = buf.pkr[p, K_DC + k2] if own else net.coords[tr, k2]
        if net.coords[u, k2] != c2:
            k = k2
            dst = c2
            break
    if k < 0:
        return -1
    cur = net.coords[u, k]
    if turning or k != buf.pkr[p, K_DIM]:
        if net.wrap[k] != 0:
            K = net.shape[k]
            dist2 = K - 2 * ((dst - cur + K) % K)
            d = 0 if dist2 > 0 else 1
            if dist2 == 0:
                d = 1 - tie_draw(net.seed, p, buf.pkr[p, K_TINJ], buf.pkr[p, K_HOPS])
            if d == 0:
                buf.pkr[p, K_PH] = 1 if cur > dst else 0
            else:
                buf.pkr[p, K_PH] = 1 if dst < cur else 0
        else:
            d = 0 if cur < dst else 1
            buf.pkr[p, K_PH] = 0
        buf.pkr[p, K_DIR] = d
    return net.out_op[u, k, buf.pkr[p, K_DIR]]


@njit(**HELPER)
def route(g, p, u, net, buf):
    """The route set of the head of input VC ``g`` (packet ``p`` at router
    ``u``): output ports with a VC range each, as BookSim2's routing
    functions (``routing``) give them."""
    V = net.V
    buf.vcr[g, F_RTN] = 0
    dt = buf.pkr[p, K_DST]
    dr = buf.pkr[p, K_DR]
    ip = buf.vcr[g, F_IP]
    wrapped = False
    for k in range(net.D):
        if net.wrap[k] != 0:
            wrapped = True
    rt = net.routing
    if rt == RT_VALIANT:
        injected = net.ipr[ip, P_INJ] != 0
        if buf.pkr[p, K_VPH] == 0 and u == buf.pkr[p, K_INTM]:
            buf.pkr[p, K_VPH] = 1
            buf.pkr[p, K_DIM] = -1          # BookSim2: the next dimension is entered afresh
        tr = buf.pkr[p, K_INTM] if buf.pkr[p, K_VPH] == 0 else dr
        if u == dr and buf.pkr[p, K_VPH] == 1:
            _add(g, net.term_op[dt], 0, V - 1, 0, net, buf)
            return
        op = dor_next(p, u, tr, injected, net, buf)
        v0 = 0
        v1 = V - 1
        if u == dr:
            pass                        # BookSim2 does not split the VCs at the destination router
        elif wrapped:
            ring = V // 2
            if buf.pkr[p, K_PH] == 0:
                v1 -= ring
            else:
                v0 += ring
            half = ring // 2
            if buf.pkr[p, K_VPH] == 0:
                v1 -= half
            else:
                v0 += half
        else:
            half = V // 2
            if buf.pkr[p, K_VPH] == 0:
                v1 -= half
            else:
                v0 += half
        _add(g, op, v0, v1, 0, net, buf)
        return
    if u == dr:
        _add(g, net.term_op[dt], 0, V - 1, 0, net, buf)
        return
    if rt == RT_DOR:
        op = dor_next(p, u, dr, False, net, buf)
        if wrapped:
            half = V // 2
            if buf.pkr[p, K_PH] == 0:
                _add(g, op, 0, V - 1 - half, 0, net, buf)
            else:
                _add(g, op, half, V - 1, 0, net, buf)
        else:
            _add(g, op, 0, V - 1, 0, net, buf)
        return
    # RT_MIN_ADAPT: the injection VC does not count (in_vc = the last VC)
    in_vc = V - 1 if net.ipr[ip, P_INJ] != 0 else g - ip * V
    if wrapped:
        # min_adapt_torus: outside the escape VCs 0/1, every productive
        # direction (a k/2 tie goes -) on VC 3, and the escape re-entered as
        # if injected here; inside them, DOR on VC ph
        if in_vc > 1:
            for kk in range(net.D):
                k = net.dim_order[kk]
                cur = net.coords[u, k]
                dst = buf.pkr[p, K_DC + k] if net.dcp != 0 else net.coords[dr, k]
                if cur != dst:
                    K = net.shape[k]
                    dist2 = K - 2 * ((dst - cur + K) % K)
                    _add(g, net.out_op[u, k, 0 if dist2 > 0 else 1], 3, 3, 1, net, buf)
            op = dor_next(p, u, dr, True, net, buf)
        else:
            op = dor_next(p, u, dr, False, net, buf)
        _add(g, op, buf.pkr[p, K_PH], buf.pkr[p, K_PH], 0, net, buf)
        return
    # min_adapt_mesh: the DOR escape on VC 0; outside it, every productive direction on VCs 1..V-1
    op = dor_next(p, u, dr, False, net, buf)
    _add(g, op, 0, 0, 0, net, buf)
    if in_vc != 0:
        for kk in range(net.D):
            k = net.dim_order[kk]
            cur = net.coords[u, k]
            dst = buf.pkr[p, K_DC + k] if net.dcp != 0 else net.coords[dr, k]
            if cur != dst:
                _add(g, net.out_op[u, k, 0 if cur < dst else 1], 1, V - 1, 1, net, buf)


@njit(**HELPER)
def min_hops(a, b, net):
    """Minimal hops from router ``a`` to ``b`` of a torus or mesh, from their coordinates."""
    h = 0
    for k in range(net.D):
        d = abs(net.coords[a, k] - net.coords[b, k])
        if net.wrap[k] != 0 and net.shape[k] - d < d:
            d = net.shape[k] - d
        h += d
    return h
