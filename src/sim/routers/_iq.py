"""Private numba kernel: BookSim2's input-queued virtual-channel router.

A flit-level model of ``iq_router.cpp`` (BookSim2 commit 28f4329) with its
default pipeline, used by ``SimConfig(router="iq")`` (the ``booksim``
preset). The public face is :mod:`sim.routers.iq`; this module holds the state
structures and the per-cycle step.

State lives in four named structures (numba named tuples of arrays), built
once by the driver and advanced by :func:`run` from cycle ``ctl[C_NOW]`` to
a given cycle, so the driver can stop after every sample period (BookSim's
convergence test, progress) and continue:

- ``net``: the network -- ports, channels and their latencies, routing data;
- ``buf``: buffers and router state -- input VCs (rings of flits), output VC
  owners and credits, allocator pointers, the credit wheel, packets;
- ``trf``: traffic -- source queues, injection state, destinations, rates;
- ``acc``: statistics -- counters since the last clear, latency sums, the
  channel loads.

Ports. The input ports (one per arc, at the arc's head router, and one
injection port per terminal) are numbered in router order, router 0's first,
each router's in BookSim2's port order (``net.r_ip_ptr``); so are the output
ports of the routers (arcs and ejection ports, ``net.r_op_ptr``); output
port ``A + T + t`` is terminal ``t``'s own view of its injection buffers.
Input VC ``g = ip * V + v`` and output VC ``o = op * V + v``; an output
port's row names the input port downstream (``Q_DOWN``). Router order makes
everything a visit reads of its own router one contiguous block (ready
cycles, VC rows, port rows, output VCs), read in ascending order as the
routers are visited, and a VC's local index within its router a subtraction.

Timing (defaults 1 cycle per stage, as BookSim2): a head flit that arrives at
cycle ``r`` is routed by ``r + rd - 1``, requests an output VC from
``r + rd`` (VC allocation, every cycle until granted), and from the cycle
after the grant (``+ va``) requests the switch; a flit granted the switch at
``s`` leaves its buffer at ``s + sa - 1``, crosses the crossbar, is sent at
``s + sa - 1 + st`` and arrives ``latency + 1`` cycles later (BookSim2's
channels deliver into the next cycle's ``ReadInputs``). Body flits request
the switch from the cycle they arrive (or the cycle after the previous flit
left). The credit of a flit that left at ``u`` reaches the upstream router
at ``u + latency + 1 + credit_delay``. Terminals inject one flit per cycle
through a 1-cycle channel (``+ 2``) and read ejected flits 2 cycles after
they are sent (returning the credit 2 cycles later). Allocation is
separable iSLIP (``alloc_iters`` iterations, round-robin pointers advanced
on first-iteration grants) for both VC and switch allocation, requests to
the switch one per (input, output) pair (the VC chosen round robin from
the input's offset, as ``_SWAllocAddReq``).
"""

from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from common.jitcache import refresh_kernel_cache

from .. import _draw, events
from .._jit import HELPER, INLINED, KERNEL, KERNEL_PAR
from ..routing import _booksim, _simple, registry
from ..routing._booksim import RT_VALIANT, min_hops, route
from . import _core, _iq_layout
from ._core import GenCounters, arrive, draw_below, draw_dest, start
from ._iq_layout import (
    F_AAPTR,
    F_CNT,
    F_FB,
    F_HEAD,
    F_IP,
    F_OUT,
    F_RTN,
    F_STATE,
    F_T,
    K_DC,
    K_DIM,
    K_DIR,
    K_DR,
    K_DST,
    K_HOPS,
    K_INTM,
    K_LEN,
    K_PH,
    K_REC,
    K_SRC,
    K_TGEN,
    K_TINJ,
    K_VPH,
    O_CRED,
    O_GPTR,
    O_OWNER,
    O_PORT,
    P_INJ,
    P_LAT,
    P_SAAPTR,
    P_SWRR,
    P_UP,
    P_UROUTER,
    Q_ARC,
    Q_DIM,
    Q_DOWN,
    Q_DROUTER,
    Q_LAT,
    Q_ROUTER,
    Q_SAGPTR,
)

# The compile conventions of sim._jit: KERNEL entry points and HELPERs
# inlined by LLVM, all with ``_nrt=False`` (the kernel allocates nothing;
# with numba's runtime every call and attribute access reference-counted the
# ~80 arrays of the structures: 5-6x slower).

# ------------------------------------------------------------ control vector
C_NOW = 0          # next cycle to simulate
C_PHASE = 1        # 0 warming up, 1 running (packets taken now are measured), 2 draining
C_DRAIN_T = 2      # draining: packets generated before this cycle are still measured
C_DEADLOCK = 3     # 1 when the watchdog fired
C_PROGRESS = 4     # last cycle a flit moved
C_RESET_T = 5      # cycle of the last statistics clear
C_GROW = 6         # 1: run stopped before cycle C_NOW because a pool must grow (the driver grows it and goes on)
C_POOL_LOW = 7     # stop when fewer packets than this are free (T while the packet pool can grow, else 0)
NCTL = 8

# --------------------------------------------------------- statistics vector
A_PLAT_SUM = 0     # packet latency (generation to the tail's arrival), sum over sampled packets
A_PLAT_CNT = 1
A_PLAT_SQ = 2      # sum of squares
A_PLAT_MAX = 3
A_NLAT_SUM = 4     # network latency (head injected to tail arrived)
A_HOPS_SUM = 5     # channel hops (not counting the ejection)
A_ACC_FLITS = 6    # flits ejected while warming up or running
A_GEN_FLITS = 7    # flits generated while warming up or running
A_INJ_FLITS = 8    # flits sent into the network while warming up or running
A_TAG_TAKEN = 9    # measured packets taken from their source queue
A_TAG_DONE = 10    # measured packets delivered
A_INFL_FLITS = 11  # flits of taken, undelivered packets (BookSim's in-flight flits)
A_INFL_CSUM = 12   # sum of their generation times
A_DELIVERED = 13   # packets delivered (all time)
A_TAKEN = 14       # packets taken from source queues (all time)
A_OVERFLOW = 15    # packets dropped at a full source queue
A_MINHOPS = 16     # minimal hops of the sampled packets
A_GEN_PKTS = 17
NACC = 18

