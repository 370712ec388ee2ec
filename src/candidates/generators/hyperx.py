"""HyperX and the flattened butterfly: lattices whose every dimension is a clique.

- :func:`hyperx` -- HyperX (Ahn, Binkert, Davis, McLaren and Schreiber, "HyperX:
  topology, routing, and packaging of efficient large-scale networks", SC
  2009): routers on an L-dimensional grid ``S_1 x ... x S_L``, two routers
  linked when their coordinates differ in exactly one dimension, i.e. the
  Cartesian product ``K_S1 x K_S2 x ...`` of complete graphs, ``t`` PEs on
  every router. The paper's trunking ``K`` (several parallel links per
  router pair of a dimension) is not modelled: one link per pair (K = 1).
- :func:`flatfly` -- the flattened butterfly of Kim, Dally and Abts
  ("Flattened butterfly: a cost-efficient topology for high-radix
  networks", ISCA 2007): a k-ary n-fly whose ``n`` stages of each row are
  merged into one router, giving ``k^(n-1)`` routers in ``n - 1`` fully
  connected dimensions of size ``k`` with ``k`` PEs each -- exactly
  ``hyperx((k,) * (n - 1), t=k)``.

Routers are numbered like the lattice families (coordinates in C order, the
last dimension fastest); link class ``k`` is dimension ``k``.

Dimension-order routing (:func:`dor_table`; Ahn et al.'s DOR) corrects the
differing coordinates lowest dimension first, one hop each: the channel
dependencies only go from a dimension to a higher one, so it needs no
virtual channels to be free of deadlock.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from ..analytics.next_hops import NextHopTable, rule_table
from ..capabilities import Capabilities
from ..errors import SpecError, check_family_int
from ..registry import Family, int_keys, parse_int, parse_shape, register, take_field
from ..topology import Topology
from .lattice import dim_names

__all__ = ["hyperx", "hyperx_size", "flatfly", "flatfly_size", "HyperXFigures", "hyperx_figures", "dor_table"]


def _check_hx_shape(shape: Sequence[int] | int) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        s = tuple(operator.index(x) for x in shape)
    except TypeError:
        raise SpecError(f"hyperx: shape must be integer sizes joined by x (e.g. hyperx:4x4x4), got {shape!r}") from None
    if not s:
        raise SpecError("hyperx: the shape needs at least one dimension, e.g. hyperx:4x4x4")
    if any(x < 2 for x in s):
        raise SpecError(f"hyperx: every size must be >= 2 (a size-1 dimension has no links), "
                        f"got {'x'.join(map(str, s))}; drop the 1s")
    return s


def _check_t(t: int) -> int:
    try:
        t = operator.index(t)
    except TypeError:
        raise SpecError(f"hyperx: t (PEs per router) must be a positive integer, got {t!r}") from None
    if t < 1:
        raise SpecError(f"hyperx: t (PEs per router) must be >= 1, got t={t}")
    return int(t)


def hyperx_size(shape: Sequence[int] | int) -> tuple[int, int]:
    """(routers, links) of a HyperX, from the shape alone.

    >>> hyperx_size((4, 4, 4)), hyperx_size((8, 3))
    ((64, 288), (24, 108))
    """
    s = _check_hx_shape(shape)
    n = math.prod(s)
    # every router has S_k - 1 neighbours in dimension k
    return n, n * sum(x - 1 for x in s) // 2


def hyperx(shape: Sequence[int] | int, t: int = 1) -> Topology:
    """HyperX ``S_1 x ... x S_L`` with ``t`` PEs per router (Ahn et al., SC 2009).

    The Cartesian product of the complete graphs ``K_S1 .. K_SL``: degree
    ``sum(S_k - 1)``, diameter ``L`` (one hop per differing coordinate),
    one link per router pair (the paper's trunking K = 1).

    >>> h = hyperx((4, 4, 4), t=2)
    >>> h.n, h.num_links, h.num_terminals, sorted(set(h.degree.tolist())), h.spec
    (64, 288, 128, [9], 'hyperx:4x4x4:t=2')
    """
    s = _check_hx_shape(shape)
    t = _check_t(t)
    n, m = hyperx_size(s)
    coords = np.stack(np.unravel_index(np.arange(n), s), axis=1).astype(np.int64)
    stride = np.cumprod((1,) + s[:0:-1])[::-1]  # C order: the last dimension fastest
    links, link_dim = [], []
    for k, S in enumerate(s):
        a, b = np.triu_indices(S, 1)  # every pair of positions along dimension k
        base = np.flatnonzero(coords[:, k] == 0)  # one router per line of dimension k
        u = base[:, None] + a[None, :] * stride[k]
        v = base[:, None] + b[None, :] * stride[k]
        links.append(np.stack([u.ravel(), v.ravel()], axis=1))
        link_dim.append(np.full(u.size, k, dtype=np.int64))
    lk = np.concatenate(links)
    order = np.lexsort((lk[:, 1], lk[:, 0]))
    ld = np.concatenate(link_dim)
    assert len(lk) == m
    spec = "hyperx:" + "x".join(map(str, s)) + (f":t={t}" if t != 1 else "")
    return Topology(
        n=n, links=lk[order], link_dim=ld[order], dims=dim_names(len(s)), coords=coords, shape=s,
        terminals=np.full(n, t, dtype=np.int64), family="hyperx", spec=spec,
        params={"shape": list(s), "t": t}, vertex_transitive=True,
    )


def _check_fly(k: int, n: int) -> tuple[int, int]:
    return (check_family_int("flatfly", "k", k, 2, "flatfly:k=4:n=3"),
            check_family_int("flatfly", "n", n, 2, "flatfly:k=4:n=3"))


def flatfly_size(k: int, n: int) -> tuple[int, int, int]:
    """(routers, links, PEs) of the flattened k-ary n-fly.

    >>> flatfly_size(4, 3)
    (16, 48, 64)
    """
    k, n = _check_fly(k, n)
    r, m = hyperx_size((k,) * (n - 1))
    return r, m, r * k


def flatfly(k: int, n: int) -> Topology:
    """The flattened butterfly of a k-ary n-fly (Kim, Dally and Abts, ISCA 2007).

    ``k^(n-1)`` routers in ``n - 1`` fully connected dimensions of size
    ``k``, ``k`` PEs each: ``k^n`` PEs, router radix ``k + (n-1)(k-1)``. It
    is ``hyperx((k,) * (n - 1), t=k)`` under another family name.

    >>> f = flatfly(4, 3)
    >>> f.n, f.num_terminals, int((f.degree + f.terminals).max()), f.spec
    (16, 64, 10, 'flatfly:k=4:n=3')
    """
    k, n = _check_fly(k, n)
    h = hyperx((k,) * (n - 1), t=k)
    return h.replace(family="flatfly", spec=f"flatfly:k={k}:n={n}", params={"k": k, "n": n})


@dataclass(frozen=True)
class HyperXFigures:
    """The figures of a HyperX ``S_1 x ... x S_L`` with ``t`` PEs per router
    (Ahn et al., SC 2009; K = 1): ``degree`` sum(S_i - 1); ``diameter`` the
    dimensions of size >= 2; ``bisection_links`` a cut halving the largest
    dimension ``S_j``: ``(R / S_j) * floor(S_j / 2) * ceil(S_j / 2)`` links,
    ``R`` the routers -- the bisection when the largest dimension is even
    (an upper bound otherwise); ``uniform_bound``: uniform traffic over the
    other ``P - 1`` PEs (the own router's included, as ``describe`` counts
    them) sends a fraction ``(S_j - 1) P / (S_j (P - 1))`` of a router's
    ``t * lam`` across dimension ``j``, spread over its ``S_j - 1`` channels
    there: ``lam <= min_j S_j (P - 1) / (t P)``."""

    source: str
    shape: tuple[int, ...]
    t: int
    routers: int
    pes: int
    degree: int
    radix: int
    links: int
    diameter: int
    bisection_links: int
    uniform_bound: float

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["shape"] = list(self.shape)
        return d


def hyperx_figures(shape: Sequence[int] | int, t: int = 1) -> HyperXFigures:
    """The closed forms of ``hyperx(shape, t)`` (see :class:`HyperXFigures`).

    >>> f = hyperx_figures((4, 4, 4), t=2)
    >>> f.routers, f.degree, f.links, f.diameter, f.bisection_links, f.uniform_bound
    (64, 9, 288, 3, 64, 1.984375)
    """
    s = _check_hx_shape(shape)
    t = _check_t(t)
    R = math.prod(s)
    deg = sum(x - 1 for x in s)
    j = max(s)
    return HyperXFigures("Ahn, Binkert, Davis, McLaren, Schreiber, SC 2009", s, t, R, R * t, deg, deg + t,
                         R * deg // 2, sum(1 for x in s if x >= 2), (R // j) * (j // 2) * ((j + 1) // 2),
                         min(s) * (R * t - 1) / (t * R * t))


def dor_table(topo: Topology) -> NextHopTable:
    """Dimension-order routing on a HyperX or flattened butterfly: from
    ``u`` towards ``t`` the one link that sets the lowest differing
    coordinate to ``t``'s (:func:`candidates.rule_table`'s table; hops =
    differing coordinates = the graph distance).

    >>> h = hyperx((3, 4))
    >>> tab = dor_table(h)
    >>> u, t = h.node_index((0, 0)), h.node_index((2, 3))
    >>> int(tab.dist[u, t]), h.coords[h.arc_dst[tab.next_arcs(u, t)]].tolist()   # dimension 0 first
    (2, [[2, 0]])
    """
    if topo.family not in ("hyperx", "flatfly") or topo.coords is None:
        raise SpecError(f"dimension-order routing on cliques needs a hyperx or flatfly topology, got {topo!r}")
    c = np.asarray(topo.coords, dtype=np.int64)
    differ = c[:, None, :] != c[None, :, :]
    dist = differ.sum(axis=2)
    lowest = np.where(dist > 0, differ.argmax(axis=2), -1)
    return rule_table(topo, dist, lambda u, v, k: lowest[u] == k[:, None], "dimension-order")


# ---------------------------------------------------------------- the HyperX families of the registry
def _hyperx_args(pos: list[str], kw: dict[str, str]) -> tuple[tuple[int, ...], int]:
    shape = parse_shape("hyperx", take_field("hyperx", pos, kw, "shape", {"shape", "t"}))
    return shape, parse_int("hyperx", "t", kw["t"]) if "t" in kw else 1


def _size_hyperx(pos: list[str], kw: dict[str, str]):
    shape, t = _hyperx_args(pos, kw)
    if t < 1:
        raise SpecError(f"hyperx: t (PEs per router) must be >= 1, got t={t}")
    return (*hyperx_size(shape), len(shape))


register(Family("hyperx", "HyperX (Ahn et al. 2009): every dimension fully connected (K_S1 x K_S2 x ...), "
                "t PEs per router, one link per router pair",
                (("shape", "sizes joined by x, each >= 2"), ("t", "optional: PEs per router, default 1")),
                "hyperx:4x4x4", lambda pos, kw: hyperx(*_hyperx_args(pos, kw)), _size_hyperx,
                Capabilities(coordinates=True, routes={"dor": dor_table},
                             figures=lambda t: hyperx_figures(t.params["shape"], int(t.terminals[0])))))
register(Family("flatfly", "flattened butterfly (Kim, Dally, Abts 2007): k^(n-1) routers in n-1 fully "
                "connected dimensions of size k, k PEs each (= hyperx:kx..xk:t=k)",
                (("k", "arity, >= 2"), ("n", "butterfly stages, >= 2")), "flatfly:k=4:n=3",
                lambda pos, kw: flatfly(*int_keys("flatfly", pos, kw, ("k", "n"))),
                lambda pos, kw: (*flatfly_size(*int_keys("flatfly", pos, kw, ("k", "n")))[:2],
                                 int_keys("flatfly", pos, kw, ("k", "n"))[1] - 1),
                Capabilities(coordinates=True, routes={"dor": dor_table}, figures=lambda t: replace(
                    hyperx_figures((t.params["k"],) * (t.params["n"] - 1), int(t.terminals[0])),
                    source="Kim, Dally, Abts, ISCA 2007 (as a HyperX)"))))
