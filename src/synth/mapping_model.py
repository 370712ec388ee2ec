"""The analytic latency/throughput model of 'rtt-mapping-concentration' (Section 3.2).

An application sends a share ``alpha`` of its messages to neighbours in its
logical 2D torus (local traffic) and ``1 - alpha`` uniformly (global
traffic). For a placement of its tasks on the routers:

- base latency ``tau = alpha * d + (1 - alpha) * k``: ``d`` the average
  dilation of the local messages (hops, 0 for two tasks on one router),
  ``k`` the average distance of uniform traffic;
- maximum throughput ``th = min_j 2 |E_j| / (N tau_j)`` phits/cycle per
  router (one phit per cycle per link direction), ``tau_j`` the hops per
  message on the links of set ``E_j``. The sets are the paper's: the
  horizontal and vertical links and each split into internal and peripheral
  (wraparound) links.

Two forms:

- :func:`paper_model` — the closed forms the paper derives for its seven
  cases (RT: id, fv2; RTT: id, fd, fv2, fd.fv2, ft2), with Table 1's
  approximate per-dimension distances ``k_x, k_y`` (``a/2, a/4`` in RT,
  ``a/3, a/3`` in RTT) or, with ``exact=True``, the exact ones
  (``(4a^2 - 1) / (12a)`` each in RTT).
- :func:`mapping_model` — the same model computed exactly for any mapping
  (or any placement) on any 2D lattice topology: the mapped router-level
  traffic is routed along the minimal routing records (X hops first, then
  Y; a pair with several minimal records is split evenly over them) and
  the hops on every link set counted. It also gives
  ``routing_bound``, the rate at which the busiest single channel of that
  deterministic routing saturates (the model's ``min`` over *all* link
  subsets), which is what a simulator with that routing can reach at best.

Conventions: every task injects at the same rate; throughput is per router
(the paper's "node"), so with concentration c it is c times the per-task
rate; uniform traffic includes the sender itself (the convention under
which Table 1's ``3a/4`` for RT is exact); intra-router messages count as
0 hops and use no link.

>>> import candidates as cd
>>> m = mapping_model(cd.rt(4), "id", [0.0, 1.0])
>>> m.latency, m.throughput   # tau = 3a/4 and 1; th = 4/a and 4
([3.0, 1.0], [1.0, 4.0])
>>> p = paper_model("rt", "id", 4, [0.0, 1.0])
>>> p.latency, p.throughput
([3.0, 1.0], [1.0, 4.0])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from candidates.analytics.records import has_records, routing_records
from candidates.topology import Topology
from flows.problem import Demands

from .mapping_core import (
    GridMap,
    MappingError,
    TaskPlacement,
    global_traffic,
    grid_map,
    local_traffic,
    logical_topology,
    map_demands,
    mixed_traffic,
    place,
)

__all__ = ["MappingModel", "mapping_model", "model_demands", "PaperModel", "paper_model", "PAPER_CASES", "link_sets",
           "per_dimension_distance"]

#: The cases the paper works out, (family, mapping) -> its section.
PAPER_CASES: dict[tuple[str, str], str] = {
    ("rt", "id"): "3.3.1 id mapping of 2D tori into RT",
    ("rtt", "id"): "3.3.2 id mapping of 2D tori into RTT",
    ("rtt", "fd"): "3.3.3 fd mapping of 2D tori into RTT",
    ("rt", "fv2"): "3.4.1 f^v_2 concentration of 2D tori into RT",
    ("rtt", "fv2"): "3.4.2 f^v_2 concentration of 2D tori into RTT",
    ("rtt", "fd.fv2"): "3.4.3 fd o f^v_2 mapping of 2D tori into RTT",
    ("rtt", "ft2"): "3.4.4 f^t_2 mapping of 2D tori into RTT",
}


def _alphas(alpha) -> np.ndarray:
    a = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    if a.ndim != 1 or np.any(~np.isfinite(a)) or np.any((a < 0) | (a > 1)):
        raise MappingError(f"alpha (the local share) must be in [0, 1], got {alpha!r}")
    return a


# ------------------------------------------------------------------------- closed forms
@dataclass(frozen=True)
class PaperModel:
    """The paper's closed form for one case at the given ``alpha`` values."""

    family: str
    mapping: str
    a: int
    exact: bool
    kx: float
    ky: float
    alpha: list[float]
    latency: list[float]
    throughput: list[float]
    section: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def per_dimension_distance(family: str, a: int, *, exact: bool = False) -> tuple[float, float]:
    """Average hops per dimension ``(k_x, k_y)`` of uniform traffic (self included).

    Table 1 of the paper (``exact=False``): RT ``(a/2, a/4)``, RTT ``(a/3, a/3)``.
    Exact: RT ``a/2`` and ``a/4`` (``(a^2 - 1)/(4a)`` for odd a), RTT
    ``(4a^2 - 1)/(12a)`` each (half the exact average ``(4a^2-1)/(6a)``).

    >>> per_dimension_distance("rtt", 4, exact=True)
    (1.3125, 1.3125)
    """
    a = int(a)
    if family == "rt":
        return (a / 2, (a / 4) if (not exact or a % 2 == 0) else (a * a - 1) / (4 * a))
    if family == "rtt":
        k = (4 * a * a - 1) / (12 * a) if exact else a / 3
        return (k, k)
    raise MappingError(f"closed forms exist for families rt and rtt, got {family!r}")


