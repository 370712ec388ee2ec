"""Analytic properties of a topology: distances, uniform-traffic load, bisection.

Conventions (they matter when comparing with the papers' closed forms):

- ``average_distance`` is the mean hop count over ordered pairs of *distinct*
  routers; ``average_distance_with_self`` is the mean over all ``N^2``
  ordered pairs, self-pairs counting 0. The papers' RTT formula
  ``(4a^2 - 1) / (6a)`` is the latter.
- Uniform traffic: every processing element sends at the same rate,
  destinations uniform over all *other* processing elements (so, with one
  PE per router, over the ``N - 1`` other routers). Loads are in phits per
  cycle with one phit per cycle per link direction.
- Per-dimension hops use the family's minimal routing records where it has
  them (:mod:`candidates.analytics.records`) and otherwise the expectation when a
  packet picks uniformly among all shortest paths (ECMP).
- Routers without processing elements (a fat tree's aggregation and core
  switches): :func:`pe_distances` measures distances between PEs (what a
  message travels), :func:`bisection` balances PEs rather than routers, and
  the uniform-traffic load weights every router by its PEs.
- Vertex-transitive families (the tori, twisted tori and hypercubes) compute
  everything from router 0, so a 65,536-router PDTT takes a fraction of a
  second; other graphs run one BFS per router.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from common.size import SizeError, check_memory, format_bytes, format_count, format_seconds, memory_limit

from ..capabilities import capabilities, published_figures
from ..errors import TopologyError
from ..topology import Topology
from ._kernels import bisection_exact, distance_histogram, ecmp_all
from .compile_notice import announce as announce_compile
from .equivalent import equivalent_distance, equivalent_distance_rows
from .hops import hop_distances
from .moore import moore_bound
from .records import has_records, record_table, record_ties

__all__ = [
    "DistanceStats",
    "UniformLoad",
    "ChannelLoads",
    "Bisection",
    "distance_stats",
    "PEDistances",
    "pe_distances",
    "per_dimension_hops",
    "uniform_load",
    "channel_loads",
    "CHANNEL_ROUTINGS",
    "bisection",
    "describe",
    "DescribeCost",
    "describe_cost",
    "check_describe",
]

#: largest router count of the Kernighan-Lin bisection heuristic
KL_LIMIT = 4096


@dataclass(frozen=True)
class DistanceStats:
    """Hop-distance distribution over ordered router pairs.

    ``distribution[d]`` counts ordered pairs (self-pairs included at ``d=0``)
    at distance ``d``; ``unreachable`` counts pairs with no path.

    >>> import candidates as cd
    >>> s = distance_stats(cd.ring(8))
    >>> s.distribution, s.diameter, round(s.average_distance, 4), s.unreachable, s.connected
    ([8, 16, 16, 16, 8], 4, 2.2857, 0, True)
    >>> distance_stats(cd.Topology(4, [[0, 1], [2, 3]]))      # two separate links
    DistanceStats(distribution=[4, 4], diameter=None, average_distance=None, average_distance_with_self=None,
                  unreachable=8, connected=False)
    """

    distribution: list[int]
    diameter: int | None
    average_distance: float | None
    average_distance_with_self: float | None
    unreachable: int
    connected: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def distance_stats(topo: Topology) -> DistanceStats:
    """Distance distribution, diameter and average distance.

    >>> from candidates import rtt
    >>> s = distance_stats(rtt(4))
    >>> s.diameter, s.distribution[:5]
    (4, [32, 128, 256, 384, 224])
    >>> round(s.average_distance_with_self, 6) == round((4 * 16 - 1) / 24, 6)
    True
    """
    n = topo.n
    if topo.vertex_transitive:
        hist = distance_histogram(topo.indptr, topo.indices, np.zeros(1, dtype=np.int64)) * n
    else:
        hist = distance_histogram(topo.indptr, topo.indices, np.arange(n, dtype=np.int64))
    unreachable = int(hist[n])
    hist = hist[:n]
    nz = np.flatnonzero(hist)
    dmax = int(nz[-1]) if len(nz) else 0
    dist = hist[: dmax + 1].astype(np.int64)
    total = float((np.arange(dmax + 1) * dist).sum())
    connected = unreachable == 0
    pairs = n * n
    return DistanceStats(
        distribution=[int(x) for x in dist],
        diameter=dmax if connected else None,
        average_distance=(total / (pairs - n) if n > 1 else 0.0) if connected else None,
        average_distance_with_self=total / pairs if connected else None,
        unreachable=unreachable,
        connected=connected,
    )


@dataclass(frozen=True)
class PEDistances:
    """Hop distances between processing elements (PEs), the routers' hop
    distance between the routers that hold them.

    ``distribution[d]`` counts ordered pairs of distinct PEs ``d`` router
    hops apart (two PEs of one router at 0); ``diameter`` and
    ``average_distance`` are over those pairs (None if two PEs cannot reach
    each other, or fewer than two PEs). With one PE on every router they
    are :func:`distance_stats`'s ``diameter`` and ``average_distance``.

    A ring of 4 routers with 2 PEs each: each PE has 1 PE on its router,
    4 one hop away and 2 two hops away.

    >>> import candidates as cd
    >>> d = pe_distances(cd.from_spec("ring:4:c=2"))
    >>> d.pes, d.distribution, d.diameter, round(d.average_distance, 4)   # (4 + 4) / 7
    (8, [8, 32, 16], 2, 1.1429)
    """

    pes: int
    distribution: list[int]
    diameter: int | None
    average_distance: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pe_distances(topo: Topology, stats: DistanceStats | None = None) -> PEDistances:
    """Distances between processing elements; routers without PEs are only
    passed through (``stats``: the router :func:`distance_stats`, reused
    when every router has the same number of PEs).

    >>> import candidates as cd
    >>> d = pe_distances(cd.fattree(4))   # 1 PE on the same edge switch, 2 in the pod, 12 in other pods
    >>> d.distribution, d.diameter, round(d.average_distance * 15, 6)
    ([16, 0, 32, 0, 192], 4, 52.0)
    """
    w = topo.terminals.astype(np.int64)
    W = int(w.sum())
    if W < 2:
        return PEDistances(W, [], None, None)
    if np.all(w == w[0]):
        st = stats if stats is not None else distance_stats(topo)
        c = int(w[0])
        # every router pair carries c * c PE pairs; a router's own c (c - 1) pairs sit at 0
        hist = np.asarray(st.distribution, dtype=np.int64) * c * c
        hist[0] -= W
        ok = st.connected
    else:
        hist = np.zeros(topo.n + 1, dtype=np.int64)
        ok = True
        for s in np.flatnonzero(w).tolist():
            d = hop_distances(topo.indptr, topo.indices, s)
            reach = (d >= 0) & (w > 0)
            if np.any((d < 0) & (w > 0)):
                ok = False
            hist += np.bincount(d[reach], weights=w[reach] * w[s], minlength=topo.n + 1).astype(np.int64)
        hist[0] -= W  # a PE and itself
    nz = np.flatnonzero(hist)
    dmax = int(nz[-1]) if len(nz) else 0
    hist = hist[: dmax + 1]
    if not ok:
        return PEDistances(W, [int(x) for x in hist], None, None)
    total = float((np.arange(dmax + 1) * hist).sum())
    return PEDistances(W, [int(x) for x in hist], dmax, total / (W * (W - 1)))


def _require_connected(topo: Topology, what: str) -> None:
    if not topo.is_connected():
        raise TopologyError(f"{what} needs a connected topology; {topo.spec or topo.family} is disconnected")


def _ecmp(topo: Topology, weights: np.ndarray, sources: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Weighted ECMP loads: per-class hop totals, per-arc load (by channel
    number) and the total weight of the pairs, for traffic
    ``weights[s] * weights[t]`` between distinct routers."""
    nclass = len(topo.dims)
    arc_class = topo.arc_dim[topo.arc_id]
    class_tot, arc_tot, pair_w = ecmp_all(
        topo.indptr, topo.indices, arc_class, nclass, weights.astype(np.float64), sources
    )
    arc_load = np.zeros(topo.num_arcs)
    arc_load[topo.arc_id] = arc_tot
    return class_tot, arc_load, pair_w


