"""Private numba core of the simple router (VCT and wormhole), and the traffic generator of every router model.

The two switching modes (:mod:`sim.routers._vct`, packet level, and
:mod:`sim.routers._wormhole`, flit level) keep their state in four named
structures (numba named tuples of arrays and scalars) built in Python by
:mod:`sim.routers.simple`, plus a run-state vector ``ctl`` (``C_*``):

- ``net`` (:data:`Net`): the network and its routing tables, and the router
  configuration (read only);
- ``buf`` (the fields :data:`BUF_FIELDS`, a class per mode): the packet
  pool, the input VCs and their credits, injection queues, ejectors, the
  credit wheel and the routers' arbitration state; a field used by one
  switching mode only is a 1-element dummy in the other;
- ``trf`` (:data:`Trf`): the workload -- the synthetic generator and the
  terminals' source queues, or a trace's processes and messages, and the
  measurement window;
- ``out`` (:data:`Out`): the statistics vector (``S_*``), the latency
  histograms, the channel loads and the per-pair latencies.

This module holds what the modes share: traffic generation (also the iq
router's: :func:`arrive`, :func:`draw_dest`, :func:`gap`), packet
creation and injection, the trace-driven steps, the choice among a
packet's routing candidates (:func:`choose`) and a router's arbitration
order, the delivery statistics, the deadlock watchdog, the end-of-run test
and the final statistics, and the run loops (:func:`run_synthetic`,
:func:`run_trace`), which take the mode's part as a :data:`Switching`. The
routing itself (a packet's candidates, its state after a hop) is
:mod:`sim.routing._simple`; the entry points :mod:`sim.routers._switching`.
The compile conventions (``KERNEL``, ``HELPER``) are in :mod:`sim._jit`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

from traffic import DEST_HOT, DEST_PERM, DEST_TABLE

from .. import _draw
from .._jit import HELPER, INLINED
from ..events import EV_COMPUTE, EV_RECV, EV_SEND
from ..routing._simple import (SEL_RANDOM, SEL_SPREAD, SEL_WEIGHTED, candidates, keep_tied, keep_weighted,
                               route_target, spreads_ties, start_route)

# layout of the scalar statistics vector
S_CYCLES = 0
S_DEADLOCK = 1
S_INJECTED = 2
S_DELIVERED = 3
S_IN_FLIGHT = 4
S_GEN_PACKETS = 5
S_GEN_PHITS = 6
S_ACC_PHITS = 7
S_ACC_PACKETS = 8
S_TAG_DELIVERED = 9
S_SUM_LAT_GEN = 10
S_SUM_LAT_INJ = 11
S_SUM_HOPS = 12
S_OVERFLOW = 13
S_VIOLATIONS = 14
S_DEADLOCK_KIND = 15
S_TAG_GENERATED = 16
S_MAX_LAT_GEN = 17
S_INJ_PHITS = 18
S_STALL_VC = 19
S_DRAINED = 20
S_LAST_PROGRESS = 21
S_ESC_HOPS = 22
S_MAX_LAT_INJ = 23
S_WIN_HOPS = 24
S_STARVED = 25
S_SUM_MINHOPS = 26
S_TRACE_DONE = 27     # trace mode: every process finished and every message arrived
S_SKIPPED = 28        # trace mode: idle cycles fast-forwarded
S_TGEN_OUT = 29       # the generation cycles of the measured packets not yet delivered, summed
S_SUM_LEN = 30        # the phits of the measured packets delivered, summed
NSTATS = 31

# layout of the run-state vector (what a kernel keeps between calls)
C_NOW = 0             # next cycle to simulate
C_NFREE = 1           # packet ids on the free stack
C_IN_FLIGHT = 2       # packets in injection queues or the network
C_INJECTED = 3
C_DELIVERED = 4
C_FLITS_IN = 5        # wormhole: flits of in-flight packets not yet consumed
C_LAST_PROGRESS = 6   # last cycle something moved or the network was empty
C_DEADLOCK = 7        # 0, or the deadlock kind (1 no progress, 2 knot, 3 trace)
C_STALL_VC = 8        # the VC of a knot
C_PROCS_LEFT = 9      # trace: processes not finished
C_MSGS_OUT = 10       # trace: messages sent but not fully delivered
C_TO_PACK = 11        # trace: messages sent but not fully packetized
C_DONE = 12           # 1 once the run ended (finished or deadlocked)
C_SEED = 13           # the seed of the kernels' generator
C_STARTED = 14        # 1 once the generator was seeded and the first arrivals drawn
NCTL = 15


Net = namedtuple("Net", [
    "n", "A", "T", "V", "D",
    "arc_src", "arc_dst", "arc_dim", "arc_dir", "arc_wrap", "arc_up", "vc_router",
    "in_indptr", "in_arcs", "term_router", "term_indptr",
    # routing records (DOR / adaptive) by difference class (CLS_*) and their ties; out_arc (n, D, 2)
    "out_arc", "records", "rec_count", "tie_random",
    # how a packet picks among its allowed (channel, VC) with room: SEL_* (:func:`choose`); routing adaptive:
    # (n, n, D) weights of the dimensions by (router, destination router), or (1, 1, 1) for none
    "selection", "split",
    "cls_kind", "coords", "cls_lat", "cls_order", "cls_shape", "cls_stride",
    # shortest-path and up*/down* tables (table / updown / minimal / distance); (n, n) distances
    "csr_indptr", "csr_arc", "next_mask", "ud_up", "ud_down", "dc_width", "min_dist",
    # ugal: added to the Valiant side of the comparison (queued phits x hops); valiant / ugal: the
    # intermediate router is drawn from row u of mid_tab (n, K), or from all routers when K = 0
    "ugal_thres", "mid_tab",
    # twin tori (tsdor / dort): next hop, class and distance by (traffic class, source card, d')
    "tw_next", "tw_code", "tw_dist", "tw_vc", "tw_m", "tw_by_source",
    # router configuration
    "mode", "deadlock", "transit_priority", "router_delay", "link_latency", "bubble",
    "cap", "slots", "inj_cap", "n_inj", "n_ej", "watchdog", "check_every", "scan_every",
    # the run's seed (the routers' counter-based draws, :func:`sim.routing._simple.keep_tied`)
    "seed",
    # ranges of routers (one a thread): range q is routers pbound[q] .. pbound[q + 1] - 1; r_part[u] = u's range
    "pbound", "r_part",
])

#: the fields of ``buf``; each switching mode names its own class of them
#: (``_vct.Buf``, ``_wormhole.Buf``): the class says which mode a run's
#: kernel is compiled for (:mod:`sim.routers._switching`)
BUF_FIELDS = (
    # packet pool (ids recycled through the free stack ``free[:ctl[C_NFREE]]``; pk_num: the packet's
    # serial number, the packets created before it, which names it in the routers' draws)
    # (pk_rem: the remaining record; twin tori: the node offset to the destination; pk_mid: the
    # intermediate router of valiant / ugal while the packet heads for it, else -1)
    "pk_dst", "pk_len", "pk_src", "pk_hops", "pk_min", "pk_state", "pk_ring", "pk_esc", "pk_tgen", "pk_tinj",
    "pk_ready", "pk_rem", "pk_msg", "pk_mid", "pk_num", "free",
    # input VCs: rings of packets (VCT) or flits (wormhole: packet, flit index, cycle it may leave)
    "vc_pk", "vc_fi", "vc_rdy", "vc_head", "vc_cnt", "vc_since", "vc_out", "credit", "owner",
    # VCT: cycles input ports, output channels, injection queues and ejectors are busy until
    "in_busy", "out_busy", "inj_busy", "ej_busy",
    # wormhole: the last cycle an input port, output channel or ejector passed a flit; ejector owners
    "in_used", "out_used", "ej_used", "ej_own",
    # injection queues (packet ids); wormhole: flits sent of the head packet and its output
    "inj_buf", "inj_head", "inj_cnt", "inj_free", "inj_sent", "inj_out",
    # credit wheel, per range of routers: [range, slot] entries, the VCs (VCT: or injection queues) and the
    # phits (VCT) they get back
    "wh_cnt", "wh_idx", "wh_amt",
    # routers: work held, arbitration pointers, earliest cycle a move is possible (VCT)
    "r_cnt", "rr", "rr_t", "wake",
    # the routers that may hold something, a bit each, per range of routers ([range, word]: a bit set when
    # r_cnt rises from 0, cleared when a scan finds the router empty): a cycle visits the routers that hold
    # something without reading every router's count
    "held",
    # scratch: routing candidates (a range's view has its own, from pcand), deadlock scan
    "cand_a", "cand_v", "cand_n", "cand_t", "live", "pend",
    # per range of routers: candidates (cand_a, _v, _n, _t), the run-state changes of its phase (C_*), the
    # packets it freed, and what it sent to a router's input VC, [parity of the cycle, sender, owner] ->
    # (VC, packet, flit: wormhole), with their counts
    "pcand", "pctl", "freed", "ob", "ob_n",
)

Trf = namedtuple("Trf", [
    # synthetic generator and source queues
    "dest_mode", "perm", "cdf", "hot_count", "hot_prob", "rate", "poisson", "len_min", "len_max",
    "next_gen", "src_t", "src_l", "src_head", "src_cnt", "cap", "full",
    # measurement window: packets generated in [warmup, end_measure) are tagged; the run stops at limit,
    # or at a drain check (every drain_check cycles) that finds their mean latency above lat_thres
    "warmup", "end_measure", "limit", "drain_check", "lat_thres",
    # trace-driven workload (trace_mode = 0: zero-length dummies)
    "trace_mode", "tr_term", "ev_ptr", "ev_kind", "ev_a", "ev_msg", "msg_dst", "msg_phits", "sq_ptr",
    "max_cycles", "pc", "busy", "issued", "sq_head", "ph_left", "msg_got", "proc_finish", "msg_sent", "msg_done",
])

#: ``hist_gen``/``hist_inj`` hold a row per range of routers (summed by the driver); ``pstats`` the
#: statistics a range's phase changed, merged into ``stats`` after every cycle (VCT; wormhole writes
#: ``stats`` directly)
Out = namedtuple("Out", ["stats", "hist_gen", "hist_inj", "arc_phits", "pairs", "pair_sum", "pair_cnt", "pstats"])

#: What differs between the switching modes (:mod:`sim.routers._vct`,
#: :mod:`sim.routers._wormhole`): the run loops and the deadlock watchdog
#: below take it as their first argument. Each mode's ``switching()`` builds
#: it inside the kernel: numba types every function member as its own
#: function, so the calls are direct and inlined as if written out; the
#: flag is a constant there (LLVM drops the other mode's branches).
#:
#: - ``credits(now, net, buf)``: the credits due at ``now`` come back;
#: - ``flush(now, net, buf)``: every credit in flight comes back now (trace
#:   mode, network empty);
#: - ``barrier(now, net, buf, ctl, out)``: after the routers' phase
#:   (:func:`phase`, a range of routers at a time), what the ranges changed
#:   of the run-state, the statistics and the free stack, merged in range
#:   order;
#: - ``held(net, buf)``: what the buffers hold (packets, or flits);
#: - ``pending(net, buf, pend)``: adds to ``pend[g]`` what the credits in
#:   flight will give input VC ``g`` (phits, or flits);
#: - ``scan(buf)``: the buffers as a router visit sees them (VCT: the first
#:   range's view), for the deadlock scan's routing: the routing helpers
#:   then compile for one type of buffers, not two (a second type compiled
#:   them again: 9 s more on a cold start);
#: - ``flits``: the buffers hold flits (wormhole: a credit is one flit's
#:   room, the run-state counts the flits in flight in ``C_FLITS_IN``, a
#:   VC's head may leave at ``vc_rdy`` and waits only on the output it
#:   holds, ``vc_out``) rather than packets (VCT: a credit wheel entry
#:   returns ``wh_amt`` phits, the packets in flight are ``C_IN_FLIGHT``, a
#:   head may leave at its packet's ``pk_ready`` and its candidates need
#:   room for the whole packet, ``cand_n``).
#:
#: The flag is data, not functions, because every member a mode passes is
#: one more function numba compiles on a cold start.
Switching = namedtuple("Switching", ["credits", "flush", "barrier", "held", "pending", "scan", "flits"])


def phase(q, now, in_window, net, buf, trf, ctl, out):
    """One cycle of the routers of range ``q`` (routers ``net.pbound[q] ..
    net.pbound[q + 1] - 1``) that hold something: the switching mode's
    (:mod:`sim.routers._switching` gives it for the type of ``buf``). A
    global function rather than a member of :data:`Switching`: it is called
    in the run loops' ``prange``, whose body numba compiles apart, and a
    function carried in a tuple does not reach it."""
    raise TypeError("phase() runs inside the simulator's kernels only")


# =========================================================================
# synthetic traffic
# =========================================================================
#: The words naming the terminals' two streams (:func:`sim._draw.seed_streams`): one draws a terminal's
#: arrivals and their lengths, the other its packets' destinations (and intermediate routers), so the k-th
#: packet of a terminal arrives at the same cycle, with the same length and destination, in every network
#: and configuration run with the same seed, whatever the network does to its earlier packets.
STREAM_ARRIVALS = 1
STREAM_DESTINATIONS = 2


@njit(**HELPER)
def _random(t, rng):
    """A uniform double in ``[0, 1)`` for terminal ``t``: from its own stream
    when the model gives streams (``rng``, a ``uint64`` state per terminal:
    :mod:`sim._draw`), from numba's generator when ``rng`` is None (numba
    prunes the branch the argument's type rules out)."""
    if rng is None:
        return np.random.random()
    return _draw.uniform(rng, t)


