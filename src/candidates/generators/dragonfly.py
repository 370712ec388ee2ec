"""The dragonfly (Kim, Dally, Scott, Abts, "Technology-driven, highly-scalable
dragonfly topology", ISCA 2008).

``g`` groups of ``a`` routers; the routers of a group are fully connected
by local links, every router has ``h`` global links to other groups and
``p`` processing elements. A group then has ``a*h`` global ports, numbered
``k = r*h + j`` for global port ``j`` of router ``r`` (BookSim2's numbering);
at the maximum size ``g = a*h + 1`` every pair of groups is joined by
exactly one global link. With fewer groups the ports come in
``t = a*h // (g-1)`` full rounds of ``g - 1`` (round ``k // (g-1)``, port
``k % (g-1)`` within it), each round joining every pair of groups once, so
every pair of groups has at least ``t`` links. The ``r = a*h mod (g-1)`` ports left
over (the group's last ones) are paired like a circulant graph, the same
in every arrangement: leftover ports ``2i`` and ``2i+1`` go to groups
``G + i + 1`` and ``G - i - 1`` (one more link between groups ``i + 1``
apart); when ``r`` is odd the last one goes to group ``G + g/2`` if ``g``
is even and stays unconnected if ``g`` is odd (``g*r`` port ends cannot
pair up). The leftover rule is toposynth's own: the references below only
define full rounds.

Which port joins which group is the *global link arrangement*. With ``k``
a port's number within its round and ``G`` its group (``mod g`` throughout):

``absolute``
    port ``k`` goes to the ``k``-th other group: group ``k`` if ``k < G``,
    else ``k + 1`` (and arrives at port ``G`` there if ``G < k+1``, else
    ``G - 1``). Kim et al.'s arrangement as BookSim2 builds it
    (``src/networks/dragonfly.cpp``, ``DragonFlyNew``); the name and the
    two following rules are those of Hastings, Rincon-Cruz, Spehlmann,
    Meyers, Xu, Bunde, Leung, "Comparing global link arrangements for
    Dragonfly networks", IEEE Cluster 2015, whose SST/merlin scripts
    give them as used here.
``relative``
    port ``k`` goes to group ``G + k + 1`` and arrives at port ``g - 2 - k``.
``circulant``
    (Hastings et al.'s "circulant-based") ports pair up: even port ``k``
    goes to group ``G + k/2 + 1`` and arrives at port ``k + 1``; odd port
    ``k`` goes to group ``G - (k-1)/2 - 1`` and arrives at port ``k - 1``.
    Needs ``g - 1`` even (when there are full rounds).
``palmtree``
    port ``k`` goes to group ``G - k - 1``; router ``r``'s port ``j`` arrives
    at router ``a-1-r``'s port ``h-1-j`` (whole-group port ``a*h - 1 - k``;
    over the full rounds only, ``t*(g-1) - 1 - k``, when ports are left over).
    The arrangement of Camarero, Vallejo, Beivide, "Topological
    characterization of Hamming and dragonfly networks and its implications
    on routing", ACM TACO 11(4) 2015, after M. Garcia's thesis (CAMINOS's
    default, ``Palmtree`` with ``lag = 1``). At ``g = a*h+1`` it is
    ``relative`` with the groups numbered backwards.

Routers are numbered ``G*a + r``; ``coords`` is ``(group, router in group)``.
Link classes: ``local`` (0) and ``global`` (1).

Minimal routing is local, global, local (:func:`minimal_table`): diameter 3
between routers. It is not the graph's shortest paths: a route through a
third group (global, global) can be as short or shorter, and the graph's
minimal routing takes it; the paper's minimal routing (and its
``1/(a p)`` under adversarial traffic) takes only the direct global links.
Valiant's routing goes through a random intermediate *group*
(:func:`valiant_intermediates`): local, global to it, then minimal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..analytics.next_hops import NextHopTable, rule_table
from ..capabilities import Capabilities
from ..errors import SpecError
from ..registry import Family, keyed_fields, register
from ..topology import Topology

__all__ = ["ARRANGEMENTS", "dragonfly", "dragonfly_size", "dragonfly_figures", "DragonflyFigures", "minimal_table",
           "valiant_intermediates"]

#: the global link arrangements, each with its reference (see the module docstring)
ARRANGEMENTS = {
    "absolute": "Kim et al. 2008 / BookSim2 dragonfly.cpp; name from Hastings et al., Cluster 2015",
    "relative": "Hastings et al., Cluster 2015",
    "circulant": "Hastings et al., Cluster 2015 ('circulant-based'); needs g-1 even",
    "palmtree": "Camarero, Vallejo, Beivide, ACM TACO 2015 (CAMINOS's default)",
}


def _check(a: Any, p: Any, h: Any, g: Any, arrangement: Any) -> tuple[int, int, int, int, str]:
    """Validated ``(a, p, h, g, arrangement)``; every message one line naming the fix."""
    vals = []
    for name, v, low in (("a", a, 2), ("p", p, 1), ("h", h, 1)):
        try:
            iv = int(v)
        except (TypeError, ValueError):
            raise SpecError(f"dragonfly: {name} must be an integer, got {v!r}") from None
        if iv != v and not isinstance(v, str):
            raise SpecError(f"dragonfly: {name} must be an integer, got {v!r}")
        if iv < low:
            what = {"a": "routers per group", "p": "PEs per router", "h": "global links per router"}[name]
            raise SpecError(f"dragonfly: {name} ({what}) must be at least {low}, got {name}={iv}")
        vals.append(iv)
    a, p, h = vals
    gmax = a * h + 1
    if g is None:
        g = gmax
    try:
        g = int(g)
    except (TypeError, ValueError):
        raise SpecError(f"dragonfly: g must be an integer, got {g!r}") from None
    if g > gmax:
        raise SpecError(f"dragonfly: g={g} groups is more than a*h+1 = {gmax} (each group has a*h = {a * h} global "
                        f"ports, one per other group at most); use g <= {gmax}")
    if g < 2:
        raise SpecError(f"dragonfly: g must be at least 2 groups, got g={g} (one group is complete:{a})")
    arr = str(arrangement).strip().lower()
    if arr not in ARRANGEMENTS:
        raise SpecError(f"dragonfly: unknown arrangement {arrangement!r}; use one of {', '.join(ARRANGEMENTS)}")
    if arr == "circulant" and (g - 1) % 2:
        raise SpecError(f"dragonfly: the circulant arrangement pairs ports, so g-1 must be even (g={g}); "
                        "use an odd g or another arrangement")
    return a, p, h, g, arr


def dragonfly_size(a: int, p: int, h: int, g: int | None = None, arrangement: str = "absolute") -> tuple[int, int]:
    """(routers, links) of :func:`dragonfly` from its parameters alone (validated, nothing built).

    >>> dragonfly_size(4, 2, 2)
    (36, 90)
    """
    a, p, h, g, _ = _check(a, p, h, g, arrangement)
    return a * g, g * a * (a - 1) // 2 + (g * a * h - _unconnected(a, h, g)) // 2


def _unconnected(a: int, h: int, g: int) -> int:
    """Global ports left unconnected: one per group when the leftover ports
    are odd in number and so is ``g``."""
    r = (a * h) % (g - 1)
    return g if r % 2 and g % 2 else 0


def _partner(arr: str, G: np.ndarray, k: np.ndarray, a: int, h: int, g: int) -> tuple[np.ndarray, np.ndarray]:
    """The group and whole-group port that port ``k`` of group ``G`` joins
    (group -1 for a port left unconnected)."""
    m = g - 1
    full = (a * h) // m * m  # ports in full rounds
    rnd, j = np.divmod(k, m)
    if arr == "absolute":
        D = np.where(j < G, j, j + 1)
        k2 = rnd * m + np.where(G < D, G, G - 1)
    elif arr == "relative":
        D = (G + j + 1) % g
        k2 = rnd * m + m - 1 - j
    elif arr == "circulant":
        even = j % 2 == 0
        D = np.where(even, G + j // 2 + 1, G - (j - 1) // 2 - 1) % g
        k2 = rnd * m + np.where(even, j + 1, j - 1)
    else:  # palmtree
        D = (G - j - 1) % g
        k2 = full - 1 - k
    # the leftover ports: a circulant pattern (see the module docstring)
    i = k - full
    r = a * h - full
    even = i % 2 == 0
    D = np.where(i >= 0, np.where(even, G + i // 2 + 1, G - (i - 1) // 2 - 1) % g, D)
    k2 = np.where(i >= 0, np.where(even, k + 1, k - 1), k2)
    last = i == r - 1
    if r % 2:
        D = np.where(last, (G + g // 2) % g if g % 2 == 0 else -1, D)
        k2 = np.where(last, k, k2)
    return D, k2


def dragonfly(a: int, p: int, h: int, g: int | None = None, arrangement: str = "absolute") -> Topology:
    """A dragonfly: ``g`` groups (default and maximum ``a*h + 1``) of ``a``
    fully connected routers, ``h`` global links and ``p`` PEs per router,
    the global links placed by ``arrangement`` (``absolute``, ``relative``,
    ``circulant`` or ``palmtree``; see :mod:`candidates.generators.dragonfly`).

    The balanced dragonfly ``a = 2p = 2h`` of Kim et al.: a=4, p=h=2 gives
    9 groups, 36 routers, 72 PEs; router degree a-1+h = 5.

    >>> t = dragonfly(4, 2, 2)
    >>> t.n, t.num_terminals, t.num_links, sorted(set(t.degree.tolist()))
    (36, 72, 90, [5])
    >>> t.spec
    'dragonfly:a=4:p=2:h=2'
    >>> t.coords[5].tolist()     # group 1, router 1
    [1, 1]
    """
    a, p, h, g, arr = _check(a, p, h, g, arrangement)
    n = a * g
    # local links: every pair of routers of a group
    r1, r2 = np.triu_indices(a, 1)
    base = (np.arange(g) * a)[:, None]
    local = np.stack([(base + r1).ravel(), (base + r2).ravel()], axis=1)
    # global links: every (group, port) once, from the end whose (group, port) is smaller
    G = np.repeat(np.arange(g), a * h)
    k = np.tile(np.arange(a * h), g)
    D, k2 = _partner(arr, G, k, a, h, g)
    # each arrangement is an involution without self-groups: checked here so a wrong rule cannot build
    on = D >= 0
    G, k, D, k2 = G[on], k[on], D[on], k2[on]
    D_back, k_back = _partner(arr, D, k2, a, h, g)
    if np.any(D == G) or np.any(D_back != G) or np.any(k_back != k) or np.any((k2 < 0) | (k2 >= a * h)):
        raise AssertionError(f"dragonfly arrangement {arr} is not a pairing for a={a}, h={h}, g={g}")
    first = (G < D) | ((G == D) & (k < k2))
    u = G[first] * a + k[first] // h
    v = D[first] * a + k2[first] // h
    glob = np.stack([u, v], axis=1)
    links = np.concatenate([local, glob]).astype(np.int64)
    link_dim = np.concatenate([np.zeros(len(local), np.int64), np.ones(len(glob), np.int64)])
    coords = np.stack(np.divmod(np.arange(n), a), axis=1).astype(np.int64)
    spec = f"dragonfly:a={a}:p={p}:h={h}"
    if g != a * h + 1:
        spec += f":g={g}"
    if arr != "absolute":
        spec += f":arrangement={arr}"
    return Topology(
        n=n, links=links, link_dim=link_dim, dims=("local", "global"), coords=coords,
        terminals=np.full(n, p, dtype=np.int64), family="dragonfly",
        params={"a": a, "p": p, "h": h, "g": g, "arrangement": arr}, spec=spec,
    )


@dataclass(frozen=True)
class DragonflyFigures:
    """The published figures of a dragonfly (Kim et al., ISCA 2008), from its parameters.

    ``global_channels_per_group`` is ``a*h`` (Kim et al.'s ``a*h`` "virtual
    router" ports); ``links_per_group_pair`` the trunking ``a*h // (g-1)``
    (some pairs get one more from the leftover ports when ``g-1`` does not
    divide ``a*h``); ``unconnected_ports`` the global ports left without a
    partner (see :mod:`candidates.generators.dragonfly`).
    ``adversarial_minimal``: the throughput per PE of minimal routing under
    "group i sends to group i+1" -- the ``a*p`` PEs of a group share the
    global channels to the next group. ``valiant``:
    Valiant's ``h / (2p)``, every packet crossing two global channels.
    ``diameter`` is minimal routing's local-global-local bound, the
    diameter at ``g = a*h + 1`` (fewer groups with trunked links can be
    closer, and so can tiny groups: a=2, h=2 is a Petersen-like graph of
    diameter 2). ``adversarial_optimum``: the routing-free optimum of that
    pattern when ``g = a*h + 1``: the direct channel to the next group
    carries at most 1 unit and every other unit needs two of the ``g*a*h``
    global channels, so ``a*p*g*lam <= g + (g*a*h - g)/2``, i.e.
    ``lam <= (a*h + 1) / (2*a*p)``; the exact flow reaches this bound in
    every case tried ((a, p, h) = (2,1,1), (3,1,1), (2,1,2), (4,1,2),
    (4,2,2), (4,4,2), (6,3,3), every arrangement): local links do not bind. ``uniform_global_bound``: under
    uniform traffic (every PE sends ``lam`` spread evenly over the PEs of
    the other routers, as ``flows.Demands.uniform`` with the PEs as
    weights) a fraction ``(N - a*p) / (N - p)`` of it goes to other groups
    and crosses at least one of the ``g*a*h`` global channels:
    ``lam <= g*a*h*(N-p) / (N*(N-a*p))``. Local channels bind too, so the
    routing-free optimum is somewhat lower (1.054-1.057 against 1.094 for
    a=4, p=h=2, depending on the arrangement; tests/candidates/test_dragonfly.py).
    """

    a: int
    p: int
    h: int
    g: int
    routers: int
    groups: int
    terminals: int
    local_links: int
    global_links: int
    links: int
    degree: int
    radix: int
    diameter: int
    global_channels_per_group: int
    links_per_group_pair: int
    unconnected_ports: int
    balanced: bool
    adversarial_minimal: float
    valiant: float
    adversarial_optimum: float | None
    uniform_global_bound: float

    source: str = "Kim, Dally, Scott, Abts, ISCA 2008"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def dragonfly_figures(a: int, p: int, h: int, g: int | None = None) -> DragonflyFigures:
    """The closed forms of a dragonfly (see :class:`DragonflyFigures`).

    >>> f = dragonfly_figures(4, 2, 2)
    >>> f.groups, f.routers, f.terminals, f.diameter, f.global_channels_per_group
    (9, 36, 72, 3, 8)
    >>> f.adversarial_minimal, f.valiant, f.adversarial_optimum
    (0.125, 0.5, 0.5625)
    """
    a, p, h, g, _ = _check(a, p, h, g, "absolute")
    n = a * g
    N = n * p
    t = a * h // (g - 1)
    r = a * h % (g - 1)
    loc = g * a * (a - 1) // 2
    off = _unconnected(a, h, g)
    glo = (g * a * h - off) // 2
    next_group = t + (1 if r >= 2 else 0)  # leftover ports 0 and 1 join groups one apart
    return DragonflyFigures(
        a=a, p=p, h=h, g=g, routers=n, groups=g, terminals=N, local_links=loc, global_links=glo,
        links=loc + glo, degree=a - 1 + h, radix=p + a - 1 + h, diameter=3,
        global_channels_per_group=a * h, links_per_group_pair=t, unconnected_ports=off,
        balanced=(a == 2 * p == 2 * h), adversarial_minimal=next_group / (a * p), valiant=h / (2 * p),
        adversarial_optimum=(a * h + 1) / (2 * a * p) if g == a * h + 1 else None,
        uniform_global_bound=g * a * h * (N - p) / (N * (N - a * p)),
    )


def _global_arcs(topo: Topology) -> tuple[np.ndarray, np.ndarray]:
    """(source, destination) routers of every global arc (both directions)."""
    glob = np.flatnonzero(np.asarray(topo.arc_dim) == 1)
    return np.asarray(topo.arc_src, dtype=np.int64)[glob], np.asarray(topo.arc_dst, dtype=np.int64)[glob]


def _check_dragonfly(topo: Topology) -> tuple[int, np.ndarray]:
    if topo.family != "dragonfly":
        raise SpecError(f"the dragonfly's routing needs a dragonfly topology, got {topo!r}")
    assert topo.coords is not None  # a dragonfly's coordinates are (group, router in group)
    return int(topo.params["a"]), np.asarray(topo.coords[:, 0], dtype=np.int64)


def minimal_table(topo: Topology) -> NextHopTable:
    """The dragonfly's minimal routing (Kim et al.): inside a group the
    direct local link; to another group a local hop to a router with a
    global link to the destination group (none if the router has one), that
    link, and a local hop to the destination. Where groups share several
    global links every shortest such route is a next hop
    (:func:`candidates.rule_table`'s table).

    >>> t = dragonfly(4, 2, 2)
    >>> tab = minimal_table(t)
    >>> int(tab.dist.max()), int(tab.dist[0, 1]), int(tab.dist[0, 4])   # 3; same group; router 0's own link
    (3, 1, 1)
    """
    a, grp = _check_dragonfly(topo)
    n = topo.n
    big = np.iinfo(np.int32).max // 2
    dist = np.full((n, n), big, dtype=np.int64)
    same = grp[:, None] == grp[None, :]
    dist[same] = 1
    np.fill_diagonal(dist, 0)
    x, y = _global_arcs(topo)
    rows = np.arange(a)
    for xi, yi in zip(x.tolist(), y.tolist()):
        gs, gd = xi // a, yi // a
        # (u != x) + 1 + (t != y) for every u of x's group and t of y's
        hops = (gs * a + rows != xi)[:, None].astype(np.int64) + 1 + (gd * a + rows != yi)[None, :]
        blk = dist[gs * a:(gs + 1) * a, gd * a:(gd + 1) * a]
        np.minimum(blk, hops, out=blk)
    if (dist == big).any():
        u, t = (int(v) for v in np.argwhere(dist == big)[0])
        raise SpecError(f"{topo!r}: groups {u // a} and {t // a} share no global link, so minimal routing cannot "
                        f"join them; use more global links (h) or fewer groups (g)")
    # local links always; a global link only into the destination's group
    return rule_table(topo, dist, lambda u, v, k: (k == 0)[:, None] | (grp[v][:, None] == grp[None, :]),
                      "the dragonfly's minimal")


def valiant_intermediates(topo: Topology) -> np.ndarray:
    """Valiant's intermediate points of the dragonfly (Kim et al.: a random
    intermediate group): ``(n, g)``, row ``u`` the router at which a packet
    of router ``u`` enters each group ``G`` -- the far end of a global link
    from ``u``'s group to ``G``, ``u``'s own link if it has one, else that of
    the group's lowest-numbered router with one -- and ``u`` itself for ``u``'s own group (no detour).
    A simulator draws a column uniformly.

    >>> t = dragonfly(4, 2, 2)
    >>> mid = valiant_intermediates(t)
    >>> mid.shape, int(mid[0, 0]), (mid[0] // 4).tolist() == list(range(9))
    ((36, 9), 0, True)
    """
    a, grp = _check_dragonfly(topo)
    n = topo.n
    g = n // a
    x, y = _global_arcs(topo)
    # per (source group, destination group): the entry router, preferring the source router's own link
    entry = np.full((n, g), -1, dtype=np.int64)
    order = np.lexsort((y, x))
    for xi, yi in zip(x[order][::-1].tolist(), y[order][::-1].tolist()):
        entry[(xi // a) * a:(xi // a + 1) * a, yi // a] = yi     # lowest y written last: the default
    for xi, yi in zip(x[order][::-1].tolist(), y[order][::-1].tolist()):
        entry[xi, yi // a] = yi                                  # the router's own links win
    entry[np.arange(n), grp] = np.arange(n)
    if (entry < 0).any():
        u, G = (int(v) for v in np.argwhere(entry < 0)[0])
        raise SpecError(f"{topo!r}: group {u // a} has no global link to group {G}; Valiant's routing needs one")
    return entry


# ---------------------------------------------------------------- the dragonfly family of the registry
# key=value fields only; dragonfly() validates the values (one-line SpecErrors)
_fields = keyed_fields("dragonfly", ("a", "p", "h"), ("g", "arrangement"), ("a", "p", "h", "g"))
register(Family("dragonfly", "dragonfly (Kim et al. 2008): g groups of a fully connected routers, h global links and "
                "p PEs per router; arrangement of the global links absolute, relative, circulant or palmtree",
                (("a", "routers per group, >= 2"), ("p", "PEs per router"), ("h", "global links per router"),
                 ("g", "optional: groups, 2..a*h+1 (default a*h+1: one global link per pair of groups)"),
                 ("arrangement", "optional: " + ", ".join(ARRANGEMENTS) + " (default absolute)")),
                "dragonfly:a=4:p=2:h=2",
                lambda pos, kw: dragonfly(**_fields(pos, kw)),
                lambda pos, kw: (*dragonfly_size(**_fields(pos, kw)), 2),
                Capabilities(coordinates=True, groups=True, routes={"minimal": minimal_table},
                             intermediates=valiant_intermediates, auto_routing="ugal",
                             figures=lambda t: dragonfly_figures(t.params["a"], int(t.terminals[0]), t.params["h"],
                                                                 t.params["g"]))))