def _weights(topo: Topology) -> np.ndarray:
    return topo.terminals.astype(np.float64)


def per_dimension_hops(topo: Topology) -> tuple[dict[str, float], str]:
    """Average hops per link class over ordered pairs of distinct routers.

    Returns ``({class name: hops}, method)`` with method ``"records"`` or
    ``"ecmp"``; the values add up to ``average_distance``.

    >>> from candidates import rt
    >>> hops, method = per_dimension_hops(rt(4))
    >>> method, round(hops["x"] * 31 / 32, 3), round(hops["y"] * 31 / 32, 3)
    ('records', 2.0, 1.0)
    """
    _require_connected(topo, "per-dimension hops")
    n = topo.n
    names = topo.dims
    if n == 1:
        return {k: 0.0 for k in names}, "records"
    if has_records(topo) and topo.vertex_transitive:
        tab = np.abs(record_table(topo)).astype(np.float64)
        per = tab.sum(axis=0) / (n - 1)
        out = {names[k]: float(per[k]) for k in range(len(names))}
        return out, "records"
    unit = np.ones(n)
    # in an abelian Cayley graph every source sees the same class totals
    sources = np.zeros(1, dtype=np.int64) if topo.lattice is not None else np.arange(n, dtype=np.int64)
    class_tot, _, pair_w = _ecmp(topo, unit, sources)
    return {names[k]: float(class_tot[k] / pair_w) for k in range(len(names))}, "ecmp"