def paper_model(family: str, mapping: str, a: int, alpha, *, exact: bool = False) -> PaperModel:
    """Latency ``tau`` and maximum throughput of the paper's closed forms.

    ``(family, mapping)`` is one of :data:`PAPER_CASES`; the formulas are the
    paper's, written with ``k_x, k_y`` (Table 1 values, or the exact ones
    with ``exact=True``):

    ==========  ======================================  ======================================
    case        tau(alpha)                              throughput (phits/cycle/router)
    ==========  ======================================  ======================================
    RT id       alpha + (1-alpha)(kx+ky)                2 / (alpha/2 + kx(1-alpha))
    RTT id      (3/2 - 1/a) alpha + (1-alpha)(kx+ky)    2 / (alpha + ky(1-alpha))     (set E_vi)
    RTT fd      3 alpha/2 + (1-alpha)(kx+ky)            2 / (alpha + kx(1-alpha))
    RT fv2      3 alpha/4 + (1-alpha)(kx+ky)            2 / (alpha/2 + kx(1-alpha))
    RTT fv2     (1 - 1/(2a)) alpha + (1-alpha)(kx+ky)   2 / (alpha/2 + kx(1-alpha))
    RTT fd.fv2  alpha + (1-alpha)(kx+ky)                2 / (3 alpha/4 + kx(1-alpha))
    RTT ft2     alpha + (1-alpha)(kx+ky)                2 / (alpha/2 + kx(1-alpha))
    ==========  ======================================  ======================================

    With Table 1's values these are the paper's ``4/(alpha + a(1 - alpha))``
    (RT), ``4/(2 alpha + 2a/3 (1 - alpha))`` (RTT id, fd),
    ``4/(3/2 alpha + 2a/3 (1 - alpha))`` (RTT fd.fv2) and
    ``4/(alpha + 2a/3 (1 - alpha))`` (RTT fv2, ft2).

    >>> m = paper_model("rtt", "id", 4, [0.0, 1.0])
    >>> [round(x, 4) for x in m.latency], m.throughput
    ([2.6667, 1.25], [1.5, 2.0])
    """
    fam = str(family).lower()
    name = grid_map(mapping).name
    key = (fam, name)
    if key not in PAPER_CASES:
        valid = ", ".join(f"{f} {m}" for f, m in PAPER_CASES)
        raise MappingError(f"the paper has no closed form for {fam} {name}; cases: {valid}")
    a = int(a)
    if a < 2:
        raise MappingError(f"the size a must be >= 2, got {a}")
    al = _alphas(alpha)
    kx, ky = per_dimension_distance(fam, a, exact=exact)
    g = 1.0 - al
    kbar = kx + ky
    if key == ("rt", "id"):
        tau, th = al + g * kbar, 2.0 / (al / 2 + kx * g)
    elif key == ("rtt", "id"):
        tau, th = (1.5 - 1.0 / a) * al + g * kbar, 2.0 / (al + ky * g)
    elif key == ("rtt", "fd"):
        tau, th = 1.5 * al + g * kbar, 2.0 / (al + kx * g)
    elif key == ("rt", "fv2"):
        tau, th = 0.75 * al + g * kbar, 2.0 / (al / 2 + kx * g)
    elif key == ("rtt", "fv2"):
        tau, th = (1.0 - 1.0 / (2 * a)) * al + g * kbar, 2.0 / (al / 2 + kx * g)
    elif key == ("rtt", "fd.fv2"):
        tau, th = al + g * kbar, 2.0 / (0.75 * al + kx * g)
    else:  # ("rtt", "ft2")
        tau, th = al + g * kbar, 2.0 / (al / 2 + kx * g)
    return PaperModel(fam, name, a, bool(exact), float(kx), float(ky), al.tolist(),
                      [float(x) for x in tau], [float(x) for x in th], PAPER_CASES[key])


