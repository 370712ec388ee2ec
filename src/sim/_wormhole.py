"""Private numba kernel: wormhole switching at flit level (BookSim-style).

Same conventions as :mod:`sim._kernels` (struct-of-arrays, the same
argument list as ``simulate_kernel``, the same statistics vector, the same
routing choices from ``_candidates``); :func:`prepare` picks it for
``SimConfig(switching="wormhole")``. A flit is a phit: one flit crosses a
channel per cycle.

State:

- every input VC ``g = arc * V + vc`` is a ring of flit entries
  (packet id, flit index, the cycle the flit may leave) of
  ``buffer_flits`` entries; ``credit[g]`` counts its free entries as seen
  upstream; a flit is written into the downstream ring (and a credit spent)
  the cycle it is sent and may leave ``link_latency + router_delay`` later;
- ``vc_out[g]`` is the output the packet at the head of ``g`` was given by
  VC allocation (an output VC ``a * V + v``, or ``NVC + e`` for ejector
  ``e``), ``-1`` until its header is allocated and again after its tail
  left; ``owner[g]`` is the packet that holds output VC ``g`` (from its
  header's VC allocation until its tail is sent: BookSim without
  ``wait_for_tail_credit``);
- injection queues hold whole packets (``injection_queue`` of them) and
  send their head packet one flit per cycle (``inj_sent`` flits so far);
- a credit returns ``link_latency`` cycles after its flit left the buffer
  (the cycle after it was sent, as in the VCT kernel), on a timing wheel.

Every cycle each router, in a rotating order of its input ports (and of
the VCs of a port), allocates an output VC to every ready header at the
head of a VC (idle, with a credit; tier 0 before the escape tier; among the
allowed ones a channel not yet taken this cycle, then the most credits),
and lets each input port send at most one ready flit whose output channel
has not accepted a flit this cycle and whose output VC has a credit
(ejectors: one flit per cycle each). In-transit ports come before the
injection queues unless ``transit_priority`` is off. With no contention a
packet of ``L`` flits over ``H`` links is consumed
``(H + 1) * router_delay + H * link_latency + L`` cycles after entering its
injection queue, like VCT, as long as ``buffer_flits`` covers the credit
round trip ``2 * link_latency + router_delay + 1`` (else every VC passes
at most ``buffer_flits`` flits per round trip).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._kernels import (DL_BUBBLE, DL_DATELINE, MODE_ADAPTIVE, MODE_DISTANCE, MODE_DOR, MODE_TABLE, MODE_TWIN,
                       MODE_UPDOWN, S_ACC_PACKETS, S_ACC_PHITS, S_ESC_HOPS, S_INJ_PHITS,
                       S_MAX_LAT_GEN, S_MAX_LAT_INJ, S_SKIPPED, S_STARVED, S_SUM_HOPS, S_SUM_LAT_GEN, S_SUM_LAT_INJ,
                       S_SUM_MINHOPS, S_TAG_DELIVERED, S_VIOLATIONS, S_WIN_HOPS, ST_CROSSED,
                       ST_DOWN, ST_ESCAPED, _candidates, _draw_dest, _gap, _emptiest_queue, _enqueue, _final_stats,
                       _finished, _generate, _new_packet, _packetize, _trace_step, _trace_wake)
from .errors import SimError

__all__ = ["prepare", "wormhole_kernel"]


def prepare(cfg, mode: int, dl_code: int):
    """``(kernel, buffer_flits, slots)`` for ``cfg``; raises :class:`SimError`
    for the routings that need bubble flow control."""
    if mode == MODE_ADAPTIVE or (mode == MODE_DOR and dl_code == DL_BUBBLE):
        raise SimError("bubble flow control needs virtual cut-through (switching='vct'); with wormhole use "
                       "--routing dor --deadlock dateline --vcs 2 (or none), or routing table, updown, distance, "
                       "minimal, tsdor, dort")
    lo, hi = cfg.length_range
    cap = int(cfg.buffer_flits) if cfg.buffer_flits > 0 else int(cfg.buffer_packets) * hi
    return wormhole_kernel, cap, cap


@njit(cache=True)
def wormhole_kernel(
    # topology
    n, arc_src, arc_dst, arc_dim, arc_dir, arc_wrap, in_indptr, in_arcs,
    term_router, term_indptr, out_arc, records, rec_count, tie_random, min_dist,
    # tables (mode TABLE / UPDOWN / MINTABLE)
    csr_indptr, csr_arc, next_mask, ud_up, ud_down, arc_up,
    # tables (mode TWIN)
    tw_next, tw_code, tw_vc, tw_m, tw_by_source,
    # router configuration (cap_phits = buffer_flits; slots unused)
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
    C = cap_phits
    hop_delay = link_latency + router_delay

    # ---------------------------------------------------------------- state
    Q = T * n_inj
    P = NVC * C + Q * inj_cap + 1
    pairs = pair_cnt.shape[0] == n
    pk_dst = np.empty(P, np.int32)
    pk_len = np.empty(P, np.int32)
    pk_src = np.empty(P, np.int32)
    pk_hops = np.empty(P, np.int32)
    pk_state = np.empty(P, np.int32)
    pk_ring = np.empty(P, np.int32)
    pk_esc = np.zeros(P, np.int8)
    pk_tgen = np.empty(P, np.int64)
    pk_tinj = np.empty(P, np.int64)
    pk_ready = np.empty(P, np.int64)
    pk_rem = np.zeros((P, max(D, 1)), np.int16)
    pk_msg = np.full(P, -1, np.int64)
    free = np.empty(P, np.int32)
    for i in range(P):
        free[i] = P - 1 - i
    nfree = P

    fl_pk = np.empty((NVC, C), np.int32)
    fl_idx = np.empty((NVC, C), np.int32)
    fl_rdy = np.empty((NVC, C), np.int64)
    vc_head = np.zeros(NVC, np.int32)
    vc_cnt = np.zeros(NVC, np.int32)
    vc_since = np.zeros(NVC, np.int64)
    vc_out = np.full(NVC, -1, np.int64)
    credit = np.full(NVC, C, np.int64)
    owner = np.full(NVC, -1, np.int32)
    in_used = np.full(A, -1, np.int64)
    out_used = np.full(A, -1, np.int64)

    inj_buf = np.empty((Q, inj_cap), np.int32)
    inj_head = np.zeros(Q, np.int32)
    inj_cnt = np.zeros(Q, np.int32)
    inj_free = np.full(Q, inj_cap, np.int32)
    inj_sent = np.zeros(Q, np.int32)
    inj_out = np.full(Q, -1, np.int64)
    NEJ = T * n_ej
    ej_own = np.full(NEJ, -1, np.int32)
    ej_used = np.full(NEJ, -1, np.int64)

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
    issued = np.zeros(NP, np.int64)
    sq_head = np.zeros(NP, np.int64)
    ph_left = np.zeros(NP, np.int64)
    msg_got = np.zeros(max(msg_phits.shape[0], 1), np.int64)
    procs_left = 0
    msgs_out = 0
    to_pack = 0
    if trace_mode:
        for r in range(NP):
            pc[r] = ev_ptr[r]
            proc_finish[r] = -1
            procs_left += 1
            next_gen[tr_term[r]] = np.inf
        for m in range(msg_phits.shape[0]):
            msg_sent[m] = -1
            msg_done[m] = -1

    # credits: every input port sends at most one flit per cycle and all
    # credits take the same delay, so a wheel slot holds at most A entries
    W = 1
    while W < link_latency + 3:
        W *= 2
    wh_cnt = np.zeros(W, np.int32)
    wh_idx = np.empty((W, max(A, 1)), np.int64)

    r_cnt = np.zeros(n, np.int64)       # flits in a router's input VCs + packets in its injection queues
    rr = np.zeros(n, np.int64)
    rr_t = np.zeros(n, np.int64)

    end_measure = warmup + measure
    limit = end_measure + max_drain
    in_flight = 0
    injected = 0
    delivered = 0
    flits_in = 0                        # flits of in-flight packets not yet consumed
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
            credit[wh_idx[slot, e]] += 1
        wh_cnt[slot] = 0

        # ------------------------------------------------------ generation
        in_window = now >= warmup and now < end_measure
        if trace_mode:
            if in_flight == 0 and to_pack == 0:
                wake = _trace_wake(now, pc, busy, proc_finish, ev_ptr, ev_kind, ev_msg, msg_done)
                if wake < 0:
                    if procs_left > 0:
                        deadlock_kind = 3
                        break
                elif wake > now + 1:
                    for s3 in range(W):
                        for e3 in range(wh_cnt[s3]):
                            credit[wh_idx[s3, e3]] += 1
                        wh_cnt[s3] = 0
                    stats[S_SKIPPED] += wake - now
                    now = wake
                    last_progress = now
            done, sent = _trace_step(now, pc, busy, proc_finish, ev_ptr, ev_kind, ev_a, ev_msg, msg_sent, msg_done,
                                     issued, sq_head, ph_left, msg_phits)
            procs_left -= done
            msgs_out += sent
            to_pack += sent
        _generate(now, in_window, next_gen, rate, poisson, len_min, len_max, src_t, src_l, src_head, src_cnt, stats)

        # ------------------------------------ source queue -> injection queue
        if trace_mode:
            nfree, packets, phits, whole = _packetize(
                now, tr_term, n_inj, len_max, sq_ptr, sq_head, issued, ph_left, msg_phits, msg_dst, msg_sent,
                term_router, router_delay, mode == MODE_DOR, tie_random, rec_count, records, tw_by_source, free,
                nfree, pk_msg, pk_tgen, pk_len, pk_dst, pk_src, pk_tinj, pk_ready, pk_hops, pk_ring, pk_state, pk_rem,
                inj_buf, inj_head, inj_cnt, inj_free, r_cnt, stats)
            in_flight += packets
            injected += packets
            to_pack -= whole
            flits_in += phits
        for tq in range(Q):
            t = tq // n_inj if n_inj > 1 else tq
            q = _emptiest_queue(t, n_inj, inj_free)
            if src_cnt[t] > 0 and inj_free[q] > 0:
                h = src_head[t]
                p = free[nfree - 1]
                nfree -= 1
                src_head[t] = h + 1 if h + 1 < src_cap else 0
                src_cnt[t] -= 1
                d = _draw_dest(t, T, dest_mode, perm, cdf, hot_count, hot_prob)
                u = term_router[t]
                _new_packet(p, u, d, term_router[d], src_l[t, h], src_t[t, h], now, router_delay, mode == MODE_DOR,
                            tie_random, rec_count, records, tw_by_source, pk_tgen, pk_len, pk_dst, pk_src, pk_tinj,
                            pk_ready, pk_hops, pk_ring, pk_state, pk_rem)
                _enqueue(q, p, inj_buf, inj_head, inj_cnt, inj_free)
                r_cnt[u] += 1
                in_flight += 1
                injected += 1
                flits_in += pk_len[p]
                if in_window:
                    stats[S_INJ_PHITS] += pk_len[p]

        # ----------------------------------------------------------- routers
        for u in range(n):
            if r_cnt[u] == 0:
                continue
            i0 = in_indptr[u]
            nin = in_indptr[u + 1] - i0
            nv = nin * V
            nt = (term_indptr[u + 1] - term_indptr[u]) * n_inj
            ntot = nv + nt
            # the order of the VCT kernel: input ports from a rotating start,
            # the VCs of a port from a rotating start, the injection queues
            # after them (in-transit priority) or as one block at a rotating
            # position among the ports
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
                    if inj_cnt[t_in] == 0:
                        continue
                    p = inj_buf[t_in, inj_head[t_in]]
                    if pk_ready[p] > now:
                        continue
                    fi = inj_sent[t_in]
                    o = inj_out[t_in]
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
                    g = arc_in * V + v
                    if vc_cnt[g] == 0:
                        continue
                    hh = vc_head[g]
                    if fl_rdy[g, hh] > now:
                        continue
                    p = fl_pk[g, hh]
                    fi = fl_idx[g, hh]
                    o = vc_out[g]
                    t_in = -1
                L = pk_len[p]
                if o < 0:
                    # -------------------------------- routing + VC allocation
                    dt = pk_dst[p]
                    dr = term_router[dt]
                    if dr == u:
                        ej = dt * n_ej
                        for jj in range(n_ej):
                            if ej_own[dt * n_ej + jj] < 0:
                                ej = dt * n_ej + jj
                                break
                        if ej_own[ej] >= 0:
                            continue
                        ej_own[ej] = p
                        o = NVC + ej
                    else:
                        nc = _candidates(p, u, dr, L, mode, deadlock, V, len_max, D, pk_rem, pk_ring,
                                         pk_state, out_arc, arc_wrap, csr_indptr, csr_arc, next_mask,
                                         ud_up, ud_down, cand_a, cand_v, cand_n, cand_t, arc_dim,
                                         tw_next, tw_code, tw_vc, tw_m, dc_width)
                        best = -1
                        best_c = -1
                        best_f = False
                        best_t = 0
                        room = False
                        for tier in range(2):
                            if tier == 1 and room:
                                break
                            for ci in range(nc):
                                if cand_t[ci] != tier:
                                    continue
                                a = cand_a[ci]
                                o2 = a * V + cand_v[ci]
                                if owner[o2] >= 0:
                                    continue
                                c = credit[o2]
                                if c < 1:
                                    continue
                                room = True
                                fr = out_used[a] != now
                                if (fr and not best_f) or (fr == best_f and c > best_c):
                                    best = ci
                                    best_c = c
                                    best_f = fr
                            if best >= 0:
                                best_t = tier
                                break
                        if best < 0:
                            continue
                        a = cand_a[best]
                        v2 = cand_v[best]
                        o = a * V + v2
                        owner[o] = p
                        esc = best_t == 1
                        pk_esc[p] = 1 if esc else 0
                        # the packet's routing state moves on with the header
                        k = arc_dim[a]
                        sgn = arc_dir[a]
                        if mode == MODE_DOR:
                            pk_rem[p, k] -= sgn
                            ring = 2 * k + (0 if sgn > 0 else 1) + 1
                            if deadlock == DL_DATELINE:
                                if pk_ring[p] != ring:
                                    pk_state[p] &= ~ST_CROSSED
                                if arc_wrap[a] != 0:
                                    pk_state[p] |= ST_CROSSED
                            pk_ring[p] = ring
                        elif mode == MODE_TWIN:
                            if k < tw_m * 2 + 1:
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
                    if g >= 0:
                        vc_out[g] = o
                    else:
                        inj_out[t_in] = o
                # ---------------------------------------- switch allocation
                if g >= 0 and in_used[arc_in] == now:
                    continue
                tail = fi == L - 1
                if o >= NVC:
                    ej = o - NVC
                    if ej_used[ej] == now:
                        continue
                    ej_used[ej] = now
                    flits_in -= 1
                    if now >= warmup and now < end_measure:
                        stats[S_ACC_PHITS] += 1
                    if tail:
                        ej_own[ej] = -1
                        delivered += 1
                        in_flight -= 1
                        tdel = now + 1
                        if now >= warmup and now < end_measure:
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
                    if credit[o] < 1:
                        continue
                    a = o // V
                    if out_used[a] == now:
                        continue
                    out_used[a] = now
                    credit[o] -= 1
                    k2 = vc_head[o] + vc_cnt[o]
                    if k2 >= C:
                        k2 -= C
                    fl_pk[o, k2] = p
                    fl_idx[o, k2] = fi
                    fl_rdy[o, k2] = now + hop_delay
                    if vc_cnt[o] == 0:
                        vc_since[o] = now
                    vc_cnt[o] += 1
                    r_cnt[arc_dst[a]] += 1
                    if now >= warmup and now < end_measure:
                        arc_phits[a] += 1
                    if fi == 0:
                        pk_hops[p] += 1
                        if now >= warmup and now < end_measure:
                            stats[S_WIN_HOPS] += 1
                            if pk_esc[p] != 0:
                                stats[S_ESC_HOPS] += 1
                    if tail:
                        owner[o] = -1
                last_progress = now
                if g >= 0:
                    in_used[arc_in] = now
                    hh = vc_head[g]
                    vc_head[g] = hh + 1 if hh + 1 < C else 0
                    vc_cnt[g] -= 1
                    vc_since[g] = now
                    r_cnt[u] -= 1
                    s2 = (now + 1 + link_latency) & (W - 1)
                    c2 = wh_cnt[s2]
                    wh_idx[s2, c2] = g
                    wh_cnt[s2] = c2 + 1
                    if tail:
                        vc_out[g] = -1
                else:
                    if tail:
                        inj_head[t_in] = inj_head[t_in] + 1 if inj_head[t_in] + 1 < inj_cap else 0
                        inj_cnt[t_in] -= 1
                        inj_free[t_in] += 1
                        inj_sent[t_in] = 0
                        inj_out[t_in] = -1
                        r_cnt[u] -= 1
                    else:
                        inj_sent[t_in] = fi + 1
                if r_cnt[u] == 0:
                    break

        # ---------------------------------------------------------- checks
        if check_every > 0 and now % check_every == 0:
            held = 0
            for g in range(NVC):
                held += vc_cnt[g]
            for q in range(Q):
                for i in range(inj_cnt[q]):
                    k = inj_head[q] + i
                    if k >= inj_cap:
                        k -= inj_cap
                    held += pk_len[inj_buf[q, k]]
                held -= inj_sent[q]
            if held != flits_in or injected - delivered != in_flight or in_flight + nfree != P:
                stats[S_VIOLATIONS] += 1
        if in_flight > 0 and now - last_progress > watchdog:
            deadlock_kind = 1
        elif in_flight > 0 and now % scan_every == 0:
            # a flit waiting longer than the watchdog at the head of its VC:
            # deadlock if its VC is in a knot of the wait-for graph (no chain
            # of VCs from it reaches one that can move), else starvation
            stalled = -1
            for g in range(NVC):
                if vc_cnt[g] > 0:
                    since = vc_since[g]
                    r0 = fl_rdy[g, vc_head[g]]
                    if r0 > since:
                        since = r0
                    if now - since > watchdog:
                        stalled = g
                        break
            if stalled >= 0:
                for g in range(NVC):
                    pend[g] = 0
                    live[g] = vc_cnt[g] == 0
                for s3 in range(W):
                    for e in range(wh_cnt[s3]):
                        pend[wh_idx[s3, e]] += 1
                changed = True
                while changed:
                    changed = False
                    for g in range(NVC):
                        if live[g]:
                            continue
                        o = vc_out[g]
                        if o >= NVC:
                            ok = True
                        elif o >= 0:
                            # waits for room in its output VC
                            ok = live[o] or credit[o] + pend[o] >= 1
                        else:
                            # a header waiting for an output VC: one of them
                            # frees (its owner's tail drains through it) if
                            # it can drain
                            p = fl_pk[g, vc_head[g]]
                            u = arc_dst[g // V]
                            dr = term_router[pk_dst[p]]
                            ok = dr == u
                            if not ok:
                                nc = _candidates(p, u, dr, pk_len[p], mode, deadlock, V, len_max, D, pk_rem,
                                                 pk_ring, pk_state, out_arc, arc_wrap, csr_indptr, csr_arc,
                                                 next_mask, ud_up, ud_down, cand_a, cand_v, cand_n, cand_t,
                                                 arc_dim, tw_next, tw_code, tw_vc, tw_m, dc_width)
                                for ci in range(nc):
                                    g2 = cand_a[ci] * V + cand_v[ci]
                                    if live[g2] or credit[g2] + pend[g2] >= 1:
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
        for i in range(inj_cnt[q]):
            k = inj_head[q] + i
            if k >= inj_cap:
                k -= inj_cap
            held += pk_len[inj_buf[q, k]]
        held -= inj_sent[q]
    if held != flits_in or injected - delivered != in_flight:
        stats[S_VIOLATIONS] += 1
    return 0