@njit(**HELPER)
def draw_below(t, k, rng):
    """A uniform integer in ``0 .. k - 1`` for terminal ``t`` (as :func:`_random`; a stream's draw is a 53-bit
    uniform scaled, a bias below ``k / 2**53``)."""
    if rng is None:
        return np.random.randint(0, k)
    return np.int64(_draw.uniform(rng, t) * k)


@njit(**HELPER)
def gap(q, poisson, t, rng):
    """Inter-arrival time of a Bernoulli (geometric) or Poisson (exponential) process of terminal ``t``."""
    u = 1.0 - _random(t, rng)  # (0, 1]
    if poisson:
        return -np.log(u) / q
    if q >= 1.0:
        return 1.0
    return np.floor(np.log(u) / np.log(1.0 - q)) + 1.0


@njit(**HELPER)
def begin(trf, ctl):
    """The cycle to go on from; on the first call seed the kernels'
    generator and draw every terminal's first arrival."""
    if ctl[C_STARTED] == 0:
        ctl[C_STARTED] = 1
        start(ctl[C_SEED], trf, None)
    return ctl[C_NOW]


@njit(**HELPER)
def start(seed, trf, rng):
    """Seed the generator (numba's, or the terminals' arrival streams ``rng``) and draw every terminal's
    first arrival."""
    if rng is None:
        np.random.seed(seed)
    else:
        _draw.seed_streams(seed, rng, STREAM_ARRIVALS)
    for t in range(trf.next_gen.shape[0]):
        if trf.rate[t] > 0.0:
            trf.next_gen[t] = gap(trf.rate[t], trf.poisson, t, rng) - (0.0 if trf.poisson else 1.0)
        else:
            trf.next_gen[t] = np.inf


