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

Ranges of routers. The routers are split into P contiguous ranges of
router index (P = the threads, :func:`sim.threads.partitions`: slabs of a
lattice; any graph, with a worse cut), and a cycle is a serial part (the
credits due, from every range's wheel; generation, destinations and
injection, which draw from the run's one generator in terminal order), a
phase per range (:func:`sim.routers._core.range_phase`, a ``prange`` in the run loops: each range
visits its routers in router order) and a merge (:func:`sim.routers._core.merge_ranges`: the
ranges' freed packets, run-state and statistics merged in range order,
which is router order). A visit reads and writes only its router's state
-- its input VCs and ports, its output channels and the credits it holds
of the VCs downstream (UGAL's queue estimate reads those too), its
injection queues and ejectors, its pointers and ``wake`` -- and the
packets it holds. Its effects on other routers:

- a packet sent downstream is eligible there ``link_latency +
  router_delay >= 1`` cycles later (``link_latency >= 1``), so nothing
  there can use it in the cycle it is sent: it goes into an outbox
  (``ob``, double buffered by the cycle's parity) and joins its VC at the
  start of the owner range's next phase (:func:`_arrive`). Every packet
  goes this way, also to a router of the sender's own range, so where the
  ranges are cut changes nothing. A VC has one upstream router, which
  sends at most one packet a cycle on each channel, so the order of a
  phase's arrivals does not matter. This is what one thread does too:
  before, a router visited after its upstream neighbour in the same cycle
  already held the packet sent to it (it was visited, and its round-robin
  pointers moved, a cycle earlier than one visited before), which made the
  numbers depend on router order; every VCT run's numbers changed with it;
- a credit comes back ``L + link_latency >= 2`` cycles after its packet
  left, into the sending range's wheel, read in the next serial parts (a
  credit adds and a wake only lowers: their order does not matter);
- the statistics, the run-state counters and the free stack: per range
  (``pstats``, ``pctl``, ``freed``), merged at the barrier.

The random draws of a visit (ties kept at random) are hashes of the packet,
not the generator's (:func:`sim.routing._simple.keep_tied`). So the numbers
are the same on any number of threads.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .._jit import HELPER
from ..routing._simple import advance_route, candidates, route_target
from ._core import (
    BUF_FIELDS,
    C_LAST_PROGRESS,
    NO_ROOM,
    NOT_NOW,
    S_ACC_PACKETS,
    S_ACC_PHITS,
    S_ESC_HOPS,
    S_WIN_HOPS,
    Switching,
    arbitration,
    choose,
    delivered,
    hold,
    merge_ranges,
    next_input,
    range_phase,
    range_view,
)

__all__ = ["Buf", "VCTBuf", "buffer_sizes", "wheel_size", "switching", "phase"]

#: this mode's buffers (the fields of :data:`sim.routers._core.BUF_FIELDS`)
VCTBuf = namedtuple("VCTBuf", BUF_FIELDS)
# Its own name (numba names compiled helpers after their argument types: two modes' buffers of one name
# would share compiled code), and a module attribute of that name (the kernel cache pickles it by reference).
Buf = VCTBuf

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
    """The credits of slot ``s`` of every range's wheel come back; the
    routers they free wake (in any order: each adds, and a wake only lowers)."""
    for q in range(buf.wh_cnt.shape[0]):
        for e in range(buf.wh_cnt[q, s]):
            idx = buf.wh_idx[q, s, e]
            if idx >= 0:
                buf.credit[idx] += buf.wh_amt[q, s, e]
                u = net.vc_router[idx]
                if buf.wake[u] > now:
                    buf.wake[u] = now
            else:
                buf.inj_free[-idx - 1] += 1
        buf.wh_cnt[q, s] = 0


@njit(**HELPER)
def _credit_later(t, idx, amt, buf):
    W = buf.wh_idx.shape[0]
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
def _rank(ci, now, net, buf):
    """Candidate ``ci`` by its VC's credits: it needs room for the whole
    packet (and a free output channel to be taken now)."""
    a = buf.cand_a[ci]
    c = buf.credit[a * net.V + buf.cand_v[ci]]
    if c < buf.cand_n[ci]:
        return NO_ROOM
    if buf.out_busy[a] > now:
        return NOT_NOW
    return c


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
    best, tier = choose(_rank, p, nc, now, net, buf)
    esc = tier == 1
    if best < 0:
        free_at = NEVER
        for ci in range(nc):
            b = buf.out_busy[buf.cand_a[ci]]
            if b > now and b < free_at:
                free_at = b
        return free_at
    a = buf.cand_a[best]
    v = buf.cand_v[best]
    buf.out_busy[a] = now + L
    buf.credit[a * V + v] -= L
    if in_window:
        out.arc_phits[a] += L
        out.stats[S_WIN_HOPS] += 1
        if esc:
            out.stats[S_ESC_HOPS] += 1
    advance_route(p, a, v, esc, net, buf)
    buf.pk_hops[p] += 1
    buf.pk_ready[p] = now + net.link_latency + net.router_delay
    # into the downstream input VC at the start of the next cycle's phase, by its range (_arrive)
    o = net.r_part[net.arc_dst[a]]
    k = buf.ob_n[o]
    buf.ob[o, k, 0] = a * V + v
    buf.ob[o, k, 1] = p
    buf.ob_n[o] = k + 1
    buf.r_cnt[u] -= 1
    return 0


@njit(**HELPER)
def _arrive(e, sent, net, buf):
    """The outbox entry ``e``: packet ``e[1]``, sent at cycle ``sent``,
    joins input VC ``e[0]``; its router wakes when the packet is eligible
    if it is the VC's head."""
    g = e[0]
    p = e[1]
    w = net.arc_dst[g // net.V]
    if buf.vc_cnt[g] == 0:
        buf.vc_since[g] = sent
        if buf.pk_ready[p] < buf.wake[w]:
            buf.wake[w] = buf.pk_ready[p]
    k = buf.vc_head[g] + buf.vc_cnt[g]
    if k >= net.slots:
        k -= net.slots
    buf.vc_pk[g, k] = p
    buf.vc_cnt[g] += 1
    buf.r_cnt[w] += 1
    hold(w, net, buf)


@njit(**HELPER)
def _router(u, now, vst, in_window, net, buf, trf, ctl, out):
    """One cycle of router ``u``: in arbitration order, every eligible
    packet at the head of an input VC or injection queue is ejected or
    forwarded if it can be."""
    # the pointers move every cycle, also when the router sleeps
    i0, nin, nt, ntot, e, tb = arbitration(u, net, buf)
    if buf.wake[u] > now:
        return
    tst = now % nt if nt > 1 else 0
    vv = 0
    nxt = NEVER
    for j in range(ntot):
        t_in, arc_in, g, e, vv = next_input(j, tb, nt, tst, i0, nin, e, vv, vst, u, net, buf)
        if g >= 0:
            p = buf.vc_pk[g, buf.vc_head[g]]
            if buf.in_busy[arc_in] > now:
                nxt = min(nxt, max(buf.in_busy[arc_in], buf.pk_ready[p]))
                continue
        elif t_in >= 0:
            p = buf.inj_buf[t_in, buf.inj_head[t_in]]
            if buf.inj_busy[t_in] > now:
                nxt = min(nxt, max(buf.inj_busy[t_in], buf.pk_ready[p]))
                continue
        else:
            continue
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
# this switching mode's part of the shared loops and watchdog (_core.Switching)
# =========================================================================
@njit(**HELPER)
def _credits(now, net, buf):
    _credit_slot(now & (buf.wh_idx.shape[1] - 1), now, net, buf)


@njit(**HELPER)
def _flush_credits(now, net, buf):
    """Trace mode, network empty: every credit in flight comes back now."""
    for s in range(buf.wh_idx.shape[1]):
        _credit_slot(s, now, net, buf)


#: range ``q``'s view of the buffers (:func:`sim.routers._core.range_view`)
_view = range_view(Buf)
#: range ``q``'s part of a cycle (:func:`sim.routers._core.range_phase`)
phase = range_phase(_view, _arrive, _router)


@njit(**HELPER)
def _held(net, buf):
    """Packets in the input VCs and injection queues, and those on their way to an input VC."""
    return buf.vc_cnt.sum() + buf.inj_cnt.sum() + buf.ob_n.sum()


@njit(**HELPER)
def _pending(net, buf, pend):
    for q in range(buf.wh_cnt.shape[0]):
        for s in range(buf.wh_idx.shape[1]):
            for e in range(buf.wh_cnt[q, s]):
                if buf.wh_idx[q, s, e] >= 0:
                    pend[buf.wh_idx[q, s, e]] += buf.wh_amt[q, s, e]


@njit(**HELPER)
def _scan(buf):
    """The first range's view: the type a router visit sees (:data:`sim.routers._core.Switching`)."""
    return _view(0, 0, buf.free, buf)


@njit(**HELPER)
def switching():
    """This mode's part of the shared loops (:data:`sim.routers._core.Switching`)."""
    return Switching(_credits, _flush_credits, merge_ranges, _held, _pending, _scan, False)
