"""Private numba kernel: virtual cut-through switching at packet level.

The public face is :mod:`sim.engine` (the model is documented there); the
state structures and the helpers shared with the wormhole kernel are in
:mod:`sim.routers._core`, built by :mod:`sim.routers.simple`.

State specific to VCT (fields of ``buf``):

- every input VC ``g = arc * V + vc`` (the buffer at the head router of
  channel ``arc``) is a ring of packet ids ``vc_pk[g, :]`` of ``net.slots``
  entries; ``credit[g]`` counts its free phits as seen upstream;
- ``in_busy``/``out_busy``/``inj_busy``/``ej_busy``: the cycle an input
  port, output channel, injection queue or ejector is free again (a
  packet holds them for its ``L`` cycles);
- the credit wheel carries phits back to input VCs (``wh_idx >= 0``) and
  packet slots back to injection queues (``wh_idx = -(queue + 1)``).

Timing (one phit per cycle per channel): a packet whose head is eligible at
router ``u`` at cycle ``s`` and wins an output occupies its input port and
the output channel for ``L`` cycles; its head becomes eligible at the next
router at ``s + link_latency + router_delay``; the ``L`` phits of buffer it
held upstream are credited back at ``s + L + link_latency``. Ejection to a
terminal takes ``L`` cycles; the packet is delivered at ``s + L``.

A router is scanned only from ``wake[u]``, the earliest cycle one of its
packets could move: a scan that moves nothing has no effect but the
round-robin pointers (which advance anyway), so the scan records when its
waiting heads become eligible (their own and their ports' timers, the
output channels and ejectors they wait for), and whatever can free them
sooner -- a packet reaching the head of an empty VC or injection queue, a
credit coming back -- lowers ``wake``. With 16-phit packets most routers
sleep most cycles.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from common.jitcache import refresh_kernel_cache

from .. import events
from . import _core
from ._core import (C_DEADLOCK, C_DELIVERED, C_DONE, C_IN_FLIGHT, C_INJECTED, C_LAST_PROGRESS, C_NFREE, C_NOW,
                    C_STALL_VC, C_TO_PACK, HELPER, KERNEL, S_ACC_PACKETS, S_ACC_PHITS, S_ESC_HOPS, S_STARVED,
                    S_VIOLATIONS, S_WIN_HOPS, advance_route, begin, candidates, delivered, final_stats, finished,
                    generate, inject_synthetic, keep_tied, packetize, route_target, spreads_ties, trace_idle,
                    trace_step)

__all__ = ["buffer_sizes", "wheel_size", "run", "run_trace"]

NEVER = np.int64(1) << 62


def buffer_sizes(cfg) -> tuple[int, int]:
    """``(cap, slots)``: phits of every input VC and the packets its ring
    holds (every packet has at least ``lo`` phits)."""
    lo, hi = cfg.length_range
    cap = int(cfg.buffer_packets) * hi
    return cap, cap // lo


def wheel_size(cfg) -> int:
    """Slots of the credit wheel: credits come back at most ``L +
    link_latency`` cycles ahead."""
    W = 1
    while W < cfg.length_range[1] + cfg.link_latency + 2:
        W *= 2
    return W


# =========================================================================
# credits
# =========================================================================
@njit(**HELPER)
def _credit_slot(s, now, net, buf):
    """The credits of wheel slot ``s`` come back; the routers they free wake."""
    for e in range(buf.wh_cnt[s]):
        idx = buf.wh_idx[s, e]
        if idx >= 0:
            buf.credit[idx] += buf.wh_amt[s, e]
            u = net.vc_router[idx]
            if buf.wake[u] > now:
                buf.wake[u] = now
        else:
            buf.inj_free[-idx - 1] += 1
    buf.wh_cnt[s] = 0


@njit(**HELPER)
def _credit_later(t, idx, amt, buf):
    W = buf.wh_cnt.shape[0]
    s = t & (W - 1)
    c = buf.wh_cnt[s]
    buf.wh_idx[s, c] = idx
    buf.wh_amt[s, c] = amt
    buf.wh_cnt[s] = c + 1


# =========================================================================
# the router
# =========================================================================
@njit(**HELPER)
def _eject(p, u, now, in_window, net, buf, trf, ctl, out):
    """Packet ``p`` at its destination router ``u``: the first free ejector
    of its terminal takes it. Returns 0 if one did, else the cycle one is free."""
    dt = buf.pk_dst[p]
    n_ej = net.n_ej
    ej = dt * n_ej
    for j in range(1, n_ej):
        if buf.ej_busy[ej] <= now:
            break
        ej += 1
    if buf.ej_busy[ej] > now:
        free_at = buf.ej_busy[dt * n_ej]
        for j in range(1, n_ej):
            free_at = min(free_at, buf.ej_busy[dt * n_ej + j])
        return free_at
    L = buf.pk_len[p]
    buf.ej_busy[ej] = now + L
    buf.r_cnt[u] -= 1
    if in_window:
        out.stats[S_ACC_PHITS] += L
        out.stats[S_ACC_PACKETS] += 1
    delivered(p, u, now + L, net, buf, trf, ctl, out)
    return 0


@njit(**HELPER)
def _forward(p, u, dr, now, in_window, net, buf, out):
    """Route packet ``p`` at router ``u`` and send it on the best allowed
    (channel, VC): tier 0 (adaptive) first, the escape tier only when no
    tier-0 VC has room (a busy output is worth waiting for); among those
    with room and a free channel, the most credits. Returns 0 if it left,
    else the cycle a channel it waits for is free (``NEVER`` if it waits
    for credits)."""
    V = net.V
    L = buf.pk_len[p]
    nc = candidates(p, u, dr, L, net, buf)
    best_a = -1
    best_v = -1
    best_c = -1
    esc = False
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
            c = buf.credit[a * V + buf.cand_v[ci]]
            if c < buf.cand_n[ci]:
                continue
            room = True
            if buf.out_busy[a] > now:
                continue
            if c > best_c:
                best_c = c
                best_a = a
                best_v = buf.cand_v[ci]
                ties = 1
            elif spread and c == best_c:
                ties += 1
                if keep_tied(ties):
                    best_a = a
                    best_v = buf.cand_v[ci]
        if best_a >= 0:
            esc = tier == 1
            break
    if best_a < 0:
        free_at = NEVER
        for ci in range(nc):
            b = buf.out_busy[buf.cand_a[ci]]
            if b > now and b < free_at:
                free_at = b
        return free_at
    a = best_a
    v = best_v
    buf.out_busy[a] = now + L
    buf.credit[a * V + v] -= L
    if in_window:
        out.arc_phits[a] += L
        out.stats[S_WIN_HOPS] += 1
        if esc:
            out.stats[S_ESC_HOPS] += 1
    advance_route(p, a, v, esc, net, buf)
    buf.pk_hops[p] += 1
    ready = now + net.link_latency + net.router_delay
    buf.pk_ready[p] = ready
    w = net.arc_dst[a]
    g2 = a * V + v
    if buf.vc_cnt[g2] == 0:
        buf.vc_since[g2] = now
        if ready < buf.wake[w]:
            buf.wake[w] = ready
    k2 = buf.vc_head[g2] + buf.vc_cnt[g2]
    if k2 >= net.slots:
        k2 -= net.slots
    buf.vc_pk[g2, k2] = p
    buf.vc_cnt[g2] += 1
    buf.r_cnt[u] -= 1
    buf.r_cnt[w] += 1
    return 0


@njit(**HELPER)
def _router(u, now, vst, in_window, net, buf, trf, ctl, out):
    """One cycle of router ``u``: in arbitration order, every eligible
    packet at the head of an input VC or injection queue is ejected or
    forwarded if it can be."""
    V = net.V
    i0 = net.in_indptr[u]
    nin = net.in_indptr[u + 1] - i0
    nv = nin * V
    nt = (net.term_indptr[u + 1] - net.term_indptr[u]) * net.n_inj
    ntot = nv + nt
    # arbitration order: input ports in a rotating round robin, the VCs of
    # a port from a rotating start; the injection queues after all of them
    # (in-transit priority) or as one more block at a rotating position
    # among the ports. No divisions in this loop.
    e = buf.rr[u]
    buf.rr[u] = e + 1 if e + 1 < nin else 0
    if net.transit_priority:
        tb = nv
    else:
        tb = buf.rr_t[u] * V
        buf.rr_t[u] = buf.rr_t[u] + 1 if buf.rr_t[u] < nin else 0
    if buf.wake[u] > now:
        return
    tst = now % nt if nt > 1 else 0
    vv = 0
    nxt = NEVER
    for j in range(ntot):
        if j >= tb and j < tb + nt:
            t_in = j - tb + tst
            if t_in >= nt:
                t_in -= nt
            t_in += net.term_indptr[u] * net.n_inj
            if buf.inj_cnt[t_in] == 0:
                continue
            p = buf.inj_buf[t_in, buf.inj_head[t_in]]
            if buf.inj_busy[t_in] > now:
                nxt = min(nxt, max(buf.inj_busy[t_in], buf.pk_ready[p]))
                continue
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
            p = buf.vc_pk[g, buf.vc_head[g]]
            if buf.in_busy[arc_in] > now:
                nxt = min(nxt, max(buf.in_busy[arc_in], buf.pk_ready[p]))
                continue
            t_in = -1
        if buf.pk_ready[p] > now:
            nxt = min(nxt, buf.pk_ready[p])
            continue
        L = buf.pk_len[p]
        dr = route_target(p, net, buf)
        if dr == u:
            blocked = _eject(p, u, now, in_window, net, buf, trf, ctl, out)
        else:
            blocked = _forward(p, u, dr, now, in_window, net, buf, out)
        if blocked != 0:
            nxt = min(nxt, blocked)
            continue
        ctl[C_LAST_PROGRESS] = now
        if g >= 0:
            h = buf.vc_head[g] + 1
            buf.vc_head[g] = h if h < net.slots else 0
            buf.vc_cnt[g] -= 1
            buf.vc_since[g] = now
            buf.in_busy[arc_in] = now + L
            _credit_later(now + L + net.link_latency, g, L, buf)
            if buf.vc_cnt[g] > 0:
                nxt = min(nxt, max(now + L, buf.pk_ready[buf.vc_pk[g, buf.vc_head[g]]]))
        else:
            h = buf.inj_head[t_in] + 1
            buf.inj_head[t_in] = h if h < net.inj_cap else 0
            buf.inj_cnt[t_in] -= 1
            buf.inj_busy[t_in] = now + L
            _credit_later(now + L, -(t_in + 1), 1, buf)
            if buf.inj_cnt[t_in] > 0:
                nxt = min(nxt, max(now + L, buf.pk_ready[buf.inj_buf[t_in, buf.inj_head[t_in]]]))
        if buf.r_cnt[u] == 0:
            break
    buf.wake[u] = nxt


# =========================================================================
# checks and deadlock detection
# =========================================================================
@njit(**HELPER)
def _held(net, buf):
    """Packets in the input VCs and injection queues."""
    held = 0
    for g in range(buf.vc_cnt.shape[0]):
        held += buf.vc_cnt[g]
    for q in range(buf.inj_cnt.shape[0]):
        held += buf.inj_cnt[q]
    return held


@njit(**HELPER)
def _conserved(net, buf, ctl):
    held = _held(net, buf)
    inf = ctl[C_IN_FLIGHT]
    return held == inf and ctl[C_INJECTED] - ctl[C_DELIVERED] == inf and held + ctl[C_NFREE] == buf.free.shape[0]


@njit(**HELPER)
def _stalled(now, net, buf):
    """A transit packet waiting longer than the watchdog at the head of its VC (-1: none)."""
    for g in range(buf.vc_cnt.shape[0]):
        if buf.vc_cnt[g] > 0:
            p = buf.vc_pk[g, buf.vc_head[g]]
            since = buf.vc_since[g]
            if buf.pk_ready[p] > since:
                since = buf.pk_ready[p]
            if now - since > net.watchdog:
                return g
    return -1


@njit(**HELPER)
def _knot(net, buf):
    """The wait-for graph of the input VCs: a VC is live if it is empty,
    its head can be ejected, or one of its head's candidates is live or
    will have room (credits in flight counted). Returns a VC of a knot (no
    chain from it reaches a live one), or -1."""
    V = net.V
    NVC = buf.vc_cnt.shape[0]
    live = buf.live
    pend = buf.pend
    for g in range(NVC):
        pend[g] = 0
        live[g] = buf.vc_cnt[g] == 0
    for s in range(buf.wh_cnt.shape[0]):
        for e in range(buf.wh_cnt[s]):
            if buf.wh_idx[s, e] >= 0:
                pend[buf.wh_idx[s, e]] += buf.wh_amt[s, e]
    changed = True
    while changed:
        changed = False
        for g in range(NVC):
            if live[g]:
                continue
            p = buf.vc_pk[g, buf.vc_head[g]]
            u = net.arc_dst[g // V]
            dr = route_target(p, net, buf)
            ok = dr == u
            if not ok:
                nc = candidates(p, u, dr, buf.pk_len[p], net, buf)
                for ci in range(nc):
                    g2 = buf.cand_a[ci] * V + buf.cand_v[ci]
                    if live[g2] or buf.credit[g2] + pend[g2] >= buf.cand_n[ci]:
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
    movement for ``watchdog`` cycles, or a stalled transit packet in a knot
    of the wait-for graph (a stalled one outside a knot is starved)."""
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
def _flush_credits(now, net, buf):
    """Trace mode, network empty: every credit in flight comes back now."""
    for s in range(buf.wh_cnt.shape[0]):
        _credit_slot(s, now, net, buf)