@njit(**HELPER)
def draw_dest(t, T, trf, self_ok, rng):
    """A destination terminal for a packet of terminal ``t`` (its draws as
    :func:`_random`); with ``self_ok`` (BookSim2's convention) uniform and
    hot-region draws may pick ``t`` itself."""
    mode = trf.dest_mode
    if mode == DEST_PERM:
        return trf.perm[t]
    if mode == DEST_TABLE:
        r = _random(t, rng) * trf.cdf[t, T - 1]
        lo = 0
        hi = T - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if trf.cdf[t, mid] > r:
                hi = mid
            else:
                lo = mid + 1
        return lo
    if mode == DEST_HOT:
        # perm lists the hot terminals (any numbering)
        if _random(t, rng) < trf.hot_prob:
            while True:
                d = trf.perm[draw_below(t, trf.hot_count, rng)]
                if d != t or trf.hot_count == 1 or self_ok:
                    return d
    if self_ok:
        return draw_below(t, T, rng)
    # uniform over the other terminals
    if T == 1:
        return 0
    d = draw_below(t, T - 1, rng)
    if d >= t:
        d += 1
    return d


#: Where :func:`generate` counts, as indices of the statistics vector it is
#: given: generated packets and phits (while ``counting``), packets that
#: joined a source queue and the sum of their generation cycles (while
#: ``counting``; -1: not counted) and packets dropped at a full queue.
GenCounters = namedtuple("GenCounters", ["packets", "phits", "queued", "queued_t", "overflow"])


@njit(**HELPER)
def arrive(t, now, counting, trf, stats, at, rng):
    """The packets terminal ``t`` generates this cycle join its source queue
    (counted and dropped when it holds ``trf.cap``), counted in ``stats`` at
    the indices ``at`` (:data:`GenCounters`); its draws as :func:`_random`.
    Every router model's generator: one length, then the next arrival drawn
    per packet. The queues' rows may hold fewer columns than ``cap`` (the iq
    router sizes them by the load): returns 1 when the row filled its
    columns, and the driver widens the rows before the next cycle (at most
    one packet a cycle joins a Bernoulli source)."""
    cap = trf.cap
    pc = trf.src_t.shape[1]
    filled = 0
    while trf.next_gen[t] <= now:
        # the length drawn in place: as a helper call (an early return) the iq router's loop ran 60% slower
        L = trf.len_min
        if trf.len_max > trf.len_min:
            L += draw_below(t, trf.len_max - trf.len_min + 1, rng)
        if counting:
            stats[at.packets] += 1
            stats[at.phits] += L
        if trf.src_cnt[t] < cap:
            k = trf.src_head[t] + trf.src_cnt[t]
            if k >= pc:
                k -= pc
            trf.src_t[t, k] = now
            trf.src_l[t, k] = L
            trf.src_cnt[t] += 1
            if counting and at.queued >= 0:
                stats[at.queued] += 1
                stats[at.queued_t] += now
            if trf.src_cnt[t] == pc and pc < cap:
                filled = 1
        else:
            stats[at.overflow] += 1
        trf.next_gen[t] += gap(trf.rate[t], trf.poisson, t, rng)
    return filled