# --------------------------------------------------------------- VC states
VS_IDLE = 0
VS_VA = 1          # head at the front, routed: waiting for an output VC
VS_ACTIVE = 2      # output VC held: flits request the switch
# ``at``: the cycle from which an input VC asks for an output VC (in state
# VS_VA) or for the switch (VS_ACTIVE: its front flit arrived and is past the
# previous one), NEVER otherwise (a VC asks for one thing at a time, so one
# array: a router's scan reads one contiguous row of it, its state is in the
# VC's row). Cycles are int32 in the state arrays (sim.routers.iq refuses runs that
# could reach it)
NEVER = np.int64(2**31 - 1)
# ``at`` of a routed head none of whose output VCs was idle at its last
# VC allocation: it cannot ask before one of them frees, and all are its
# router's, freed by a tail leaving that router (which sets it back to the
# next cycle, :func:`_unpark`, if the freed VC is one it waits for:
# ``buf.want``). Re-asking every cycle meanwhile changes nothing but costs
# cache misses (past saturation most heads wait so).
PARKED = NEVER - 1
# ``at`` of a VC whose front flit found no credit for its output VC: it
# waits until that credit returns (the credit wheel sets it back to the
# credit's cycle; the VC owns the output VC, so the wheel knows it), instead
# of being listed, and its rows read, at every visit of its router.
NO_CREDIT = NEVER - 2

Net = namedtuple("Net", [
    "n", "A", "T", "V", "B", "D",
    "ipr", "opr",                          # a row per input / output port (P_*, Q_*)
    "r_ip_ptr", "r_op_ptr",                # router u's input / output ports: ptr[u] .. ptr[u + 1] - 1
    "term_router", "term_ip", "term_op",   # a terminal's router, injection input port, ejection output port
    "out_op", "coords", "shape", "wrap", "dim_order",
    "routing", "rd", "va", "sa", "st", "credit_delay", "iters", "watchdog", "self_ok", "one_per_pri",
    "rt0",                                 # the first column of the route set in a row of buf.vcr
    "pf",                                  # 1: prefetch (the state is larger than the caches)
    "dcp",                                 # 1: packets carry their destination's coordinates (K_DC)
    "seed",                                # the run's seed (the routes' tie draws, _booksim.tie_draw)
    "pbound", "tbound",                    # partition q: routers pbound[q] .. pbound[q + 1] - 1, their terminals
])

# Partitions. The routers are split into P contiguous ranges (P = the
# threads), each visited by one thread in a cycle's parallel phase. Every
# effect of a visit on another router is for a later cycle, so the visits of
# one cycle are independent once what they share is split: the fields of
# Buf marked "per partition" have a leading axis of P, and a partition sees
# its own slice (:func:`_view`); a flit or a credit for another partition's
# router goes into an outbox its owner empties at the start of the next
# cycle's phase (``fo``/``co``, double buffered by the cycle's parity: the
# sender fills one while the owner empties the other). The global fields
# (``free``, ``nfree``, Acc's ``v``) are merged at the barrier, in partition
# order, which is router order: the numbers do not depend on P. The packets
# a partition's terminals take come off the free stack in a stretch of its
# own, the partitions' stretches one below the other in partition order
# (``tk``), so the numbers they get do not depend on P either.
Buf = namedtuple("Buf", [
    "vcr", "at", "ovr",
    "wh_cnt", "wh_o",                      # per partition: the credit wheel of its routers' output VCs
    "wi_cnt", "wi_o",                      # per partition: credits of its terminals' injection buffers
    "wake",                                # per partition: routers to visit, a bit each, by cycle slot
    "pkr", "free", "nfree",
    # per partition from here to visit (but ``want``, a row per input VC): a visit's scratch, the heads to route
    "sc_key", "sc_win", "sc_in", "sreq", "omask", "gmask", "touched", "req_g", "req_o", "req_li", "req_lo",
    "sc_mark",                             # VC allocation: the visit that last requested a local output VC
    "rdy", "nrdy",                         # ring of the next visits' ready input VCs (R_*), and their counts
    "want",                                # a parked head's output VCs: the range of its only route entry, or all
    "freed",                               # the output VCs a visit's tails freed
    "pend", "npend",                       # heads to route: (input VC, its router)
    "visit",                               # the routers woken for the current cycle, in router order
    "freed_p", "nfreed_p",                 # per partition: the packets its terminals read out this cycle
    "fo", "fo_n",                          # [parity, sender, owner]: flits for the owner's input VCs
    "co", "co_n",                          # [parity, sender, owner]: credits (cycle, output VC) for the owner
    "moved",                               # per partition: flits moved this cycle
    "me",                                  # per partition: (partition, first router, last router + 1)
    "tk",                                  # per partition: its terminals' takes this cycle, next cycle (TK_*)
])

# the columns of buf.tk: the packets a partition's terminals take in this
# cycle and in the next (counted as they finish a cycle), and where their
# stretch of the free stack starts (the takes of the partitions before it)
TK_NOW = 0
TK_NEXT = 1
TK_OFF = 2

Trf = namedtuple("Trf", [
    "dest_mode", "perm", "cdf", "hot_count", "hot_prob", "rate", "poisson", "len_min", "len_max",
    "src_t", "src_l", "src_head", "src_cnt", "next_gen", "inj_p", "inj_f", "inj_vc", "inj_lvc",
    "cap", "full",                         # the source queues' capacity; full[q] = 1: a row of partition q's
                                           # terminals filled its columns of src_t below it
    "rng_gen", "rng_dst",                  # a terminal's random streams (sim._draw): its arrivals and lengths,
                                           # its packets' destinations and intermediate routers
])

# ``v``: the statistics (A_*); ``pv``: a partition's changes to them in the
# current cycle (integers, so summing them in any order is exact), merged
# into ``v`` at the barrier; ``hist``: the latency histogram, per partition.
Acc = namedtuple("Acc", ["v", "arc_flits", "hist", "pv"])


# =========================================================================
# buffers and credits
# =========================================================================
@njit(**HELPER)
def _wake(u, t, buf):
    """Router ``u`` may have a request at cycle ``t``."""
    W = buf.wake.shape[0]
    buf.wake[t & (W - 1), u >> 6] |= np.uint64(1) << np.uint64(u & 63)


@njit(**HELPER)
def _sa_ready(g, t, u, net, buf):
    """Input VC ``g`` of router ``u`` asks for the switch from cycle ``t``."""
    buf.at[g] = t
    _wake(u, t, buf)


@njit(**HELPER)
def _wheel(t, o, cnt, wo):
    """Output VC ``o`` gets one credit back at cycle ``t`` (a wheel of
    ``wo.shape[0]`` cycles)."""
    W = wo.shape[0]
    s = t & (W - 1)
    c = cnt[s]
    wo[s, c] = o
    cnt[s] = c + 1


@njit(**HELPER)
def _owner(u, net):
    """The partition of router ``u``."""
    q = 0
    while net.pbound[q + 1] <= u:
        q += 1
    return q


@njit(**HELPER)
def _credit_later(t, o, u, net, buf):
    """Output VC ``o`` (of a link port of router ``u``) gets one credit back
    at cycle ``t``: into the wheel of ``u``'s partition, through the outbox
    if that is another one."""
    if buf.me[1] <= u < buf.me[2]:
        _wheel(t, o, buf.wh_cnt, buf.wh_o)
    else:
        q = _owner(u, net)
        k = buf.co_n[q]
        buf.co[q, k, 0] = t
        buf.co[q, k, 1] = o
        buf.co_n[q] = k + 1


