"""Private numba helpers: the simple router's routing, as its kernels run it.

The VCT and wormhole kernels (:mod:`sim.routers._core`) ask this module
where a packet may go and tell it where it went:

- :func:`start_route`: a packet's routing state as it enters an injection
  queue (its record, drawn from its difference class; the twin tori's node
  offset and traffic class; valiant's / ugal's intermediate router);
- :func:`route_target`: the router it heads for;
- :func:`candidates`: every (channel, VC) the routing allows it at a router,
  in tiers (0 first, 1 the escape), with the room each needs;
- :func:`advance_route`: its routing state after it took a channel;
- :func:`spreads_ties` / :func:`keep_tied`: how equally good choices share.

The routing modes are the registry's (:data:`sim.routing.registry.ROUTING_REGISTRY`,
``Routing.mode``), the tables the ones :mod:`sim.routing.tables` builds
(fields of ``net``, :data:`sim.routers._core.Net`). A new routing adds its
entry to the registry, its tables to :mod:`sim.routing.tables`, its choices to
:func:`candidates` and its state change to :func:`advance_route`.
BookSim2's routing functions, as the ``iq`` router runs them, are in
:mod:`sim.routing._booksim`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._draw import below
from .._jit import HELPER
from .registry import ROUTING_REGISTRY, SELECTIONS
from .tables import CLS_DIFF, CLS_LATTICE, CLS_TWIN

# routing modes (the registry's ``mode`` of each routing)
MODE_DOR = ROUTING_REGISTRY["dor"].mode                  # dimension order on routing records
MODE_ADAPTIVE = ROUTING_REGISTRY["adaptive"].mode        # minimal adaptive on records, escape VC 0 = DOR + bubble
MODE_TABLE = ROUTING_REGISTRY["table"].mode              # shortest-path adaptive, escape VC 0 = up*/down*
MODE_UPDOWN = ROUTING_REGISTRY["updown"].mode            # up*/down* on every VC
MODE_MINTABLE = ROUTING_REGISTRY["minimal"].mode         # shortest-path adaptive on every VC, no avoidance
MODE_TWIN = ROUTING_REGISTRY["tsdor"].mode               # nDT twin tori: TS-DOR / DORT tables, dateline classes
MODE_DISTANCE = ROUTING_REGISTRY["distance"].mode        # shortest-path adaptive, VC class = hops taken
MODE_VALIANT = ROUTING_REGISTRY["valiant"].mode          # minimal to a random intermediate router, then on
MODE_UGAL = ROUTING_REGISTRY["ugal"].mode                # UGAL-L: minimal or Valiant where the paths part

# deadlock avoidance of MODE_DOR
# selection among a packet's allowed outputs with room (SimConfig.selection; sim.routers._core.choose)
SEL_CREDITS = list(SELECTIONS).index("credits")
SEL_SPREAD = list(SELECTIONS).index("credits-random")
SEL_RANDOM = list(SELECTIONS).index("random")
SEL_WEIGHTED = list(SELECTIONS).index("weighted")

#: resolution of a split table's draw (:func:`_split_dim`)
SPLIT_GRAIN = 1 << 30

DL_NONE = 0
DL_DATELINE = 1
DL_BUBBLE = 2

# packet state bits
ST_CROSSED = 1        # crossed the dateline of its current dimension
ST_DOWN = 2           # up*/down*: has taken a down arc
ST_ESCAPED = 4        # table mode: is on the up*/down* escape (sticky)
ST_TC1 = 8            # twin mode: traffic class 1 (TS-DOR: injected by PE1)
ST_NONMIN = 16        # ugal: the last choice was the Valiant path
ST_DEFER = 32         # ugal: the minimal and Valiant next hops are the same here: take it, decide later
ST_DECIDED = 64       # ugal: the choice is made (the packet left a router where the paths part)
ST_ATC = 128          # twin mode (tsdor-adaptive): the packet is in its source PE's adaptive traffic class


@njit(**HELPER)
def load_class(p, u, v, net, buf):
    """``pk_rem[p]`` = the difference ``coords[v] - coords[u]`` reduced into
    the coordinate box modulo the lattice (dimensions in ``cls_order``, as
    :func:`candidates.generators.lattice.reduce_to_box`); returns its canonical index
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
def start_route(p, u, ur, net, buf):
    """The routing state of packet ``p`` entering at router ``u`` for router
    ``ur``: record routings draw its record (from its difference class: no
    n x n table), twin tori start its node offset (and traffic class);
    its minimal hops. The random draws (adaptive traffic class,
    intermediate router, tied record) are made here, in this order."""
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
def keep_tied(p, ties, draw, net, buf):
    """Reservoir sampling: the ``ties``-th equally good candidate of packet
    ``p`` replaces the one kept with probability 1 / ties, so each is chosen
    with 1 / ties. The draw is the ``draw``-th of the decision at the
    packet's current hop, a hash of the run's seed, the packet's serial
    number and these (:func:`sim._draw.below`), not the generator's next
    number: the routers of a cycle may be visited in any order (on several
    threads) and draw the same. A packet blocked here draws the same again
    at its next attempt, which leaves each choice uniform."""
    word = (np.int64(buf.pk_hops[p]) << np.int64(32)) | np.int64(draw)
    return below(net.seed, buf.pk_num[p], word, ties) == 0


@njit(**HELPER)
def keep_weighted(p, w, total, draw, net, buf):
    """Weighted reservoir sampling: a candidate of weight ``w`` (its free
    phits), ``total`` the weights seen so far with it, replaces the one kept
    with probability ``w / total``, so each is chosen in proportion to its
    weight; the draw as in :func:`keep_tied`."""
    word = (np.int64(buf.pk_hops[p]) << np.int64(32)) | np.int64(draw)
    return below(net.seed, buf.pk_num[p], word, total) < w


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
def _split_dim(p, u, dr, net, buf):
    """Routing ``adaptive`` with a split table: the one dimension packet
    ``p`` may take adaptively at router ``u`` (destination router ``dr``),
    drawn among the dimensions its record still needs in proportion to
    ``split[u, dr]`` (draw 0 of the hop, :func:`keep_tied`'s count starts at
    1); -1 (every such dimension) where they all weigh 0."""
    total = 0.0
    for k in range(net.D):
        if buf.pk_rem[p, k] != 0:
            total += net.split[u, dr, k]
    if total <= 0.0:
        return -1
    word = np.int64(buf.pk_hops[p]) << np.int64(32)
    x = below(net.seed, buf.pk_num[p], word, SPLIT_GRAIN) * (total / SPLIT_GRAIN)
    last = -1
    for k in range(net.D):
        if buf.pk_rem[p, k] != 0 and net.split[u, dr, k] > 0.0:
            last = k
            x -= net.split[u, dr, k]
            if x < 0.0:
                return k
    return last


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
            ks = _split_dim(p, u, dr, net, buf) if net.split.shape[0] > 1 else -1
            for k in range(net.D):
                r = buf.pk_rem[p, k]
                if r != 0 and (ks < 0 or k == ks):
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