@dataclass(frozen=True)
class UniformLoad:
    """Uniform-traffic load per link class and the injection-rate bound.

    ``class_hops[j]`` is tau_j, the average hops a packet makes on class j
    when it is split evenly over all shortest paths;
    ``class_bound[j] = 2|E_j| (N_pe - 1) / (sum over router pairs of
    w_s w_t tau_j(s, t))`` the injection rate per processing element
    (phits/cycle) at which class j saturates when its links share its load
    evenly (w: processing elements per router). ``injection_bound`` is the
    smallest over classes ('twisted-tori-tpds2010': 2|E_j| / (N tau_j));
    ``link_utilisation`` (LU) the average link utilisation at that rate.
    ``routing_bound`` is the rate at which the busiest single channel
    saturates under the routing named by ``routing``: ``"records"``, the
    family's deterministic minimal routing records (their tie rules load
    one direction or dimension more), or ``"ecmp"``, the even split over
    all shortest paths.

    A 4 x 4 torus: 16 links per dimension, 16/15 hops per packet in each;
    its routing records send the 2-hop ties all one way, so a channel
    saturates below the even split's bound:

    >>> import candidates as cd
    >>> u = uniform_load(cd.torus((4, 4)))
    >>> u.class_names, u.class_links, [round(h, 4) for h in u.class_hops]
    (['x', 'y'], [16, 16], [1.0667, 1.0667])
    >>> round(u.injection_bound, 4), u.bottleneck, round(u.link_utilisation, 4)
    (1.875, 'x', 1.0)
    >>> u.routing, round(u.routing_bound, 4)
    ('records', 1.25)
    """

    class_names: list[str]
    class_links: list[int]
    class_hops: list[float]
    class_bound: list[float]
    injection_bound: float
    bottleneck: str
    link_utilisation: float
    routing_bound: float
    routing: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def uniform_load(topo: Topology) -> UniformLoad:
    """Link load under uniform traffic and the injection-rate bound.

    The bound is 2|E_j| / (N tau_j) for the most loaded link class j
    ('twisted-tori-tpds2010'); for RT(a) and RTT(a) it tends to 4/a and 6/a.

    >>> from candidates import rt, rtt
    >>> round(uniform_load(rt(8)).injection_bound * 8, 2), round(uniform_load(rtt(8)).injection_bound * 8, 2)
    (3.97, 5.98)
    """
    _require_connected(topo, "the uniform-traffic load")
    n = topo.n
    names = list(topo.dims)
    nclass = len(names)
    E = np.bincount(topo.link_dim, minlength=nclass).astype(np.int64)
    w = _weights(topo)
    n_pe = float(w.sum())
    if n == 1 or n_pe <= 1:
        raise TopologyError("uniform traffic needs at least two processing elements on two routers")
    uniform_w = bool(np.all(w == w[0]))
    pair_w = n_pe * n_pe - float((w * w).sum())  # sum of w_s * w_t over distinct routers
    # Load of an arc = r / (n_pe - 1) * sum over router pairs (s, t) of
    # w_s * w_t * (share of s->t traffic on the arc). tau_j comes from the
    # even split over all shortest paths (the papers' bound assumes the load
    # spread over minimal paths; a record's tie rule would skew it).
    cayley = topo.lattice is not None and uniform_w
    if cayley:
        # abelian Cayley graph: every source sees the same class totals
        c2 = float(w[0] * w[0])
        one_source, _, _ = _ecmp(topo, np.ones(n), np.zeros(1, dtype=np.int64))
        class_tot = one_source * float(n) * c2
        busiest = _channel_loads(topo, "records") if has_records(topo) else \
            _channel_loads(topo, "ecmp", ecmp=(one_source, None))
    else:
        class_tot, arc_load, _ = _ecmp(topo, w, np.arange(n, dtype=np.int64))
        busiest = _channel_loads(topo, "ecmp", ecmp=(None, arc_load))
    tau = class_tot / pair_w
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(class_tot > 0, 2 * E * (n_pe - 1) / np.maximum(class_tot, 1e-300), np.inf)
    j = int(np.argmin(bound))
    inj = float(bound[j])
    lu = inj / (n_pe - 1) * float(class_tot.sum()) / (2 * E.sum())
    return UniformLoad(
        class_names=names,
        class_links=[int(x) for x in E],
        class_hops=[float(x) for x in tau],
        class_bound=[float(x) for x in bound],
        injection_bound=inj,
        bottleneck=names[j],
        link_utilisation=float(lu),
        routing_bound=busiest.bound,
        routing=busiest.routing,
    )


#: the routings :func:`channel_loads` models
CHANNEL_ROUTINGS = ("records", "ties", "ecmp")