@njit(**HELPER)
def _head_front(g, u, now_min, net, buf):
    """The flit at the front of ``g`` (at router ``u``) is a head: it may ask
    for an output VC from ``max(now_min, its arrival) + routing_delay``. Its
    route is computed after the injection or the router visit that brought
    it there (:func:`_route_pending`): no allocation can need it earlier,
    and one call site keeps the compiled kernel small."""
    h = buf.vcr[g, F_HEAD]
    arr = buf.vcr[g, F_FB + 3 * (h) + 2]
    start = arr if arr > now_min else now_min
    buf.vcr[g, F_STATE] = VS_VA
    buf.vcr[g, F_T] = start + net.rd
    buf.at[g] = start + net.rd
    _wake(u, start + net.rd, buf)
    k = buf.npend[0]
    buf.pend[k, 0] = g
    buf.pend[k, 1] = u
    buf.npend[0] = k + 1


@njit(**HELPER)
def _route_pending(net, buf):
    """Route the heads that reached the front of their VC (their tie
    draws depend on the packet, not on this order), prefetching what the
    routes of the next few read (their VC rows and routers' coordinates,
    then their packets, then the destinations' coordinates when packets do
    not carry them)."""
    npend = buf.npend[0]
    for k in range(npend):
        if net.pf != 0:
            if k + 3 * PF_NEAR < npend:
                g = buf.pend[k + 3 * PF_NEAR, 0]
                u = buf.pend[k + 3 * PF_NEAR, 1]
                _prefetch(buf.vcr, g, 0)
                _prefetch(buf.vcr, g, 16)
                _prefetch(net.coords, u, 0)
                _prefetch(net.out_op, u, 0)
            if k + 2 * PF_NEAR < npend:
                g = buf.pend[k + 2 * PF_NEAR, 0]
                _prefetch(buf.pkr, buf.vcr[g, F_FB + 3 * (buf.vcr[g, F_HEAD])], 0)
            if k + PF_NEAR < npend and net.dcp == 0:
                g = buf.pend[k + PF_NEAR, 0]
                _prefetch(net.coords, buf.pkr[buf.vcr[g, F_FB + 3 * (buf.vcr[g, F_HEAD])], K_DR], 0)
        g = buf.pend[k, 0]
        route(g, buf.vcr[g, F_FB + 3 * (buf.vcr[g, F_HEAD])], buf.pend[k, 1], net, buf)
    buf.npend[0] = 0


@njit(**HELPER)
def _push(g, u, p, fi, arr, net, buf):
    """Flit ``fi`` of packet ``p`` enters input VC ``g`` of router ``u`` (arriving at ``arr``)."""
    B = net.B
    k = buf.vcr[g, F_HEAD] + buf.vcr[g, F_CNT]
    if k >= B:
        k -= B
    buf.vcr[g, F_FB + 3 * (k)] = p
    buf.vcr[g, F_FB + 3 * (k) + 1] = fi
    buf.vcr[g, F_FB + 3 * (k) + 2] = arr
    buf.vcr[g, F_CNT] += 1
    if buf.vcr[g, F_CNT] == 1:
        if buf.vcr[g, F_STATE] == VS_IDLE:
            _head_front(g, u, arr, net, buf)
        elif buf.vcr[g, F_STATE] == VS_ACTIVE:
            t = buf.vcr[g, F_T]
            _sa_ready(g, arr if arr > t else t, u, net, buf)


# =========================================================================
# terminals: injection and ejection
# =========================================================================
@njit(**HELPER)
def _take(t, p, now, net, buf, trf, acc, phase, drain_t):
    """Terminal ``t`` takes the packet at the head of its source queue as
    packet ``p`` (BookSim2 generates it then: destination drawn from the
    terminal's destination stream, measured if taken while running)."""
    h = trf.src_head[t]
    cap = trf.src_t.shape[1]
    tg = trf.src_t[t, h]
    L = trf.src_l[t, h]
    trf.src_head[t] = h + 1 if h + 1 < cap else 0
    trf.src_cnt[t] -= 1
    d = draw_dest(t, net.T, trf, net.self_ok != 0, trf.rng_dst)
    buf.pkr[p, K_DST] = d
    dr = net.term_router[d]
    buf.pkr[p, K_DR] = dr
    if net.dcp != 0:
        for k in range(net.D):
            buf.pkr[p, K_DC + k] = net.coords[dr, k]
    buf.pkr[p, K_LEN] = L
    buf.pkr[p, K_SRC] = net.term_router[t]
    buf.pkr[p, K_TGEN] = tg
    buf.pkr[p, K_TINJ] = -1
    buf.pkr[p, K_HOPS] = 0
    buf.pkr[p, K_DIM] = -1
    buf.pkr[p, K_PH] = 0
    buf.pkr[p, K_DIR] = 0
    buf.pkr[p, K_VPH] = 0
    if net.routing == RT_VALIANT:
        buf.pkr[p, K_INTM] = net.term_router[draw_below(t, net.T, trf.rng_dst)]
    rec = phase == 1 or (phase == 2 and tg < drain_t)
    buf.pkr[p, K_REC] = 1 if rec else 0
    a = acc.v
    if rec:
        a[A_TAG_TAKEN] += 1
    a[A_TAKEN] += 1
    a[A_INFL_FLITS] += L
    a[A_INFL_CSUM] += L * tg


@njit(**HELPER)
def _takes_next(t, now, trf):
    """1 if terminal ``t`` will take a packet in cycle ``now + 1`` (it
    injects none and its queue holds one, or one arrives then)."""
    return 1 if trf.inj_p[t] < 0 and (trf.src_cnt[t] > 0 or trf.next_gen[t] <= now + 1) else 0


