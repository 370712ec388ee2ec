"""Named routing algorithms of the simulator and the tables they consume.

The routings are entries of :mod:`sim.routing.registry` (what each needs, which
router models run it); a family's capabilities
(:mod:`candidates.capabilities`) can replace the graph's minimal paths by
its own rule (``routes``), give Valiant's intermediate points
(``intermediates``) and name its ``auto`` routing.

=============  ==============================================================
``dor``        dimension-order routing on the minimal routing records
               (lowest dimension first, the record's direction). Deadlock
               avoidance (``SimConfig.deadlock``): ``dateline`` (VCs split in
               two classes, a packet moves to class 1 when it crosses the
               wraparound link of its current dimension), ``bubble`` (bubble
               flow control on every VC) or ``none``. On a HyperX or
               flattened butterfly (no records): the family's dimension
               order, one hop per differing coordinate, lowest first, on
               every VC (its channel dependencies only climb dimensions).
``adaptive``   minimal adaptive over the record's productive dimensions on
               VCs 1..V-1; VC 0 is the escape: DOR with bubble flow control
               ('twisted-tori-tpds2010' section 6.1: one static VC plus
               fully adaptive ones). Tori, meshes and twisted tori
               (RT/RTT/PT/PTT/PDTT).
``table``      any graph: adaptive over every shortest-path next hop on VCs
               1..V-1, escape VC 0 routed by up*/down*; once on the escape a
               packet stays there (a conservative form of Duato's rule).
``updown``     up*/down* on every VC, adaptive among the legal next hops
               that start a shortest legal route.
``minimal``    shortest-path next hops on every VC, no deadlock avoidance
               (can deadlock; useful to study it). Free of deadlock on
               fat trees and k-ary n-trees (capability ``updown_minimal``:
               every shortest path climbs, then descends), where it is
               ``auto``.
``distance``   shortest-path next hops, adaptive; the VCs are split into
               distance classes and a packet's h-th hop uses class h, so
               channel dependencies only go up in class (deadlock-free on
               any graph; needs ``vcs`` >= the diameter).
``valiant``    Valiant's randomised routing on any graph: at injection a
               packet draws an intermediate router uniformly (all routers,
               from the run's seeded generator), goes to it over shortest
               paths (adaptive among the next hops), then on to its
               destination the same way; a packet passing its destination
               router in the first phase does not stop there. Distance
               classes as ``distance`` over up to 2 x diameter hops
               (``vcs`` >= 2 x diameter). On a dragonfly the intermediate
               point is a random *group* (Kim et al.): the packet goes to
               the router where its group's global link enters it, then
               on by the dragonfly's minimal routing. With
               ``router="iq"`` the name is BookSim2's valiant on lattices
               (DOR in both phases).
``ugal``       UGAL-L (Singh's thesis; Kim et al., ISCA 2008, dragonfly):
               every packet draws an intermediate router as ``valiant``;
               where the two paths part it goes minimally when ``q_min *
               H_min <= q_val * H_val + ugal_threshold`` (``q`` the phits
               queued for -- credits used on -- the least occupied next-
               hop channel of each path, ``H`` its hops), else through the
               intermediate; the choice is remade at every attempt until
               the packet leaves. The paths part at the source router
               unless their next hops are the same there (a dragonfly's
               router whose group reaches both the destination group and
               the intermediate one through the same gateway): then the
               packet takes that hop, which is on both paths, and decides
               at the next router, where the local queues differ.
               ``valiant``'s VC classes.
``tsdor``      nDT twin tori ('5d-twin-torus-extoll'): Twin Source DOR,
               packets of PE0 route d0 -> d(n-1), packets of PE1
               d(n-1) -> d0, with the internal-link use and the tie rule of
               :func:`candidates.twin_route`. The two source classes are two
               traffic classes with disjoint VCs (``vcs`` a multiple of 4).
``dort``       nDT twin tori: DOR d0 -> d(n-1) for every packet (``vcs`` a
               multiple of 2).
``tsdor-adaptive``  nDT twin tori, the router of '5d-twin-torus-extoll':
               EXTOLL's four traffic classes, per source PE one
               deterministic class (TS-DOR) and one adaptive class, each
               packet injected into either at random (even odds). An
               adaptive-class packet may take, on its own adaptive VC,
               TS-DOR's next hop or any other port that keeps it on the card
               it is on, goes the ring's shorter way (both at a tie) and
               starts a shortest path; when none of those VCs has room it
               takes TS-DOR's next hop on the class's two escape VCs
               (Duato's protocol). ``vcs`` a multiple of 8 (4
               classes x 2 dateline classes); the two adaptive VCs come on
               top.
=============  ==============================================================

Deadlock freedom of ``tsdor``/``dort``: external links use the dateline
(VC class 1 after the wraparound link of the current dimension). The
internal link of a node gets these classes: a hop inside the middle
dimension (or just before entering it) uses the dateline class of that
dimension; a hop after the middle dimension (towards a later dimension or
to the destination card) class 2; the first hop of a packet towards a
dimension before the middle one (only DORT's PE1 packets) class 3. Every
class has its own VC, so DORT needs 4 VCs on the internal link (as the
paper says) and TS-DOR 3 per traffic class; where the middle dimension
has size 2 (all the paper's 5DT shapes) classes 0/1 never occur on the
internal link and the extra classes fit in the external VC count. The
channel dependency graph is acyclic (tests/sim check it for several
shapes); the paper's own TS-DOR rule (upper/lower VC by card direction)
shares one VC between the hops before and after the middle dimension,
which closes a dependency cycle through that dimension's ring when it
has more than two nodes.

``tsdor-adaptive``'s escape VCs take their dateline class from where the
packet is, not from where it has been: class 0 while the wraparound
link of the dimension lies ahead (on it too), class 1 once it does not.
A packet's escape channels in one ring then follow each other in one
direction and class order whatever adaptive hops come between, and an
adaptive hop never leaves the card except by TS-DOR's own internal hop,
so no adaptive detour brings back a dimension TS-DOR has finished: the
extended channel dependency graph of the escape VCs (direct and through
adaptive hops) is acyclic (tests/sim check it for several shapes).

On a dragonfly every routing over next hops (``table``, ``minimal``,
``distance``, ``valiant``, ``ugal``) takes the dragonfly's own minimal
routes, local-global-local (:func:`candidates.generators.dragonfly.minimal_table`),
not the graph's shortest paths (which may cross a third group).

``auto`` picks the family's declared routing (``minimal`` on fat trees and
k-ary n-trees, ``ugal`` on dragonflies), else ``adaptive`` for lattice
families that have routing records and ``table`` for anything else.

>>> import candidates as cd
>>> resolve_routing(cd.from_spec("rtt:a=4"), "auto")
'adaptive'
>>> resolve_routing(cd.from_spec("ndt:4x4x2x2x2"), "auto"), resolve_routing(cd.from_spec("dragonfly:a=4:p=2:h=2"), "auto")
('table', 'ugal')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from candidates import Topology, hop_distances, shortest_path_table, updown
from candidates.analytics.records import has_records, record_table, record_ties
from candidates.capabilities import capabilities, families_with
from candidates.generators.lattice import reduce_to_box
from candidates.generators.twin import twin_shape

from .. import cache as sim_cache
from ..config import ROUTINGS, SimConfig
from ..errors import SimError
from .registry import ROUTING_REGISTRY, routing_entry

__all__ = ["ROUTINGS", "class_vcs", "with_class_vcs", "resolve_routing", "table_kind", "RoutingTables", "build_tables", "class_index",
           "pair_records", "with_ties", "twin_next_hops", "twin_path", "twin_adaptive_choices"]


def class_vcs(topo: Topology, routing: str) -> int:
    """The fewest VCs a resolved routing needs on ``topo``: one per hop of
    the longest route for the distance-class routings (the diameter, twice
    it for ``valiant`` and ``ugal``; builds the routing's tables), else 1.

    >>> import candidates as cd
    >>> class_vcs(cd.from_spec("dragonfly:a=4:p=2:h=2"), "ugal")
    6
    """
    hops = routing_entry(routing).class_hops
    if not hops:
        return 1
    dist = build_tables(topo, routing).min_dist
    assert dist is not None  # the distance-class routings are table routings: (n, n) distances
    return hops * int(dist.max())


def with_class_vcs(topo: Topology, cfg: SimConfig, routing: str) -> SimConfig:
    """``cfg`` with at least the VCs resolved ``routing`` needs on ``topo``
    (:func:`class_vcs`): what a default gives a distance-class routing
    whose preset has fewer (the CLI says so; a study records the config).

    >>> import candidates as cd
    >>> with_class_vcs(cd.from_spec("dragonfly:a=4:p=2:h=2"), SimConfig(vcs=3), "ugal").vcs
    6
    """
    need = class_vcs(topo, routing)
    return cfg if need <= cfg.vcs else cfg.replace(vcs=need)


def _records_ok(topo: Topology) -> bool:
    return has_records(topo) and topo.shape is not None


def _auto(topo: Topology) -> str:
    declared = capabilities(topo).auto_routing
    if declared is not None:
        return declared
    return "adaptive" if _records_ok(topo) else "table"


def resolve_routing(topo: Topology, name: str, router: str = "simple") -> str:
    """The concrete routing for ``name`` on ``topo`` (resolves ``auto``: the
    family's declared default, else ``adaptive`` with routing records and
    ``table`` without) and the router model ``router``, checked against
    what the routing's registry entry needs (:mod:`sim.routing.registry`).

    >>> import candidates as cd
    >>> resolve_routing(cd.from_spec("fattree:k=4"), "auto"), resolve_routing(cd.from_spec("hyperx:4x4"), "dor")
    ('minimal', 'dor')
    """
    entry = routing_entry(name)
    caps = capabilities(topo)
    if entry.name == "auto":
        entry = routing_entry(_auto(topo))
    if router not in entry.routers:
        if entry.routers == ("iq",):
            raise SimError(f"routing {entry.name} is BookSim2's and runs on its router model: add --router iq "
                           "(SimConfig(router='iq'))")
        iq = [r.name for r in ROUTING_REGISTRY.values() if "iq" in r.routers and r.name != "auto"]
        raise SimError(f"router iq supports routings {', '.join(iq)} (BookSim2's dim_order, min_adapt, valiant), "
                       f"got {entry.name!r}; use --router simple for the others")
    need = entry.needs if router == "simple" else entry.iq_needs
    if need == "twin" and not caps.twin:
        raise SimError(f"routing {entry.name!r} is for nDT twin tori (ndt:...); {topo!r} is family {topo.family!r}")
    if need == "records" and not _records_ok(topo) and not (router == "simple" and entry.name in caps.routes):
        own = [f for f in families_with("routes") if entry.name in capabilities(f).routes]
        also = f"; on the simple router also {', '.join(own)}" if own and router == "simple" else ""
        raise SimError(
            f"routing {entry.name!r} needs routing records ({', '.join(families_with('records'))}{also}); "
            f"{topo!r} is family {topo.family!r}: use --routing table or updown"
        )
    return entry.name


def table_kind(topo: Topology, routing: str) -> str:
    """What a resolved routing routes ``topo`` on: ``records`` (routing
    records by difference class, O(n)), ``twin`` (the nDT twin tables,
    O(n)) or ``masks`` ((n, n) next-hop masks and distances: the graph's
    minimal paths, up*/down*, or the family's own rule).

    >>> import candidates as cd
    >>> table_kind(cd.from_spec("torus:4x4"), "dor"), table_kind(cd.from_spec("hyperx:4x4"), "dor")
    ('records', 'masks')
    """
    need = routing_entry(routing).needs
    if need == "twin":
        return "twin"
    if need == "records" and _records_ok(topo):
        return "records"
    return "masks"


#: how a routing finds the record / next hop of a (router, destination) pair
CLS_NONE = 0       # n x n next-hop masks (table routings)
CLS_DIFF = 1       # the record is the coordinate difference (mesh, path, hypercube)
CLS_LATTICE = 2    # the record of the difference class modulo the lattice, from a table of n records
CLS_TWIN = 3       # nDT: the next hop of (traffic class, source card, node offset, destination card)


@dataclass(frozen=True, eq=False)
class RoutingTables:
    """Arrays the kernel reads; dummies (or None) where a routing does not need them.

    The record routings and the twin tori hold nothing of size n x n: a
    pair's record (next hop) is looked up by the *difference class* of the
    pair, ``coords[dst] - coords[src]`` reduced into the coordinate box
    modulo ``cls_lat`` (:func:`candidates.generators.lattice.reduce_to_box`; dimensions
    reduced in ``cls_order``) and numbered in C order of ``cls_shape``
    (:func:`class_index`). On a lattice Z^D / L the minimal records, their
    ties and the twin-route rules depend on that class only. The table
    routings keep (n, n) next-hop masks and distances."""

    mode: int
    arc_dir: np.ndarray
    arc_wrap: np.ndarray
    out_arc: np.ndarray             # (n, D, 2) the arc leaving a router along a dimension (+, -); -1 if none
    records: np.ndarray             # (K, R, D) int16 records of each class, K alternatives (ties); R = n, or 1
    next_mask: np.ndarray
    ud_up: np.ndarray
    ud_down: np.ndarray
    arc_up: np.ndarray
    min_dist: np.ndarray | None = None  # (n, n) graph distance (minimal hops): table routings only
    # difference classes (record routings and twin tori)
    cls_kind: int = CLS_NONE
    coords: np.ndarray | None = None  # (n, Dc) coordinates the classes are taken from
    cls_lat: np.ndarray | None = None  # (Dc, Dc) the lattice (rows)
    cls_order: np.ndarray | None = None  # (Dc,) order to reduce the dimensions in
    cls_shape: np.ndarray | None = None  # (Dc,) the coordinate box
    # twin tori (tsdor / dort)
    tw_next: np.ndarray | None = None  # (C, 2, n) hop 2 * dim + (0 plus, 1 minus) by (class, source card, d'); -1 at d
    tw_code: np.ndarray | None = None  # (C, 2, n) 0 external, 1 internal (dateline of dim m), 2 after m, 3 first hop
    tw_dist: np.ndarray | None = None  # (2, n) hops by (source card, d'); d' = 2 * node offset class + dest card
    tw_first: np.ndarray | None = None  # (C, 5) first VC of each class (4: the adaptive VC, tsdor-adaptive)
    tw_step: np.ndarray | None = None  # (C, 5) stride between the VCs of a class
    tw_count: np.ndarray | None = None  # (C, 5) VCs of a class
    tw_m: int = -1                  # the middle dimension
    tw_by_source: int = 0           # 1: traffic class = source card (tsdor); 2: and adaptive classes (tsdor-adaptive)
    vcs: int = 0                    # VCs per port the kernel needs (>= SimConfig.vcs)
    rec_count: np.ndarray | None = None  # (R,) minimal records per class (tie_break="random")
    # valiant / ugal: the intermediate router is drawn from row u of (n, K) (the family's points), else any router
    mid_tab: np.ndarray | None = None
    # routing adaptive with a split table: (n, n, D) weights of the dimensions by (router, destination router)
    split: np.ndarray | None = None
    routing: str = ""               # the routing's name
    class_hops: int = 0             # distance-class routings: classes per diameter (sim.routing.registry.Routing)

    @property
    def cls_stride(self) -> np.ndarray:
        s = np.asarray(self.cls_shape, dtype=np.int64)
        return np.concatenate([np.cumprod(s[::-1])[::-1][1:], [1]]).astype(np.int64)


def class_index(tabs: RoutingTables, src, dst) -> np.ndarray:
    """The difference class of every pair ``(src[i], dst[i])``: the index
    of ``coords[dst] - coords[src]`` reduced into the box modulo the lattice
    (for twin tori: of the node offset, ``2 * index + dst card``). What the
    kernel computes per packet (``_core.load_class``).

    >>> import candidates as cd
    >>> t = cd.rtt(4)
    >>> tabs = build_tables(t, "dor")
    >>> int(class_index(tabs, [t.node_index((5, 1))], [t.node_index((1, 0))])[0]) == t.node_index((0, 3))
    True
    """
    src = np.atleast_1d(np.asarray(src, dtype=np.int64))
    dst = np.atleast_1d(np.asarray(dst, dtype=np.int64))
    assert tabs.cls_shape is not None  # a record routing's or a twin torus's tables: difference classes
    Dc = len(tabs.cls_shape)
    c = np.asarray(tabs.coords, dtype=np.int64)[:, :Dc]
    z = reduce_to_box(c[dst] - c[src], tabs.cls_shape, np.asarray(tabs.cls_lat, dtype=np.int64))
    idx = z @ tabs.cls_stride
    return 2 * idx + (dst & 1) if tabs.cls_kind == CLS_TWIN else idx


def pair_records(tabs: RoutingTables, src, dst) -> tuple[np.ndarray, np.ndarray]:
    """The records of pairs ``(src[i], dst[i])`` under a record routing's
    tables: ``(records (K, len, D), count (len,))``, alternative ``k`` valid
    where ``count > k`` (the base record first).

    >>> import candidates as cd
    >>> t = cd.ring(4)
    >>> recs, cnt = pair_records(with_ties(t, build_tables(t, "dor")), [1], [3])
    >>> cnt.tolist(), recs[:, 0, 0].tolist()   # the opposite node: -2 or +2
    ([2], [-2, 2])
    """
    src = np.atleast_1d(np.asarray(src, dtype=np.int64))
    dst = np.atleast_1d(np.asarray(dst, dtype=np.int64))
    if tabs.cls_kind == CLS_DIFF:
        d = (np.asarray(tabs.coords, dtype=np.int64)[dst] - np.asarray(tabs.coords, dtype=np.int64)[src])
        return d[None], np.ones(len(src), dtype=np.int64)
    if tabs.cls_kind != CLS_LATTICE:
        raise SimError("pair_records needs the tables of a record routing (dor, adaptive)")
    c = class_index(tabs, src, dst)
    cnt = np.ones(len(src), dtype=np.int64) if tabs.rec_count is None else tabs.rec_count[c].astype(np.int64)
    return tabs.records[:, c].astype(np.int64), cnt


def with_ties(topo: Topology, tabs: RoutingTables) -> RoutingTables:
    """The tables with every minimal record of each difference class that
    :func:`candidates.record_ties` gives (the lattice translates of the base
    record; cached)."""
    if tabs.cls_kind != CLS_LATTICE:
        return dataclasses.replace(tabs, rec_count=np.ones(1, dtype=np.int8))

    def build() -> tuple[np.ndarray, np.ndarray]:
        # the tie records depend on the topology alone (its lattice classes): kept, then put in any tables
        recs, cnt = record_ties(topo)               # by router, from router 0
        n = topo.n
        cls = class_index(tabs, np.zeros(n, dtype=np.int64), np.arange(n))
        records = np.zeros(recs.shape, dtype=np.int16)
        records[:, cls] = recs
        count = np.zeros(n, dtype=np.int8)
        count[cls] = cnt
        return records, count

    records, count = sim_cache.cached(topo, "tie records", build)
    return dataclasses.replace(tabs, records=records, rec_count=count)


def _class_lattice(topo: Topology) -> np.ndarray:
    """The lattice the records are a function of the difference modulo:
    the topology's, or for a torus with mesh dimensions the box itself (its
    per-dimension offsets then need wraparound links the records check)."""
    if topo.lattice is not None:
        return np.asarray(topo.lattice, dtype=np.int64)
    return np.diag(np.asarray(topo.shape, dtype=np.int64))


def _reduction_order(lat: np.ndarray) -> np.ndarray:
    """An order of the dimensions in which every dimension is reduced
    before those its twist shifts (what reduce_to_box does)."""
    T = lat - np.diag(np.diag(lat))
    D = len(lat)
    order: list[int] = []
    left = set(range(D))
    while left:
        # a dimension no remaining dimension's twist shifts; lowest first (reduce_to_box's order)
        k = min(k for k in left if not any(T[j, k] for j in left if j != k))
        order.append(k)
        left.remove(k)
    return np.asarray(order, dtype=np.int64)


def _twin_rules(topo: Topology, algorithm: str, u: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Next arc and internal-link class of packets at routers ``u`` for
    routers ``d`` of an nDT under ``tsdor`` or ``dort``, per traffic class:
    ``(arc (C, len), code (C, len))``, arc -1 at the destination router.

    Traffic class 0 routes d0 -> d(n-1); under ``tsdor`` class 1 (packets of
    PE1) routes d(n-1) -> d0. The rules are those of
    :func:`candidates.twin_route` (minimal direction per dimension; the
    middle dimension's tie takes the port on the current card, other ties
    the plus port; internal link when the needed port is on the other card
    and at the destination node)."""
    s = np.array(twin_shape(topo), dtype=np.int64)
    nd = len(s)
    m = (nd - 1) // 2
    N = int(np.prod(s))
    stride = np.array([int(np.prod(s[k + 1:])) for k in range(nd)], dtype=np.int64)
    C = 2 if algorithm == "tsdor" else 1
    u = np.asarray(u, dtype=np.int64)
    d = np.asarray(d, dtype=np.int64)
    P = len(u)
    rows = np.arange(P)
    nxt = np.full((C, P), -1, dtype=np.int64)
    code = np.zeros((C, P), dtype=np.int8)
    assert topo.coords is not None  # twin_torus's nDT (twin_shape checked): coordinates (node, card)
    node_c = topo.coords[::2, :nd].astype(np.int64)  # (N, nd)
    un, card = u // 2, u % 2
    x = node_c[un]
    off = (node_c[d // 2] - x) % s
    nz = off != 0
    for tc in range(C):
        asc = tc == 0
        if asc:
            k = np.where(nz.any(axis=1), nz.argmax(axis=1), -1)
        else:
            k = np.where(nz.any(axis=1), nd - 1 - nz[:, ::-1].argmax(axis=1), -1)
        out = np.full(P, -1, dtype=np.int64)
        cod = np.zeros(P, dtype=np.int8)
        internal = 2 * (nd * N + un) + card
        # at the destination node: the internal link if the card differs
        at = k < 0
        fin = at & (card != d % 2)
        out[fin] = internal[fin]
        cod[fin] = 2
        mv = ~at
        kk = np.where(mv, k, 0)
        o = off[rows, kk]
        back = s[kk] - o
        sign = np.where(o < back, 1, -1)
        tie = o == back
        sign = np.where(tie, np.where(kk == m, np.where(card == 1, 1, -1), 1), sign)
        need = np.where(kk < m, 0, np.where(kk > m, 1, np.where(sign > 0, 1, 0)))
        cross = mv & (card != need)
        out[cross] = internal[cross]
        later = (kk > m) if asc else (kk < m)
        cod[cross] = np.where(kk[cross] == m, 1, np.where(later[cross], 2, 3))
        ext = mv & ~cross
        base = np.where(sign > 0, un, un + (((x[rows, kk] - 1) % s[kk]) - x[rows, kk]) * stride[kk])
        arc = 2 * (kk * N + base) + (sign < 0)
        out[ext] = arc[ext]
        nxt[tc] = out
        code[tc] = cod
    return nxt, code


def twin_next_hops(topo: Topology, algorithm: str) -> tuple[np.ndarray, np.ndarray]:
    """The next hop and internal-link class of an nDT under ``tsdor`` or
    ``dort`` for every (traffic class, source card, d'): ``(hop (C, 2, n),
    code (C, 2, n))``, int8. The rules (:func:`_twin_rules`) depend on the
    node offset (destination node - current node, modulo the shape) and the
    two cards only, so the rows are those of node 0's two routers and
    ``d' = 2 * offset index + destination card`` is the router that offset
    reaches from node 0. ``hop = 2 * dim + (0 plus, 1 minus)`` (the internal
    link is dimension n) names the arc ``out_arc[router, dim, direction]``;
    -1 at the destination router. Walking the tables from a source with the
    source card's class reproduces ``twin_route`` hop by hop
    (:func:`twin_path`).

    >>> import candidates as cd
    >>> t = cd.from_spec("ndt:2x2x2")
    >>> hop, code = twin_next_hops(t, "tsdor")
    >>> hop.shape, int(hop[0, 0, 0]), int(hop[0, 0, 1]), int(code[0, 0, 1])   # to the other card: internal
    ((2, 2, 16), -1, 6, 2)
    """
    n = topo.n
    u = np.repeat(np.arange(2, dtype=np.int64), n)
    d = np.tile(np.arange(n, dtype=np.int64), 2)
    arc, code = _twin_rules(topo, algorithm, u, d)
    a = np.maximum(arc, 0)
    hop = np.where(arc >= 0, 2 * np.asarray(topo.arc_dim, dtype=np.int64)[a] + (a & 1), -1)
    C = arc.shape[0]
    return hop.reshape(C, 2, n).astype(np.int8), code.reshape(C, 2, n)


def _twin_arc(tabs: RoutingTables, tc: int, u: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The next arc (-1 at the destination) and its code for packets of
    traffic class ``tc`` at routers ``u`` for routers ``d`` (what the
    kernel computes)."""
    c = class_index(tabs, u, d)
    assert tabs.tw_next is not None and tabs.tw_code is not None  # a twin torus's tables
    hop = tabs.tw_next[tc, u & 1, c].astype(np.int64)
    h = np.maximum(hop, 0)
    arc = np.where(hop >= 0, tabs.out_arc[u, h >> 1, h & 1], -1)
    return arc, tabs.tw_code[tc, u & 1, c]


def _twin_used(topo: Topology, tabs: RoutingTables, by_source: bool) -> np.ndarray:
    """used[tc, c]: some packet of traffic class tc takes a hop of code c.
    The rules depend on the difference class only, so walking from node 0's
    routers to every router sees every hop any packet takes."""
    assert tabs.tw_next is not None  # a twin torus's tables
    C, n = tabs.tw_next.shape[0], topo.n
    used = np.zeros((C, 4), dtype=bool)
    arc_dst = np.asarray(topo.arc_dst, dtype=np.int64)
    for tc in range(C):
        src = np.arange(2) if not by_source else np.array([tc])
        cur = np.repeat(src, n)
        dst = np.tile(np.arange(n), len(src))
        live = cur != dst
        cur, dst = cur[live], dst[live]
        while len(cur):
            a, code = _twin_arc(tabs, tc, cur, dst)
            used[tc, np.unique(code)] = True
            cur = arc_dst[a]
            live = cur != dst
            cur, dst = cur[live], dst[live]
    return used


def _twin_vcs(used: np.ndarray, vcs: int, algorithm: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """VC lists per (traffic class, VC class) and the VCs per port needed."""
    C = used.shape[0]
    if vcs % (2 * C) or vcs < 2 * C:
        also = "; the 2 adaptive VCs come on top" if algorithm == "tsdor-adaptive" else ""
        raise SimError(f"routing {algorithm} needs a multiple of {2 * C} virtual channels "
                       f"({C} traffic class{'es' if C > 1 else ''} x 2 dateline classes{also}), got {vcs}: "
                       f"use --vcs {2 * C}")
    r = vcs // (2 * C)
    first = np.zeros((C, 4), dtype=np.int64)
    step = np.ones((C, 4), dtype=np.int64)
    count = np.zeros((C, 4), dtype=np.int64)
    extras = [e for e in (2, 3) if used[:, e].any()]
    E = len(extras)
    total = vcs
    for tc in range(C):
        b = tc * 2 * r
        for c in (0, 1):
            first[tc, c], step[tc, c], count[tc, c] = b + c, 2, r
        if used[tc, 1]:
            # classes 0/1 are busy on the internal link too: extra VCs there
            for i, e in enumerate(extras):
                first[tc, e], step[tc, e], count[tc, e] = vcs + tc * E + i, 1, 1
            total = vcs + C * E
        else:
            for i, e in enumerate(extras):
                first[tc, e], step[tc, e], count[tc, e] = b + i, E, max(1, (2 * r - i + E - 1) // E)
    return first, step, count, total


def twin_path(tabs: "RoutingTables", topo: Topology, src: int, dst: int) -> list[tuple[int, list[int]]]:
    """The channels and the allowed VCs of every hop of a packet from router
    ``src`` to router ``dst`` under a twin routing's tables (what the kernel
    does; used to check the channel dependency graph).

    >>> import candidates as cd
    >>> t = cd.from_spec("ndt:4x4x2x2x2")
    >>> tabs = build_tables(t, "tsdor", vcs=4)
    >>> # PE1 -> PE0 of the same node: the internal link, class 2 of traffic
    >>> # class 1, which may use both VCs of that class's block here
    >>> twin_path(tabs, t, 1, 0)
    [(1281, [2, 3])]
    """
    assert tabs.tw_first is not None and tabs.tw_step is not None and tabs.tw_count is not None  # twin tables
    tc = (src & 1) if tabs.tw_by_source else 0
    u, ring, crossed = src, 0, False
    out = []
    while u != dst:
        arc, code = _twin_arc(tabs, tc, np.array([u]), np.array([dst]))
        a = int(arc[0])
        c = int(code[0])
        if c == 0:
            k = int(topo.arc_dim[a])
            key = 2 * k + (0 if a % 2 == 0 else 1) + 1
            if ring != key:
                crossed = False
            cls = 1 if (crossed or tabs.arc_wrap[a]) else 0
            if tabs.arc_wrap[a]:
                crossed = True
            ring = key
        elif c == 1:
            cls = 1 if (ring > 0 and (ring - 1) // 2 == tabs.tw_m and crossed) else 0
        else:
            cls = c
        vs = [int(tabs.tw_first[tc, cls] + j * tabs.tw_step[tc, cls]) for j in range(int(tabs.tw_count[tc, cls]))]
        out.append((a, vs))
        u = int(topo.arc_dst[a])
        if len(out) > 4 * topo.n:
            raise SimError("twin routing tables loop")  # pragma: no cover
    return out


def _out_arcs(topo: Topology, D: int) -> np.ndarray:
    """(n, D, 2): the arc leaving each router along each dimension, even
    arcs (the + direction) in column 0, odd arcs in column 1; -1 if none."""
    A = topo.num_arcs
    out_arc = np.full((topo.n, D, 2), -1, dtype=np.int64)
    out_arc[topo.arc_src, topo.arc_dim, np.arange(A) % 2] = np.arange(A)
    return out_arc


def _record_tables(topo: Topology, routing: str, arc_dir: np.ndarray, arc_wrap: np.ndarray,
                   out_arc: np.ndarray) -> RoutingTables:
    """The records of a lattice family by difference class: O(n D), no n x n."""
    n, D = topo.n, topo.ndim
    coords = np.ascontiguousarray(topo.coords, dtype=np.int64)
    dummy_mask = np.zeros((1, 1), dtype=np.uint64)
    common: dict[str, Any] = dict(mode=routing_entry(routing).mode, arc_dir=arc_dir, arc_wrap=arc_wrap, out_arc=out_arc,
                                  next_mask=dummy_mask, ud_up=dummy_mask, ud_down=dummy_mask,
                                  arc_up=np.zeros(topo.num_arcs, dtype=np.int64),
                                  coords=coords, cls_shape=np.asarray(topo.shape, dtype=np.int64))
    if capabilities(topo).records in ("difference", "hypercube"):
        # the record is the coordinate difference, every hop of it a mesh link
        lat = np.diag(np.asarray(topo.shape, dtype=np.int64))
        return RoutingTables(records=np.zeros((1, 1, D), dtype=np.int16), cls_kind=CLS_DIFF, cls_lat=lat,
                             cls_order=np.arange(D, dtype=np.int64), **common)
    lat = _class_lattice(topo)
    tabs = RoutingTables(records=np.zeros((1, 1, D), dtype=np.int16), cls_kind=CLS_LATTICE, cls_lat=lat,
                         cls_order=_reduction_order(lat), **common)
    # records from router 0 are those of every difference class
    table = np.asarray(record_table(topo), dtype=np.int64)
    rec = np.zeros((1, n, D), dtype=np.int16)
    rec[0, class_index(tabs, np.zeros(n, dtype=np.int64), np.arange(n))] = table
    # every hop a record asks for must exist (at every router: each sees every class)
    for d in range(D):
        for sgn, used in ((0, (table[:, d] > 0).any()), (1, (table[:, d] < 0).any())):
            if used and (out_arc[:, d, sgn] < 0).any():
                raise SimError(f"routing records of {topo!r} use a missing link in dimension {topo.dims[d]}")
    return dataclasses.replace(tabs, records=rec)


def build_tables(topo: Topology, routing: str, root: int = 0, vcs: int = 0) -> RoutingTables:
    """Kernel tables for a resolved routing name (kept by :mod:`sim.cache`)."""
    kind = table_kind(topo, routing)
    key = f"tables {routing} {root}" + (f" {vcs}" if kind == "twin" else "")
    if kind == "twin":
        return sim_cache.cached(topo, key, lambda: _build_twin(topo, routing, vcs))
    return sim_cache.cached(topo, key, lambda: _build_tables(topo, routing, kind, root))


def _build_tables(topo: Topology, routing: str, kind: str, root: int) -> RoutingTables:
    n, A = topo.n, topo.num_arcs
    arc_dir = np.where(np.arange(A) % 2 == 0, 1, -1).astype(np.int64)
    arc_wrap = np.zeros(A, dtype=np.int64)
    dummy_rec = np.zeros((1, 1, 1), dtype=np.int16)
    dummy_mask = np.zeros((1, 1), dtype=np.uint64)
    arc_up = np.zeros(A, dtype=np.int64)
    if kind == "records":
        out_arc = _out_arcs(topo, topo.ndim)
        shape = np.asarray(topo.shape)
        k = topo.arc_dim
        assert topo.coords is not None  # the families with records have coordinates
        # the records' convention: even arcs step +1 along their dimension, odd arcs -1 (mod its size)
        step = (topo.coords[topo.arc_dst, k] - topo.coords[topo.arc_src, k]) % shape[k]
        bad = step != np.where(arc_dir > 0, 1, shape[k] - 1) % shape[k]
        if bad.any():
            a0 = int(np.flatnonzero(bad)[0])
            raise SimError(f"routing {routing!r}: arc {a0} of {topo!r} does not step {'+' if arc_dir[a0] > 0 else '-'}1 "
                           f"along dimension {topo.dims[k[a0]]} (renumbered links?); build the lattice with its "
                           "generator or use --routing table")
        xs = topo.coords[topo.arc_src, k]
        arc_wrap = np.where(arc_dir > 0, xs == shape[k] - 1, xs == 0).astype(np.int64)
        tab = _record_tables(topo, routing, arc_dir, arc_wrap, out_arc)
    else:
        if not topo.is_connected():
            raise SimError(f"{topo!r} is not connected: some packets could never be delivered")
        out_arc = np.full((n, 1, 2), -1, dtype=np.int64)
        caps = capabilities(topo)
        mode = routing_entry(routing).mode
        if routing == "dor":
            # the family's own dimension order (HyperX): acyclic, so every VC, no escape
            sp = caps.routes["dor"](topo)
            mode = routing_entry("minimal").mode
        elif "minimal" in caps.routes:
            sp = caps.routes["minimal"](topo)        # the family's minimal routing (the dragonfly's l-g-l)
        else:
            sp = shortest_path_table(topo)
        if routing in ("table", "updown"):
            ud = updown(topo, root)
            ud_up, ud_down = ud.mask_up, ud.mask_down
            arc_up = ud.arc_up.astype(np.int64)
        else:
            ud_up = ud_down = dummy_mask
        mid = None
        if routing_entry(routing).class_hops == 2 and caps.intermediates is not None:
            mid = np.ascontiguousarray(caps.intermediates(topo), dtype=np.int64)
        tab = RoutingTables(mode, arc_dir, arc_wrap, out_arc, dummy_rec,
                            np.ascontiguousarray(sp.next_mask) if routing != "updown" else dummy_mask,
                            np.ascontiguousarray(ud_up), np.ascontiguousarray(ud_down), arc_up,
                            min_dist=sp.dist, mid_tab=mid, routing=routing,
                            class_hops=routing_entry(routing).class_hops)
    return tab


def twin_adaptive_choices(tabs: "RoutingTables", topo: Topology, u: int, d: int, tc: int
                          ) -> tuple[list[int], int, list[int]]:
    """What a packet of source PE ``tc``'s adaptive traffic class at router
    ``u`` for router ``d`` may take under ``tsdor-adaptive`` (what the kernel
    offers, ``_core._twin_adaptive``): ``(adaptive arcs, escape arc, escape
    VCs)``. The escape VCs depend only on ``u`` and ``d`` (their dateline
    class on where the packet is), which lets a test build the escape VCs'
    extended dependency graph.

    >>> import candidates as cd
    >>> t = cd.from_spec("ndt:4x4x2x2x2")
    >>> tabs = build_tables(t, "tsdor-adaptive", vcs=8)
    >>> adaptive, esc, vcs = twin_adaptive_choices(tabs, t, 0, 2 * (32 + 8), 0)  # to node (1, 1, 0, 0, 0), card 0
    >>> sorted(int(topo_dim) for topo_dim in t.arc_dim[adaptive]), int(t.arc_dim[esc]), vcs
    ([0, 1], 0, [5])
    """
    if tabs.tw_by_source != 2:
        raise SimError("twin_adaptive_choices needs the tables of routing tsdor-adaptive")
    c = int(class_index(tabs, [u], [d])[0])
    arc, codes = _twin_arc(tabs, tc, np.array([u]), np.array([d]))
    a, code = int(arc[0]), int(codes[0])
    assert tabs.cls_shape is not None and tabs.coords is not None and tabs.tw_dist is not None  # twin tables
    assert tabs.tw_first is not None and tabs.tw_step is not None and tabs.tw_count is not None
    s, coords = tabs.cls_shape, tabs.coords
    stride = tabs.cls_stride
    idx = c // 2
    off = [(idx // int(stride[k])) % int(s[k]) for k in range(len(s))]
    card = u & 1
    dist = int(tabs.tw_dist[card, c])
    adaptive = [a]
    for k, r in enumerate(off):
        if r == 0:
            continue
        for sd in range(2):
            b = int(tabs.out_arc[u, k, sd])
            if b < 0 or b == a or int(topo.arc_dst[b]) & 1 != card or (sd == 0 and 2 * r > s[k]) or \
                    (sd == 1 and 2 * r < s[k]):
                continue
            r2 = r - 1 if sd == 0 else (r + 1) % int(s[k])
            if int(tabs.tw_dist[card, c + 2 * (r2 - r) * int(stride[k])]) == dist - 1:
                adaptive.append(b)

    def ahead(k: int, sgn: int) -> bool:
        x = int(coords[u, k])
        return x + off[k] >= s[k] if sgn > 0 else x < s[k] - off[k]

    if code == 0:
        cls = 0 if ahead(int(topo.arc_dim[a]), int(tabs.arc_dir[a])) else 1
    elif code == 1:
        cls = 0 if ahead(tabs.tw_m, 1 if card == 0 else -1) else 1
    else:
        cls = code
    t = tc + 2
    vcs = [int(tabs.tw_first[t, cls] + j * tabs.tw_step[t, cls]) for j in range(int(tabs.tw_count[t, cls]))]
    return adaptive, a, vcs


def _build_twin(topo: Topology, routing: str, vcs: int) -> RoutingTables:
    """An nDT's twin-route tables by difference class (node offset and
    cards): O(n), no n x n."""
    adaptive = routing == "tsdor-adaptive"
    hop, code = twin_next_hops(topo, "tsdor" if adaptive else routing)  # validates the nDT layout
    A = topo.num_arcs
    s = np.array(topo.params["shape"], dtype=np.int64)
    nd = len(s)
    N = int(np.prod(s))
    arc_dir = np.where(np.arange(A) % 2 == 0, 1, -1).astype(np.int64)
    link = np.arange(A) // 2
    k = link // N
    base = link % N
    ext = k < nd
    xk = np.zeros(A, dtype=np.int64)
    assert topo.coords is not None  # twin_torus's nDT (twin_next_hops checked): coordinates (node, card)
    node_c = topo.coords[::2, :nd].astype(np.int64)
    xk[ext] = node_c[base[ext], k[ext]]
    arc_wrap = (ext & (xk == s[np.minimum(k, nd - 1)] - 1)).astype(np.int64)
    # the graph distances from node 0's two cards: every (source card, d') class
    dist = np.stack([hop_distances(topo.indptr, topo.indices, c) for c in (0, 1)])
    if (dist < 0).any():
        raise SimError(f"{topo!r} is not connected: some packets could never be delivered")  # pragma: no cover
    dummy_mask = np.zeros((1, 1), dtype=np.uint64)
    tabs = RoutingTables(routing_entry(routing).mode, arc_dir, arc_wrap, _out_arcs(topo, nd + 1), np.zeros((1, 1, 1), np.int16),
                         dummy_mask, dummy_mask, dummy_mask, np.zeros(A, dtype=np.int64),
                         cls_kind=CLS_TWIN, coords=np.ascontiguousarray(topo.coords[:, :nd], dtype=np.int64),
                         cls_lat=np.diag(s), cls_order=np.arange(nd, dtype=np.int64), cls_shape=s,
                         tw_next=hop, tw_code=code, tw_dist=dist.astype(np.int32), tw_m=(nd - 1) // 2,
                         tw_by_source=2 if adaptive else 1 if routing == "tsdor" else 0)
    used = _twin_used(topo, tabs, routing == "tsdor" or adaptive)
    if adaptive:
        # rows 2, 3: the adaptive classes' escape VCs, which a packet may enter on either card (an
        # adaptive hop on the internal link): every internal-link class TS-DOR uses from either card
        used = np.concatenate([used, _twin_used(topo, tabs, False)])
    first, step, count, total = _twin_vcs(used, vcs, routing)
    C = first.shape[0]
    first, step, count = (np.concatenate([x, np.zeros((C, 1), np.int64)], axis=1) for x in (first, step, count))
    step[:, 4] = 1
    if adaptive:
        first[2:, 4] = total + np.arange(2)        # one adaptive VC per adaptive class, on top
        count[2:, 4] = 1
        total += 2
    return dataclasses.replace(tabs, tw_first=first, tw_step=step, tw_count=count, vcs=total)