@njit(**HELPER)
def generate(now, counting, trf, stats, at):
    """:func:`arrive` for every terminal in turn, on numba's generator (the simple router's serial part);
    ``trf.full[0]`` set when a row filled its columns."""
    for t in range(trf.next_gen.shape[0]):
        if arrive(t, now, counting, trf, stats, at, None):
            trf.full[0] = 1


# =========================================================================
# packets and injection queues
# =========================================================================
@njit(**HELPER)
def emptiest_queue(t, net, buf):
    """The injection queue of terminal ``t`` with the most room (lowest index on ties)."""
    n_inj = net.n_inj
    q = t * n_inj
    for j in range(1, n_inj):
        if buf.inj_free[t * n_inj + j] > buf.inj_free[q]:
            q = t * n_inj + j
    return q


@njit(**HELPER)
def hold(u, net, buf):
    """Router ``u`` holds something: its bit in its range's mask (``buf.held``)."""
    q = net.r_part[u]
    i = u - net.pbound[q]
    buf.held[q, i >> 6] |= np.uint64(1) << np.uint64(i & 63)


@njit(**HELPER)
def next_held(q, prev, net, buf):
    """The first router of range ``q`` after router ``prev`` that holds
    something, in router order (-1 if none); a bit whose router is empty
    is cleared. (A visit gives no router anything this cycle: what it
    sends joins its input VC at the start of the next phase.)"""
    lo = net.pbound[q]
    nw = (net.pbound[q + 1] - lo + 63) >> 6
    i = prev - lo + 1
    w = i >> 6
    if w >= nw:
        return np.int64(-1)
    m = buf.held[q, w] & (~np.uint64(0) << np.uint64(i & 63))
    while True:
        while m == 0:
            w += 1
            if w >= nw:
                return np.int64(-1)
            m = buf.held[q, w]
        b = np.int64(trailing_zeros(m))
        u = lo + (w << 6) + b
        if buf.r_cnt[u] != 0:
            return u
        buf.held[q, w] &= ~(np.uint64(1) << np.uint64(b))
        m &= m - np.uint64(1)


@njit(**HELPER)
def enqueue(q, p, u, net, buf):
    """Packet ``p`` joins the tail of injection queue ``q`` of router ``u``."""
    cap = buf.inj_buf.shape[1]
    k = buf.inj_head[q] + buf.inj_cnt[q]
    if k >= cap:
        k -= cap
    buf.inj_buf[q, k] = p
    buf.inj_cnt[q] += 1
    buf.inj_free[q] -= 1
    buf.r_cnt[u] += 1
    hold(u, net, buf)
    if buf.inj_cnt[q] == 1 and buf.pk_ready[p] < buf.wake[u]:
        buf.wake[u] = buf.pk_ready[p]


@njit(**HELPER)
def new_packet(p, num, u, d, L, tgen, now, net, buf):
    """Fill packet ``p``, the run's ``num``-th (from router ``u`` to terminal ``d``), as it enters an
    injection queue, and start its route (:func:`sim.routing._simple.start_route`)."""
    ur = net.term_router[d]
    buf.pk_num[p] = num
    buf.pk_tgen[p] = tgen
    buf.pk_len[p] = L
    buf.pk_dst[p] = d
    buf.pk_src[p] = u
    buf.pk_tinj[p] = now
    buf.pk_ready[p] = now + net.router_delay
    buf.pk_hops[p] = 0
    start_route(p, u, ur, net, buf)


@njit(**HELPER)
def inject_synthetic(now, in_window, net, buf, trf, ctl, stats):
    """Every terminal with a generated packet moves it from its source queue
    to its emptiest injection queue, if that has room (destination drawn
    now). Returns the phits injected."""
    src_cap = trf.src_t.shape[1]
    n_inj = net.n_inj
    phits = 0
    for tq in range(net.T * n_inj):
        t = tq // n_inj if n_inj > 1 else tq
        if trf.src_cnt[t] == 0:
            continue
        q = emptiest_queue(t, net, buf)
        if buf.inj_free[q] > 0:
            h = trf.src_head[t]
            nf = ctl[C_NFREE] - 1
            p = buf.free[nf]
            ctl[C_NFREE] = nf
            trf.src_head[t] = h + 1 if h + 1 < src_cap else 0
            trf.src_cnt[t] -= 1
            d = draw_dest(t, net.T, trf, False, None)
            u = net.term_router[t]
            new_packet(p, ctl[C_INJECTED], u, d, trf.src_l[t, h], trf.src_t[t, h], now, net, buf)
            enqueue(q, p, u, net, buf)
            ctl[C_IN_FLIGHT] += 1
            ctl[C_INJECTED] += 1
            phits += buf.pk_len[p]
            if in_window:
                stats[S_INJ_PHITS] += buf.pk_len[p]
    return phits


# =========================================================================
# trace-driven workloads
# =========================================================================
@njit(**HELPER)
def trace_wake(now, trf):
    """Trace mode, network empty: the next cycle a process can act (its
    computation ends, or the message it waits for has arrived); -1 if none
    can (every live process waits for a message nobody will send)."""
    wake = np.int64(-1)
    for r in range(trf.pc.shape[0]):
        if trf.pc[r] > trf.ev_ptr[r + 1] - 1 and trf.proc_finish[r] >= 0:
            continue
        if trf.busy[r] > now:
            w_r = trf.busy[r]
        else:
            e = trf.pc[r]
            w_r = -1
            if e < trf.ev_ptr[r + 1] and trf.ev_kind[e] == EV_RECV:
                md = trf.msg_done[trf.ev_msg[e]]
                if md >= 0:
                    w_r = md if md > now else now
            else:
                w_r = now
        if w_r >= 0 and (wake < 0 or w_r < wake):
            wake = w_r
    return wake