@njit(**HELPER)
def _terminals(q, now, net, buf, trf, acc, phase, drain_t, pool, top):
    """Terminals ``net.tbound[q] .. net.tbound[q + 1] - 1`` in cycle ``now``:
    first every arrival joins its source queue (a tight loop over the
    arrival times), then each terminal in turn takes the next packet if it
    injects none (its number the next one down the free stack
    ``pool`` from ``top``: the partitions' takers get consecutive stretches
    of the stack in terminal order, as one thread taking them all would),
    sends at most one flit into its injection port (a head takes the first
    idle injection VC with a credit, round robin from the last one used:
    the traffic manager's rule), and is counted if it takes a packet next
    cycle (``buf.tk``). Every draw is from the terminal's own streams."""
    V = net.V
    A = net.A
    T = net.T
    a = acc.v
    at = GenCounters(A_GEN_PKTS, A_GEN_FLITS, -1, -1, A_OVERFLOW)
    t0 = net.tbound[q]
    t1 = net.tbound[q + 1]
    # the source queues' packets are BookSim2's: none is measured before it is taken
    for t in range(t0, t1):
        if trf.next_gen[t] <= now:
            if arrive(t, now, phase < 2, trf, a, at, trf.rng_gen):
                trf.full[q] = 1
    k = 0
    nxt = 0
    for t in range(t0, t1):
        p = trf.inj_p[t]
        if p < 0:
            if trf.src_cnt[t] == 0:
                # idle: it takes a packet next cycle only if one arrives then
                if trf.next_gen[t] <= now + 1:
                    nxt += 1
                continue
            k += 1
            p = pool[top - k]
            _take(t, p, now, net, buf, trf, acc, phase, drain_t)
            trf.inj_p[t] = p
            trf.inj_f[t] = 0
            trf.inj_vc[t] = -1
        base = (A + T + t) * V
        if trf.inj_vc[t] < 0:
            lvc = trf.inj_lvc[t]
            vc = -1
            for i in range(1, V + 1):
                c = 0 if (lvc < 0 or lvc > V - 1) else (lvc + i) % V
                if buf.ovr[base + c, O_OWNER] < 0 and buf.ovr[base + c, O_CRED] > 0:
                    vc = c
                    break
            if vc >= 0:
                buf.ovr[base + vc, O_OWNER] = t
                trf.inj_lvc[t] = vc
                trf.inj_vc[t] = vc
        if trf.inj_vc[t] >= 0:
            o = base + trf.inj_vc[t]
            if buf.ovr[o, O_CRED] > 0:
                fi = trf.inj_f[t]
                buf.ovr[o, O_CRED] -= 1
                if fi == 0:
                    buf.pkr[p, K_TINJ] = now
                if phase < 2:
                    a[A_INJ_FLITS] += 1
                _push(net.term_ip[t] * V + trf.inj_vc[t], net.term_router[t], p, fi, now + 2, net, buf)
                if fi == buf.pkr[p, K_LEN] - 1:
                    buf.ovr[o, O_OWNER] = -1
                    trf.inj_p[t] = -1
                else:
                    trf.inj_f[t] = fi + 1
        nxt += _takes_next(t, now, trf)
    return k, nxt


@njit(**HELPER)
def _eject(p, fi, t_read, net, buf, acc, phase):
    """The terminal reads flit ``fi`` of ``p`` at ``t_read``."""
    a = acc.v
    if phase < 2:
        a[A_ACC_FLITS] += 1
    a[A_INFL_FLITS] -= 1
    a[A_INFL_CSUM] -= buf.pkr[p, K_TGEN]
    if fi != buf.pkr[p, K_LEN] - 1:
        return
    a[A_DELIVERED] += 1
    rec = buf.pkr[p, K_REC] != 0
    if phase == 0 or rec:
        lat = t_read - buf.pkr[p, K_TGEN]
        a[A_PLAT_SUM] += lat
        a[A_PLAT_CNT] += 1
        a[A_PLAT_SQ] += lat * lat
        if lat > a[A_PLAT_MAX]:
            a[A_PLAT_MAX] = lat
        a[A_NLAT_SUM] += t_read - buf.pkr[p, K_TINJ]
        a[A_HOPS_SUM] += buf.pkr[p, K_HOPS]
        ur = buf.pkr[p, K_DR]
        a[A_MINHOPS] += min_hops(buf.pkr[p, K_SRC], ur, net)
        hb = acc.hist.shape[0] - 1
        acc.hist[lat if lat < hb else hb] += 1
    if rec:
        a[A_TAG_DONE] += 1
    nf = buf.nfree[0]
    buf.free[nf] = p
    buf.nfree[0] = nf + 1


# =========================================================================
# the router
# =========================================================================
@njit(**HELPER)
def _va_grant(g, o, li, lo, first, u, now, NIV, NOV, net, buf):
    """Input VC ``g`` (local index ``li``) gets output VC ``o`` (``lo``);
    the round-robin pointers move on a first-iteration grant."""
    buf.ovr[o, O_OWNER] = g
    buf.vcr[g, F_OUT] = o
    dim = net.opr[buf.ovr[o, O_PORT], Q_DIM]
    if dim >= 0:
        buf.pkr[buf.vcr[g, F_FB + 3 * (buf.vcr[g, F_HEAD])], K_DIM] = dim
    buf.vcr[g, F_STATE] = VS_ACTIVE
    buf.vcr[g, F_T] = now + net.va
    _sa_ready(g, now + net.va, u, net, buf)
    if first:
        buf.ovr[o, O_GPTR] = li + 1 if li + 1 < NIV else 0
        buf.vcr[g, F_AAPTR] = lo + 1 if lo + 1 < NOV else 0


@njit(**HELPER)
def _vc_alloc(u, r, now, net, buf):
    """Separable iSLIP VC allocation at router ``u`` for its heads listed
    in ring row ``r`` (in router order): every routed head asks for every
    idle output VC of its range."""
    V = net.V
    i0 = net.r_ip_ptr[u]
    i1 = net.r_ip_ptr[u + 1]
    o0 = net.r_op_ptr[u]
    o1 = net.r_op_ptr[u + 1]
    NIV = (i1 - i0) * V
    NOV = (o1 - o0) * V
    j0 = i0 * V
    k0 = o0 * V
    nreq = 0
    nready = 0
    stamp = now * net.n + u             # marks the output VCs requested in this visit
    shared = False                      # an output VC has two requests
    for q in range(buf.nrdy[r, R_VA]):
        g = buf.rdy[r, R_VA, q]
        nreq0 = nreq
        for e in range(buf.vcr[g, F_RTN]):
            op = buf.vcr[g, net.rt0 + 4 * (e)]
            for ov in range(buf.vcr[g, net.rt0 + 4 * (e) + 1], buf.vcr[g, net.rt0 + 4 * (e) + 2] + 1):
                o = op * V + ov
                if buf.ovr[o, O_OWNER] < 0:
                    lo = o - k0
                    if buf.sc_mark[lo] == stamp:
                        shared = True
                    buf.sc_mark[lo] = stamp
                    buf.req_g[nreq] = g
                    buf.req_o[nreq] = o
                    buf.req_li[nreq] = g - j0
                    buf.req_lo[nreq] = lo
                    nreq += 1
        if nreq == nreq0:
            buf.at[g] = PARKED
            if buf.vcr[g, F_RTN] == 1:
                op = buf.vcr[g, net.rt0]
                buf.want[g, 0] = op * V + buf.vcr[g, net.rt0 + 1]
                buf.want[g, 1] = op * V + buf.vcr[g, net.rt0 + 2]
            else:
                buf.want[g, 0] = 0
                buf.want[g, 1] = NEVER
        else:
            nready += 1
    granted = 0
    if not shared:
        # every requested output VC grants its only request, every input VC
        # accepts the first of its requests from its pointer, and no request
        # is left for later iterations: iSLIP's result in one pass
        k = 0
        while k < nreq:
            g = buf.req_g[k]
            best = k
            bkey = NOV
            while k < nreq and buf.req_g[k] == g:
                key = buf.req_lo[k] - buf.vcr[g, F_AAPTR]
                if key < 0:
                    key += NOV
                if key < bkey:
                    best = k
                    bkey = key
                k += 1
            _va_grant(g, buf.req_o[best], buf.req_li[best], buf.req_lo[best], True, u, now, NIV, NOV, net, buf)
            granted += 1
        nreq = 0
    for it in range(net.iters):
        if nreq == 0:
            break
        # grant: every requested output VC picks the first requester from its pointer
        for k in range(nreq):
            buf.sc_win[buf.req_lo[k]] = -1
        any_req = False
        for k in range(nreq):
            g = buf.req_g[k]
            o = buf.req_o[k]
            if g < 0 or buf.ovr[o, O_OWNER] >= 0 or buf.vcr[g, F_STATE] != VS_VA:
                continue
            any_req = True
            lo = buf.req_lo[k]
            li = buf.req_li[k]
            key = li - buf.ovr[o, O_GPTR]
            if key < 0:
                key += NIV
            w = buf.sc_win[lo]
            if w < 0 or key < buf.sc_key[lo]:
                buf.sc_win[lo] = k
                buf.sc_key[lo] = key
        if not any_req:
            break
        # accept: every input VC picks the first granting output from its pointer
        for k in range(nreq):
            g = buf.req_g[k]
            if g >= 0:
                buf.sc_in[buf.req_li[k]] = -1
        for k in range(nreq):
            g = buf.req_g[k]
            if g < 0:
                continue
            lo = buf.req_lo[k]
            if buf.sc_win[lo] != k:
                continue
            li = buf.req_li[k]
            key = lo - buf.vcr[g, F_AAPTR]
            if key < 0:
                key += NOV
            w = buf.sc_in[li]
            if w < 0 or key < buf.sc_key[NOV + li]:
                buf.sc_in[li] = k
                buf.sc_key[NOV + li] = key
        for k in range(nreq):
            g = buf.req_g[k]
            if g < 0:
                continue
            li = buf.req_li[k]
            if buf.sc_in[li] != k:
                continue
            o = buf.req_o[k]
            lo = buf.req_lo[k]
            _va_grant(g, o, li, lo, it == 0, u, now, NIV, NOV, net, buf)
            granted += 1
            buf.sc_in[li] = -2
        # matched inputs and outputs leave the next iterations
        for k in range(nreq):
            g = buf.req_g[k]
            if g >= 0 and buf.vcr[g, F_STATE] != VS_VA:
                buf.req_g[k] = -1
    if granted < nready:
        _wake(u, now + 1, buf)          # the others ask again next cycle