@dataclass(frozen=True)
class ChannelLoads:
    """Channel loads under uniform traffic at an injection rate of one phit
    per cycle per processing element, for one routing.

    ``plus[j]`` / ``minus[j]``: the load of the busiest channel of link
    class j in its + / - direction (even / odd channel numbers);
    ``bound``: the injection rate (phits/cycle/PE) at which the busiest
    channel saturates, ``1 / max load``; ``bottleneck``: that channel's
    class and direction (``"x+"``). ``routing``: ``"records"`` (the
    family's minimal routing records with their fixed tie rule: dimension
    order, what the simulator's ``dor`` and ``adaptive`` routings inject),
    ``"ties"`` (a record drawn uniformly among every minimal record of the
    pair: the simulator's ``tie_break="random"``) or ``"ecmp"`` (an even
    split over all shortest paths).

    On a 4 x 4 torus the records send every 2-hop tie the - way:

    >>> import candidates as cd
    >>> c = channel_loads(cd.torus((4, 4)), "records")
    >>> [round(x, 4) for x in c.plus], [round(x, 4) for x in c.minus], c.bottleneck, round(c.bound, 4)
    ([0.2667, 0.2667], [0.8, 0.8], 'x-', 1.25)
    >>> c = channel_loads(cd.torus((4, 4)), "ecmp")
    >>> [round(x, 4) for x in c.plus], [round(x, 4) for x in c.minus], round(c.bound, 4)
    ([0.5333, 0.5333], [0.5333, 0.5333], 1.875)
    """

    routing: str
    class_names: list[str]
    plus: list[float]
    minus: list[float]
    bound: float
    bottleneck: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _record_loads(topo: Topology, recs: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hops router 0 sends on the + and - channels of each class, a pair's
    records weighted evenly (``recs`` (K, n, D), ``count`` (n,))."""
    D = recs.shape[2]
    pos, neg = np.zeros(D), np.zeros(D)
    for k in range(recs.shape[0]):
        rows = np.flatnonzero(count > k) if k else slice(None)   # alternatives are rare: only their rows
        r = recs[k, rows]
        share = (1.0 / count[rows])[:, None]
        pos += (np.clip(r, 0, None) * share).sum(axis=0)
        neg += (np.clip(-r, 0, None) * share).sum(axis=0)
    return pos, neg


def _channel_loads(topo: Topology, routing: str, ecmp=None) -> ChannelLoads:
    names = list(topo.dims)
    nclass = len(names)
    n = topo.n
    E = np.bincount(topo.link_dim, minlength=nclass).astype(np.float64)
    w = _weights(topo)
    n_pe = float(w.sum())
    cayley = topo.lattice is not None and bool(np.all(w == w[0]))
    if routing in ("records", "ties"):
        if not (has_records(topo) and cayley):
            raise TopologyError(f"channel loads under {routing} need a vertex-transitive lattice family with "
                                f"routing records (torus, rt, rtt, pt, ptt, pdtt, twisted, hypercube); "
                                f"{topo.spec or topo.family} has none: use routing='ecmp'")
        if routing == "records":
            base = record_table(topo).astype(np.int64)
            pos, neg = _record_loads(topo, base[None], np.ones(n, dtype=np.int64))
        else:
            pos, neg = _record_loads(topo, *record_ties(topo))
        # translation invariance: every source sends the same records, so a
        # class's + (or -) channels share n times router 0's + (or -) hops evenly
        c2 = float(w[0] * w[0])
        plus = pos * n * c2 / np.maximum(E, 1) / (n_pe - 1)
        minus = neg * n * c2 / np.maximum(E, 1) / (n_pe - 1)
        # a class with one link per router pair of a 2-cycle (the hypercube's):
        # + and - are the same step, each router has one channel in it, and
        # the translations carry every channel of the class onto every other
        single = 2 * E == n
        plus[single] = minus[single] = (pos + neg)[single] * n * c2 / n / (n_pe - 1)
    elif routing == "ecmp":
        if cayley:
            class_tot = ecmp[0] if ecmp is not None else _ecmp(topo, np.ones(n), np.zeros(1, dtype=np.int64))[0]
            # v -> -v is an automorphism: both directions of a class load evenly
            plus = minus = class_tot * n * float(w[0] * w[0]) / np.maximum(2 * E, 1) / (n_pe - 1)
        else:
            arc_load = ecmp[1] if ecmp is not None else _ecmp(topo, w, np.arange(n, dtype=np.int64))[1]
            even = np.arange(topo.num_arcs) % 2 == 0
            plus, minus = np.zeros(nclass), np.zeros(nclass)
            np.maximum.at(plus, topo.arc_dim[even], arc_load[even])
            np.maximum.at(minus, topo.arc_dim[~even], arc_load[~even])
            plus, minus = plus / (n_pe - 1), minus / (n_pe - 1)
    else:
        raise TopologyError(f"unknown routing {routing!r} for channel loads; use one of {', '.join(CHANNEL_ROUTINGS)}")
    both = np.concatenate([plus, minus])
    j = int(np.argmax(both))
    top = float(both[j])
    return ChannelLoads(routing, names, [float(x) for x in plus], [float(x) for x in minus],
                        1.0 / top if top > 0 else math.inf, names[j % nclass] + ("+" if j < nclass else "-"))


def _channel_routings(topo: Topology) -> list[str]:
    """The routings :func:`channel_loads` serves for ``topo`` cheaply: all three on
    vertex-transitive lattice families with records, ECMP elsewhere."""
    w = _weights(topo)
    if has_records(topo) and topo.lattice is not None and bool(np.all(w == w[0])):
        return ["records", "ties", "ecmp"]
    return ["ecmp"]


def channel_loads(topo: Topology, routing: str = "records") -> ChannelLoads:
    """Per-class channel loads under uniform traffic and the injection rate
    at which the busiest channel saturates, under ``routing`` (one of
    :data:`CHANNEL_ROUTINGS`; see :class:`ChannelLoads`).

    ``records`` and ``ties`` need a vertex-transitive lattice family and are
    computed from router 0's records (a million-router torus in seconds);
    ``ecmp`` serves any connected graph (one BFS per router unless the
    graph is a lattice).

    >>> import candidates as cd
    >>> r = channel_loads(cd.ring(4), "records")   # 1 hop +, 1 hop -, the 2-hop tie -: per 3 destinations
    >>> r.plus, r.minus, r.bottleneck, r.bound
    ([0.3333333333333333], [1.0], 'x-', 1.0)
    >>> channel_loads(cd.ring(4), "ties").minus    # the tie drawn at random: 2 hops each way in all
    [0.6666666666666666]
    """
    _require_connected(topo, "channel loads")
    if topo.n == 1 or float(_weights(topo).sum()) <= 1:
        raise TopologyError("uniform traffic needs at least two processing elements on two routers")
    return _channel_loads(topo, routing)


@dataclass(frozen=True)
class Bisection:
    """A balanced cut: the number of links crossing it and one side.

    ``exact`` says whether ``width`` is the proven minimum (brute force over
    all balanced partitions) or the best of the heuristic cuts tried (an upper
    bound on the bisection width). ``halves`` says what the two sides hold
    equally: ``"routers"``, or ``"PEs"`` when routers differ in PEs.

    >>> import candidates as cd
    >>> b = bisection(cd.torus((4, 4)))       # x = 0, 1 against x = 2, 3: 4 links at 1|2, 4 at 3|0
    >>> b.width, b.exact, b.method, b.halves, b.side
    (8, True, 'exhaustive', 'routers', [0, 1, 2, 3, 4, 5, 6, 7])
    """

    width: int
    exact: bool
    method: str
    side: list[int] = field(repr=False)
    halves: str = "routers"

    def to_dict(self) -> dict[str, Any]:
        return {"width": self.width, "exact": self.exact, "method": self.method, "halves": self.halves}


#: most PE-router partitions :func:`bisection` tries one by one (each a max-flow) for an exact answer
PE_PARTITION_LIMIT = 20000
#: and at most this many (splits x (routers + links)) of max-flow work
_PE_SPLIT_WORK = 5e6


def bisection(topo: Topology, *, exact_limit: int = 24, seed: int = 0, kernighan_lin: bool = True) -> Bisection:
    """Bisection width: the fewest links between two halves of the routers
    -- halves of the processing elements when routers differ in PEs.

    Exact (brute force over balanced partitions) up to ``exact_limit``
    routers. Above it, a documented heuristic giving an upper bound: the best
    of the straight cuts through the middle of each even-sized lattice
    dimension and, for graphs up to 4096 routers, networkx's Kernighan–Lin
    bisection from several seeded starts (``kernighan_lin=False`` leaves it
    out: its networkx graph takes about 600 bytes per link).

    When the routers carry different numbers of PEs (a fat tree's spines
    none), the halves are of the PEs: the routers with PEs are split as
    evenly by PEs as they can be, and each router without PEs joins the
    side that cuts fewer links (a minimum s-t cut). Exact by trying every
    such split (up to :data:`PE_PARTITION_LIMIT` of them, fewer on large
    graphs or with a small ``exact_limit``), a heuristic above.

    >>> import candidates as cd
    >>> bisection(cd.ring(8)).width, bisection(cd.fattree(4)).width   # full bisection: 16 hosts / 2
    (2, 8)
    """
    n = topo.n
    if n < 2:
        raise TopologyError("bisection needs at least two routers")
    w = topo.terminals
    if not np.all(w == w[0]):
        return _pe_bisection(topo, exact_limit, seed, kernighan_lin)
    u = topo.links[:, 0].copy()
    v = topo.links[:, 1].copy()
    if n <= exact_limit:
        best, mask = bisection_exact(n, u, v)
        return Bisection(int(best), True, "exhaustive", np.flatnonzero(mask).tolist())
    cands: list[tuple[int, str, np.ndarray]] = []
    if topo.coords is not None and topo.shape is not None:
        for k, s in enumerate(topo.shape[: topo.coords.shape[1]]):
            if s % 2 == 0 and np.prod(topo.shape[: topo.coords.shape[1]]) == n:
                side = topo.coords[:, k] < s // 2
                cut = int(np.count_nonzero(side[u] != side[v]))
                cands.append((cut, f"straight cut across {topo.dims[k] if k < len(topo.dims) else k}", side))
    if n <= KL_LIMIT and kernighan_lin:
        import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

        # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)
        from networkx.algorithms.community import kernighan_lin_bisection

        G = nx.Graph()
        G.add_nodes_from(range(n))
        for a_, b_ in zip(u.tolist(), v.tolist()):
            if G.has_edge(a_, b_):
                G[a_][b_]["weight"] += 1
            else:
                G.add_edge(a_, b_, weight=1)
        rng = np.random.default_rng(seed)
        for _ in range(4):
            part, _ = kernighan_lin_bisection(G, weight="weight", seed=int(rng.integers(2**31)))
            side = np.zeros(n, dtype=bool)
            side[list(part)] = True
            cut = int(np.count_nonzero(side[u] != side[v]))
            cands.append((cut, "Kernighan-Lin", side))
    if not cands:
        raise TopologyError(
            f"no bisection heuristic applies to {topo.spec or topo.family} ({n} routers): "
            f"exact search is limited to exact_limit routers and Kernighan-Lin to {KL_LIMIT}"
            + ("" if kernighan_lin else " (and was left out)")
        )
    cut, method, side = min(cands, key=lambda c: c[0])
    return Bisection(cut, False, f"heuristic ({method})", np.flatnonzero(side).tolist())


def _pe_splits(w: np.ndarray, limit: int) -> list[np.ndarray] | None:
    """The most even splits of the PE routers by PEs (index arrays of one
    side, each split once), or None when there are more than ``limit``."""
    P = np.flatnonzero(w > 0)
    p = len(P)
    wp = w[P]
    if np.all(wp == wp[0]):
        h = p // 2
        # an even count: fix the first router's side (each split once); odd: every h-subset
        pool, need, first = (P[1:], h - 1, [P[0]]) if p % 2 == 0 else (P, h, [])
        if math.comb(len(pool), need) > limit:
            return None
        return [np.array(first + list(c), dtype=np.int64) for c in itertools.combinations(pool.tolist(), need)]
    if p > 20 or 2 ** (p - 1) > limit * 64:
        return None
    W = int(wp.sum())
    masks = np.arange(2 ** (p - 1), dtype=np.int64)  # subsets holding the last PE router fixed out
    bits = (masks[:, None] >> np.arange(p - 1)) & 1
    imb = np.abs(W - 2 * (bits * wp[: p - 1]).sum(axis=1))
    best = bits[imb == imb.min()]
    if len(best) > limit:
        return None
    return [P[: p - 1][row.astype(bool)] for row in best]


def _free_cut(topo: Topology, side_a: np.ndarray, side_b: np.ndarray) -> int:
    """Links cut when ``side_a`` and ``side_b`` are fixed and every other
    router takes the side that cuts fewest: direct links plus a max-flow."""
    # imported here: scipy.sparse.csgraph costs ~40 ms of start-up (measured for flows.problem),
    # and only topologies whose routers differ in PEs come this way
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    n = topo.n
    node = np.full(n, -1, dtype=np.int64)
    free = np.ones(n, dtype=bool)
    free[side_a] = free[side_b] = False
    F = np.flatnonzero(free)
    node[F] = np.arange(len(F)) + 2          # 0: side a (source), 1: side b (sink)
    node[side_a], node[side_b] = 0, 1
    u, v = node[topo.links[:, 0]], node[topo.links[:, 1]]
    direct = int(np.count_nonzero(((u == 0) & (v == 1)) | ((u == 1) & (v == 0))))
    keep = (u != v) & ~(((u == 0) & (v == 1)) | ((u == 1) & (v == 0)))
    if not keep.any():
        return direct
    u, v = u[keep], v[keep]
    size = len(F) + 2
    cap = csr_matrix((np.ones(2 * len(u), dtype=np.int32), (np.concatenate([u, v]), np.concatenate([v, u]))),
                     shape=(size, size))
    cap.sum_duplicates()
    return direct + int(maximum_flow(cap, 0, 1).flow_value)


def _free_side(topo: Topology, side_a: np.ndarray, side_b: np.ndarray) -> np.ndarray:
    """Side ``a`` of the cut of :func:`_free_cut` (routers reached from ``a``
    in the residual graph), by networkx (once, for the best split)."""
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    G = nx.DiGraph()
    A = set(side_a.tolist())
    B = set(side_b.tolist())
    def name(x):
        return "a" if x in A else "b" if x in B else x
    G.add_nodes_from(["a", "b"])
    for x, y in topo.links.tolist():
        p, q = name(x), name(y)
        if p == q:
            continue
        for s_, t_ in ((p, q), (q, p)):
            G.add_edge(s_, t_, capacity=G.get_edge_data(s_, t_, {"capacity": 0})["capacity"] + 1)
    _, (reach, _) = nx.minimum_cut(G, "a", "b")
    side = np.zeros(topo.n, dtype=bool)
    side[side_a] = True
    side[[x for x in reach if x != "a"]] = True
    return side


def _pe_bisection(topo: Topology, exact_limit: int, seed: int, kernighan_lin: bool) -> Bisection:
    w = topo.terminals
    P = np.flatnonzero(w > 0)
    if len(P) < 2:
        raise TopologyError("a bisection of the processing elements needs PEs on at least two routers")
    budget = math.comb(exact_limit - 1, exact_limit // 2 - 1) if exact_limit >= 2 else 0
    # each split is a max-flow over the whole graph: bound the work too (ktree:k=4:n=3, 6435 splits: 2 s)
    work = int(_PE_SPLIT_WORK // (topo.n + topo.num_links))
    splits = _pe_splits(w, min(PE_PARTITION_LIMIT, budget, work))
    if splits is not None:
        best: tuple[int, np.ndarray] | None = None
        for a in splits:
            b = np.setdiff1d(P, a)
            cut = _free_cut(topo, a, b)
            if best is None or cut < best[0]:
                best = (cut, a)
        assert best is not None  # PEs on two routers at least: there is a split
        side = _free_side(topo, best[1], np.setdiff1d(P, best[1]))
        return Bisection(best[0], True, "exhaustive over PE splits", np.flatnonzero(side).tolist(), "PEs")
    # heuristic: candidate splits of the PE routers, each completed optimally for the routers without PEs
    cands: list[tuple[str, np.ndarray]] = []
    order = np.cumsum(w[P])
    cands.append(("PE routers in index order", P[order <= order[-1] // 2]))
    if topo.n <= KL_LIMIT and kernighan_lin:
        r = bisection(topo.replace(terminals=np.ones(topo.n, dtype=np.int64)), exact_limit=0, seed=seed)
        on = np.zeros(topo.n, dtype=bool)
        on[r.side] = True
        a = P[on[P]]
        # rebalance by PEs: move routers from the heavier side until it is at most half
        a_list, half = a.tolist(), int(w[P].sum()) // 2
        b_list = [x for x in P.tolist() if x not in set(a_list)]
        if int(w[a_list].sum()) < half:
            a_list, b_list = b_list, a_list
        while int(w[a_list].sum()) > half and len(a_list) > 1:
            b_list.append(a_list.pop())
        cands.append(("Kernighan-Lin, rebalanced by PEs", np.array(a_list, dtype=np.int64)))
    chosen: tuple[int, str, np.ndarray] | None = None
    for method, a in cands:
        cut = _free_cut(topo, a, np.setdiff1d(P, a))
        if chosen is None or cut < chosen[0]:
            chosen = (cut, method, a)
    assert chosen is not None  # the index-order split is always a candidate
    cut, method, a = chosen
    side = _free_side(topo, a, np.setdiff1d(P, a))
    return Bisection(cut, False, f"heuristic ({method})", np.flatnonzero(side).tolist(), "PEs")


# Cost model of describe, fitted to peak-RSS measurements (tests/candidates/
# test_size.py checks it within 0.5x-2x): bytes per link of the directed
# channels and CSR arrays, of the ECMP pass, of networkx's graph inside
# Kernighan-Lin; seconds per (source x (routers + channels)) of BFS/ECMP
# work (measured 10-11 ns on mesh:100x100 and complete:1000/2000) and per
# (partition x link) of the exhaustive bisection (measured 1.8-2.2 ns, n = 20-26).
_CSR_PER_LINK = 112.0
_ECMP_PER_LINK = 80.0
_KL_PER_LINK = 600.0
_KL_PER_ROUTER = 1000.0
_SEC_PER_UNIT = 1.1e-8
_SEC_PER_CUT_LINK = 2.0e-9
#: exhaustive bisections estimated to take longer are refused
MAX_EXACT_BISECTION_SECONDS = 3600.0


@dataclass(frozen=True)
class DescribeCost:
    """What :func:`describe` will allocate and how long it will run, estimated
    from the topology's size before any analysis.

    ``parts`` maps each analysis to its bytes; ``nbytes`` is the peak (the
    retained topology plus the largest analysis); ``seconds`` the estimated
    time; ``sources`` the BFS/ECMP sources (1 for vertex-transitive lattices,
    every router otherwise); ``kl`` whether the Kernighan-Lin bisection runs;
    ``slowest`` names the part that dominates the time.
    """

    nbytes: float
    seconds: float
    parts: dict[str, float]
    sources: int
    kl: bool
    exact_bisection_partitions: int
    slowest: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _equivalent_bytes(topo: Topology, equivalent: str) -> float:
    n2 = float(topo.n) ** 2
    if equivalent == "minimal" and topo.vertex_transitive:
        return 12.0 * n2  # int32 distances + the dense float64 elimination matrix
    # distances (int32, twice for up*/down*), elimination matrix, the table and its off-diagonal copy
    return (29.0 if equivalent == "minimal" else 41.0) * n2


def describe_cost(topo: Topology, *, bisection_exact_limit: int = 24, equivalent: str | None = None) -> DescribeCost:
    """Estimated peak memory and time of :func:`describe`, without running it.

    >>> c = describe_cost(__import__("candidates").torus((8, 8, 8)))
    >>> c.sources, c.kl, c.nbytes < 1e7
    (1, True, True)
    """
    n, m = topo.n, topo.num_links
    D = topo.ndim
    retained = 24.0 * m + 8.0 * n * (D + 1)
    retained += _CSR_PER_LINK * m  # cached on the topology from the first analysis on
    parts: dict[str, float] = {"ecmp": _ECMP_PER_LINK * m + 48.0 * n}
    if has_records(topo) and topo.vertex_transitive:
        if capabilities(topo).records == "tiles":
            # lattice_record: every router against the 3^D neighbouring tiles
            parts["records"] = n * 3.0 ** D * (16.0 * D + 8.0) + 48.0 * n * D
        else:
            parts["records"] = 24.0 * n * D
    exact = n <= bisection_exact_limit and n >= 2
    partitions = math.comb(n - 1, n // 2 - 1) if exact else 0
    kl = not exact and 2 <= n <= KL_LIMIT
    if kl:
        parts["kernighan_lin"] = _KL_PER_LINK * m + _KL_PER_ROUTER * n
    if equivalent is not None and n >= 2:
        parts["equivalent"] = _equivalent_bytes(topo, equivalent)
    lattice_src = topo.lattice is not None
    dist_src = 1 if topo.vertex_transitive else n
    ecmp_src = (0 if has_records(topo) else 1) if lattice_src else n  # per-dimension hops
    ecmp_src += 1 if lattice_src else n  # uniform load
    sources = 1 if lattice_src else n
    times = {
        f"{format_count(dist_src + ecmp_src)} BFS/ECMP passes": _SEC_PER_UNIT * (dist_src + ecmp_src) * (n + 2.0 * m),
        f"the exhaustive bisection over {format_count(partitions)} partitions": _SEC_PER_CUT_LINK * partitions * m,
    }
    if kl:
        # 4 seeded runs; measured about 20 s on complete:1500
        times["Kernighan-Lin on networkx"] = 4 * 5e-7 * m * math.log2(max(n, 2))
    if equivalent is not None:
        eq_src = 1 if (equivalent == "minimal" and topo.vertex_transitive) else n
        times["the equivalent distance"] = _SEC_PER_UNIT * eq_src * (n + 2.0 * m) * 10
    slowest = max(times, key=times.__getitem__)
    return DescribeCost(retained + max(parts.values()), sum(times.values()), parts, sources, kl, partitions, slowest)


def check_describe(topo: Topology, *, bisection_exact_limit: int = 24,
                   equivalent: str | None = None) -> tuple[DescribeCost, str | None]:
    """Refuse (:class:`SizeError`, one line) a :func:`describe` that will not
    fit in memory or whose exhaustive bisection would run for hours; return
    the cost and the reason Kernighan-Lin will be skipped (None if it runs).
    """
    if isinstance(bisection_exact_limit, bool) or not isinstance(bisection_exact_limit, int) or bisection_exact_limit < 0:
        raise TopologyError(f"bisection_exact_limit (--exact-bisection) must be an integer >= 0, got {bisection_exact_limit!r}")
    cost = describe_cost(topo, bisection_exact_limit=bisection_exact_limit, equivalent=equivalent)
    name = f"describe {topo.spec or topo.family} ({format_count(topo.n)} routers, {format_count(topo.num_links)} links)"
    if equivalent is not None and topo.n >= 2 and topo.n <= 8192:
        check_memory(f"the equivalent distance of {topo.spec or topo.family} ({format_count(topo.n)} routers)",
                     cost.parts["equivalent"], "leave out --equivalent or use a smaller topology")
    core = {k: v for k, v in cost.parts.items() if k != "kernighan_lin"}
    retained = cost.nbytes - max(cost.parts.values())
    check_memory(name, retained + max(core.values(), default=0.0), "use a smaller topology")
    skip_kl = None
    if cost.kl and cost.nbytes > memory_limit():
        skip_kl = (f"Kernighan-Lin skipped: its networkx graph needs about {format_bytes(cost.nbytes)}, "
                   f"more than the {format_bytes(memory_limit())} available")
    seconds = _SEC_PER_CUT_LINK * cost.exact_bisection_partitions * topo.num_links
    if seconds > MAX_EXACT_BISECTION_SECONDS:
        raise SizeError(
            f"the exhaustive bisection of {topo.n} routers examines {format_count(cost.exact_bisection_partitions)} "
            f"balanced partitions (about {format_seconds(seconds)}); lower the exact-bisection limit "
            f"(--exact-bisection) below {topo.n}"
        )
    return cost, skip_kl


def describe(topo: Topology, *, bisection_exact_limit: int = 24, equivalent: str | None = None) -> dict[str, Any]:
    """All analytic properties of a topology as a JSON-ready dict.

    ``equivalent="minimal"`` or ``"updown"`` adds the mean and maximum of the
    equivalent-distance table ('equivalent-distance-irregular') under that
    routing (an n x n table: kept to graphs of at most 8192 routers).

    >>> d = describe(__import__("candidates").rtt(4))
    >>> d["nodes"], d["diameter"], d["average_distance_with_self"] == (4 * 16 - 1) / 24
    (32, 4, True)
    """
    _, skip_kl = check_describe(topo, bisection_exact_limit=bisection_exact_limit, equivalent=equivalent)
    announce_compile()
    ds = distance_stats(topo)
    deg = topo.degree
    out: dict[str, Any] = {
        "spec": topo.spec,
        "family": topo.family,
        "nodes": topo.n,
        "terminals": topo.num_terminals,
        "links": topo.num_links,
        "degree": {"min": int(deg.min()), "max": int(deg.max()), "mean": float(deg.mean())},
        "connected": ds.connected,
        "vertex_transitive": topo.vertex_transitive,
        "diameter": ds.diameter,
        "average_distance": ds.average_distance,
        "average_distance_with_self": ds.average_distance_with_self,
        "distance_distribution": ds.distribution,
    }
    if topo.n >= 2 and ds.connected:
        assert ds.average_distance is not None  # connected: every distance is finite
        # the least diameter and ASPL any graph of this many routers and this degree can have
        mb = moore_bound(topo.n, max(int(deg.max()), 1))
        out["moore_diameter"] = mb.diameter
        out["moore_aspl"] = mb.aspl
        out["moore_gap"] = (ds.average_distance - mb.aspl) / mb.aspl
    # what messages travel: between processing elements (routers without PEs only pass traffic on)
    pe = pe_distances(topo, ds)
    out["pe_diameter"] = pe.diameter
    out["pe_average_distance"] = pe.average_distance
    if not ds.connected:
        out["unreachable_pairs"] = ds.unreachable
        return out
    hops, method = per_dimension_hops(topo)
    out["per_dimension"] = hops
    out["per_dimension_method"] = method
    if topo.num_terminals >= 2 and topo.n >= 2:
        load = uniform_load(topo)
        out["link_utilisation"] = load.link_utilisation
        out["injection_bound"] = load.injection_bound
        out["injection_bottleneck"] = load.bottleneck
        out["routing_bound"] = load.routing_bound
        out["routing"] = load.routing
        out["class_links"] = dict(zip(load.class_names, load.class_links))
        out["channel_loads"] = {r: channel_loads(topo, r).to_dict() for r in _channel_routings(topo)}
    if topo.n >= 2:
        try:
            b = bisection(topo, exact_limit=bisection_exact_limit, kernighan_lin=skip_kl is None)
            out["bisection"] = b.to_dict()
            if skip_kl:
                out["bisection"]["note"] = skip_kl
        except TopologyError as exc:
            # a graph too large for both heuristics: say so rather than fail the whole description
            out["bisection"] = {"skipped": skip_kl or str(exc)}
    if equivalent is not None and topo.n >= 2:
        if topo.n > 8192:
            raise TopologyError(f"the equivalent distance needs all-pairs tables ({topo.n} routers); "
                                "it is offered up to 8192 routers")
        if equivalent == "minimal" and topo.vertex_transitive:
            off = np.delete(equivalent_distance_rows(topo, [0], "minimal")[0], 0)
        else:
            tab = equivalent_distance(topo, equivalent)
            off = tab[~np.eye(topo.n, dtype=bool)]
        out["equivalent_distance"] = {"routing": equivalent, "mean": float(off.mean()), "max": float(off.max())}
    pub = published_figures(topo)
    if pub is not None:
        out["published"] = pub   # the family's closed forms, beside what was computed above
    return out