@njit(**HELPER)
def trace_step(now, trf, ctl):
    """Trace mode: run every process's events until it blocks (computing,
    or waiting for a message)."""
    for r in range(trf.pc.shape[0]):
        if trf.proc_finish[r] >= 0 or trf.busy[r] > now:
            continue
        while True:
            e = trf.pc[r]
            if e >= trf.ev_ptr[r + 1]:
                trf.proc_finish[r] = now
                ctl[C_PROCS_LEFT] -= 1
                break
            kd = trf.ev_kind[e]
            if kd == EV_COMPUTE:
                trf.pc[r] = e + 1
                if trf.ev_a[e] > 0:
                    trf.busy[r] = now + trf.ev_a[e]
                    break
            elif kd == EV_SEND:
                m = trf.ev_msg[e]
                trf.msg_sent[m] = now
                if trf.issued[r] == trf.sq_head[r]:
                    trf.ph_left[r] = trf.msg_phits[m]
                trf.issued[r] += 1
                ctl[C_MSGS_OUT] += 1
                ctl[C_TO_PACK] += 1
                trf.pc[r] = e + 1
            else:
                md = trf.msg_done[trf.ev_msg[e]]
                if md >= 0 and md <= now:
                    trf.pc[r] = e + 1
                else:
                    break


@njit(**HELPER)
def _next_chunk(r, trf):
    """The next packet of process ``r``'s oldest message not yet packetized:
    (message, phits, 1 if that was its last packet else 0)."""
    m = trf.sq_ptr[r] + trf.sq_head[r]
    L = trf.ph_left[r]
    if L > trf.len_max:
        L = trf.len_max
    trf.ph_left[r] -= L
    whole = 0
    if trf.ph_left[r] == 0:
        trf.sq_head[r] += 1
        whole = 1
        if trf.sq_head[r] < trf.issued[r]:
            trf.ph_left[r] = trf.msg_phits[m + 1]
    return m, L, whole


@njit(**HELPER)
def packetize(now, net, buf, trf, ctl, stats):
    """Trace mode: every process with a message not yet packetized puts its
    next packet into its terminal's emptiest injection queue (if it has
    room). Returns the phits packetized."""
    phits = 0
    for r in range(trf.tr_term.shape[0]):
        t = trf.tr_term[r]
        q = emptiest_queue(t, net, buf)
        if trf.sq_head[r] < trf.issued[r] and buf.inj_free[q] > 0:
            m, L, whole = _next_chunk(r, trf)
            ctl[C_TO_PACK] -= whole
            nf = ctl[C_NFREE] - 1
            p = buf.free[nf]
            ctl[C_NFREE] = nf
            buf.pk_msg[p] = m
            u = net.term_router[t]
            new_packet(p, ctl[C_INJECTED], u, trf.msg_dst[m], L, trf.msg_sent[m], now, net, buf)
            enqueue(q, p, u, net, buf)
            ctl[C_IN_FLIGHT] += 1
            ctl[C_INJECTED] += 1
            phits += L
            stats[S_INJ_PHITS] += L
            stats[S_GEN_PHITS] += L
            stats[S_GEN_PACKETS] += 1
            stats[S_TAG_GENERATED] += 1
            stats[S_TGEN_OUT] += buf.pk_tgen[p]
    return phits


@njit(**HELPER)
def trace_idle(now, trf, ctl, stats):
    """Trace mode with nothing in the network or to packetize: the cycle to
    go on from (the next one a process can act), or -1 when the live
    processes all wait for messages nobody will send (a trace deadlock)."""
    wake = trace_wake(now, trf)
    if wake < 0:
        if ctl[C_PROCS_LEFT] > 0:
            return -1
        return now
    if wake > now + 1:
        stats[S_SKIPPED] += wake - now
        return wake
    return now


# =========================================================================
# delivery, end of run
# =========================================================================
@njit(**HELPER)
def delivered(p, u, tdel, net, buf, trf, ctl, out):
    """Packet ``p`` was consumed at router ``u`` at ``tdel``: statistics
    (measured packets), its message (trace mode) and the free stack."""
    stats = out.stats
    ctl[C_DELIVERED] += 1
    ctl[C_IN_FLIGHT] -= 1
    tg = buf.pk_tgen[p]
    if tg >= trf.warmup and tg < trf.end_measure:
        lg = tdel - tg
        li = tdel - buf.pk_tinj[p]
        stats[S_TAG_DELIVERED] += 1
        stats[S_TGEN_OUT] -= tg
        stats[S_SUM_LAT_GEN] += lg
        stats[S_SUM_LAT_INJ] += li
        stats[S_SUM_HOPS] += buf.pk_hops[p]
        stats[S_SUM_MINHOPS] += buf.pk_min[p]
        stats[S_SUM_LEN] += buf.pk_len[p]
        if lg > stats[S_MAX_LAT_GEN]:
            stats[S_MAX_LAT_GEN] = lg
        if li > stats[S_MAX_LAT_INJ]:
            stats[S_MAX_LAT_INJ] = li
        if out.pairs:
            out.pair_sum[buf.pk_src[p], u] += li
            out.pair_cnt[buf.pk_src[p], u] += 1
        HB = out.hist_gen.shape[0] - 1
        out.hist_gen[min(lg, HB)] += 1
        out.hist_inj[min(li, HB)] += 1
    if trf.trace_mode:
        m = buf.pk_msg[p]
        trf.msg_got[m] += buf.pk_len[p]
        if trf.msg_got[m] == trf.msg_phits[m]:
            trf.msg_done[m] = tdel
            ctl[C_MSGS_OUT] -= 1
    nf = ctl[C_NFREE]
    buf.free[nf] = p
    ctl[C_NFREE] = nf + 1


@njit(**HELPER)
def finished(now, trf, ctl, stats):
    """Whether the run ends after cycle ``now - 1``: a trace when every
    process finished and every message arrived (or at ``max_cycles``); a
    synthetic run once the measured packets all arrived after the window,
    or the drain limit passed, or a drain check (every ``drain_check``
    cycles after the window, BookSim2's rule) finds their mean latency --
    the ones still out counted at their age -- above ``lat_thres``."""
    if trf.trace_mode:
        if ctl[C_PROCS_LEFT] == 0 and ctl[C_MSGS_OUT] == 0 and ctl[C_IN_FLIGHT] == 0:
            stats[S_TRACE_DONE] = 1
            stats[S_DRAINED] = 1
            return True
        return now >= trf.max_cycles
    if now >= trf.end_measure:
        if stats[S_TAG_DELIVERED] >= stats[S_TAG_GENERATED]:
            stats[S_DRAINED] = 1
            return True
        if now >= trf.limit:
            return True
        k = now - trf.end_measure
        if k > 0 and k % trf.drain_check == 0:
            out = stats[S_TAG_GENERATED] - stats[S_TAG_DELIVERED]
            age = stats[S_SUM_LAT_GEN] + out * now - stats[S_TGEN_OUT]
            if age > trf.lat_thres * stats[S_TAG_GENERATED]:
                return True
    return False