@njit(**HELPER)
def _low_bit(mask):
    """The index of the lowest set bit of a non-zero ``mask``."""
    return np.int64(trailing_zeros(mask))


@njit(**HELPER)
def _first_from(mask, start, size):
    """The first set bit of ``mask`` at or after ``start``, wrapping (-1 if none)."""
    hi = mask >> np.uint64(start)
    if hi != 0:
        return start + _low_bit(hi)
    if mask != 0:
        return _low_bit(mask)
    return -1


@njit(**HELPER)
def _sw_alloc(u, r, now, net, buf, acc, phase):
    """Separable iSLIP switch allocation at router ``u`` for its flits
    listed in ring row ``r`` (in router order) and the moves of the winning
    flits. Requests are kept as bit masks (input ports of every output,
    ``omask``; granting outputs of every input, ``gmask``), so only
    requested outputs and granted inputs are visited. Returns the flits moved."""
    V = net.V
    i0 = net.r_ip_ptr[u]
    i1 = net.r_ip_ptr[u + 1]
    o0 = net.r_op_ptr[u]
    o1 = net.r_op_ptr[u + 1]
    NI = i1 - i0
    NO = o1 - o0
    sreq = buf.sreq
    omask = buf.omask
    gmask = buf.gmask
    touched = buf.touched
    nt = 0
    nreq = 0
    for q in range(buf.nrdy[r, R_SA]):
        g = buf.rdy[r, R_SA, q]
        o = buf.vcr[g, F_OUT]
        if buf.ovr[o, O_CRED] <= 0:
            buf.at[g] = NO_CREDIT
            continue
        nreq += 1
        ip = buf.vcr[g, F_IP]
        li = ip - i0
        v = g - ip * V
        rr = net.ipr[ip, P_SWRR]
        lo = buf.ovr[o, O_PORT] - o0
        bit = np.uint64(1) << np.uint64(li)
        if omask[lo] & bit:
            cur = sreq[li, lo]
            a1 = v - rr
            if a1 < 0:
                a1 += V
            a2 = cur - rr
            if a2 < 0:
                a2 += V
            if a1 >= a2:
                continue
        else:
            if omask[lo] == 0:
                touched[nt] = lo
                nt += 1
            omask[lo] |= bit
        sreq[li, lo] = v
    if nt == 0:
        return 0
    in_m = buf.sc_in
    matched = np.uint64(0)
    moved = 0
    nfreed = 0                          # tails that left: their output VCs are idle again
    for it in range(net.iters):
        # grant: every requested, unmatched output picks the first unmatched input from its pointer
        granted = np.uint64(0)
        for k in range(nt):
            lo = touched[k]
            if omask[lo] == 0:
                continue
            li = _first_from(omask[lo], net.opr[o0 + lo, Q_SAGPTR], NI)
            gmask[li] |= np.uint64(1) << np.uint64(lo)
            granted |= np.uint64(1) << np.uint64(li)
        if granted == 0:
            break                               # nothing changes in later iterations
        # accept: every granted input picks the first granting output from its pointer
        matched |= granted
        while granted != 0:
            li = _low_bit(granted)
            granted &= granted - np.uint64(1)
            ip = i0 + li
            lo = _first_from(gmask[li], net.ipr[ip, P_SAAPTR], NO)
            gmask[li] = 0
            in_m[li] = lo
            if it == 0:
                net.opr[o0 + lo, Q_SAGPTR] = li + 1 if li + 1 < NI else 0
                net.ipr[ip, P_SAAPTR] = lo + 1 if lo + 1 < NO else 0
            omask[lo] = 0                       # a matched output takes no more grants
            bit = ~(np.uint64(1) << np.uint64(li))
            for k in range(nt):                 # nor does a matched input get any
                omask[touched[k]] &= bit
    for k in range(nt):
        omask[touched[k]] = 0
    while matched != 0:
        li = _low_bit(matched)
        matched &= matched - np.uint64(1)
        lo = in_m[li]
        ip = i0 + li
        v = sreq[li, lo]
        net.ipr[ip, P_SWRR] = v + 1 if v + 1 < V else 0
        g = ip * V + v
        o = buf.vcr[g, F_OUT]
        if _move(g, u, now + net.sa - 1, net, buf, acc, phase):
            buf.freed[nfreed] = o
            nfreed += 1
        moved += 1
    if nfreed > 0:
        _unpark(u, now + 1, nfreed, net, buf)
    if moved < nreq:
        _wake(u, now + 1, buf)          # the losers ask again next cycle
    return moved


