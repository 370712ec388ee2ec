"""Private numba kernel of the cycle-level packet simulator.

Everything here takes plain numpy arrays (integers, plus float64 traffic
rates/CDFs) and is compiled once per machine (``cache=True``). The public
face is :mod:`sim.engine`; the model is documented there.

State is struct-of-arrays:

- packets live in a pool (``pk_*`` arrays indexed by packet id, recycled
  through a free stack);
- every input virtual channel ``g = arc * V + vc`` (the buffer at the head
  router of channel ``arc``) is a ring of packet ids ``vc_buf[g, :]``;
- every terminal has an unbounded-looking source queue (a ring of generation
  times and lengths) and a bounded injection queue (a ring of packet ids),
  the latter an input port of its router;
- credits ``credit[g]`` are the free phits of input VC ``g`` as seen by the
  upstream router; returned credits travel on a timing wheel.

Timing (one phit per cycle per channel): a packet whose head is eligible at
router ``u`` at cycle ``s`` and wins an output occupies its input port and
the output channel for ``L`` cycles; its head becomes eligible at the next
router at ``s + link_latency + router_delay``; the ``L`` phits of buffer it
held upstream are credited back at ``s + L + link_latency``. Ejection to a
terminal takes ``L`` cycles; the packet is delivered at ``s + L``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# routing modes
MODE_DOR = 0          # dimension order on routing records
MODE_ADAPTIVE = 1     # minimal adaptive on records, escape VC 0 = DOR + bubble
MODE_TABLE = 2        # shortest-path table adaptive, escape VC 0 = up*/down*
MODE_UPDOWN = 3       # up*/down* on every VC
MODE_MINTABLE = 4     # shortest-path table adaptive on every VC, no avoidance
MODE_TWIN = 5         # nDT twin tori: TS-DOR / DORT next-hop tables, dateline + internal-link classes
MODE_DISTANCE = 6     # shortest-path next hops adaptive, VC class = hops taken (distance classes)

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
NSTATS = 29

# trace events
EV_COMPUTE = 0
EV_SEND = 1
EV_RECV = 2


@njit(cache=True, inline="always")
def _draw_len(len_min, len_max):
    if len_min == len_max:
        return len_min
    return len_min + np.random.randint(0, len_max - len_min + 1)


@njit(cache=True, inline="always")
def _gap(q, poisson):
    # inter-arrival time of a Bernoulli (geometric) or Poisson (exponential) process
    u = 1.0 - np.random.random()  # (0, 1]
    if poisson:
        return -np.log(u) / q
    if q >= 1.0:
        return 1.0
    return np.floor(np.log(u) / np.log(1.0 - q)) + 1.0


@njit(cache=True)
def _draw_dest(t, T, dest_mode, perm, cdf, hot_count, hot_prob):
    if dest_mode == DEST_PERM:
        return perm[t]
    if dest_mode == DEST_TABLE:
        r = np.random.random() * cdf[t, T - 1]
        lo = 0
        hi = T - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cdf[t, mid] > r:
                hi = mid
            else:
                lo = mid + 1
        return lo
    if dest_mode == DEST_HOT:
        # perm lists the hot terminals (any numbering)
        if np.random.random() < hot_prob:
            while True:
                d = perm[np.random.randint(0, hot_count)]
                if d != t or hot_count == 1:
                    return d
    # uniform over the other terminals
    if T == 1:
        return 0
    d = np.random.randint(0, T - 1)
    if d >= t:
        d += 1
    return d


@njit(cache=True)
def _trace_wake(now, pc, busy, proc_finish, ev_ptr, ev_kind, ev_msg, msg_done):
    """Trace mode, network empty: the next cycle a process can act (its
    computation ends, or the message it waits for has arrived); -1 if none
    can (every live process waits for a message nobody will send)."""
    wake = np.int64(-1)
    for r in range(pc.shape[0]):
        if pc[r] > ev_ptr[r + 1] - 1 and proc_finish[r] >= 0:
            continue
        if busy[r] > now:
            w_r = busy[r]
        else:
            e = pc[r]
            w_r = -1
            if e < ev_ptr[r + 1] and ev_kind[e] == EV_RECV:
                md = msg_done[ev_msg[e]]
                if md >= 0:
                    w_r = md if md > now else now
            else:
                w_r = now
        if w_r >= 0 and (wake < 0 or w_r < wake):
            wake = w_r
    return wake


@njit(cache=True)
def _trace_step(now, pc, busy, proc_finish, ev_ptr, ev_kind, ev_a, ev_msg, msg_sent, msg_done, issued, sq_head,
                ph_left, msg_phits):
    """Trace mode: run every process's events until it blocks (computing,
    or waiting for a message). Returns (processes that finished, messages
    sent)."""
    done = 0
    sent = 0
    for r in range(pc.shape[0]):
        if proc_finish[r] >= 0 or busy[r] > now:
            continue
        while True:
            e = pc[r]
            if e >= ev_ptr[r + 1]:
                proc_finish[r] = now
                done += 1
                break
            kd = ev_kind[e]
            if kd == EV_COMPUTE:
                pc[r] = e + 1
                if ev_a[e] > 0:
                    busy[r] = now + ev_a[e]
                    break
            elif kd == EV_SEND:
                m = ev_msg[e]
                msg_sent[m] = now
                if issued[r] == sq_head[r]:
                    ph_left[r] = msg_phits[m]
                issued[r] += 1
                sent += 1
                pc[r] = e + 1
            else:
                md = msg_done[ev_msg[e]]
                if md >= 0 and md <= now:
                    pc[r] = e + 1
                else:
                    break
    return done, sent


@njit(cache=True)
def _generate(now, in_window, next_gen, rate, poisson, len_min, len_max, src_t, src_l, src_head, src_cnt, stats):
    """Synthetic traffic: the packets every terminal generates this cycle
    join its source queue (counted and dropped when it is full)."""
    src_cap = src_t.shape[1]
    for t in range(next_gen.shape[0]):
        while next_gen[t] <= now:
            L = _draw_len(len_min, len_max)
            if in_window:
                stats[S_GEN_PACKETS] += 1
                stats[S_GEN_PHITS] += L
            if src_cnt[t] < src_cap:
                k = src_head[t] + src_cnt[t]
                if k >= src_cap:
                    k -= src_cap
                src_t[t, k] = now
                src_l[t, k] = L
                src_cnt[t] += 1
                if in_window:
                    stats[S_TAG_GENERATED] += 1
            else:
                stats[S_OVERFLOW] += 1
            next_gen[t] += _gap(rate[t], poisson)


@njit(cache=True)
def _packetize(now, tr_term, n_inj, len_max, sq_ptr, sq_head, issued, ph_left, msg_phits, msg_dst, msg_sent,
               term_router, router_delay, with_records, tie_random, rec_count, records, tw_by_source, free, nfree,
               pk_msg, pk_tgen, pk_len, pk_dst, pk_src, pk_tinj, pk_ready, pk_hops, pk_ring, pk_state, pk_rem,
               inj_buf, inj_head, inj_cnt, inj_free, r_count, stats):
    """Trace mode: every process with a message not yet packetized puts its
    next packet into its terminal's emptiest injection queue (if it has
    room). Returns (free-stack size, packets, phits, messages finished)."""
    packets = 0
    phits = 0
    whole_msgs = 0
    for r in range(tr_term.shape[0]):
        t = tr_term[r]
        q = _emptiest_queue(t, n_inj, inj_free)
        if sq_head[r] < issued[r] and inj_free[q] > 0:
            m, L, whole = _next_chunk(r, len_max, sq_ptr, sq_head, issued, ph_left, msg_phits)
            whole_msgs += whole
            p = free[nfree - 1]
            nfree -= 1
            pk_msg[p] = m
            d = msg_dst[m]
            u = term_router[t]
            _new_packet(p, u, d, term_router[d], L, msg_sent[m], now, router_delay, with_records, tie_random,
                        rec_count, records, tw_by_source, pk_tgen, pk_len, pk_dst, pk_src, pk_tinj, pk_ready,
                        pk_hops, pk_ring, pk_state, pk_rem)
            _enqueue(q, p, inj_buf, inj_head, inj_cnt, inj_free)
            r_count[u] += 1
            packets += 1
            phits += L
            stats[S_INJ_PHITS] += L
            stats[S_GEN_PHITS] += L
            stats[S_GEN_PACKETS] += 1
            stats[S_TAG_GENERATED] += 1
    return nfree, packets, phits, whole_msgs


@njit(cache=True)
def _finished(now, trace_mode, procs_left, msgs_out, in_flight, max_cycles, end_measure, limit, stats):
    """Whether the run ends after cycle ``now - 1``: a trace when every
    process finished and every message arrived (or at ``max_cycles``); a
    synthetic run once the measured packets all arrived after the window
    (or the drain limit passed)."""
    if trace_mode:
        if procs_left == 0 and msgs_out == 0 and in_flight == 0:
            stats[S_TRACE_DONE] = 1
            stats[S_DRAINED] = 1
            return True
        return now >= max_cycles
    if now >= end_measure:
        if stats[S_TAG_DELIVERED] >= stats[S_TAG_GENERATED]:
            stats[S_DRAINED] = 1
            return True
        return now >= limit
    return False


@njit(cache=True)
def _final_stats(stats, now, deadlock_kind, stall_vc, injected, delivered, in_flight, last_progress):
    stats[S_CYCLES] = now
    stats[S_DEADLOCK] = 1 if deadlock_kind != 0 else 0
    stats[S_DEADLOCK_KIND] = deadlock_kind
    stats[S_STALL_VC] = stall_vc
    stats[S_INJECTED] = injected
    stats[S_DELIVERED] = delivered
    stats[S_IN_FLIGHT] = in_flight
    stats[S_LAST_PROGRESS] = last_progress


@njit(cache=True, inline="always")
def _next_chunk(r, len_max, sq_ptr, sq_head, issued, ph_left, msg_phits):
    """Trace mode: the next packet of process ``r``'s oldest message not yet
    packetized: (message, phits, 1 if that was its last packet else 0)."""
    m = sq_ptr[r] + sq_head[r]
    L = ph_left[r]
    if L > len_max:
        L = len_max
    ph_left[r] -= L
    whole = 0
    if ph_left[r] == 0:
        sq_head[r] += 1
        whole = 1
        if sq_head[r] < issued[r]:
            ph_left[r] = msg_phits[m + 1]
    return m, L, whole


@njit(cache=True, inline="always")
def _emptiest_queue(t, n_inj, inj_free):
    """The injection queue of terminal ``t`` with the most room (lowest index on ties)."""
    q = t * n_inj
    for j in range(1, n_inj):
        if inj_free[t * n_inj + j] > inj_free[q]:
            q = t * n_inj + j
    return q


@njit(cache=True, inline="always")
def _new_packet(p, u, d, ur, L, tgen, now, router_delay, with_records, tie_random, rec_count, records, tw_by_source,
                pk_tgen, pk_len, pk_dst, pk_src, pk_tinj, pk_ready, pk_hops, pk_ring, pk_state, pk_rem):
    """Fill packet ``p`` (from router ``u`` to terminal ``d`` at router ``ur``)
    as it enters an injection queue; record routings draw its record."""
    pk_tgen[p] = tgen
    pk_len[p] = L
    pk_dst[p] = d
    pk_src[p] = u
    pk_tinj[p] = now
    pk_ready[p] = now + router_delay
    pk_hops[p] = 0
    pk_ring[p] = 0
    pk_state[p] = ST_TC1 if (tw_by_source != 0 and (u & 1) != 0) else 0
    if with_records:
        kk = 0
        if tie_random != 0 and rec_count[u, ur] > 1:
            kk = np.random.randint(0, rec_count[u, ur])
        for k in range(records.shape[3]):
            pk_rem[p, k] = records[kk, u, ur, k]


@njit(cache=True, inline="always")
def _enqueue(q, p, inj_buf, inj_head, inj_cnt, inj_free):
    """Packet ``p`` joins the tail of injection queue ``q``."""
    cap = inj_buf.shape[1]
    k = inj_head[q] + inj_cnt[q]
    if k >= cap:
        k -= cap
    inj_buf[q, k] = p
    inj_cnt[q] += 1
    inj_free[q] -= 1


@njit(cache=True, inline="always")
def _candidates(p, u, dr, L, mode, deadlock, V, len_max, D, pk_rem, pk_ring, pk_state,
                out_arc, arc_wrap, csr_indptr, csr_arc, next_mask, ud_up, ud_down,
                ca, cv, cn, ct, arc_dim, tw_next, tw_code, tw_vc, tw_m, dc_width):
    """Every (channel, VC) the routing allows packet ``p`` at router ``u``:
    ``ca``/``cv`` the channel and VC, ``cn`` the free phits it needs there
    (bubble flow control asks for one more maximum-size packet when the
    packet enters a ring), ``ct`` the tier (0 first; 1 = escape, used only
    when no tier-0 choice is free). Returns the count."""
    nc = 0
    if mode == MODE_TWIN:
        tc = 1 if (pk_state[p] & ST_TC1) != 0 else 0
        a = tw_next[tc, u, dr]
        code = tw_code[tc, u, dr]
        crossed = (pk_state[p] & ST_CROSSED) != 0
        if code == 0:
            key = 2 * arc_dim[a] + (a & 1) + 1
            cls = 1 if ((pk_ring[p] == key and crossed) or arc_wrap[a] != 0) else 0
        elif code == 1:
            cls = 1 if (pk_ring[p] > 0 and (pk_ring[p] - 1) // 2 == tw_m and crossed) else 0
        else:
            cls = code
        for j in range(tw_vc[tc, cls, 2]):
            ca[nc] = a
            cv[nc] = tw_vc[tc, cls, 0] + j * tw_vc[tc, cls, 1]
            cn[nc] = L
            ct[nc] = 0
            nc += 1
        return nc
    if mode == MODE_DOR or mode == MODE_ADAPTIVE:
        kd = -1
        for k in range(D):
            if pk_rem[p, k] != 0:
                kd = k
                break
        sd = 0 if pk_rem[p, kd] > 0 else 1
        a_dor = out_arc[u, kd, sd]
        if mode == MODE_ADAPTIVE:
            for k in range(D):
                r = pk_rem[p, k]
                if r != 0:
                    a = out_arc[u, k, 0 if r > 0 else 1]
                    for v in range(1, V):
                        ca[nc] = a
                        cv[nc] = v
                        cn[nc] = L
                        ct[nc] = 0
                        nc += 1
            key = 2 * kd + sd + 1
            ca[nc] = a_dor
            cv[nc] = 0
            cn[nc] = L if pk_ring[p] == key else L + len_max
            ct[nc] = 1
            nc += 1
        elif deadlock == DL_DATELINE:
            cls = 0
            cur = 2 * kd + sd + 1
            if pk_ring[p] == cur and (pk_state[p] & ST_CROSSED) != 0:
                cls = 1
            if arc_wrap[a_dor] != 0:
                cls = 1
            for v in range(cls, V, 2):
                ca[nc] = a_dor
                cv[nc] = v
                cn[nc] = L
                ct[nc] = 0
                nc += 1
        elif deadlock == DL_BUBBLE:
            for v in range(V):
                key = (2 * kd + sd) * V + v + 1
                ca[nc] = a_dor
                cv[nc] = v
                cn[nc] = L if pk_ring[p] == key else L + len_max
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
    base = csr_indptr[u]
    st = pk_state[p]
    if mode == MODE_DISTANCE:
        # pk_ring counts the hops taken: hop h uses class h, so a channel
        # only waits on channels of a higher class (acyclic)
        m = next_mask[u, dr]
        v0 = pk_ring[p] * dc_width
        bit = 0
        while m != 0:
            if m & np.uint64(1):
                a = csr_arc[base + bit]
                for v in range(v0, v0 + dc_width):
                    ca[nc] = a
                    cv[nc] = v
                    cn[nc] = L
                    ct[nc] = 0
                    nc += 1
            m = m >> np.uint64(1)
            bit += 1
        return nc
    if mode == MODE_MINTABLE or (mode == MODE_TABLE and (st & ST_ESCAPED) == 0):
        m = next_mask[u, dr]
        v0 = 1 if mode == MODE_TABLE else 0
        bit = 0
        while m != 0:
            if m & np.uint64(1):
                a = csr_arc[base + bit]
                for v in range(v0, V):
                    ca[nc] = a
                    cv[nc] = v
                    cn[nc] = L
                    ct[nc] = 0
                    nc += 1
            m = m >> np.uint64(1)
            bit += 1
    if mode == MODE_TABLE or mode == MODE_UPDOWN:
        if (st & ST_DOWN) != 0:
            m = ud_down[u, dr]
        else:
            m = ud_up[u, dr]
        v1 = 1 if mode == MODE_TABLE else V
        tier = 1 if mode == MODE_TABLE else 0
        bit = 0
        while m != 0:
            if m & np.uint64(1):
                a = csr_arc[base + bit]
                for v in range(0, v1):
                    ca[nc] = a
                    cv[nc] = v
                    cn[nc] = L
                    ct[nc] = tier
                    nc += 1
            m = m >> np.uint64(1)
            bit += 1
    return nc


@njit(cache=True)
def simulate_kernel(
    # topology
    n, arc_src, arc_dst, arc_dim, arc_dir, arc_wrap, in_indptr, in_arcs,
    term_router, term_indptr, out_arc, records, rec_count, tie_random, min_dist,
    # tables (mode TABLE / UPDOWN / MINTABLE)
    csr_indptr, csr_arc, next_mask, ud_up, ud_down, arc_up,
    # tables (mode TWIN)
    tw_next, tw_code, tw_vc, tw_m, tw_by_source,
    # router configuration
    mode, deadlock, transit_priority, V, cap_phits, slots, inj_cap, src_cap, router_delay, link_latency,
    len_min, len_max, n_inj, n_ej, dc_width,
    # traffic
    dest_mode, perm, cdf, hot_count, hot_prob, rate, poisson,
    # phases
    warmup, measure, max_drain, watchdog, seed, check_every,
    # trace-driven workload (trace_mode = 0: synthetic traffic, dummies)
    trace_mode, tr_term, term_proc, ev_ptr, ev_kind, ev_a, ev_msg, msg_dst, msg_phits, sq_ptr,
    proc_finish, msg_sent, msg_done, max_cycles,
    # outputs
    stats, hist_gen, hist_inj, arc_phits, pair_sum, pair_cnt,
):
    np.random.seed(seed)
    A = arc_src.shape[0]
    T = term_router.shape[0]
    D = out_arc.shape[1]
    NVC = A * V
    HB = hist_gen.shape[0] - 1

    # ---------------------------------------------------------------- state
    Q = T * n_inj                       # injection queues: terminal t owns t * n_inj ..
    P = NVC * slots + Q * inj_cap + 1
    pairs = pair_cnt.shape[0] == n
    pk_dst = np.empty(P, np.int32)
    pk_len = np.empty(P, np.int32)
    pk_src = np.empty(P, np.int32)
    pk_hops = np.empty(P, np.int32)
    pk_state = np.empty(P, np.int32)
    pk_ring = np.empty(P, np.int32)
    pk_tgen = np.empty(P, np.int64)
    pk_tinj = np.empty(P, np.int64)
    pk_ready = np.empty(P, np.int64)
    pk_rem = np.zeros((P, max(D, 1)), np.int16)
    pk_msg = np.full(P, -1, np.int64)
    free = np.empty(P, np.int32)
    for i in range(P):
        free[i] = P - 1 - i
    nfree = P

    vc_buf = np.empty((NVC, slots), np.int32)
    vc_head = np.zeros(NVC, np.int32)
    vc_cnt = np.zeros(NVC, np.int32)
    vc_since = np.zeros(NVC, np.int64)
    credit = np.full(NVC, cap_phits, np.int64)
    in_busy = np.zeros(A, np.int64)
    out_busy = np.zeros(A, np.int64)

    inj_buf = np.empty((Q, inj_cap), np.int32)
    inj_head = np.zeros(Q, np.int32)
    inj_cnt = np.zeros(Q, np.int32)
    inj_free = np.full(Q, inj_cap, np.int32)
    inj_busy = np.zeros(Q, np.int64)
    ej_busy = np.zeros(T * n_ej, np.int64)

    src_t = np.empty((T, src_cap), np.int64)
    src_l = np.empty((T, src_cap), np.int32)
    src_head = np.zeros(T, np.int32)
    src_cnt = np.zeros(T, np.int32)
    next_gen = np.empty(T, np.float64)
    for t in range(T):
        if rate[t] > 0.0:
            next_gen[t] = _gap(rate[t], poisson) - (0.0 if poisson else 1.0)
        else:
            next_gen[t] = np.inf

    # ------------------------------------------------ trace-driven state
    NP = tr_term.shape[0]
    pc = np.zeros(NP, np.int64)
    busy = np.zeros(NP, np.int64)
    issued = np.zeros(NP, np.int64)     # messages sent so far (ids sq_ptr[r] ..)
    sq_head = np.zeros(NP, np.int64)    # next message to packetize
    ph_left = np.zeros(NP, np.int64)    # phits of the head message not yet packetized
    msg_got = np.zeros(max(msg_phits.shape[0], 1), np.int64)
    procs_left = 0
    msgs_out = 0                        # sent but not yet fully delivered
    to_pack = 0                         # sent but not yet fully packetized
    if trace_mode:
        for r in range(NP):
            pc[r] = ev_ptr[r]
            proc_finish[r] = -1
            procs_left += 1
            next_gen[tr_term[r]] = np.inf
        for m in range(msg_phits.shape[0]):
            msg_sent[m] = -1
            msg_done[m] = -1

    W = 1
    while W < len_max + link_latency + 2:
        W *= 2
    E = A + T
    wh_cnt = np.zeros(W, np.int32)
    wh_idx = np.empty((W, E), np.int64)
    wh_amt = np.empty((W, E), np.int32)

    r_pk = np.zeros(n, np.int32)
    rr = np.zeros(n, np.int64)
    rr_t = np.zeros(n, np.int64)

    end_measure = warmup + measure
    limit = end_measure + max_drain
    in_flight = 0
    injected = 0
    delivered = 0
    last_progress = 0
    deadlock_kind = 0
    stall_vc = -1
    NC = 2 * 64 * V + 2
    cand_a = np.empty(NC, np.int64)
    cand_v = np.empty(NC, np.int64)
    cand_n = np.empty(NC, np.int64)
    cand_t = np.empty(NC, np.int64)
    live = np.zeros(NVC, np.bool_)
    pend = np.zeros(NVC, np.int64)
    scan_every = max(watchdog // 4, 1)

    now = 0
    while True:
        # ------------------------------------------------ credits returning
        slot = now & (W - 1)
        for e in range(wh_cnt[slot]):
            idx = wh_idx[slot, e]
            if idx >= 0:
                credit[idx] += wh_amt[slot, e]
            else:
                inj_free[-idx - 1] += 1
        wh_cnt[slot] = 0

        # ------------------------------------------------------ generation
        in_window = now >= warmup and now < end_measure
        if trace_mode:
            # fast-forward over idle stretches: nothing in the network, nothing
            # to packetize -> jump to the next compute end / message arrival
            if in_flight == 0 and to_pack == 0:
                wake = _trace_wake(now, pc, busy, proc_finish, ev_ptr, ev_kind, ev_msg, msg_done)
                if wake < 0:
                    if procs_left > 0:
                        deadlock_kind = 3  # every live process waits for a message nobody will send
                        break
                elif wake > now + 1:
                    # the network is empty: return every credit now, then jump
                    for s3 in range(W):
                        for e3 in range(wh_cnt[s3]):
                            idx = wh_idx[s3, e3]
                            if idx >= 0:
                                credit[idx] += wh_amt[s3, e3]
                            else:
                                inj_free[-idx - 1] += 1
                        wh_cnt[s3] = 0
                    stats[S_SKIPPED] += wake - now
                    now = wake
                    last_progress = now
            # the processes: run events until one blocks (compute, recv)
            done, sent = _trace_step(now, pc, busy, proc_finish, ev_ptr, ev_kind, ev_a, ev_msg, msg_sent, msg_done,
                                     issued, sq_head, ph_left, msg_phits)
            procs_left -= done
            msgs_out += sent
            to_pack += sent
        _generate(now, in_window, next_gen, rate, poisson, len_min, len_max, src_t, src_l, src_head, src_cnt, stats)

        # ------------------------------------ source queue -> injection queue
        if trace_mode:
            with_records = mode == MODE_DOR or mode == MODE_ADAPTIVE  # (numba: no control flow in a long call)
            nfree, packets, phits, whole = _packetize(
                now, tr_term, n_inj, len_max, sq_ptr, sq_head, issued, ph_left, msg_phits, msg_dst, msg_sent,
                term_router, router_delay, with_records, tie_random, rec_count, records,
                tw_by_source, free, nfree, pk_msg, pk_tgen, pk_len, pk_dst, pk_src, pk_tinj, pk_ready, pk_hops,
                pk_ring, pk_state, pk_rem, inj_buf, inj_head, inj_cnt, inj_free, r_pk, stats)
            in_flight += packets
            injected += packets
            to_pack -= whole
        for tq in range(Q):
            t = tq // n_inj if n_inj > 1 else tq
            # the packet goes to the terminal's emptiest injection queue
            q = _emptiest_queue(t, n_inj, inj_free)
            if src_cnt[t] > 0 and inj_free[q] > 0:
                h = src_head[t]
                p = free[nfree - 1]
                nfree -= 1
                src_head[t] = h + 1 if h + 1 < src_cap else 0
                src_cnt[t] -= 1
                d = _draw_dest(t, T, dest_mode, perm, cdf, hot_count, hot_prob)
                u = term_router[t]
                _new_packet(p, u, d, term_router[d], src_l[t, h], src_t[t, h], now, router_delay,
                            mode == MODE_DOR or mode == MODE_ADAPTIVE, tie_random, rec_count, records, tw_by_source,
                            pk_tgen, pk_len, pk_dst, pk_src, pk_tinj, pk_ready, pk_hops, pk_ring, pk_state, pk_rem)
                _enqueue(q, p, inj_buf, inj_head, inj_cnt, inj_free)
                r_pk[u] += 1
                in_flight += 1
                injected += 1
                if in_window:
                    stats[S_INJ_PHITS] += pk_len[p]

        # ----------------------------------------------------------- routers
        for u in range(n):
            if r_pk[u] == 0:
                continue
            i0 = in_indptr[u]
            nin = in_indptr[u + 1] - i0
            nv = nin * V
            nt = (term_indptr[u + 1] - term_indptr[u]) * n_inj
            ntot = nv + nt
            # arbitration order: input ports in a rotating round robin, the
            # VCs of a port from a rotating start; the injection queues after
            # all of them (in-transit priority) or as one more block at a
            # rotating position among the ports. No divisions in this loop.
            e = rr[u]
            rr[u] = e + 1 if e + 1 < nin else 0
            vst = now % V
            if transit_priority:
                tb = nv
            else:
                tb = rr_t[u] * V
                rr_t[u] = rr_t[u] + 1 if rr_t[u] < nin else 0
            tst = now % nt if nt > 0 else 0
            vv = 0
            for j in range(ntot):
                if j >= tb and j < tb + nt:
                    t_in = j - tb + tst
                    if t_in >= nt:
                        t_in -= nt
                    t_in += term_indptr[u] * n_inj
                    if inj_busy[t_in] > now or inj_cnt[t_in] == 0:
                        continue
                    p = inj_buf[t_in, inj_head[t_in]]
                    g = -1
                    arc_in = -1
                else:
                    arc_in = in_arcs[i0 + e]
                    v = vst + vv
                    if v >= V:
                        v -= V
                    vv += 1
                    if vv == V:
                        vv = 0
                        e += 1
                        if e == nin:
                            e = 0
                    if in_busy[arc_in] > now:
                        continue
                    g = arc_in * V + v
                    if vc_cnt[g] == 0:
                        continue
                    p = vc_buf[g, vc_head[g]]
                    t_in = -1
                if pk_ready[p] > now:
                    continue
                L = pk_len[p]
                dt = pk_dst[p]
                dr = term_router[dt]
                sent = False
                if dr == u:
                    # ---------------------------------------------- ejection
                    ej = dt * n_ej
                    for j in range(1, n_ej):
                        if ej_busy[ej] <= now:
                            break
                        ej += 1
                    if ej_busy[ej] <= now:
                        ej_busy[ej] = now + L
                        sent = True
                        delivered += 1
                        in_flight -= 1
                        r_pk[u] -= 1
                        tdel = now + L
                        if now >= warmup and now < end_measure:
                            stats[S_ACC_PHITS] += L
                            stats[S_ACC_PACKETS] += 1
                        tg = pk_tgen[p]
                        if tg >= warmup and tg < end_measure:
                            lg = tdel - tg
                            li = tdel - pk_tinj[p]
                            stats[S_TAG_DELIVERED] += 1
                            stats[S_SUM_LAT_GEN] += lg
                            stats[S_SUM_LAT_INJ] += li
                            stats[S_SUM_HOPS] += pk_hops[p]
                            stats[S_SUM_MINHOPS] += min_dist[pk_src[p], u]
                            if lg > stats[S_MAX_LAT_GEN]:
                                stats[S_MAX_LAT_GEN] = lg
                            if li > stats[S_MAX_LAT_INJ]:
                                stats[S_MAX_LAT_INJ] = li
                            if pairs:
                                pair_sum[pk_src[p], u] += li
                                pair_cnt[pk_src[p], u] += 1
                            hist_gen[min(lg, HB)] += 1
                            hist_inj[min(li, HB)] += 1
                        if trace_mode:
                            m = pk_msg[p]
                            msg_got[m] += L
                            if msg_got[m] == msg_phits[m]:
                                msg_done[m] = tdel
                                msgs_out -= 1
                        free[nfree] = p
                        nfree += 1
                else:
                    # ------------------------------------------------ routing
                    nc = _candidates(p, u, dr, L, mode, deadlock, V, len_max, D, pk_rem, pk_ring,
                                     pk_state, out_arc, arc_wrap, csr_indptr, csr_arc, next_mask,
                                     ud_up, ud_down, cand_a, cand_v, cand_n, cand_t, arc_dim,
                                     tw_next, tw_code, tw_vc, tw_m, dc_width)
                    best_a = -1
                    best_v = -1
                    best_c = -1
                    esc = False
                    # tier 0 (adaptive) first; the escape tier only when no
                    # tier-0 VC has room (a busy output is worth waiting for)
                    room = False
                    for tier in range(2):
                        if tier == 1 and room:
                            break
                        for ci in range(nc):
                            if cand_t[ci] != tier:
                                continue
                            a = cand_a[ci]
                            c = credit[a * V + cand_v[ci]]
                            if c < cand_n[ci]:
                                continue
                            room = True
                            if out_busy[a] <= now and c > best_c:
                                best_c = c
                                best_a = a
                                best_v = cand_v[ci]
                        if best_a >= 0:
                            esc = tier == 1
                            break
                    if best_a >= 0:
                        # ------------------------------------------ traversal
                        a = best_a
                        v = best_v
                        sent = True
                        out_busy[a] = now + L
                        credit[a * V + v] -= L
                        if now >= warmup and now < end_measure:
                            arc_phits[a] += L
                            stats[S_WIN_HOPS] += 1
                            if esc:
                                stats[S_ESC_HOPS] += 1
                        k = arc_dim[a]
                        sgn = arc_dir[a]
                        if mode == MODE_DOR or mode == MODE_ADAPTIVE:
                            pk_rem[p, k] -= sgn
                            ring = 2 * k + (0 if sgn > 0 else 1) + 1
                            if mode == MODE_DOR:
                                if deadlock == DL_DATELINE:
                                    if pk_ring[p] != ring:
                                        pk_state[p] &= ~ST_CROSSED
                                    if arc_wrap[a] != 0:
                                        pk_state[p] |= ST_CROSSED
                                    pk_ring[p] = ring
                                elif deadlock == DL_BUBBLE:
                                    pk_ring[p] = (ring - 1) * V + v + 1
                                else:
                                    pk_ring[p] = ring
                            else:
                                if esc:
                                    pk_ring[p] = ring
                                else:
                                    pk_ring[p] = 0
                        elif mode == MODE_TWIN:
                            if k < tw_m * 2 + 1:  # an external link (the internal class is the last one)
                                ring = 2 * k + (0 if sgn > 0 else 1) + 1
                                if pk_ring[p] != ring:
                                    pk_state[p] &= ~ST_CROSSED
                                if arc_wrap[a] != 0:
                                    pk_state[p] |= ST_CROSSED
                                pk_ring[p] = ring
                        elif mode == MODE_DISTANCE:
                            pk_ring[p] += 1
                        elif mode == MODE_UPDOWN or (mode == MODE_TABLE and esc):
                            if mode == MODE_TABLE:
                                pk_state[p] |= ST_ESCAPED
                            if arc_up[a] == 0:
                                pk_state[p] |= ST_DOWN
                        pk_hops[p] += 1
                        pk_ready[p] = now + link_latency + router_delay
                        w = arc_dst[a]
                        g2 = a * V + v
                        if vc_cnt[g2] == 0:
                            vc_since[g2] = now
                        k2 = vc_head[g2] + vc_cnt[g2]
                        if k2 >= slots:
                            k2 -= slots
                        vc_buf[g2, k2] = p
                        vc_cnt[g2] += 1
                        r_pk[u] -= 1
                        r_pk[w] += 1
                if sent:
                    last_progress = now
                    if g >= 0:
                        vc_head[g] = vc_head[g] + 1 if vc_head[g] + 1 < slots else 0
                        vc_cnt[g] -= 1
                        vc_since[g] = now
                        in_busy[arc_in] = now + L
                        s2 = (now + L + link_latency) & (W - 1)
                        c2 = wh_cnt[s2]
                        wh_idx[s2, c2] = g
                        wh_amt[s2, c2] = L
                        wh_cnt[s2] = c2 + 1
                    else:
                        inj_head[t_in] = inj_head[t_in] + 1 if inj_head[t_in] + 1 < inj_cap else 0
                        inj_cnt[t_in] -= 1
                        inj_busy[t_in] = now + L
                        s2 = (now + L) & (W - 1)
                        c2 = wh_cnt[s2]
                        wh_idx[s2, c2] = -(t_in + 1)
                        wh_amt[s2, c2] = 1
                        wh_cnt[s2] = c2 + 1
                    if r_pk[u] == 0:
                        break

        # ---------------------------------------------------------- checks
        if check_every > 0 and now % check_every == 0:
            held = 0
            for g in range(NVC):
                held += vc_cnt[g]
            for q in range(Q):
                held += inj_cnt[q]
            if held != in_flight or injected - delivered != in_flight or held + nfree != P:
                stats[S_VIOLATIONS] += 1
        if in_flight > 0 and now - last_progress > watchdog:
            deadlock_kind = 1
        elif in_flight > 0 and now % scan_every == 0:
            # a transit packet waiting longer than the watchdog at the head
            # of its VC: deadlock if it is in a knot of the wait-for graph
            # (no chain of VCs from it reaches one that can move), else it
            # is merely starved
            stalled = -1
            for g in range(NVC):
                if vc_cnt[g] > 0:
                    p = vc_buf[g, vc_head[g]]
                    since = vc_since[g]
                    if pk_ready[p] > since:
                        since = pk_ready[p]
                    if now - since > watchdog:
                        stalled = g
                        break
            if stalled >= 0:
                for g in range(NVC):
                    pend[g] = 0
                    live[g] = vc_cnt[g] == 0
                for s3 in range(W):
                    for e in range(wh_cnt[s3]):
                        if wh_idx[s3, e] >= 0:
                            pend[wh_idx[s3, e]] += wh_amt[s3, e]
                changed = True
                while changed:
                    changed = False
                    for g in range(NVC):
                        if live[g]:
                            continue
                        p = vc_buf[g, vc_head[g]]
                        u = arc_dst[g // V]
                        dt = pk_dst[p]
                        dr = term_router[dt]
                        ok = dr == u
                        if not ok:
                            nc = _candidates(p, u, dr, pk_len[p], mode, deadlock, V, len_max, D, pk_rem,
                                             pk_ring, pk_state, out_arc, arc_wrap, csr_indptr, csr_arc,
                                             next_mask, ud_up, ud_down, cand_a, cand_v, cand_n, cand_t,
                                             arc_dim, tw_next, tw_code, tw_vc, tw_m, dc_width)
                            for ci in range(nc):
                                g2 = cand_a[ci] * V + cand_v[ci]
                                if live[g2] or credit[g2] + pend[g2] >= cand_n[ci]:
                                    ok = True
                                    break
                        if ok:
                            live[g] = True
                            changed = True
                for g in range(NVC):
                    if not live[g]:
                        deadlock_kind = 2
                        stall_vc = g
                        break
                if deadlock_kind == 0:
                    stats[S_STARVED] += 1
        now += 1
        if deadlock_kind != 0:
            break
        if _finished(now, trace_mode, procs_left, msgs_out, in_flight, max_cycles, end_measure, limit, stats):
            break

    _final_stats(stats, now, deadlock_kind, stall_vc, injected, delivered, in_flight, last_progress)
    held = 0
    for g in range(NVC):
        held += vc_cnt[g]
    for q in range(Q):
        held += inj_cnt[q]
    if held != in_flight or injected - delivered != in_flight:
        stats[S_VIOLATIONS] += 1
    return 0