# ------------------------------------------------------------------------- exact model
@dataclass(frozen=True)
class MappingModel:
    """The model computed exactly for one placement.

    ``latency[i]``/``throughput[i]``/``bottleneck[i]``/``routing_bound[i]``
    belong to ``alpha[i]``. ``local_distance`` is the average dilation ``d``
    of local messages (0-hop intra-router ones included), ``max_dilation``
    the largest, ``global_distance`` the average hops of uniform traffic.
    ``set_links[j]`` is ``|E_j|``; ``local_hops[j]`` / ``global_hops[j]``
    are ``d_j`` and ``k_j`` (hops on set j per message), so
    ``tau_j = alpha d_j + (1 - alpha) k_j`` and ``th_j = 2|E_j| / (N tau_j)``.
    """

    spec: str
    mapping: str
    concentration: float
    logical: str
    include_self: bool
    alpha: list[float]
    latency: list[float]
    throughput: list[float]
    bottleneck: list[str]
    routing_bound: list[float]
    local_distance: float
    max_dilation: int
    global_distance: float
    set_links: dict[str, int]
    local_hops: dict[str, float]
    global_hops: dict[str, float]
    n_routers: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def set_throughput(self, name: str) -> list[float]:
        """``2|E_j| / (N tau_j)`` of one link set at every alpha.

        >>> import candidates as cd
        >>> mapping_model(cd.rtt(4), "id", [1.0]).set_throughput("x")   # 2 / (alpha/2)
        [4.0]
        """
        n_routers = self.n_routers
        out = []
        for a in self.alpha:
            load = a * self.local_hops[name] + (1 - a) * self.global_hops[name]
            out.append(float("inf") if load <= 0 else 2.0 * self.set_links[name] / (n_routers * load))
        return out


def link_sets(topo: Topology) -> dict[str, np.ndarray]:
    """The paper's link sets of a 2D lattice: per dimension all links, the
    internal ones (joining ``p`` and ``p + e_k`` inside the box) and the
    peripheral (wraparound) ones; a split is left out when one side is empty.

    >>> import candidates as cd
    >>> {k: len(v) for k, v in link_sets(cd.rtt(4)).items()}   # |Ehi| = 2a^2 - a, |Ehp| = a, ...
    {'x': 32, 'x-internal': 28, 'x-peripheral': 4, 'y': 32, 'y-internal': 24, 'y-peripheral': 8}
    """
    if topo.coords is None:
        raise MappingError(f"link sets need lattice coordinates; {topo.spec or topo.family} has none")
    D = topo.ndim
    step = topo.coords[topo.links[:, 1]] - topo.coords[topo.links[:, 0]]
    out: dict[str, np.ndarray] = {}
    for k in range(D):
        if k >= len(topo.dims):
            break
        on = np.flatnonzero(topo.link_dim == k)
        if len(on) == 0:
            continue
        e = np.zeros(D, dtype=np.int64)
        e[k] = 1
        inner = np.all(step[on] == e, axis=1)
        name = topo.dims[k]
        out[name] = on
        if inner.any() and (~inner).any():
            out[f"{name}-internal"] = on[inner]
            out[f"{name}-peripheral"] = on[~inner]
    return out


def _step_links(topo: Topology) -> tuple[np.ndarray, np.ndarray]:
    """``plus[v, k]``/``minus[v, k]``: the link leaving v towards +e_k / -e_k (-1: none)."""
    D = topo.ndim
    plus = np.full((topo.n, D), -1, dtype=np.int64)
    minus = np.full((topo.n, D), -1, dtype=np.int64)
    for i, (u, v) in enumerate(topo.links.tolist()):
        k = int(topo.link_dim[i])
        if k < D:
            plus[u, k] = i
            minus[v, k] = i
    return plus, minus