@njit(**HELPER)
def _unpark(u, t, nfreed, net, buf):
    """The output VCs ``buf.freed[:nfreed]`` of router ``u`` are idle again:
    the parked heads waiting for one of them ask for output VCs again from
    cycle ``t`` (the others would find none idle)."""
    V = net.V
    j1 = net.r_ip_ptr[u + 1] * V
    for j in range(net.r_ip_ptr[u] * V, j1):
        if buf.at[j] == PARKED:
            for q in range(nfreed):
                o = buf.freed[q]
                if buf.want[j, 0] <= o <= buf.want[j, 1]:
                    buf.at[j] = t
                    _wake(u, t, buf)
                    break


@njit(**HELPER)
def _move(g, u, t_out, net, buf, acc, phase):
    """The front flit of input VC ``g`` of router ``u`` leaves its buffer at
    ``t_out``; True if it was a tail (its output VC is idle again)."""
    V = net.V
    B = net.B
    h = buf.vcr[g, F_HEAD]
    p = buf.vcr[g, F_FB + 3 * (h)]
    fi = buf.vcr[g, F_FB + 3 * (h) + 1]
    buf.vcr[g, F_HEAD] = h + 1 if h + 1 < B else 0
    buf.vcr[g, F_CNT] -= 1
    ip = buf.vcr[g, F_IP]
    v = g - ip * V
    # the credit of the freed slot goes upstream
    up = net.ipr[ip, P_UP]
    if net.ipr[ip, P_INJ] == 0:
        _credit_later(t_out + net.ipr[ip, P_LAT] + 1 + net.credit_delay, up * V + v, net.ipr[ip, P_UROUTER], net,
                      buf)
    else:
        _wheel(t_out + net.ipr[ip, P_LAT] + 1, up * V + v, buf.wi_cnt, buf.wi_o)
    o = buf.vcr[g, F_OUT]
    op = buf.ovr[o, O_PORT]
    buf.ovr[o, O_CRED] -= 1
    tail = fi == buf.pkr[p, K_LEN] - 1
    buf.at[g] = NEVER
    if tail:
        buf.ovr[o, O_OWNER] = -1
    t_send = t_out + net.st
    down = net.opr[op, Q_DOWN]
    if down >= 0:
        if fi == 0:
            buf.pkr[p, K_HOPS] += 1
        if phase < 2:
            acc.arc_flits[net.opr[op, Q_ARC]] += 1
        d = down * V + o - op * V
        ud = net.opr[op, Q_DROUTER]
        arr = t_send + net.opr[op, Q_LAT] + 1
        if buf.me[1] <= ud < buf.me[2]:
            _push(d, ud, p, fi, arr, net, buf)
        else:
            # another partition's router: its owner pushes the flit at the start of the next cycle's
            # phase; the flit arrives later, and what a visit of this cycle does is the same with it
            # in the ring or not (a push changes the VC's state only when the ring was empty)
            q = _owner(ud, net)
            k = buf.fo_n[q]
            buf.fo[q, k, 0] = d
            buf.fo[q, k, 1] = ud
            buf.fo[q, k, 2] = p
            buf.fo[q, k, 3] = fi
            buf.fo[q, k, 4] = arr
            buf.fo_n[q] = k + 1
    else:
        t_read = t_send + net.opr[op, Q_LAT] + 1
        _eject(p, fi, t_read, net, buf, acc, phase)
        _wheel(t_read + net.opr[op, Q_LAT] + 1, o, buf.wh_cnt, buf.wh_o)
    if tail:
        if buf.vcr[g, F_CNT] > 0:
            _head_front(g, u, t_out + 1, net, buf)
        else:
            buf.vcr[g, F_STATE] = VS_IDLE
    else:
        buf.vcr[g, F_T] = t_out + 1
        if buf.vcr[g, F_CNT] > 0:
            a = buf.vcr[g, F_FB + 3 * (buf.vcr[g, F_HEAD]) + 2]
            _sa_ready(g, a if a > t_out + 1 else t_out + 1, u, net, buf)
    return tail