@njit(**HELPER)
def _network(now, in_window, net, buf, trf, ctl, out):
    """One cycle of every router that holds something, then the checks."""
    vst = now % net.V     # the VC every port starts its round robin from
    for u in range(net.n):
        if buf.r_cnt[u] != 0:
            _router(u, now, vst, in_window, net, buf, trf, ctl, out)
    _watch(now, net, buf, ctl, out.stats)


@njit(**HELPER)
def _stop(now, done, net, buf, ctl, stats):
    """Save the cycle reached; at the end of the run the final statistics."""
    ctl[C_NOW] = now
    if done:
        ctl[C_DONE] = 1
        final_stats(_held(net, buf), ctl[C_IN_FLIGHT], ctl, stats)
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
        _credit_slot(now & (W - 1), now, net, buf)
        in_window = now >= trf.warmup and now < trf.end_measure
        generate(now, in_window, trf, stats)
        inject_synthetic(now, in_window, net, buf, trf, ctl, stats)
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
        _credit_slot(now & (W - 1), now, net, buf)
        # fast-forward over idle stretches: nothing in the network, nothing
        # to packetize -> the next compute end / message arrival
        if ctl[C_IN_FLIGHT] == 0 and ctl[C_TO_PACK] == 0:
            go = trace_idle(now, trf, ctl, stats)
            if go < 0:
                ctl[C_DEADLOCK] = 3
                done = True
                break
            if go != now:
                _flush_credits(go, net, buf)
                now = go
                ctl[C_LAST_PROGRESS] = now
        trace_step(now, trf, ctl)
        packetize(now, net, buf, trf, ctl, stats)
        _network(now, now >= trf.warmup and now < trf.end_measure, net, buf, trf, ctl, out)
        now += 1
        if ctl[C_DEADLOCK] != 0 or finished(now, trf, ctl, stats):
            done = True
            break
    return _stop(now, done, net, buf, ctl, stats)


# numba checks only this file's source for freshness: the helpers and
# constants inlined from the modules named here count too
refresh_kernel_cache(sys.modules[__name__], (_core, events))
