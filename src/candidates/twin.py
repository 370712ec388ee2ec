"""The n-dimensional twin torus nDT ('5d-twin-torus-extoll').

Every node of an n-D torus (n odd >= 3) is two (n+1)-port cards joined by an
internal link, one processing element per card; each card is a router. Port
configuration (the paper's Definition 2.2): dimensions d0 .. d(m-1) on card
0, d(m+1) .. d(n-1) on card 1, and of the middle dimension m = (n-1)/2 the
minus port on card 0 and the plus port on card 1. A link of dimension k
joins the card holding the plus port of k at node x to the card holding the
minus port of k at node x + e_k, so every card has n + 1 ports (counting
the internal one). In a dimension of size 2 the plus and minus neighbours
are the same node, reached through two distinct links.

Routers are numbered ``2 * node + card`` (node: C-order index of its torus
coordinate); link classes are ``d0 .. d(n-1)`` and ``internal``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import SpecError, TopologyError
from .topology import INTERNAL, Topology

__all__ = ["twin_torus", "card_of_port", "twin_route"]


def card_of_port(n: int, dim: int, sign: int) -> int:
    """The card (0 or 1) holding port ``d_dim^sign`` of an nDT node.

    >>> [card_of_port(5, k, +1) for k in range(5)], [card_of_port(5, k, -1) for k in range(5)]
    ([0, 0, 1, 1, 1], [0, 0, 0, 1, 1])
    """
    m = (n - 1) // 2
    if dim < m:
        return 0
    if dim > m:
        return 1
    return 1 if sign > 0 else 0


def twin_torus(shape: Sequence[int]) -> Topology:
    """The nDT twin torus of the given node shape (n odd >= 3, sizes >= 2).

    >>> t = twin_torus((4, 4, 2, 2, 2))
    >>> t.n, t.num_terminals, sorted(set(t.degree.tolist()))
    (256, 256, [6])
    """
    try:
        s = tuple(int(x) for x in shape)
    except (TypeError, ValueError):
        raise SpecError(f"nDT shape must be integers joined by x (e.g. ndt:4x4x2x2x2), got {shape!r}") from None
    n = len(s)
    if n < 3 or n % 2 == 0:
        raise SpecError(f"nDT needs an odd number of dimensions >= 3 (e.g. ndt:4x4x2x2x2), got {n}")
    if any(x < 2 for x in s):
        raise SpecError(f"nDT sizes must be integers >= 2, got {'x'.join(map(str, s))}")
    N = int(np.prod(s))
    node_coords = np.stack(np.unravel_index(np.arange(N), s), axis=1).astype(np.int64)
    links = []
    link_dim = []
    for k in range(n):
        nxt = node_coords.copy()
        nxt[:, k] = (nxt[:, k] + 1) % s[k]
        y = np.ravel_multi_index(tuple(nxt.T), s)
        x = np.arange(N)
        links.append(np.stack([2 * x + card_of_port(n, k, +1), 2 * y + card_of_port(n, k, -1)], axis=1))
        link_dim.append(np.full(N, k, dtype=np.int64))
    links.append(np.stack([2 * np.arange(N), 2 * np.arange(N) + 1], axis=1))
    link_dim.append(np.full(N, n, dtype=np.int64))
    coords = np.concatenate([np.repeat(node_coords, 2, axis=0), np.tile([0, 1], N)[:, None]], axis=1)
    return Topology(
        n=2 * N,
        links=np.concatenate(links),
        link_dim=np.concatenate(link_dim),
        dims=tuple(f"d{k}" for k in range(n)) + (INTERNAL,),
        coords=coords,
        shape=s + (2,),
        family="ndt",
        params={"shape": list(s), "n": n},
        spec="ndt:" + "x".join(map(str, s)),
    )


def _port_arcs(topo: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """plus[r, k] / minus[r, k]: the channel leaving router r through its
    port d_k^+ / d_k^- (-1 if the port is on the other card); internal[r]."""
    cached = topo.__dict__.get("_twin_ports")
    if cached is not None:
        return cached
    n = topo.params["n"]
    R = topo.n
    plus = np.full((R, n), -1, dtype=np.int64)
    minus = np.full((R, n), -1, dtype=np.int64)
    internal = np.full(R, -1, dtype=np.int64)
    for i, ((u, v), k) in enumerate(zip(topo.links.tolist(), topo.link_dim.tolist())):
        if k == n:
            internal[u] = 2 * i
            internal[v] = 2 * i + 1
        else:
            plus[u, k] = 2 * i  # u's plus port, towards x + e_k
            minus[v, k] = 2 * i + 1  # v's minus port, towards x - e_k
    topo.__dict__["_twin_ports"] = (plus, minus, internal)  # not pickled (see Topology.__getstate__)
    return plus, minus, internal


def twin_route(topo: Topology, src: int, dst: int, algorithm: str = "tsdor") -> list[int]:
    """The channels DORT or TS-DOR takes from router ``src`` to router ``dst``.

    DORT routes the dimensions in ascending order; TS-DOR routes packets from
    card 0 (PE0) d0 -> d(n-1) and from card 1 (PE1) d(n-1) -> d0. Each
    dimension goes the minimal way; when the needed port is on the other card
    the internal link is crossed first, and at the destination node the
    internal link is crossed if the destination card is the other one.
    Ties (offset exactly half an even ring): in the middle dimension PE0
    packets take d_m^- and PE1 packets d_m^+ (the paper's rule, which avoids
    internal hops); in the other dimensions the + direction. In a size-2
    middle dimension, where both directions reach the same node, the same
    rule applies (it is the port on the packet's own card side).

    >>> t = twin_torus((2, 2, 2))
    >>> len(twin_route(t, 0, 2 * 2 + 1))  # PE0 of node (0,0,0) to PE1 of node (0,1,0): one Y- hop
    1
    """
    if topo.family != "ndt":
        raise TopologyError("twin_route needs an nDT twin torus (ndt:...)")
    if algorithm not in ("tsdor", "dort"):
        raise SpecError(f"unknown nDT routing {algorithm!r}; use 'tsdor' or 'dort'")
    n = topo.params["n"]
    s = topo.shape[:n]
    m = (n - 1) // 2
    plus, minus, internal = _port_arcs(topo)
    src, dst = int(src), int(dst)
    if src == dst:
        return []
    pe = src % 2
    order = range(n) if (algorithm == "dort" or pe == 0) else range(n - 1, -1, -1)
    cur = src
    path: list[int] = []
    target = topo.coords[dst, :n]

    def hop(arc: int) -> None:
        nonlocal cur
        path.append(arc)
        cur = int(topo.arc_dst[arc])

    for k in order:
        off = (int(target[k]) - int(topo.coords[cur, k])) % s[k]
        if off == 0:
            continue
        back = s[k] - off
        if off < back:
            sign = +1
        elif off > back:
            sign = -1
        else:
            sign = (-1 if pe == 0 else +1) if k == m else +1
        hops = min(off, back)
        for _ in range(hops):
            arcs = plus if sign > 0 else minus
            if arcs[cur, k] < 0:
                hop(int(internal[cur]))
            hop(int(arcs[cur, k]))
    if cur != dst:
        hop(int(internal[cur]))
    return path
