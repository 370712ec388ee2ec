"""Private numba kernel: wormhole switching at flit level (BookSim-style).

Same conventions as :mod:`sim.routers._vct` (the structures of :mod:`sim.routers._core`,
the same statistics vector, the same routing choices from
``_core.candidates``); :mod:`sim.routers.simple` picks it for
``SimConfig(switching="wormhole")``. A flit is a phit: one flit crosses a
channel per cycle.

State specific to wormhole (fields of ``buf``):

- every input VC ``g = arc * V + vc`` is a ring of flit entries
  (``vc_pk`` packet id, ``vc_fi`` flit index, ``vc_rdy`` the cycle the flit
  may leave) of ``buffer_flits`` entries; ``credit[g]`` counts its free
  entries as seen upstream; a flit is written into the downstream ring (and
  a credit spent) the cycle it is sent and may leave ``link_latency +
  router_delay`` later;
- ``vc_out[g]`` is the output the packet at the head of ``g`` was given by
  VC allocation (an output VC ``a * V + v``, or ``NVC + e`` for ejector
  ``e``), ``-1`` until its header is allocated and again after its tail
  left; ``owner[g]`` is the packet that holds output VC ``g`` (from its
  header's VC allocation until its tail is sent: BookSim without
  ``wait_for_tail_credit``);
- injection queues hold whole packets (``injection_queue`` of them) and
  send their head packet one flit per cycle (``inj_sent`` flits so far,
  ``inj_out`` its output);
- ``in_used``/``out_used``/``ej_used``: the last cycle an input port,
  output channel or ejector passed a flit; ``ej_own`` the packet an
  ejector is consuming;
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

import sys

from numba import njit

from common.jitcache import refresh_kernel_cache

from .. import errors, events
from . import _core
from ._core import (C_DEADLOCK, C_DELIVERED, C_DONE, C_FLITS_IN, C_IN_FLIGHT, C_INJECTED, C_LAST_PROGRESS, C_NFREE,
                    C_NOW, C_STALL_VC, C_TO_PACK, DL_BUBBLE, HELPER, KERNEL, MODE_ADAPTIVE, MODE_DOR, S_ACC_PACKETS,
                    S_ACC_PHITS, S_ESC_HOPS, S_STARVED, S_VIOLATIONS, S_WIN_HOPS, advance_route, begin, candidates,
                    delivered, final_stats, finished, generate, inject_synthetic, keep_tied, packetize, route_target,
                    spreads_ties, trace_idle, trace_step)
from ..errors import SimError

__all__ = ["buffer_sizes", "wheel_size", "run", "run_trace"]


def buffer_sizes(cfg, mode: int, dl_code: int) -> tuple[int, int]:
    """``(cap, slots)``: flits of every input VC (both); raises
    :class:`SimError` for the routings that need bubble flow control."""
    if mode == MODE_ADAPTIVE or (mode == MODE_DOR and dl_code == DL_BUBBLE):
        raise SimError("bubble flow control needs virtual cut-through (switching='vct'); with wormhole use "
                       "--routing dor --deadlock dateline --vcs 2 (or none), or routing table, updown, distance, "
                       "minimal, tsdor, dort")
    lo, hi = cfg.length_range
    cap = int(cfg.buffer_flits) if cfg.buffer_flits > 0 else int(cfg.buffer_packets) * hi
    return cap, cap


def wheel_size(cfg) -> int:
    """Slots of the credit wheel: every credit takes ``link_latency + 1``
    cycles, and every input port sends at most one flit per cycle, so a
    slot holds at most one entry per channel."""
    W = 1
    while W < cfg.link_latency + 3:
        W *= 2
    return W


# =========================================================================
# credits
# =========================================================================
@njit(**HELPER)
def _credit_slot(s, buf):
    for e in range(buf.wh_cnt[s]):
        buf.credit[buf.wh_idx[s, e]] += 1
    buf.wh_cnt[s] = 0


@njit(**HELPER)
def _flush_credits(buf):
    """Trace mode, network empty: every credit in flight comes back now."""
    for s in range(buf.wh_cnt.shape[0]):
        _credit_slot(s, buf)


# =========================================================================
# the router
# =========================================================================
@njit(**HELPER)
def _vc_alloc(p, u, now, net, buf):
    """Routing and VC allocation of the header of packet ``p`` at router
    ``u``: an idle ejector of its terminal, or the best allowed output VC
    (tier 0 first; idle, with a credit; a channel not yet taken this cycle,
    then the most credits). Returns the output, -1 if none is free."""
    V = net.V
    NVC = buf.credit.shape[0]
    dt = buf.pk_dst[p]
    dr = route_target(p, net, buf)
    if dr == u:
        n_ej = net.n_ej
        ej = dt * n_ej
        for jj in range(n_ej):
            if buf.ej_own[dt * n_ej + jj] < 0:
                ej = dt * n_ej + jj
                break
        if buf.ej_own[ej] >= 0:
            return -1
        buf.ej_own[ej] = p
        return NVC + ej
    nc = candidates(p, u, dr, buf.pk_len[p], net, buf)
    best = -1
    best_c = -1
    best_f = False
    best_t = 0
    room = False
    spread = spreads_ties(net)
    ties = 0
    for tier in range(2):
        if tier == 1 and room:
            break
        for ci in range(nc):
            if buf.cand_t[ci] != tier:
                continue
            a = buf.cand_a[ci]
            o2 = a * V + buf.cand_v[ci]
            if buf.owner[o2] >= 0:
                continue
            c = buf.credit[o2]
            if c < 1:
                continue
            room = True
            fr = buf.out_used[a] != now
            if (fr and not best_f) or (fr == best_f and c > best_c):
                best = ci
                best_c = c
                best_f = fr
                ties = 1
            elif spread and fr == best_f and c == best_c:
                ties += 1
                if keep_tied(ties):
                    best = ci
        if best >= 0:
            best_t = tier
            break
    if best < 0:
        return -1
    a = buf.cand_a[best]
    v2 = buf.cand_v[best]
    o = a * V + v2
    buf.owner[o] = p
    esc = best_t == 1
    buf.pk_esc[p] = 1 if esc else 0
    # the packet's routing state moves on with the header
    advance_route(p, a, v2, esc, net, buf)
    return o


@njit(**HELPER)
def _eject_flit(p, fi, o, u, now, in_window, net, buf, trf, ctl, out):
    """Flit ``fi`` of ``p`` into ejector ``o - NVC`` (one flit per cycle).
    Returns False if the ejector already took one this cycle."""
    ej = o - buf.credit.shape[0]
    if buf.ej_used[ej] == now:
        return False
    buf.ej_used[ej] = now
    ctl[C_FLITS_IN] -= 1
    if in_window:
        out.stats[S_ACC_PHITS] += 1
    if fi == buf.pk_len[p] - 1:
        buf.ej_own[ej] = -1
        if in_window:
            out.stats[S_ACC_PACKETS] += 1
        delivered(p, u, now + 1, net, buf, trf, ctl, out)
    return True


@njit(**HELPER)
def _send_flit(p, fi, o, now, in_window, net, buf, out):
    """Flit ``fi`` of ``p`` onto output VC ``o`` (one flit per channel per
    cycle, a credit needed). Returns False if it cannot go."""
    if buf.credit[o] < 1:
        return False
    a = o // net.V
    if buf.out_used[a] == now:
        return False
    C = net.cap
    buf.out_used[a] = now
    buf.credit[o] -= 1
    k2 = buf.vc_head[o] + buf.vc_cnt[o]
    if k2 >= C:
        k2 -= C
    buf.vc_pk[o, k2] = p
    buf.vc_fi[o, k2] = fi
    buf.vc_rdy[o, k2] = now + net.link_latency + net.router_delay
    if buf.vc_cnt[o] == 0:
        buf.vc_since[o] = now
    buf.vc_cnt[o] += 1
    buf.r_cnt[net.arc_dst[a]] += 1
    if in_window:
        out.arc_phits[a] += 1
    if fi == 0:
        buf.pk_hops[p] += 1
        if in_window:
            out.stats[S_WIN_HOPS] += 1
            if buf.pk_esc[p] != 0:
                out.stats[S_ESC_HOPS] += 1
    if fi == buf.pk_len[p] - 1:
        buf.owner[o] = -1
    return True


@njit(**HELPER)
def _router(u, now, in_window, net, buf, trf, ctl, out):
    """One cycle of router ``u``: VC allocation for ready headers and at
    most one flit per input port, in arbitration order (that of the VCT
    kernel: input ports from a rotating start, the VCs of a port from a
    rotating start, the injection queues after them (in-transit priority)
    or as one block at a rotating position among the ports)."""
    V = net.V
    NVC = buf.credit.shape[0]
    i0 = net.in_indptr[u]
    nin = net.in_indptr[u + 1] - i0
    nv = nin * V
    nt = (net.term_indptr[u + 1] - net.term_indptr[u]) * net.n_inj
    ntot = nv + nt
    e = buf.rr[u]
    buf.rr[u] = e + 1 if e + 1 < nin else 0
    vst = now % V
    if net.transit_priority:
        tb = nv
    else:
        tb = buf.rr_t[u] * V
        buf.rr_t[u] = buf.rr_t[u] + 1 if buf.rr_t[u] < nin else 0
    tst = now % nt if nt > 0 else 0
    vv = 0
    for j in range(ntot):
        if j >= tb and j < tb + nt:
            t_in = j - tb + tst
            if t_in >= nt:
                t_in -= nt
            t_in += net.term_indptr[u] * net.n_inj
            if buf.inj_cnt[t_in] == 0:
                continue
            p = buf.inj_buf[t_in, buf.inj_head[t_in]]
            if buf.pk_ready[p] > now:
                continue
            fi = buf.inj_sent[t_in]
            o = buf.inj_out[t_in]
            g = -1
            arc_in = -1
        else:
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
                continue
            hh = buf.vc_head[g]
            if buf.vc_rdy[g, hh] > now:
                continue
            p = buf.vc_pk[g, hh]
            fi = buf.vc_fi[g, hh]
            o = buf.vc_out[g]
            t_in = -1
        if o < 0:
            o = _vc_alloc(p, u, now, net, buf)
            if o < 0:
                continue
            if g >= 0:
                buf.vc_out[g] = o
            else:
                buf.inj_out[t_in] = o
        # switch allocation
        if g >= 0 and buf.in_used[arc_in] == now:
            continue
        tail = fi == buf.pk_len[p] - 1
        if o >= NVC:
            if not _eject_flit(p, fi, o, u, now, in_window, net, buf, trf, ctl, out):
                continue
        elif not _send_flit(p, fi, o, now, in_window, net, buf, out):
            continue
        ctl[C_LAST_PROGRESS] = now
        if g >= 0:
            buf.in_used[arc_in] = now
            hh = buf.vc_head[g] + 1
            buf.vc_head[g] = hh if hh < net.cap else 0
            buf.vc_cnt[g] -= 1
            buf.vc_since[g] = now
            buf.r_cnt[u] -= 1
            s2 = (now + 1 + net.link_latency) & (buf.wh_cnt.shape[0] - 1)
            c2 = buf.wh_cnt[s2]
            buf.wh_idx[s2, c2] = g
            buf.wh_cnt[s2] = c2 + 1
            if tail:
                buf.vc_out[g] = -1
        elif tail:
            hh = buf.inj_head[t_in] + 1
            buf.inj_head[t_in] = hh if hh < net.inj_cap else 0
            buf.inj_cnt[t_in] -= 1
            buf.inj_free[t_in] += 1
            buf.inj_sent[t_in] = 0
            buf.inj_out[t_in] = -1
            buf.r_cnt[u] -= 1
        else:
            buf.inj_sent[t_in] = fi + 1
        if buf.r_cnt[u] == 0:
            break


# =========================================================================
# checks and deadlock detection
# =========================================================================
@njit(**HELPER)
def _held(net, buf):
    """Flits in the input VCs and injection queues."""
    held = 0
    for g in range(buf.vc_cnt.shape[0]):
        held += buf.vc_cnt[g]
    for q in range(buf.inj_cnt.shape[0]):
        for i in range(buf.inj_cnt[q]):
            k = buf.inj_head[q] + i
            if k >= net.inj_cap:
                k -= net.inj_cap
            held += buf.pk_len[buf.inj_buf[q, k]]
        held -= buf.inj_sent[q]
    return held


@njit(**HELPER)
def _conserved(net, buf, ctl):
    inf = ctl[C_IN_FLIGHT]
    return (_held(net, buf) == ctl[C_FLITS_IN] and ctl[C_INJECTED] - ctl[C_DELIVERED] == inf
            and inf + ctl[C_NFREE] == buf.free.shape[0])


@njit(**HELPER)
def _stalled(now, net, buf):
    """A flit waiting longer than the watchdog at the head of its VC (-1: none)."""
    for g in range(buf.vc_cnt.shape[0]):
        if buf.vc_cnt[g] > 0:
            since = buf.vc_since[g]
            r0 = buf.vc_rdy[g, buf.vc_head[g]]
            if r0 > since:
                since = r0
            if now - since > net.watchdog:
                return g
    return -1


@njit(**HELPER)
def _knot(net, buf):
    """The wait-for graph of the input VCs: a VC is live if it is empty,
    its head goes to an ejector, its output VC is live or will have room,
    or (a header waiting for an output VC) one of its candidates is live or
    will have room -- one of them frees when its owner's tail drains
    through it. Returns a VC of a knot, or -1."""
    V = net.V
    NVC = buf.vc_cnt.shape[0]
    live = buf.live
    pend = buf.pend
    for g in range(NVC):
        pend[g] = 0
        live[g] = buf.vc_cnt[g] == 0
    for s in range(buf.wh_cnt.shape[0]):
        for e in range(buf.wh_cnt[s]):
            pend[buf.wh_idx[s, e]] += 1
    changed = True
    while changed:
        changed = False
        for g in range(NVC):
            if live[g]:
                continue
            o = buf.vc_out[g]
            if o >= NVC:
                ok = True
            elif o >= 0:
                ok = live[o] or buf.credit[o] + pend[o] >= 1
            else:
                p = buf.vc_pk[g, buf.vc_head[g]]
                u = net.arc_dst[g // V]
                dr = route_target(p, net, buf)
                ok = dr == u
                if not ok:
                    nc = candidates(p, u, dr, buf.pk_len[p], net, buf)
                    for ci in range(nc):
                        g2 = buf.cand_a[ci] * V + buf.cand_v[ci]
                        if live[g2] or buf.credit[g2] + pend[g2] >= 1:
                            ok = True
                            break
            if ok:
                live[g] = True
                changed = True
    for g in range(NVC):
        if not live[g]:
            return g
    return -1


@njit(**HELPER)
def _watch(now, net, buf, ctl, stats):
    """Conservation check (``check``) and the deadlock watchdog: no
    movement for ``watchdog`` cycles, or a stalled flit in a knot of the
    wait-for graph (a stalled one outside a knot is starved)."""
    if net.check_every > 0 and now % net.check_every == 0:
        if not _conserved(net, buf, ctl):
            stats[S_VIOLATIONS] += 1
    if ctl[C_IN_FLIGHT] > 0 and now - ctl[C_LAST_PROGRESS] > net.watchdog:
        ctl[C_DEADLOCK] = 1
    elif ctl[C_IN_FLIGHT] > 0 and now % net.scan_every == 0:
        if _stalled(now, net, buf) >= 0:
            g = _knot(net, buf)
            if g >= 0:
                ctl[C_DEADLOCK] = 2
                ctl[C_STALL_VC] = g
            else:
                stats[S_STARVED] += 1


# =========================================================================
# the driver step
# =========================================================================
@njit(**HELPER)
def _network(now, in_window, net, buf, trf, ctl, out):
    """One cycle of every router that holds something, then the checks."""
    for u in range(net.n):
        if buf.r_cnt[u] != 0:
            _router(u, now, in_window, net, buf, trf, ctl, out)
    _watch(now, net, buf, ctl, out.stats)


@njit(**HELPER)
def _stop(now, done, net, buf, ctl, stats):
    """Save the cycle reached; at the end of the run the final statistics."""
    ctl[C_NOW] = now
    if done:
        ctl[C_DONE] = 1
        final_stats(_held(net, buf), ctl[C_FLITS_IN], ctl, stats)
    return done


@njit(**KERNEL)
def run(net, buf, trf, out, ctl, until):
    """Synthetic traffic: simulate from cycle ``ctl[C_NOW]`` until the run
    ends (returns True, final statistics written) or cycle ``until``."""
    stats = out.stats
    W = buf.wh_cnt.shape[0]
    now = begin(trf, ctl)
    done = False
    while now < until:
        _credit_slot(now & (W - 1), buf)
        in_window = now >= trf.warmup and now < trf.end_measure
        generate(now, in_window, trf, stats)
        ctl[C_FLITS_IN] += inject_synthetic(now, in_window, net, buf, trf, ctl, stats)
        _network(now, in_window, net, buf, trf, ctl, out)
        now += 1
        if ctl[C_DEADLOCK] != 0 or finished(now, trf, ctl, stats):
            done = True
            break
    return _stop(now, done, net, buf, ctl, stats)


@njit(**KERNEL)
def run_trace(net, buf, trf, out, ctl, until):
    """A trace-driven workload: as :func:`run`, the processes' events and
    their messages' packets instead of the generator."""
    stats = out.stats
    W = buf.wh_cnt.shape[0]
    now = begin(trf, ctl)
    done = False
    while now < until:
        _credit_slot(now & (W - 1), buf)
        # fast-forward over idle stretches: nothing in the network, nothing
        # to packetize -> the next compute end / message arrival
        if ctl[C_IN_FLIGHT] == 0 and ctl[C_TO_PACK] == 0:
            go = trace_idle(now, trf, ctl, stats)
            if go < 0:
                ctl[C_DEADLOCK] = 3
                done = True
                break
            if go != now:
                _flush_credits(buf)
                now = go
                ctl[C_LAST_PROGRESS] = now
        trace_step(now, trf, ctl)
        ctl[C_FLITS_IN] += packetize(now, net, buf, trf, ctl, stats)
        _network(now, now >= trf.warmup and now < trf.end_measure, net, buf, trf, ctl, out)
        now += 1
        if ctl[C_DEADLOCK] != 0 or finished(now, trf, ctl, stats):
            done = True
            break
    return _stop(now, done, net, buf, ctl, stats)


# numba checks only this file's source for freshness: the helpers and
# constants inlined from the modules named here count too
refresh_kernel_cache(sys.modules[__name__], (_core, events, errors))
