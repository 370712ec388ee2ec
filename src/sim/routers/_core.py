"""Private numba core shared by the simple-router kernels (VCT and wormhole).

The two kernels (:mod:`sim.routers._vct`, packet level, and :mod:`sim.routers._wormhole`,
flit level) keep their state in four named structures (numba named tuples
of arrays and scalars) built in Python by :mod:`sim.routers.simple`, plus a run-state
vector ``ctl`` (``C_*``):

- ``net`` (:data:`Net`): the network and its routing tables, and the router
  configuration (read only);
- ``buf`` (:data:`Buf`): the packet pool, the input VCs and their credits,
  injection queues, ejectors, the credit wheel and the routers' arbitration
  state; a field used by one switching mode only is a 1-element dummy in the
  other;
- ``trf`` (:data:`Trf`): the workload -- the synthetic generator and the
  terminals' source queues, or a trace's processes and messages, and the
  measurement window;
- ``out`` (:data:`Out`): the statistics vector (``S_*``), the latency
  histograms, the channel loads and the per-pair latencies.

This module holds the layouts and the helpers both kernels use: traffic
generation, destinations, packet creation, the trace-driven steps, the
routing candidates of a packet (:func:`candidates`) and the advance of its
routing state after a hop (:func:`advance_route`), the delivery statistics,
the end-of-run test and the final statistics. A new routing adds its tables
to :mod:`sim.routing` (and :data:`Net`), its choices to :func:`candidates`
and its state change to :func:`advance_route`.

Compilation. Every function runs with ``_nrt=False``: nothing here
allocates (the driver does), and without numba's runtime the arrays of the
structures are not reference-counted on every call. A kernel's entry
points (``run``, ``run_trace``) are the only cached dispatchers
(:data:`KERNEL`); everything they call is a :data:`HELPER`, inlined by LLVM
(``forceinline``: passing the structures to a real call costs hundreds of
registers, and numba-level inlining copies and re-types the IR, which
doubled the compile time) and compiled without the Python and C entry
points only a dispatcher called from Python needs. ``error_model="numpy"``
drops the division-by-zero checks (no divisor can be zero here).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..events import EV_COMPUTE, EV_RECV, EV_SEND

KERNEL = dict(cache=True, _nrt=False, error_model="numpy")
HELPER = dict(_nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")

# routing modes
MODE_DOR = 0          # dimension order on routing records
MODE_ADAPTIVE = 1     # minimal adaptive on records, escape VC 0 = DOR + bubble
MODE_TABLE = 2        # shortest-path table adaptive, escape VC 0 = up*/down*
MODE_UPDOWN = 3       # up*/down* on every VC
MODE_MINTABLE = 4     # shortest-path table adaptive on every VC, no avoidance
MODE_TWIN = 5         # nDT twin tori: TS-DOR / DORT next-hop tables, dateline + internal-link classes
MODE_DISTANCE = 6     # shortest-path next hops adaptive, VC class = hops taken (distance classes)
MODE_VALIANT = 7      # minimal to a random intermediate router, then minimal to the destination; distance classes
MODE_UGAL = 8         # UGAL-L: per packet, where the paths part, minimal or Valiant by queue x hops; distance classes

# how a pair's record / next hop is found (sim.routing.CLS_*)
CLS_NONE = 0          # (n, n) next-hop masks and distances
CLS_DIFF = 1          # the record is the coordinate difference
CLS_LATTICE = 2       # the record of the pair's difference class
CLS_TWIN = 3          # nDT: next hop by (traffic class, source card, node offset, destination card)

# deadlock avoidance of MODE_DOR
DL_NONE = 0
DL_DATELINE = 1
DL_BUBBLE = 2

# destination modes
DEST_UNIFORM = 0
DEST_PERM = 1
DEST_TABLE = 2
DEST_HOT = 3

# packet state bits
ST_CROSSED = 1        # crossed the dateline of its current dimension
ST_DOWN = 2           # up*/down*: has taken a down arc
ST_ESCAPED = 4        # table mode: is on the up*/down* escape (sticky)
ST_TC1 = 8            # twin mode: traffic class 1 (TS-DOR: injected by PE1)
ST_NONMIN = 16        # ugal: the last choice was the Valiant path
ST_DEFER = 32         # ugal: the minimal and Valiant next hops are the same here: take it, decide later
ST_DECIDED = 64       # ugal: the choice is made (the packet left a router where the paths part)
ST_ATC = 128          # twin mode (tsdor-adaptive): the packet is in its source PE's adaptive traffic class

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
C_LAST_PROGRESS = 6   # last cycle something moved
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
])

Buf = namedtuple("Buf", [
    # packet pool (ids recycled through the free stack ``free[:ctl[C_NFREE]]``)
    # (pk_rem: the remaining record; twin tori: the node offset to the destination; pk_mid: the
    # intermediate router of valiant / ugal while the packet heads for it, else -1)
    "pk_dst", "pk_len", "pk_src", "pk_hops", "pk_min", "pk_state", "pk_ring", "pk_esc", "pk_tgen", "pk_tinj",
    "pk_ready", "pk_rem", "pk_msg", "pk_mid", "free",
    # input VCs: rings of packets (VCT) or flits (wormhole: packet, flit index, cycle it may leave)
    "vc_pk", "vc_fi", "vc_rdy", "vc_head", "vc_cnt", "vc_since", "vc_out", "credit", "owner",
    # VCT: cycles input ports, output channels, injection queues and ejectors are busy until
    "in_busy", "out_busy", "inj_busy", "ej_busy",
    # wormhole: the last cycle an input port, output channel or ejector passed a flit; ejector owners
    "in_used", "out_used", "ej_used", "ej_own",
    # injection queues (packet ids); wormhole: flits sent of the head packet and its output
    "inj_buf", "inj_head", "inj_cnt", "inj_free", "inj_sent", "inj_out",
    # credit wheel
    "wh_cnt", "wh_idx", "wh_amt",
    # routers: work held, arbitration pointers, earliest cycle a move is possible (VCT)
    "r_cnt", "rr", "rr_t", "wake",
    # scratch: routing candidates, deadlock scan
    "cand_a", "cand_v", "cand_n", "cand_t", "live", "pend",
])

Trf = namedtuple("Trf", [
    # synthetic generator and source queues
    "dest_mode", "perm", "cdf", "hot_count", "hot_prob", "rate", "poisson", "len_min", "len_max",
    "next_gen", "src_t", "src_l", "src_head", "src_cnt",
    # measurement window: packets generated in [warmup, end_measure) are tagged; the run stops at limit,
    # or at a drain check (every drain_check cycles) that finds their mean latency above lat_thres
    "warmup", "end_measure", "limit", "drain_check", "lat_thres",
    # trace-driven workload (trace_mode = 0: zero-length dummies)
    "trace_mode", "tr_term", "ev_ptr", "ev_kind", "ev_a", "ev_msg", "msg_dst", "msg_phits", "sq_ptr",
    "max_cycles", "pc", "busy", "issued", "sq_head", "ph_left", "msg_got", "proc_finish", "msg_sent", "msg_done",
])

Out = namedtuple("Out", ["stats", "hist_gen", "hist_inj", "arc_phits", "pairs", "pair_sum", "pair_cnt"])


# =========================================================================
# synthetic traffic
# =========================================================================
@njit(**HELPER)
def gap(q, poisson):
    """Inter-arrival time of a Bernoulli (geometric) or Poisson (exponential) process."""
    u = 1.0 - np.random.random()  # (0, 1]
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
        start(ctl[C_SEED], trf)
    return ctl[C_NOW]


@njit(**HELPER)
def start(seed, trf):
    np.random.seed(seed)
    for t in range(trf.next_gen.shape[0]):
        if trf.rate[t] > 0.0:
            trf.next_gen[t] = gap(trf.rate[t], trf.poisson) - (0.0 if trf.poisson else 1.0)
        else:
            trf.next_gen[t] = np.inf


@njit(**HELPER)
def _draw_len(len_min, len_max):
    if len_min == len_max:
        return len_min
    return len_min + np.random.randint(0, len_max - len_min + 1)


@njit(**HELPER)
def draw_dest(t, T, trf, self_ok):
    """A destination terminal for a packet of terminal ``t``; with ``self_ok``
    (BookSim2's convention) uniform and hot-region draws may pick ``t`` itself."""
    mode = trf.dest_mode
    if mode == DEST_PERM:
        return trf.perm[t]
    if mode == DEST_TABLE:
        r = np.random.random() * trf.cdf[t, T - 1]
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
        if np.random.random() < trf.hot_prob:
            while True:
                d = trf.perm[np.random.randint(0, trf.hot_count)]
                if d != t or trf.hot_count == 1 or self_ok:
                    return d
    if self_ok:
        return np.random.randint(0, T)
    # uniform over the other terminals
    if T == 1:
        return 0
    d = np.random.randint(0, T - 1)
    if d >= t:
        d += 1
    return d


@njit(**HELPER)
def generate(now, in_window, trf, stats):
    """The packets every terminal generates this cycle join its source queue
    (counted and dropped when it is full)."""
    src_cap = trf.src_t.shape[1]
    for t in range(trf.next_gen.shape[0]):
        while trf.next_gen[t] <= now:
            L = _draw_len(trf.len_min, trf.len_max)
            if in_window:
                stats[S_GEN_PACKETS] += 1
                stats[S_GEN_PHITS] += L
            if trf.src_cnt[t] < src_cap:
                k = trf.src_head[t] + trf.src_cnt[t]
                if k >= src_cap:
                    k -= src_cap
                trf.src_t[t, k] = now
                trf.src_l[t, k] = L
                trf.src_cnt[t] += 1
                if in_window:
                    stats[S_TAG_GENERATED] += 1
                    stats[S_TGEN_OUT] += now
            else:
                stats[S_OVERFLOW] += 1
            trf.next_gen[t] += gap(trf.rate[t], trf.poisson)


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
def enqueue(q, p, u, buf):
    """Packet ``p`` joins the tail of injection queue ``q`` of router ``u``."""
    cap = buf.inj_buf.shape[1]
    k = buf.inj_head[q] + buf.inj_cnt[q]
    if k >= cap:
        k -= cap
    buf.inj_buf[q, k] = p
    buf.inj_cnt[q] += 1
    buf.inj_free[q] -= 1
    buf.r_cnt[u] += 1
    if buf.inj_cnt[q] == 1 and buf.pk_ready[p] < buf.wake[u]:
        buf.wake[u] = buf.pk_ready[p]


@njit(**HELPER)
def load_class(p, u, v, net, buf):
    """``pk_rem[p]`` = the difference ``coords[v] - coords[u]`` reduced into
    the coordinate box modulo the lattice (dimensions in ``cls_order``, as
    :func:`candidates.lattice.reduce_to_box`); returns its canonical index
    (C order in the box), the pair's difference class."""
    Dc = net.cls_order.shape[0]
    for k in range(Dc):
        buf.pk_rem[p, k] = net.coords[v, k] - net.coords[u, k]
    for i in range(Dc):
        k = net.cls_order[i]
        q = np.int64(buf.pk_rem[p, k]) // net.cls_shape[k]
        if q != 0:
            for j in range(Dc):
                buf.pk_rem[p, j] -= q * net.cls_lat[k, j]
    c = np.int64(0)
    for k in range(Dc):
        c += buf.pk_rem[p, k] * net.cls_stride[k]
    return c


@njit(**HELPER)
def new_packet(p, u, d, L, tgen, now, net, buf):
    """Fill packet ``p`` (from router ``u`` to terminal ``d``) as it enters an
    injection queue: record routings draw its record (from its difference
    class: no n x n table), twin tori start its node offset; its minimal
    hops."""
    ur = net.term_router[d]
    buf.pk_tgen[p] = tgen
    buf.pk_len[p] = L
    buf.pk_dst[p] = d
    buf.pk_src[p] = u
    buf.pk_tinj[p] = now
    buf.pk_ready[p] = now + net.router_delay
    buf.pk_hops[p] = 0
    buf.pk_ring[p] = 0
    buf.pk_state[p] = ST_TC1 if (net.tw_by_source != 0 and (u & 1) != 0) else 0
    if net.tw_by_source == 2 and np.random.randint(0, 2) == 1:
        buf.pk_state[p] |= ST_ATC
    buf.pk_mid[p] = -1
    if net.mode == MODE_VALIANT or net.mode == MODE_UGAL:
        # the intermediate router, uniform over all routers (or the family's
        # points: a dragonfly's group entries); drawn here, once
        # per packet, so the kernels' generator gives the same draws for the
        # same seed whatever the routers' timing (ugal decides later, where
        # the paths part, whether to use it). At the source: no first phase;
        # ugal's minimal route to the source router itself is no route at all
        K = net.mid_tab.shape[1]
        if K > 0:
            m = net.mid_tab[u, np.random.randint(0, K)]
        else:
            m = np.random.randint(0, net.n)
        if m != u and not (net.mode == MODE_UGAL and ur == u):
            buf.pk_mid[p] = m
    kind = net.cls_kind
    if kind == CLS_DIFF:
        h = 0
        for k in range(net.D):
            r = net.coords[ur, k] - net.coords[u, k]
            buf.pk_rem[p, k] = r
            h += abs(r)
        buf.pk_min[p] = h
    elif kind == CLS_LATTICE:
        c = load_class(p, u, ur, net, buf)
        kk = 0
        if net.tie_random != 0 and net.rec_count[c] > 1:
            kk = np.random.randint(0, net.rec_count[c])
        h = 0
        for k in range(net.D):
            r = net.records[kk, c, k]
            buf.pk_rem[p, k] = r
            h += abs(r)
        buf.pk_min[p] = h
    elif kind == CLS_TWIN:
        c = load_class(p, u, ur, net, buf)
        buf.pk_min[p] = net.tw_dist[u & 1, 2 * c + (ur & 1)]
    else:
        buf.pk_min[p] = net.min_dist[u, ur]


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
            d = draw_dest(t, net.T, trf, False)
            u = net.term_router[t]
            new_packet(p, u, d, trf.src_l[t, h], trf.src_t[t, h], now, net, buf)
            enqueue(q, p, u, buf)
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
            new_packet(p, u, trf.msg_dst[m], L, trf.msg_sent[m], now, net, buf)
            enqueue(q, p, u, buf)
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
# routing
# =========================================================================
@njit(**HELPER)
def _mask_candidates(m, base, v0, v1, tier, L, nc, net, buf):
    """Append VCs ``v0 .. v1 - 1`` of every channel in next-hop mask ``m``
    (bit ``b``: the router's ``b``-th out-arc, from CSR offset ``base``) as
    candidates of tier ``tier`` needing ``L`` phits; returns the new count."""
    bit = 0
    while m != 0:
        if m & np.uint64(1):
            a = net.csr_arc[base + bit]
            for v in range(v0, v1):
                buf.cand_a[nc] = a
                buf.cand_v[nc] = v
                buf.cand_n[nc] = L
                buf.cand_t[nc] = tier
                nc += 1
        m = m >> np.uint64(1)
        bit += 1
    return nc


@njit(**HELPER)
def spreads_ties(net):
    """True for the routings over next-hop masks (table, updown, minimal,
    distance, valiant, ugal): among equally good next hops they pick one at
    random, so equal paths share the traffic (a fat tree's up channels, a
    dragonfly's parallel routes). The record routings keep their fixed order
    (the papers' routers; the BookSim2 comparison and the recorded figures)."""
    m = net.mode
    return (m == MODE_TABLE or m == MODE_UPDOWN or m == MODE_MINTABLE or m == MODE_DISTANCE
            or m == MODE_VALIANT or m == MODE_UGAL)


@njit(**HELPER)
def keep_tied(ties):
    """Reservoir sampling: the ``ties``-th equally good candidate replaces the
    one kept with probability 1 / ties, so each is chosen with 1 / ties."""
    return np.random.randint(0, ties) == 0


@njit(**HELPER)
def route_target(p, net, buf):
    """The router packet ``p`` heads for: its intermediate router during the
    first phase of valiant / ugal, else its destination's (where it is ejected)."""
    m = buf.pk_mid[p]
    if m >= 0:
        return np.int64(m)
    return net.term_router[buf.pk_dst[p]]


@njit(**HELPER)
def _port_queue(m, base, net, buf):
    """The least occupancy among the out-channels in next-hop mask ``m``:
    the phits that channel's downstream input VCs hold or are owed (credits
    used, as the upstream router sees them) -- UGAL-L's local queue length."""
    V = net.V
    best = np.int64(-1)
    bit = 0
    while m != 0:
        if m & np.uint64(1):
            a = net.csr_arc[base + bit]
            q = np.int64(0)
            for v in range(V):
                q += net.cap - buf.credit[a * V + v]
            if best < 0 or q < best:
                best = q
        m = m >> np.uint64(1)
        bit += 1
    return best


@njit(**HELPER)
def _push_candidate(a, v, L, tier, nc, buf):
    """Append (channel ``a``, VC ``v``, ``L`` free phits needed, ``tier``) to
    the candidates; returns the new count."""
    buf.cand_a[nc] = a
    buf.cand_v[nc] = v
    buf.cand_n[nc] = L
    buf.cand_t[nc] = tier
    return nc + 1


@njit(**HELPER)
def _twin_class_vcs(a, t, cls, tier, L, nc, net, buf):
    """Append channel ``a`` on every VC of VC class ``cls`` of traffic-class row
    ``t`` (twin tori) to the candidates, at ``tier``; returns the new count."""
    for j in range(net.tw_vc[t, cls, 2]):
        nc = _push_candidate(a, net.tw_vc[t, cls, 0] + j * net.tw_vc[t, cls, 1], L, tier, nc, buf)
    return nc


@njit(**HELPER)
def _wrap_ahead(p, u, k, sgn, net, buf):
    """Whether the wraparound link of dimension ``k`` lies ahead of packet
    ``p`` at router ``u`` going ``sgn`` (+1 / -1) along it (twin tori: the
    node offset in ``pk_rem``)."""
    x = np.int64(net.coords[u, k])
    r = np.int64(buf.pk_rem[p, k])
    if sgn > 0:
        return x + r >= net.cls_shape[k]
    return x < net.cls_shape[k] - r


@njit(**HELPER)
def _twin_adaptive(p, u, a, code, tc, c, L, net, buf):
    """The candidates of a packet of an adaptive traffic class (tsdor-adaptive)
    at router ``u`` (difference class ``c``): tier 0 its class's adaptive VC on
    TS-DOR's hop ``a`` and on every other port that keeps the packet on this
    card, goes the ring's shorter way and starts a shortest path to the
    destination; tier 1 (escape) TS-DOR's hop on the class's escape VCs,
    dateline class 0 while that dimension's wraparound lies ahead. Only
    TS-DOR's hops change card, so no adaptive hop brings back a dimension
    TS-DOR has finished (the escape VCs' extended dependency graph stays
    acyclic: :func:`sim.routing.twin_adaptive_choices`)."""
    t = tc + 2
    va = net.tw_vc[t, 4, 0]
    nd = net.cls_shape.shape[0]
    card = u & 1
    dist = net.tw_dist[card, c]
    nc = _push_candidate(a, va, L, 0, 0, buf)
    for k in range(nd):
        r = np.int64(buf.pk_rem[p, k])
        if r == 0:
            continue
        sk = net.cls_shape[k]
        for sd in range(2):
            b = net.out_arc[u, k, sd]
            # the ring's shorter way (both at a tie), on this card: a packet's hops in one ring keep one direction
            if b < 0 or b == a or (net.arc_dst[b] & 1) != card or (sd == 0 and 2 * r > sk) or (sd == 1 and 2 * r < sk):
                continue
            # and onto a shortest path of the twin torus (the offset after the hop: + one less, - one more)
            r2 = r - 1 if sd == 0 else (r + 1) % sk
            if net.tw_dist[card, c + 2 * (r2 - r) * net.cls_stride[k]] != dist - 1:
                continue
            nc = _push_candidate(b, va, L, 0, nc, buf)
    if code == 0:
        ahead = _wrap_ahead(p, u, net.arc_dim[a], net.arc_dir[a], net, buf)
        cls = 0 if ahead else 1
    elif code == 1:
        ahead = _wrap_ahead(p, u, net.tw_m, 1 if card == 0 else -1, net, buf)
        cls = 0 if ahead else 1
    else:
        cls = code
    return _twin_class_vcs(a, t, cls, 1, L, nc, net, buf)


@njit(**HELPER)
def candidates(p, u, dr, L, net, buf):
    """Every (channel, VC) the routing allows packet ``p`` at router ``u``
    (destination router ``dr``): ``cand_a``/``cand_v`` the channel and VC,
    ``cand_n`` the free phits it needs there (bubble flow control asks for
    one more maximum-size packet when the packet enters a ring),
    ``cand_t`` the tier (0 first; 1 = escape, used only when no tier-0
    choice is free). Returns the count."""
    ca = buf.cand_a
    cv = buf.cand_v
    cn = buf.cand_n
    ct = buf.cand_t
    V = net.V
    mode = net.mode
    nc = 0
    if mode == MODE_TWIN:
        tc = 1 if (buf.pk_state[p] & ST_TC1) != 0 else 0
        # pk_rem holds the node offset to the destination (kept reduced by advance_route)
        c = np.int64(0)
        for k in range(net.cls_stride.shape[0]):
            c += buf.pk_rem[p, k] * net.cls_stride[k]
        c = 2 * c + (dr & 1)
        hop = net.tw_next[tc, u & 1, c]
        a = net.out_arc[u, hop >> 1, hop & 1]
        code = net.tw_code[tc, u & 1, c]
        if (buf.pk_state[p] & ST_ATC) != 0:
            return _twin_adaptive(p, u, a, code, tc, c, L, net, buf)
        crossed = (buf.pk_state[p] & ST_CROSSED) != 0
        if code == 0:
            key = 2 * net.arc_dim[a] + (a & 1) + 1
            cls = 1 if ((buf.pk_ring[p] == key and crossed) or net.arc_wrap[a] != 0) else 0
        elif code == 1:
            cls = 1 if (buf.pk_ring[p] > 0 and (buf.pk_ring[p] - 1) // 2 == net.tw_m and crossed) else 0
        else:
            cls = code
        return _twin_class_vcs(a, tc, cls, 0, L, nc, net, buf)
    if mode == MODE_DOR or mode == MODE_ADAPTIVE:
        kd = -1
        for k in range(net.D):
            if buf.pk_rem[p, k] != 0:
                kd = k
                break
        sd = 0 if buf.pk_rem[p, kd] > 0 else 1
        a_dor = net.out_arc[u, kd, sd]
        if mode == MODE_ADAPTIVE:
            for k in range(net.D):
                r = buf.pk_rem[p, k]
                if r != 0:
                    a = net.out_arc[u, k, 0 if r > 0 else 1]
                    for v in range(1, V):
                        ca[nc] = a
                        cv[nc] = v
                        cn[nc] = L
                        ct[nc] = 0
                        nc += 1
            key = 2 * kd + sd + 1
            ca[nc] = a_dor
            cv[nc] = 0
            cn[nc] = L if buf.pk_ring[p] == key else L + net.bubble
            ct[nc] = 1
            nc += 1
        elif net.deadlock == DL_DATELINE:
            cls = 0
            cur = 2 * kd + sd + 1
            if buf.pk_ring[p] == cur and (buf.pk_state[p] & ST_CROSSED) != 0:
                cls = 1
            if net.arc_wrap[a_dor] != 0:
                cls = 1
            for v in range(cls, V, 2):
                ca[nc] = a_dor
                cv[nc] = v
                cn[nc] = L
                ct[nc] = 0
                nc += 1
        elif net.deadlock == DL_BUBBLE:
            for v in range(V):
                key = (2 * kd + sd) * V + v + 1
                ca[nc] = a_dor
                cv[nc] = v
                cn[nc] = L if buf.pk_ring[p] == key else L + net.bubble
                ct[nc] = 0
                nc += 1
        else:
            for v in range(V):
                ca[nc] = a_dor
                cv[nc] = v
                cn[nc] = L
                ct[nc] = 0
                nc += 1
        return nc
    base = net.csr_indptr[u]
    st = buf.pk_state[p]
    if mode == MODE_DISTANCE or mode == MODE_VALIANT or mode == MODE_UGAL:
        # pk_ring counts the hops taken: hop h uses class h, so a channel
        # only waits on channels of a higher class (acyclic). valiant / ugal:
        # ``dr`` is the route target (the intermediate router first)
        v0 = buf.pk_ring[p] * net.dc_width
        m = buf.pk_mid[p]
        if mode == MODE_UGAL and m >= 0 and (st & ST_DECIDED) == 0:
            # UGAL-L where the two paths part: at the source router, or
            # later if their next hops are the same there (the local queue
            # cannot tell them apart, and the shared hop is on both paths,
            # so taking it first costs no hop): minimal unless its queue x
            # hops exceeds the Valiant path's (plus the threshold);
            # re-decided at every attempt until the packet leaves
            # (advance_route commits)
            d = net.term_router[buf.pk_dst[p]]
            mm = net.next_mask[u, d]
            if mm == net.next_mask[u, m]:
                buf.pk_state[p] |= ST_DEFER
            else:
                buf.pk_state[p] &= ~ST_DEFER
                h_min = np.int64(net.min_dist[u, d])
                h_val = np.int64(net.min_dist[u, m]) + np.int64(net.min_dist[m, d])
                q_min = _port_queue(mm, base, net, buf)
                q_val = _port_queue(net.next_mask[u, m], base, net, buf)
                if q_min * h_min <= q_val * h_val + net.ugal_thres:
                    buf.pk_state[p] &= ~ST_NONMIN
                    dr = d
                else:
                    buf.pk_state[p] |= ST_NONMIN
        return _mask_candidates(net.next_mask[u, dr], base, v0, v0 + net.dc_width, 0, L, nc, net, buf)
    if mode == MODE_MINTABLE or (mode == MODE_TABLE and (st & ST_ESCAPED) == 0):
        nc = _mask_candidates(net.next_mask[u, dr], base, 1 if mode == MODE_TABLE else 0, V, 0, L, nc, net, buf)
    if mode == MODE_TABLE or mode == MODE_UPDOWN:
        if (st & ST_DOWN) != 0:
            m = net.ud_down[u, dr]
        else:
            m = net.ud_up[u, dr]
        nc = _mask_candidates(m, base, 0, 1 if mode == MODE_TABLE else V, 1 if mode == MODE_TABLE else 0, L, nc,
                              net, buf)
    return nc


@njit(**HELPER)
def _dateline_state(p, ring, a, net, buf):
    """Packet ``p`` takes channel ``a`` of ``ring``: a new ring clears its
    dateline-crossed flag, a wrap-around channel sets it."""
    if buf.pk_ring[p] != ring:
        buf.pk_state[p] &= ~ST_CROSSED
    if net.arc_wrap[a] != 0:
        buf.pk_state[p] |= ST_CROSSED


@njit(**HELPER)
def advance_route(p, a, v, esc, net, buf):
    """Packet ``p`` was given channel ``a``, VC ``v`` (``esc``: on the escape
    tier): its routing state moves on (remaining record, ring and dateline
    state, hops taken, up*/down* phase)."""
    mode = net.mode
    k = net.arc_dim[a]
    sgn = net.arc_dir[a]
    if mode == MODE_DOR or mode == MODE_ADAPTIVE:
        buf.pk_rem[p, k] -= sgn
        ring = 2 * k + (0 if sgn > 0 else 1) + 1
        if mode == MODE_ADAPTIVE:
            # only the escape VC's bubble cares which ring the packet is on
            buf.pk_ring[p] = ring if esc else 0
        elif net.deadlock == DL_BUBBLE:
            buf.pk_ring[p] = (ring - 1) * net.V + v + 1
        else:
            if net.deadlock == DL_DATELINE:
                _dateline_state(p, ring, a, net, buf)
            buf.pk_ring[p] = ring
    elif mode == MODE_TWIN:
        if k < net.tw_m * 2 + 1:  # an external link (the internal class is the last one)
            r = buf.pk_rem[p, k] - sgn
            if r < 0:
                r += net.cls_shape[k]
            elif r >= net.cls_shape[k]:
                r -= net.cls_shape[k]
            buf.pk_rem[p, k] = r
            ring = 2 * k + (0 if sgn > 0 else 1) + 1
            _dateline_state(p, ring, a, net, buf)
            buf.pk_ring[p] = ring
    elif mode == MODE_DISTANCE:
        buf.pk_ring[p] += 1
    elif mode == MODE_VALIANT or mode == MODE_UGAL:
        st = buf.pk_state[p]
        if mode == MODE_UGAL and buf.pk_mid[p] >= 0 and (st & (ST_DECIDED | ST_DEFER)) == 0:
            buf.pk_state[p] = st | ST_DECIDED
            if (st & ST_NONMIN) == 0:
                buf.pk_mid[p] = -1      # the minimal path was chosen
        elif mode == MODE_UGAL and (st & ST_DECIDED) == 0 and net.arc_dst[a] == net.term_router[buf.pk_dst[p]]:
            buf.pk_mid[p] = -1          # undecided at its destination: the minimal path it took ends here
        buf.pk_ring[p] += 1
        if buf.pk_mid[p] == net.arc_dst[a]:
            buf.pk_mid[p] = -1      # reached the intermediate router: second phase
    elif mode == MODE_UPDOWN or (mode == MODE_TABLE and esc):
        if mode == MODE_TABLE:
            buf.pk_state[p] |= ST_ESCAPED
        if net.arc_up[a] == 0:
            buf.pk_state[p] |= ST_DOWN


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
