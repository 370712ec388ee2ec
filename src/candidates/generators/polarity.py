"""PolarFly (Lakhotia, Besta, Monroe, Isham, Iff, Hoefler, Petrini, SC 2022):
the Erdős–Rényi polarity graph ER_q of diameter 2.

For a prime power ``q`` the routers are the ``q^2 + q + 1`` points of the
projective plane PG(2, q) -- the non-zero vectors of F_q^3 up to a scalar,
written with their first non-zero coordinate 1 -- and two points are joined
when they are orthogonal (``u . v = 0``). A point's neighbours are the
``q + 1`` points of its polar line; the ``q + 1`` absolute points
(``u . u = 0``) lie on their own line and have degree ``q``. Any two points
share exactly one neighbour or are joined, so the diameter is 2; the order is
close to the Moore bound ``(q + 1)^2 + 1`` of degree ``q + 1``.

:func:`affine_polarity` is the same construction on the affine plane alone:
``q^2`` routers ``(x, y)`` over F_q, ``(x, y) ~ (a, b)`` iff ``y + b = x a``.
Two routers with different ``x`` share exactly one neighbour or are joined;
the ``q - 1`` routers with the same ``x`` are 3 hops away, so a router has
``q`` neighbours, ``q^2 - 2q`` routers at distance 2 and ``q - 1`` at distance
3 -- an average distance within 1.5% of the Moore bound for degree ``q``
(``q = 32``: 1024 routers, 1.998, the Graph Golf record of (1024, 32)). The
``q`` routers with ``2y = x^2`` would be their own neighbours: they have
degree ``q - 1``.

Routers are numbered ``x q + y`` for ``(1, x, y)``, ``q^2 + y`` for
``(0, 1, y)`` and ``q^2 + q`` for ``(0, 0, 1)``; field elements are those of
:func:`candidates.generators.slimfly.galois_field`.

>>> t = polarfly(3)
>>> t.n, t.num_links, sorted(set(t.degree.tolist()))
(13, 24, [3, 4])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..capabilities import Capabilities
from ..errors import SpecError
from ..registry import Family, keyed_fields, register
from ..topology import Topology
from .slimfly import _prime_power, galois_field

__all__ = ["polarfly", "polarfly_size", "polarfly_figures", "PolarFlyFigures", "affine_polarity",
           "affine_polarity_size"]

#: the largest q built (q^2 + q + 1 routers: 1.05 million at q = 1021)
_Q_MAX = 1024


def _check(q: Any, p: Any = None) -> tuple[int, int]:
    try:
        qi = int(q)
    except (TypeError, ValueError):
        raise SpecError(f"polarfly: q must be a prime power (2, 3, 4, 5, 7, 8, 9, ...), got {q!r}") from None
    if _prime_power(qi) is None or qi > _Q_MAX:
        raise SpecError(f"polarfly: q must be a prime power between 2 and {_Q_MAX} (2, 3, 4, 5, 7, 8, 9, ...), got {qi}")
    pp = (qi + 2) // 2 if p is None else p
    try:
        pi = int(pp)
    except (TypeError, ValueError):
        raise SpecError(f"polarfly: p (PEs per router) must be an integer >= 1, got {p!r}") from None
    if pi < 1:
        raise SpecError(f"polarfly: p (PEs per router) must be >= 1, got {pi}")
    return qi, pi


def polarfly_size(q: int, p: int | None = None) -> tuple[int, int]:
    """``(routers, links)`` of ``polarfly(q)`` without building it.

    >>> polarfly_size(31)
    (993, 15872)
    """
    qi, _ = _check(q, p)
    n = qi * qi + qi + 1
    return n, (n * (qi + 1) - (qi + 1)) // 2


def polarfly(q: int, p: int | None = None) -> Topology:
    """The PolarFly ER_q with ``p`` PEs per router (default ``ceil((q+1)/2)``,
    half the network degree, as the paper's balanced configuration).

    >>> import networkx as nx
    >>> G = polarfly(5).to_networkx()
    >>> G.number_of_nodes(), nx.diameter(G)
    (31, 2)
    """
    qi, pi = _check(q, p)
    F = galois_field(qi)
    add, mul = F.add, F.mul
    neg = np.argmin(add, axis=1)                       # add[x, neg[x]] == 0
    inv = np.zeros(qi, dtype=np.int64)
    inv[1:] = np.argmax(mul[1:] == 1, axis=1)
    pts = [(1, x, y) for x in range(qi) for y in range(qi)] + [(0, 1, y) for y in range(qi)] + [(0, 0, 1)]
    P = np.array(pts, dtype=np.int64)
    n = len(P)

    def index(v: np.ndarray) -> np.ndarray:
        """Router index of rows of F_q^3 vectors (non-zero), normalised."""
        lead = np.where(v[:, 0] != 0, 0, np.where(v[:, 1] != 0, 1, 2))
        s = inv[v[np.arange(len(v)), lead]]
        w = mul[v, s[:, None]]
        return np.where(w[:, 0] == 1, w[:, 1] * qi + w[:, 2], np.where(w[:, 1] == 1, qi * qi + w[:, 2], qi * qi + qi))

    links = []
    for i in range(n):
        u = P[i]
        a = int(np.flatnonzero(u)[0])
        j, k = [c for c in range(3) if c != a]
        # the polar line of u: b1 + t b2 (t in F_q) and b2, where b1 = e_j - (u_j / u_a) e_a, b2 likewise
        b1 = np.zeros(3, dtype=np.int64)
        b2 = np.zeros(3, dtype=np.int64)
        ia = int(inv[u[a]])
        b1[j], b1[a] = 1, neg[mul[u[j], ia]]
        b2[k], b2[a] = 1, neg[mul[u[k], ia]]
        t = np.arange(qi)
        line = np.stack([add[b1[c], mul[t, b2[c]]] for c in range(3)], axis=1)
        nb = np.concatenate([index(line), index(b2[None, :])])
        nb = nb[nb > i]
        links.append(np.stack([np.full(len(nb), i), nb], axis=1))
    L = np.concatenate(links)
    return Topology(n=n, links=L, terminals=np.full(n, pi), family="polarfly",
                    spec=f"polarfly:q={qi}" + (f":p={pi}" if p is not None else ""), params={"q": qi, "p": pi})


@dataclass(frozen=True)
class PolarFlyFigures:
    """The published closed forms of a PolarFly (Lakhotia et al., SC 2022)."""

    routers: int
    network_degree: int
    absolute_points: int
    diameter: int
    source: str = "Lakhotia et al., SC 2022 (ER_q)"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def polarfly_figures(q: int) -> PolarFlyFigures:
    """``q^2 + q + 1`` routers, degree ``q + 1`` (``q + 1`` absolute points of degree ``q``), diameter 2."""
    return PolarFlyFigures(q * q + q + 1, q + 1, q + 1, 2)


def affine_polarity_size(q: int, p: int | None = None) -> tuple[int, int]:
    """``(routers, links)`` of ``affine_polarity(q)`` without building it.

    >>> affine_polarity_size(32)
    (1024, 16368)
    """
    qi, _ = _check(q, p)
    return qi * qi, (qi * qi * qi - qi) // 2


def affine_polarity(q: int, p: int | None = None) -> Topology:
    """The affine polarity graph of F_q: routers ``x q + y`` for ``(x, y)``,
    joined when ``y + b = x a``; ``p`` PEs per router (default ``ceil((q+1)/2)``).

    >>> import networkx as nx
    >>> t = affine_polarity(4)
    >>> t.n, sorted(set(t.degree.tolist())), nx.diameter(t.to_networkx())
    (16, [3, 4], 3)
    """
    qi, pi = _check(q, p)
    F = galois_field(qi)
    add, mul = F.add, F.mul
    neg = np.argmin(add, axis=1)
    x = np.repeat(np.arange(qi), qi)               # router x q + y
    y = np.tile(np.arange(qi), qi)
    a = np.arange(qi)
    b = add[mul[x[:, None], a[None, :]], neg[y][:, None]]   # b = x a - y
    u = np.repeat(np.arange(qi * qi), qi)
    v = (a[None, :] * qi + b).reshape(-1)
    keep = u < v
    L = np.stack([u[keep], v[keep]], axis=1)
    return Topology(n=qi * qi, links=L, terminals=np.full(qi * qi, pi), family="affinepolar",
                    spec=f"affinepolar:q={qi}" + (f":p={pi}" if p is not None else ""), params={"q": qi, "p": pi})


# ---------------------------------------------------------------- the polarity families of the registry
def _register(fname: str, text: str, example: str, build, size, caps: Capabilities) -> None:
    fields = keyed_fields(fname, ("q",), ("p",), ("q", "p"))
    register(Family(fname, text, (("q", "prime power (2, 3, 4, 5, 7, 8, 9, ...)"),
                                  ("p", "optional: PEs per router (default ceil((q+1)/2))")), example,
                    lambda pos, kw: build(**fields(pos, kw)), lambda pos, kw: (*size(**fields(pos, kw)), 0), caps))


_register("polarfly", "PolarFly (Lakhotia et al. 2022): the Erdos-Renyi polarity graph ER_q of a prime power q, "
          "q^2+q+1 routers of degree q+1 (q+1 absolute points of degree q), diameter 2", "polarfly:q=7",
          polarfly, polarfly_size, Capabilities(figures=lambda t: polarfly_figures(t.params["q"])))
_register("affinepolar", "the affine polarity graph of F_q (PolarFly's construction on the affine plane): q^2 routers "
          "(x, y), (x,y) ~ (a,b) iff y + b = x a; degree q (q of degree q-1), diameter 3", "affinepolar:q=8",
          affine_polarity, affine_polarity_size, Capabilities())