def _minimal_records(topo: Topology, s: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every minimal routing record of every pair: ``(records, pair index, share)``.

    A displacement with several minimal records (RT: x = a or y = a/2;
    RTT: the 2a - 1 routers at distance a) gets all of them with equal
    shares — the tie rule of one record would load one dimension or
    direction more than the paper's model (and an adaptive router) does.
    """
    rec = routing_records(topo, s, t)
    if topo.lattice is None:  # meshes: the record is the unique difference
        return rec, np.arange(len(s)), np.ones(len(s))
    assert topo.coords is not None  # a topology with routing records has coordinates
    d = topo.coords[t] - topo.coords[s]
    D = d.shape[1]
    # records depend on the displacement only: search the few distinct ones
    uniq, inv = np.unique(d, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    combos = np.array(np.meshgrid(*[np.arange(-2, 3)] * D, indexing="ij")).reshape(D, -1).T
    shifts = combos @ topo.lattice  # (K, D) lattice vectors
    cand = uniq[:, None, :] + shifts[None, :, :]
    length = np.abs(cand).sum(axis=2)
    best = length.min(axis=1)
    if not np.array_equal(best[inv], np.abs(rec).sum(axis=1)):  # pragma: no cover - the tile search covers RT/RTT
        raise MappingError(f"minimal records of {topo.spec} reach beyond the searched tiles")
    u, k = np.nonzero(length == best[:, None])  # grouped by u
    urec = cand[u, k]
    ucount = np.bincount(u, minlength=len(uniq))
    ustart = np.concatenate([[0], np.cumsum(ucount)[:-1]])
    rep = ucount[inv]
    pair = np.repeat(np.arange(len(s)), rep)
    within = np.arange(len(pair)) - np.repeat(np.cumsum(rep) - rep, rep)
    return urec[ustart[inv][pair] + within], pair, 1.0 / rep[pair]


def _route_loads(topo: Topology, M: np.ndarray) -> np.ndarray:
    """Channel loads when every router pair's traffic ``M[s, t]`` is split
    evenly over its minimal routing records, each walked dimension 0 first
    (arc 2i: link i forward, arc 2i + 1: backward)."""
    s, t = np.nonzero(M)
    keep = s != t
    s, t = s[keep], t[keep]
    w = M[s, t]
    load = np.zeros(topo.num_arcs)
    if len(s) == 0:
        return load
    rec, pair, share = _minimal_records(topo, s, t)
    w = w[pair] * share
    s, t = s[pair], t[pair]
    plus, minus = _step_links(topo)
    cur = s.copy()
    for k in range(rec.shape[1]):
        r = rec[:, k]
        for step in range(int(np.abs(r).max(initial=0))):
            fwd = np.flatnonzero(r > step)
            back = np.flatnonzero(-r > step)
            if len(fwd):
                li = plus[cur[fwd], k]
                if np.any(li < 0):
                    raise MappingError(f"routing record leaves the lattice of {topo.spec}")
                np.add.at(load, 2 * li, w[fwd])
                cur[fwd] = topo.links[li, 1]
            if len(back):
                li = minus[cur[back], k]
                if np.any(li < 0):
                    raise MappingError(f"routing record leaves the lattice of {topo.spec}")
                np.add.at(load, 2 * li + 1, w[back])
                cur[back] = topo.links[li, 0]
    if not np.array_equal(cur, t):  # pragma: no cover - records are checked against BFS in candidates
        raise MappingError("internal error: a routing record does not reach its destination")
    return load


def _distance_matrix(topo: Topology) -> np.ndarray:
    n = topo.n
    s, t = np.divmod(np.arange(n * n, dtype=np.int64), n)
    return np.abs(routing_records(topo, s, t)).sum(axis=1).reshape(n, n)


def mapping_model(topo: Topology, mapping: "str | GridMap | TaskPlacement", alpha=(0.0, 0.25, 0.5, 0.75, 1.0), *,
                  logical: "str | Topology" = "torus", include_self: bool = True) -> MappingModel:
    """The model of Section 3.2 computed exactly for a mapping on a 2D lattice topology.

    ``mapping`` is a mapping name (placed with :func:`synth.mapping.place`)
    or any :class:`TaskPlacement` (an annealed one, say; it needs a
    ``task_shape`` unless ``logical`` is a Topology over the tasks).
    ``logical`` is the application graph of the local traffic: ``"torus"``
    (the paper's case), ``"mesh"``, or a ``candidates.Topology`` whose
    router ``t`` is task ``t``.

    >>> import candidates as cd
    >>> m = mapping_model(cd.from_spec("rtt:a=4:c=2"), "ft2", [1.0])
    >>> m.latency, m.throughput, m.max_dilation   # tau = alpha, th = 4/alpha, dilation 1
    ([1.0], [4.0], 1)
    """
    al = _alphas(alpha)
    if isinstance(mapping, TaskPlacement):
        pl = mapping
        if pl.n_routers != topo.n:
            raise MappingError(f"the placement covers {pl.n_routers} routers, the topology has {topo.n}")
    else:
        pl = place(mapping, topo)
    if not has_records(topo) or topo.coords is None:
        raise MappingError(f"the model routes along minimal routing records; {topo.spec or topo.family} has none "
                           "(use a lattice family: rt, rtt, torus, mesh, twisted)")
    T = pl.num_tasks
    if isinstance(logical, Topology):
        g = logical
        if g.n != T:
            raise MappingError(f"the logical topology has {g.n} nodes for {T} tasks")
        logical_name = g.spec or g.family
    else:
        if pl.task_shape is None:
            raise MappingError("the placement has no task_shape; pass the logical topology as a candidates.Topology")
        g = logical_topology(pl.task_shape, logical)
        logical_name = logical
    n = topo.n
    per_router = T / n  # average tasks per router: traffic is normalised to 1 unit per router
    loc = local_traffic(pl.task_shape or (T, 1), g)
    glo = global_traffic(T, include_self=include_self)

    def router_matrix(d) -> np.ndarray:
        M = np.zeros((n, n))
        np.add.at(M, (pl.router[d.src], pl.router[d.dst]), d.amount)
        return M / per_router

    L = router_matrix(loc)
    G = router_matrix(glo)
    dist = _distance_matrix(topo)
    tau_l = float((L * dist).sum() / n)
    tau_g = float((G * dist).sum() / n)
    max_dil = int(dist[pl.router[loc.src], pl.router[loc.dst]].max(initial=0))
    load_l = _route_loads(topo, L)
    load_g = _route_loads(topo, G)
    sets = link_sets(topo)
    arcs = {j: np.concatenate([2 * li, 2 * li + 1]) for j, li in sets.items()}
    hops_l = {j: float(load_l[a].sum() / n) for j, a in arcs.items()}
    hops_g = {j: float(load_g[a].sum() / n) for j, a in arcs.items()}
    lat, th, bott, rb = [], [], [], []
    for a in al.tolist():
        lat.append(a * tau_l + (1 - a) * tau_g)
        best, bname = float("inf"), ""
        for j, li in sets.items():
            tot = a * hops_l[j] + (1 - a) * hops_g[j]
            val = float("inf") if tot <= 1e-15 else 2.0 * len(li) / (n * tot)
            if val < best - 1e-12:
                best, bname = val, j
        th.append(best)
        bott.append(bname)
        mx = float((a * load_l + (1 - a) * load_g).max(initial=0.0))
        rb.append(float("inf") if mx <= 1e-15 else 1.0 / mx)
    return MappingModel(
        spec=topo.spec, mapping=pl.mapping or "custom", concentration=float(per_router), logical=logical_name,
        include_self=bool(include_self), alpha=al.tolist(), latency=lat, throughput=th, bottleneck=bott,
        routing_bound=rb, local_distance=tau_l, max_dilation=max_dil, global_distance=tau_g,
        set_links={j: int(len(li)) for j, li in sets.items()}, local_hops=hops_l, global_hops=hops_g, n_routers=n,
    )


def model_demands(topo: Topology, mapping: "str | GridMap | TaskPlacement", alpha: float, *,
                  logical: str = "torus", include_self: bool = True) -> Demands:
    """Router-level demands of the model's traffic, 1 unit injected per router.

    The share ``alpha`` goes to logical neighbours, the rest uniformly over
    the tasks (see :func:`synth.mapping.mixed_traffic`); intra-router messages
    are dropped, so the maximum concurrent flow ``lambda`` of
    ``flows.FlowProblem.from_topology(topo, demands)`` is the maximum
    injection rate per router with optimal routing — the exact counterpart of
    :attr:`MappingModel.throughput`.

    >>> import candidates as cd
    >>> import flows
    >>> d = model_demands(cd.rt(3), "id", 1.0)
    >>> round(flows.solve_lp(flows.FlowProblem.from_topology(cd.rt(3), d)).lam, 6)   # 4 phits/cycle/router
    4.0
    """
    pl = mapping if isinstance(mapping, TaskPlacement) else place(mapping, topo)
    if pl.task_shape is None:
        raise MappingError("the placement has no task_shape: build the traffic with mixed_traffic and map_demands")
    d = map_demands(mixed_traffic(pl.task_shape, alpha, logical=logical, include_self=include_self), pl)
    return d.scaled(pl.n_routers / pl.num_tasks)