@njit(**HELPER)
def final_stats(held, expect, ctl, stats):
    """The run-state totals into the statistics vector; a violation unless
    the buffers hold ``held == expect`` (packets for VCT, flits for
    wormhole) and the packet counters add up."""
    stats[S_CYCLES] = ctl[C_NOW]
    stats[S_DEADLOCK] = 1 if ctl[C_DEADLOCK] != 0 else 0
    stats[S_DEADLOCK_KIND] = ctl[C_DEADLOCK]
    stats[S_STALL_VC] = ctl[C_STALL_VC]
    stats[S_INJECTED] = ctl[C_INJECTED]
    stats[S_DELIVERED] = ctl[C_DELIVERED]
    stats[S_IN_FLIGHT] = ctl[C_IN_FLIGHT]
    stats[S_LAST_PROGRESS] = ctl[C_LAST_PROGRESS]
    if held != expect or ctl[C_INJECTED] - ctl[C_DELIVERED] != ctl[C_IN_FLIGHT]:
        stats[S_VIOLATIONS] += 1


# =========================================================================
# choosing among a packet's candidates (both switching modes)
# =========================================================================
#: what :func:`choose`'s ``rank`` returns for a candidate without room, and
#: for one with room that cannot be taken this cycle
NO_ROOM = -2
NOT_NOW = -1


@njit(**HELPER)
def choose(rank, p, nc, now, net, buf):
    """The best of packet ``p``'s ``nc`` routing candidates (:func:`candidates`) by
    ``rank(ci, now, net, buf)`` (the switching mode's: a key, the higher
    the better, or :data:`NO_ROOM` / :data:`NOT_NOW`): tier 0 first, the
    escape tier only when no tier-0 candidate has room (a busy one is worth
    waiting for). Among those with room and a free channel the run's
    selection (``net.selection``) decides: the highest key, ties kept at
    random (:func:`keep_tied`) by the routings that spread them or with
    ``SEL_SPREAD``; any of them uniformly (``SEL_RANDOM``); or at random in
    proportion to the key (``SEL_WEIGHTED``: free phits). Returns ``(ci, tier)``,
    ``ci = -1`` if none can be taken."""
    best = -1
    best_k = np.int64(-1)
    best_t = 0
    room = False
    sel = net.selection
    spread = spreads_ties(net) or sel == SEL_SPREAD or sel == SEL_RANDOM
    ties = 0
    draws = 0
    total = np.int64(0)
    for tier in range(2):
        if tier == 1 and room:
            break
        for ci in range(nc):
            if buf.cand_t[ci] != tier:
                continue
            k = rank(ci, now, net, buf)
            if k == NO_ROOM:
                continue
            room = True
            if k == NOT_NOW:
                continue
            if sel == SEL_WEIGHTED:
                total += k
                draws += 1
                if best < 0 or keep_weighted(p, k, total, draws, net, buf):
                    best = ci
                continue
            if sel == SEL_RANDOM:
                k = np.int64(0)
            if k > best_k:
                best = ci
                best_k = k
                ties = 1
            elif spread and k == best_k:
                ties += 1
                draws += 1
                if keep_tied(p, ties, draws, net, buf):
                    best = ci
        if best >= 0:
            best_t = tier
            break
    return best, best_t


# =========================================================================
# a router's arbitration order (both switching modes)
# =========================================================================
@njit(**HELPER)
def arbitration(u, net, buf):
    """Router ``u``'s arbitration order this cycle, and its round-robin
    pointers moved on: input ports from a rotating start ``e`` (the VCs of
    a port from a rotating start, :func:`next_input`), the injection queues
    after all of them (in-transit priority: ``tb`` = the ports' VCs) or as
    one block at a rotating position ``tb`` among the ports. Returns
    ``(i0, nin, nt, ntot, e, tb)``: the first in-arc slot and the number of
    input ports, of injection queues, of inputs in all."""
    V = net.V
    i0 = net.in_indptr[u]
    nin = net.in_indptr[u + 1] - i0
    nv = nin * V
    nt = (net.term_indptr[u + 1] - net.term_indptr[u]) * net.n_inj
    e = buf.rr[u]
    buf.rr[u] = e + 1 if e + 1 < nin else 0
    if net.transit_priority:
        tb = nv
    else:
        tb = buf.rr_t[u] * V
        buf.rr_t[u] = buf.rr_t[u] + 1 if buf.rr_t[u] < nin else 0
    return i0, nin, nt, nv + nt, e, tb


@njit(**HELPER)
def next_input(j, tb, nt, tst, i0, nin, e, vv, vst, u, net, buf):
    """The input at place ``j`` of router ``u``'s order (:func:`arbitration`):
    an injection queue (its queues rotate from ``tst``), or the next input
    VC, VC ``vst + vv`` (mod V) of input port ``e``. Returns ``(t_in,
    arc_in, g, e, vv)``: the queue (``g = arc_in = -1``) or the VC and its
    arc (``t_in = -1``), all -1 when it is empty, and the order's next
    ``(e, vv)`` (no divisions)."""
    if j >= tb and j < tb + nt:
        t_in = j - tb + tst
        if t_in >= nt:
            t_in -= nt
        t_in += net.term_indptr[u] * net.n_inj
        return (t_in if buf.inj_cnt[t_in] > 0 else -1), -1, -1, e, vv
    V = net.V
    arc_in = net.in_arcs[i0 + e]
    v = vst + vv
    if v >= V:
        v -= V
    vv += 1
    if vv == V:
        vv = 0
        e += 1
        if e == nin:
            e = 0
    g = arc_in * V + v
    if buf.vc_cnt[g] == 0:
        return -1, -1, -1, e, vv
    return -1, arc_in, g, e, vv


# =========================================================================
# checks and deadlock detection (every switching mode: its part in ``m``)
# =========================================================================
@njit(**INLINED)
def _expect(m, ctl):
    """What the buffers should hold by the run-state: the flits of the packets in flight not yet consumed
    (wormhole), or the packets in flight (VCT)."""
    return ctl[C_FLITS_IN] if m.flits else ctl[C_IN_FLIGHT]


