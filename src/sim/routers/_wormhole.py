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
  entries as seen upstream; a credit is spent the cycle a flit is sent, the
  flit joins the downstream ring at the start of the next cycle's phase
  (below) and may leave ``link_latency + router_delay`` cycles after it
  was sent;
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

Ranges of routers, as in :mod:`sim.routers._vct`: the routers are split into
P contiguous ranges (P = the threads), a cycle is a serial part (the credits
due from every range's wheel, generation and injection) and a phase per
range (:func:`sim.routers._core.range_phase`), then the ranges' run-state,
freed packets and statistics are merged in range order. A visit touches
only its router's state (its input VCs, ports, ejectors and injection
queues, and the output VCs it owns and holds credits of) and the header of
a packet it holds; a flit it sends downstream goes into the owner range's
outbox (every flit, also within a range) and joins its VC at the start of
that range's next phase (:func:`_arrive`): it could not leave before then
(``link_latency >= 1``). A VC has one upstream router, which sends it at
most one flit a cycle, so the order of a phase's arrivals does not matter,
and whether a router is visited after its upstream neighbour or before it
changes nothing: the numbers are the same on any number of threads.

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

from collections import namedtuple

import numpy as np
from numba import njit

from .._jit import HELPER
from ..errors import SimError
from ..routing._simple import DL_BUBBLE, MODE_ADAPTIVE, MODE_DOR, advance_route, candidates, route_target
from ._core import (
    BUF_FIELDS,
    C_FLITS_IN,
    C_LAST_PROGRESS,
    NO_ROOM,
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

__all__ = ["Buf", "WormholeBuf", "buffer_sizes", "wheel_size", "switching", "phase", "BUBBLE_NEEDS_VCT"]

#: this mode's buffers (the fields of :data:`sim.routers._core.BUF_FIELDS`)
WormholeBuf = namedtuple("WormholeBuf", BUF_FIELDS)
# Its own name (numba names compiled helpers after their argument types: two modes' buffers of one name
# would share compiled code), and a module attribute of that name (the kernel cache pickles it by reference).
Buf = WormholeBuf

BUBBLE_NEEDS_VCT = ("bubble flow control needs virtual cut-through (switching='vct'); with wormhole use --routing dor "
                    "--deadlock dateline --vcs 2 (or none), or routing table, updown, distance, minimal, tsdor, dort")


def buffer_sizes(cfg, mode: int, dl_code: int) -> tuple[int, int]:
    """``(cap, slots)``: flits of every input VC (both); raises
    :class:`SimError` for the routings that need bubble flow control."""
    if mode == MODE_ADAPTIVE or (mode == MODE_DOR and dl_code == DL_BUBBLE):
        raise SimError(BUBBLE_NEEDS_VCT)
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
    """The credits of slot ``s`` of every range's wheel come back (in any order: each adds one)."""
    for q in range(buf.wh_cnt.shape[0]):
        for e in range(buf.wh_cnt[q, s]):
            buf.credit[buf.wh_idx[q, s, e]] += 1
        buf.wh_cnt[q, s] = 0


# =========================================================================
# the router
# =========================================================================
#: a free output channel ranks above any credit count
_FREE_CHANNEL = np.int64(1) << 32


@njit(**HELPER)
def _rank(ci, now, net, buf):
    """Candidate ``ci``: an idle output VC with a credit has room; a channel
    that has not taken a flit this cycle first, then the most credits."""
    a = buf.cand_a[ci]
    o2 = a * net.V + buf.cand_v[ci]
    if buf.owner[o2] >= 0:
        return NO_ROOM
    c = buf.credit[o2]
    if c < 1:
        return NO_ROOM
    return c + (_FREE_CHANNEL if buf.out_used[a] != now else 0)


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
    best, best_t = choose(_rank, p, nc, now, net, buf)
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
    buf.out_used[a] = now
    buf.credit[o] -= 1
    # into the downstream input VC at the start of the next cycle's phase, by its range (_arrive)
    q = net.r_part[net.arc_dst[a]]
    k = buf.ob_n[q]
    buf.ob[q, k, 0] = o
    buf.ob[q, k, 1] = p
    buf.ob[q, k, 2] = fi
    buf.ob_n[q] = k + 1
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
def _arrive(e, sent, net, buf):
    """The outbox entry ``e``: flit ``e[2]`` of packet ``e[1]``, sent at
    cycle ``sent``, joins input VC ``e[0]``; it may leave ``link_latency +
    router_delay`` cycles after it was sent."""
    g = e[0]
    C = net.cap
    k = buf.vc_head[g] + buf.vc_cnt[g]
    if k >= C:
        k -= C
    buf.vc_pk[g, k] = e[1]
    buf.vc_fi[g, k] = e[2]
    buf.vc_rdy[g, k] = sent + net.link_latency + net.router_delay
    if buf.vc_cnt[g] == 0:
        buf.vc_since[g] = sent
    buf.vc_cnt[g] += 1
    w = net.arc_dst[g // net.V]
    buf.r_cnt[w] += 1
    hold(w, net, buf)


@njit(**HELPER)
def _router(u, now, vst, in_window, net, buf, trf, ctl, out):
    """One cycle of router ``u``: VC allocation for ready headers and at
    most one flit per input port, in arbitration order (that of the VCT
    kernel: input ports from a rotating start, the VCs of a port from a
    rotating start, the injection queues after them (in-transit priority)
    or as one block at a rotating position among the ports)."""
    NVC = buf.credit.shape[0]
    i0, nin, nt, ntot, e, tb = arbitration(u, net, buf)
    tst = now % nt if nt > 0 else 0
    vv = 0
    for j in range(ntot):
        t_in, arc_in, g, e, vv = next_input(j, tb, nt, tst, i0, nin, e, vv, vst, u, net, buf)
        if g >= 0:
            hh = buf.vc_head[g]
            if buf.vc_rdy[g, hh] > now:
                continue
            p = buf.vc_pk[g, hh]
            fi = buf.vc_fi[g, hh]
            o = buf.vc_out[g]
        elif t_in >= 0:
            p = buf.inj_buf[t_in, buf.inj_head[t_in]]
            if buf.pk_ready[p] > now:
                continue
            fi = buf.inj_sent[t_in]
            o = buf.inj_out[t_in]
        else:
            continue
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
            s2 = (now + 1 + net.link_latency) & (buf.wh_idx.shape[0] - 1)
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
# this switching mode's part of the shared loops and watchdog (_core.Switching)
# =========================================================================
@njit(**HELPER)
def _credits(now, net, buf):
    _credit_slot(now & (buf.wh_idx.shape[1] - 1), buf)


@njit(**HELPER)
def _flush_credits(now, net, buf):
    """Trace mode, network empty: every credit in flight comes back now."""
    for s in range(buf.wh_idx.shape[1]):
        _credit_slot(s, buf)


#: range ``q``'s view of the buffers (:func:`sim.routers._core.range_view`)
_view = range_view(Buf)
#: range ``q``'s part of a cycle (:func:`sim.routers._core.range_phase`)
phase = range_phase(_view, _arrive, _router)


@njit(**HELPER)
def _pending(net, buf, pend):
    for q in range(buf.wh_cnt.shape[0]):
        for s in range(buf.wh_idx.shape[1]):
            for e in range(buf.wh_cnt[q, s]):
                pend[buf.wh_idx[q, s, e]] += 1


@njit(**HELPER)
def _held(net, buf):
    """Flits in the input VCs and injection queues (the unsent ones of their
    packets), and those on their way to an input VC."""
    held = buf.vc_cnt.sum() + buf.ob_n.sum()
    for q in range(buf.inj_cnt.shape[0]):
        for i in range(buf.inj_cnt[q]):
            k = buf.inj_head[q] + i
            if k >= net.inj_cap:
                k -= net.inj_cap
            held += buf.pk_len[buf.inj_buf[q, k]]
        held -= buf.inj_sent[q]
    return held


@njit(**HELPER)
def _scan(buf):
    """The first range's view: the type a router visit sees (:data:`sim.routers._core.Switching`)."""
    return _view(0, 0, buf.free, buf)


@njit(**HELPER)
def switching():
    """This mode's part of the shared loops (:data:`sim.routers._core.Switching`)."""
    return Switching(_credits, _flush_credits, merge_ranges, _held, _pending, _scan, True)