# =========================================================================
# the driver step
# =========================================================================
@intrinsic
def _prefetch(typingctx, arr, i, j):
    """Ask the memory system for the cache line of ``arr[i, j]`` (of
    ``arr[i]`` for a 1-d array, ``arr[i, j, 0]`` for a 3-d one), to be
    written soon (LLVM's ``llvm.prefetch``). A hint only: no value changes,
    and it never faults."""
    def codegen(context, builder, sig, args):
        aty = sig.args[0]
        ary = context.make_array(aty)(context, builder, args[0])
        idx = [context.cast(builder, a, t, types.intp) for a, t in zip(args[1:], sig.args[1:])][:aty.ndim]
        idx += [context.get_constant(types.intp, 0)] * (aty.ndim - len(idx))
        ptr = cgutils.get_item_pointer(context, builder, aty, ary, idx, wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(arr, i, j), codegen


# A visit's ready input VCs are listed PF_FAR visits ahead and sorted into
# heads asking for an output VC and flits asking for the switch PF_NEAR
# ahead, each list kept in a ring of RING rows (buf.rdy), and with
# prefetching (net.pf) the rows the visit will touch are asked for at both
# stages: the ready VCs' rows and the router's port blocks when listing,
# what these rows lead to (packets, route sets, downstream VCs and their
# ready cycles) when sorting. At 65,536 routers nearly every row a hop
# touches is a cache miss; this overlaps the misses of a few routers.
# (Listing early is exact: only a router's own visit changes which of its
# VCs are ready this cycle -- every other change takes effect next cycle or
# later.)
PF_NEAR = 2
PF_FAR = 4
RING = 8           # a power of two above PF_FAR
PF_CREDIT = 8      # credits ahead whose output VC row is prefetched
R_ALL = 0          # the rows of buf.rdy's entries: every ready VC, the heads, the flits
R_VA = 1
R_SA = 2


@njit(**HELPER)
def _list_ready(u, r, now, net, buf):
    """List in ring row ``r`` the input VCs of router ``u`` ready at ``now``
    (no branch on readiness: which VCs are ready is unpredictable)."""
    V = net.V
    i0 = net.r_ip_ptr[u]
    i1 = net.r_ip_ptr[u + 1]
    n = 0
    for g in range(i0 * V, i1 * V):
        buf.rdy[r, R_ALL, n] = g
        n += buf.at[g] <= now
    buf.nrdy[r, R_ALL] = n
    if net.pf != 0:
        o0 = net.r_op_ptr[u]
        o1 = net.r_op_ptr[u + 1]
        # its port rows and output VC rows, line by line (rows of 32 and 16 bytes from a line's start)
        for i in range(i0 - (i0 & 1), i1, 2):
            _prefetch(net.ipr, i, 0)
        for i in range(o0 - (o0 & 1), o1, 2):
            _prefetch(net.opr, i, 0)
        for i in range(o0 * V - (o0 * V & 3), o1 * V, 4):
            _prefetch(buf.ovr, i, 0)
        _prefetch(net.coords, u, 0)             # (the routes of the heads its tails uncover)
        _prefetch(net.out_op, u, 0)
        for q in range(n):
            g = buf.rdy[r, R_ALL, q]
            _prefetch(buf.vcr, g, 0)
            _prefetch(buf.vcr, g, 16)


@njit(**HELPER)
def _sort_ready(r, net, buf, acc):
    """Sort the ready VCs of ring row ``r`` into heads (VS_VA) and flits."""
    V = net.V
    nva = 0
    nsa = 0
    for q in range(buf.nrdy[r, R_ALL]):
        g = buf.rdy[r, R_ALL, q]
        if buf.vcr[g, F_STATE] == VS_VA:
            buf.rdy[r, R_VA, nva] = g
            nva += 1
            if net.pf != 0:
                _prefetch(buf.pkr, buf.vcr[g, F_FB + 3 * (buf.vcr[g, F_HEAD])], 0)
                _prefetch(buf.vcr, g, net.rt0)
        else:
            buf.rdy[r, R_SA, nsa] = g
            nsa += 1
            if net.pf != 0:
                h = buf.vcr[g, F_HEAD]
                _prefetch(buf.pkr, buf.vcr[g, F_FB + 3 * h], 0)
                if buf.vcr[g, F_CNT] > 1:
                    # if the flit is a tail, the next packet's head comes to the front and is routed
                    h = h + 1 if h + 1 < net.B else 0
                    _prefetch(buf.pkr, buf.vcr[g, F_FB + 3 * h], 0)
                    _prefetch(buf.vcr, g, net.rt0)
                o = buf.vcr[g, F_OUT]
                op = buf.ovr[o, O_PORT]
                down = net.opr[op, Q_DOWN]
                if down >= 0:
                    # the flit's next VC; if idle, the flit is a head routed there right after the visit
                    d = down * V + o - op * V
                    _prefetch(buf.vcr, d, 0)
                    _prefetch(buf.vcr, d, 16)
                    _prefetch(buf.vcr, d, net.rt0)
                    _prefetch(buf.at, d, 0)
                    ud = net.opr[op, Q_DROUTER]
                    _prefetch(net.coords, ud, 0)
                    _prefetch(net.out_op, ud, 0)
                    _prefetch(acc.arc_flits, net.opr[op, Q_ARC], 0)
    buf.nrdy[r, R_VA] = nva
    buf.nrdy[r, R_SA] = nsa


@njit(**HELPER)
def _routers(now, net, buf, acc, phase):
    """One cycle of every router woken for it; the flits moved. A router
    not woken has no request this cycle: visiting it would change nothing.
    The routers are listed first (no visit wakes a router for this cycle:
    every delay is at least one cycle and shorter than the wheel), so the
    ready VCs of the next few can be listed (and their rows prefetched)
    while one is visited."""
    W = buf.wake.shape[0]
    slot = now & (W - 1)
    visit = buf.visit
    m = 0
    for w in range(buf.me[1] >> 6, (buf.me[2] + 63) >> 6):
        bits = buf.wake[slot, w]
        buf.wake[slot, w] = 0
        while bits != 0:
            visit[m] = w * 64 + _low_bit(bits)
            bits &= bits - np.uint64(1)
            m += 1
    far = PF_FAR if net.pf != 0 else 0
    near = PF_NEAR if net.pf != 0 else 0
    moved = 0
    for k in range(-far, m + 1):
        if far > 0 and k + 2 * far < m:        # the ready cycles listed PF_FAR visits later
            _prefetch(buf.at, net.r_ip_ptr[visit[k + 2 * far]] * net.V, 0)
        if k + far < m:
            _list_ready(visit[k + far], (k + far) & (RING - 1), now, net, buf)
        if 0 <= k + near < m:
            _sort_ready((k + near) & (RING - 1), net, buf, acc)
        if k < 0:
            continue
        # the heads that reached the front of a VC (in _inject, or in the
        # visit just made) are routed now, while their rows are in the cache
        if buf.npend[0] > 0:
            _route_pending(net, buf)
        if k == m:
            break
        u = visit[k]
        r = k & (RING - 1)
        if buf.nrdy[r, R_VA] > 0:
            _vc_alloc(u, r, now, net, buf)
        if buf.nrdy[r, R_SA] > 0:
            moved += _sw_alloc(u, r, now, net, buf, acc, phase)
    return moved


@njit(**HELPER)
def _credits(now, net, buf, cnt, wo):
    """The credits of wheel ``cnt``/``wo`` due at ``now``: a VC that waited
    for one asks for the switch again (the order of a cycle's credits does
    not matter: each adds one, and only the first of an empty VC wakes)."""
    W = wo.shape[0]
    slot = now & (W - 1)
    nc = cnt[slot]
    for e in range(nc):
        if net.pf != 0 and e + PF_CREDIT < nc:
            _prefetch(buf.ovr, wo[slot, e + PF_CREDIT], 0)
        o = wo[slot, e]
        c = buf.ovr[o, O_CRED]
        buf.ovr[o, O_CRED] = c + 1
        if c == 0:                  # a VC may have waited for this credit
            op = buf.ovr[o, O_PORT]
            g = buf.ovr[o, O_OWNER]
            if op < net.A + net.T and g >= 0 and buf.at[g] == NO_CREDIT:
                buf.at[g] = now
            _wake(net.opr[op, Q_ROUTER], now, buf)
    cnt[slot] = 0


@njit(**HELPER)
def _view(q, now, buf):
    """Partition ``q``'s view of the state: its slices of the per-partition
    fields, the outboxes it fills this cycle, and its own list of freed
    packets as the stack its terminals' packets go to."""
    par = now & 1
    return Buf(
        buf.vcr, buf.at, buf.ovr, buf.wh_cnt[q], buf.wh_o[q], buf.wi_cnt[q], buf.wi_o[q], buf.wake[q],
        buf.pkr, buf.freed_p[q], buf.nfreed_p[q],
        buf.sc_key[q], buf.sc_win[q], buf.sc_in[q], buf.sreq[q], buf.omask[q], buf.gmask[q], buf.touched[q],
        buf.req_g[q], buf.req_o[q], buf.req_li[q], buf.req_lo[q], buf.sc_mark[q], buf.rdy[q], buf.nrdy[q],
        buf.want, buf.freed[q], buf.pend[q], buf.npend[q], buf.visit[q],
        buf.freed_p, buf.nfreed_p, buf.fo[par, q], buf.fo_n[par, q], buf.co[par, q], buf.co_n[par, q],
        buf.moved, buf.me[q], buf.tk,
    )


@njit(**HELPER)
def _phase(q, now, net, buf, trf, acc, phase, drain_t):
    """Partition ``q``'s part of cycle ``now``: its injection buffers'
    credits due, its terminals' arrivals, takes and flits into their
    injection ports (:func:`_terminals`), the flits and credits the
    others sent it in the previous cycle (in partition order, each in send
    order: a VC's ring gets its flits in time order), its credits due, then
    its routers' visits. Touches only its own routers, terminals and
    slices (the order of the injections and the arrivals does not matter:
    they fill different VCs, and wake bits and pending heads do not
    depend on order)."""
    P = net.pbound.shape[0] - 1
    b = _view(q, now, buf)
    a = Acc(acc.pv[q], acc.arc_flits, acc.hist[q], acc.pv)
    _credits(now, net, b, b.wi_cnt, b.wi_o)
    taken, nxt = _terminals(q, now, net, b, trf, a, phase, drain_t, buf.free, buf.nfree[0] - buf.tk[q, TK_OFF])
    buf.tk[q, TK_NOW] = taken
    buf.tk[q, TK_NEXT] = nxt
    par = (now + 1) & 1
    for s in range(P):
        if s == q:
            continue
        for k in range(buf.fo_n[par, s, q]):
            f = buf.fo[par, s, q, k]
            _push(np.int64(f[0]), np.int64(f[1]), np.int64(f[2]), np.int64(f[3]), np.int64(f[4]), net, b)
        buf.fo_n[par, s, q] = 0
        for k in range(buf.co_n[par, s, q]):
            _wheel(buf.co[par, s, q, k, 0], buf.co[par, s, q, k, 1], b.wh_cnt, b.wh_o)
        buf.co_n[par, s, q] = 0
    _credits(now, net, b, b.wh_cnt, b.wh_o)
    buf.moved[q, 0] = _routers(now, net, b, a, phase)


@njit(**HELPER)
def _barrier(now, net, buf, acc, ctl):
    """After the parallel phase: the partitions' freed packets onto the free
    stack and their statistics into ``acc.v``, in partition order (router
    order, as one thread would have done it); the watchdog. True if it fired."""
    P = net.pbound.shape[0] - 1
    moved = 0
    nf = buf.nfree[0]
    for q in range(P):
        nf -= buf.tk[q, TK_NOW]
    for q in range(P):
        moved += buf.moved[q, 0]
        for k in range(buf.nfreed_p[q, 0]):
            buf.free[nf] = buf.freed_p[q, k]
            nf += 1
        buf.nfreed_p[q, 0] = 0
    buf.nfree[0] = nf
    a = acc.v
    for f in range(NACC):
        if f == A_PLAT_MAX:
            for q in range(P):
                if acc.pv[q, f] > a[f]:
                    a[f] = acc.pv[q, f]
                acc.pv[q, f] = 0.0
        else:
            d = 0.0
            for q in range(P):
                d += acc.pv[q, f]
                acc.pv[q, f] = 0.0
            a[f] += d
    if moved > 0 or a[A_INFL_FLITS] == 0:
        ctl[C_PROGRESS] = now
    elif now - ctl[C_PROGRESS] > net.watchdog:
        ctl[C_DEADLOCK] = 1
        return True
    return False


@njit(**HELPER)
def _must_grow(buf, trf, ctl):
    """A terminal may take a packet (or generate one) it has no room for."""
    if buf.nfree[0] < ctl[C_POOL_LOW]:
        return True
    for q in range(trf.full.shape[0]):
        if trf.full[q] != 0:
            return True
    return False


@njit(**HELPER)
def _count_takes(now, net, buf, trf):
    """Each partition's terminals that take a packet in cycle ``now`` (the
    phases count them for the next cycle as they go; this starts a run)."""
    for q in range(net.pbound.shape[0] - 1):
        c = 0
        for t in range(net.tbound[q], net.tbound[q + 1]):
            c += _takes_next(t, now - 1, trf)
        buf.tk[q, TK_NEXT] = c


@njit(**HELPER)
def _stretches(net, buf):
    """Where each partition's takes of this cycle start down the free stack: after the partitions before it."""
    off = 0
    for q in range(net.pbound.shape[0] - 1):
        buf.tk[q, TK_OFF] = off
        off += buf.tk[q, TK_NEXT]


@njit(**INLINED)
def _cycles(net, buf, trf, acc, ctl, until):
    """Simulate cycles ``ctl[C_NOW] .. until - 1`` (stops early on deadlock);
    the number of cycles simulated. The partitions' phases are a ``prange``:
    on numba's threads in :func:`run_par`, one after the other in
    :func:`run` (numba runs a ``prange`` as a ``range`` in a kernel compiled
    without ``parallel``); inlined into both before typing, so the loop is
    written once."""
    now = ctl[C_NOW]
    start = now
    phase = ctl[C_PHASE]
    drain_t = ctl[C_DRAIN_T]
    P = net.pbound.shape[0] - 1
    _count_takes(now, net, buf, trf)
    while now < until:
        if _must_grow(buf, trf, ctl):
            ctl[C_GROW] = 1
            break
        _stretches(net, buf)
        for q in prange(P):
            _phase(q, now, net, buf, trf, acc, phase, drain_t)
        stop = _barrier(now, net, buf, acc, ctl)
        now += 1
        if stop:
            break
    ctl[C_NOW] = now
    return now - start


@njit(**KERNEL)
def run(net, buf, trf, acc, ctl, until):
    """Simulate cycles ``ctl[C_NOW] .. until - 1`` on one thread, the
    partitions one after the other (:func:`_cycles`). Every helper has one
    call site per kernel (a head's route is computed in one place,
    :func:`_routers`), so LLVM's inlining stays small and compiling takes
    seconds."""
    return _cycles(net, buf, trf, acc, ctl, until)


@njit(**KERNEL_PAR)
def run_par(net, buf, trf, acc, ctl, until):
    """:func:`run` with the partitions' phases on numba's threads (one
    partition a thread): the same numbers."""
    return _cycles(net, buf, trf, acc, ctl, until)


@njit(**KERNEL)
def backlog_before(trf, t_limit):
    """Source-queued packets generated before ``t_limit`` (BookSim2 drains
    until every terminal has generated past the drain time)."""
    cnt = 0
    for t in range(trf.src_cnt.shape[0]):
        if trf.src_cnt[t] > 0 and trf.src_t[t, trf.src_head[t]] < t_limit:
            cnt += 1
    return cnt


# =========================================================================
# construction helpers (plain numpy)
# =========================================================================
def wheel_size(max_delay: int) -> int:
    W = 1
    while W < max_delay + 2:
        W *= 2
    return W


@njit(**KERNEL)
def seed_and_start(seed, trf):
    """Seed the terminals' streams and draw every terminal's first arrival."""
    _draw.seed_streams(seed, trf.rng_dst, _core.STREAM_DESTINATIONS)
    start(seed, trf, trf.rng_gen)


# numba checks only this file's source for freshness: the helpers and
# constants inlined from the modules named here count too
refresh_kernel_cache(sys.modules[__name__], (_core, _iq_layout, _booksim, _simple, registry, events, _draw))