@njit(**INLINED)
def _entered(m, phits, ctl):
    """``phits`` entered the injection queues (wormhole counts them; VCT counts packets, by the injection itself)."""
    if m.flits:
        ctl[C_FLITS_IN] += phits


@njit(**HELPER)
def conserved(m, net, buf, ctl):
    """The buffers hold what the run-state says, every packet taken is
    delivered or in flight, and every packet id is in flight or free."""
    inf = ctl[C_IN_FLIGHT]
    return (m.held(net, buf) == _expect(m, ctl) and ctl[C_INJECTED] - ctl[C_DELIVERED] == inf
            and inf + ctl[C_NFREE] == buf.free.shape[0])


@njit(**HELPER)
def stalled(m, now, net, buf):
    """A head waiting longer than the watchdog at the front of its input VC (-1: none)."""
    for g in range(buf.vc_cnt.shape[0]):
        if buf.vc_cnt[g] > 0:
            since = buf.vc_since[g]
            h = buf.vc_head[g]
            r = buf.vc_rdy[g, h] if m.flits else buf.pk_ready[buf.vc_pk[g, h]]
            if r > since:
                since = r
            if now - since > net.watchdog:
                return g
    return -1


@njit(**HELPER)
def knot(m, net, buf):
    """The wait-for graph of the input VCs: a VC is live if it is empty,
    its head goes to an ejector, the output it holds is live or will have
    room, or (no output held) one of its head's candidates is live or will
    have room (credits in flight counted). Returns a VC of a knot (no chain
    from it reaches a live one), or -1."""
    V = net.V
    NVC = buf.vc_cnt.shape[0]
    live = buf.live
    pend = buf.pend
    for g in range(NVC):
        pend[g] = 0
        live[g] = buf.vc_cnt[g] == 0
    m.pending(net, buf, pend)
    b = m.scan(buf)
    changed = True
    while changed:
        changed = False
        for g in range(NVC):
            if live[g]:
                continue
            # wormhole: a head that holds an output (its packet spans routers) waits only on it
            o = buf.vc_out[g] if m.flits else -1
            if o >= NVC:
                ok = 1
            elif o >= 0:
                ok = 1 if live[o] or buf.credit[o] + pend[o] >= 1 else 0
            else:
                p = buf.vc_pk[g, buf.vc_head[g]]
                u = net.arc_dst[g // V]
                dr = route_target(p, net, b)
                ok = 1 if dr == u else 0
                if ok == 0:
                    nc = candidates(p, u, dr, buf.pk_len[p], net, b)
                    for ci in range(nc):
                        g2 = b.cand_a[ci] * V + b.cand_v[ci]
                        if live[g2] or buf.credit[g2] + pend[g2] >= (1 if m.flits else b.cand_n[ci]):
                            ok = 1
                            break
            if ok > 0:
                live[g] = True
                changed = True
    for g in range(NVC):
        if not live[g]:
            return g
    return -1


@njit(**HELPER)
def watch(m, now, net, buf, ctl, stats):
    """Conservation check (``check``) and the deadlock watchdog: no
    movement for ``watchdog`` cycles, or a stalled head in a knot of the
    wait-for graph (a stalled one outside a knot is starved)."""
    if net.check_every > 0 and now % net.check_every == 0:
        if not conserved(m, net, buf, ctl):
            stats[S_VIOLATIONS] += 1
    if ctl[C_IN_FLIGHT] == 0:
        # an empty network is idle, not stuck: the no-progress clock starts
        # again with the next packet (else one packet after a quiet stretch
        # longer than the watchdog was taken for a deadlock at once)
        ctl[C_LAST_PROGRESS] = now
    elif now - ctl[C_LAST_PROGRESS] > net.watchdog:
        ctl[C_DEADLOCK] = 1
    elif now % net.scan_every == 0:
        if stalled(m, now, net, buf) >= 0:
            g = knot(m, net, buf)
            if g >= 0:
                ctl[C_DEADLOCK] = 2
                ctl[C_STALL_VC] = g
            else:
                stats[S_STARVED] += 1


# =========================================================================
# ranges of routers (both modes: a range's view, its phase, the merge)
# =========================================================================
def range_view(cls):
    """The view function of a mode whose buffers are of class ``cls``:
    ``view(q, par, free, buf)`` is range ``q``'s view of the buffers in a
    cycle of parity ``par``: its credit wheel, candidates, ``free`` as the
    free stack and the outboxes it fills; the rest is shared (each router's
    state is touched only by its range)."""

    @njit(**HELPER)
    def view(q, par, free, buf):
        pc = buf.pcand[q]
        return cls(
            buf.pk_dst, buf.pk_len, buf.pk_src, buf.pk_hops, buf.pk_min, buf.pk_state, buf.pk_ring, buf.pk_esc,
            buf.pk_tgen, buf.pk_tinj, buf.pk_ready, buf.pk_rem, buf.pk_msg, buf.pk_mid, buf.pk_num, free,
            buf.vc_pk, buf.vc_fi, buf.vc_rdy, buf.vc_head, buf.vc_cnt, buf.vc_since, buf.vc_out, buf.credit,
            buf.owner, buf.in_busy, buf.out_busy, buf.inj_busy, buf.ej_busy,
            buf.in_used, buf.out_used, buf.ej_used, buf.ej_own,
            buf.inj_buf, buf.inj_head, buf.inj_cnt, buf.inj_free, buf.inj_sent, buf.inj_out,
            buf.wh_cnt[q], buf.wh_idx[q], buf.wh_amt[q],
            buf.r_cnt, buf.rr, buf.rr_t, buf.wake, buf.held,
            pc[0], pc[1], pc[2], pc[3], buf.live, buf.pend,
            buf.pcand, buf.pctl, buf.freed, buf.ob[par, q], buf.ob_n[par, q],
        )

    return view


def range_phase(view, arrive, router):
    """The phase function of a mode (:func:`phase`): range ``q``'s part of
    cycle ``now``. What the other ranges (and its own) sent its routers in
    the previous cycle joins their input VCs first (``arrive(entry, sent,
    net, buf)``, sender by sender, each in send order: a VC has one sender,
    so the order changes nothing), then every router of the range that
    holds something is visited in router order (``router(u, now, vst,
    in_window, net, view, trf, ctl, out)``, ``vst`` the VC every input
    port starts its round robin from this cycle). Its run-state changes go to
    ``pctl[q]``, its freed packets to ``freed[q]``, its statistics to
    ``pstats[q]`` (merged by :func:`merge_ranges`) and its histogram rows;
    one range alone writes the run-state, the free stack and the statistics
    themselves (the same numbers, without the merge's cost every cycle)."""

    @njit(**HELPER)
    def range_phase_(q, now, in_window, net, buf, trf, ctl, out):
        P = net.pbound.shape[0] - 1
        par = now & 1
        prev = 1 - par
        for s in range(P):
            for k in range(buf.ob_n[prev, s, q]):
                arrive(buf.ob[prev, s, q, k], now - 1, net, buf)
            buf.ob_n[prev, s, q] = 0
        one = P == 1
        b = view(q, par, buf.free if one else buf.freed[q], buf)
        o = Out(out.stats if one else out.pstats[q], out.hist_gen[q], out.hist_inj[q], out.arc_phits, out.pairs,
                out.pair_sum, out.pair_cnt, out.pstats)
        c = ctl if one else buf.pctl[q]
        vst = now % net.V
        u = next_held(q, net.pbound[q] - 1, net, buf)
        while u >= 0:
            router(u, now, vst, in_window, net, b, trf, c, o)
            u = next_held(q, u, net, buf)

    return range_phase_


@njit(**HELPER)
def merge_ranges(now, net, buf, ctl, out):
    """After the ranges' phases: their run-state changes, freed packets
    (onto the free stack) and statistics, in range order -- router order,
    as one range would have made them."""
    P = net.pbound.shape[0] - 1
    if P == 1:
        return
    nf = ctl[C_NFREE]
    for q in range(P):
        c = buf.pctl[q]
        ctl[C_DELIVERED] += c[C_DELIVERED]
        ctl[C_IN_FLIGHT] += c[C_IN_FLIGHT]
        ctl[C_MSGS_OUT] += c[C_MSGS_OUT]
        ctl[C_FLITS_IN] += c[C_FLITS_IN]
        if c[C_LAST_PROGRESS] > ctl[C_LAST_PROGRESS]:
            ctl[C_LAST_PROGRESS] = c[C_LAST_PROGRESS]
        for k in range(c[C_NFREE]):
            buf.free[nf] = buf.freed[q, k]
            nf += 1
        c[C_DELIVERED] = 0
        c[C_IN_FLIGHT] = 0
        c[C_MSGS_OUT] = 0
        c[C_FLITS_IN] = 0
        c[C_NFREE] = 0
    ctl[C_NFREE] = nf
    st = out.stats
    for f in range(NSTATS):
        for q in range(P):
            x = out.pstats[q, f]
            if f == S_MAX_LAT_GEN or f == S_MAX_LAT_INJ:
                if x > st[f]:
                    st[f] = x
            else:
                st[f] += x
            out.pstats[q, f] = 0


# =========================================================================
# the run loops
# =========================================================================
@njit(**INLINED)
def _cycle_end(m, now, in_window, net, buf, trf, ctl, out):
    """The routers' cycle ``now`` and the checks; whether the run ends after it. The ranges' phases are a
    ``prange``: on numba's threads in a kernel compiled with ``parallel``, one after the other otherwise
    (numba runs a ``prange`` as a ``range`` there); this helper is inlined before typing, so the loop is
    written once for both."""
    P = net.pbound.shape[0] - 1
    for q in prange(P):
        phase(q, now, in_window, net, buf, trf, ctl, out)
    m.barrier(now, net, buf, ctl, out)
    watch(m, now, net, buf, ctl, out.stats)
    return ctl[C_DEADLOCK] != 0 or finished(now + 1, trf, ctl, out.stats)


@njit(**INLINED)
def _stop(m, now, done, net, buf, ctl, stats):
    """Save the cycle reached; at the end of the run the final statistics."""
    ctl[C_NOW] = now
    if done:
        ctl[C_DONE] = 1
        final_stats(m.held(net, buf), _expect(m, ctl), ctl, stats)
    return done


@njit(**INLINED)
def run_synthetic(m, net, buf, trf, out, ctl, until):
    """Synthetic traffic: simulate from cycle ``ctl[C_NOW]`` until the run
    ends (returns True, final statistics written) or cycle ``until``."""
    stats = out.stats
    now = begin(trf, ctl)
    done = False
    while now < until:
        m.credits(now, net, buf)
        in_window = now >= trf.warmup and now < trf.end_measure
        generate(now, in_window, trf, stats, GenCounters(S_GEN_PACKETS, S_GEN_PHITS, S_TAG_GENERATED, S_TGEN_OUT,
                                                         S_OVERFLOW))
        _entered(m, inject_synthetic(now, in_window, net, buf, trf, ctl, stats), ctl)
        done = _cycle_end(m, now, in_window, net, buf, trf, ctl, out)
        now += 1
        if done:
            break
    return _stop(m, now, done, net, buf, ctl, stats)


@njit(**INLINED)
def run_trace(m, net, buf, trf, out, ctl, until):
    """A trace-driven workload: as :func:`run_synthetic`, the processes'
    events and their messages' packets instead of the generator."""
    stats = out.stats
    now = begin(trf, ctl)
    done = False
    while now < until:
        m.credits(now, net, buf)
        # fast-forward over idle stretches: nothing in the network, nothing
        # to packetize -> the next compute end / message arrival
        if ctl[C_IN_FLIGHT] == 0 and ctl[C_TO_PACK] == 0:
            go = trace_idle(now, trf, ctl, stats)
            if go < 0:
                ctl[C_DEADLOCK] = 3
                done = True
                break
            if go != now:
                m.flush(go, net, buf)
                now = go
                ctl[C_LAST_PROGRESS] = now
        trace_step(now, trf, ctl)
        _entered(m, packetize(now, net, buf, trf, ctl, stats), ctl)
        done = _cycle_end(m, now, now >= trf.warmup and now < trf.end_measure, net, buf, trf, ctl, out)
        now += 1
        if done:
            break
    return _stop(m, now, done, net, buf, ctl, stats)
