"""Tree families: the k-ary n-tree and the three-level k-port fat tree.

Both are folded Clos networks whose processing elements (PEs) sit on the
leaf (edge) switches only: every other switch has ``terminals`` 0, so the
machine's size is the PE count, not the router count.

- :func:`ktree` -- the k-ary n-tree of Petrini and Vanneschi ("k-ary n-trees:
  high performance networks for massively parallel architectures", IPPS
  1997): ``n`` levels of ``k^(n-1)`` switches, ``k^n`` PEs, ``k`` on every
  leaf switch.
- :func:`fattree` -- the fat tree of Al-Fares, Loukissas and Vahdat ("A
  scalable, commodity data center network architecture", SIGCOMM 2008):
  ``k`` pods of ``k/2`` edge and ``k/2`` aggregation switches, ``(k/2)^2``
  core switches, ``k^3/4`` hosts (``k/2`` per edge switch), every switch
  with ``k`` ports, full bisection bandwidth.

Routers are numbered from the leaves upwards, so the PEs (numbered router
by router, as ``sim`` numbers terminals) are ``0..P-1`` on the first routers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..capabilities import Capabilities
from ..errors import SpecError, check_family_int
from ..registry import Family, int_keys, parse_int, register, take_field
from ..topology import Topology

__all__ = ["ktree", "ktree_size", "fattree", "fattree_size", "TreeFigures", "fattree_figures", "ktree_figures"]


def ktree_size(k: int, n: int) -> tuple[int, int, int]:
    """(switches, links, PEs) of the k-ary n-tree, from the parameters alone.

    >>> ktree_size(4, 3)
    (48, 128, 64)
    """
    k = check_family_int("ktree", "k", k, 2, "ktree:k=4:n=3")
    n = check_family_int("ktree", "n", n, 2, "ktree:k=4:n=3")
    # every switch below the top level has k links up
    return n * k ** (n - 1), (n - 1) * k ** n, k ** n


def ktree(k: int, n: int) -> Topology:
    """The k-ary n-tree (Petrini and Vanneschi, IPPS 1997).

    Wiring rule (their Definition 1): switch ``<w, l>`` has a digit string
    ``w = w_0 .. w_{n-2}`` in base ``k`` and a level ``l`` (0 the roots,
    ``n-1`` the leaves); ``<w, l>`` and ``<w', l+1>`` are linked iff
    ``w_i = w'_i`` for every ``i != l``; PE ``p_0 .. p_{n-1}`` hangs on leaf
    ``<p_0 .. p_{n-2}, n-1>``. Router ``s * k^(n-1) + w`` (``w`` read as a
    base-k number) is the switch at stage ``s = n-1-l`` (stage 0 the leaves),
    so PE ``p`` (read in base k) is terminal ``p`` of the machine. Link class
    ``sJ`` joins stage ``J`` to stage ``J+1``. Leaves carry ``k`` PEs, every
    other switch none. Between two leaves whose strings differ in digit 0 a
    packet climbs to the roots: ``2(n-1)`` switch-to-switch hops, the
    diameter.

    >>> t = ktree(2, 3)
    >>> t.n, t.num_links, t.num_terminals, t.terminals.tolist()
    (12, 16, 8, [2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0])
    """
    nsw, m, pes = ktree_size(k, n)
    k, n = int(k), int(n)
    row = k ** (n - 1)  # switches per level
    w = np.arange(row, dtype=np.int64)
    links, link_dim = [], []
    for lvl in range(n - 1):  # level lvl to lvl + 1: digit lvl is free
        place = k ** (n - 2 - lvl)  # weight of digit lvl in the base-k number (w_0 most significant)
        digit = (w // place) % k
        base = w - digit * place
        up_stage, down_stage = n - 1 - lvl, n - 2 - lvl
        for d in range(k):
            # the child <w, lvl+1> links to parent <w with digit lvl = d, lvl>
            links.append(np.stack([down_stage * row + w, up_stage * row + base + d * place], axis=1))
        link_dim.append(np.full(row * k, down_stage, dtype=np.int64))
    lk, ld = np.concatenate(links), np.concatenate(link_dim)
    # links grouped by stage, then by the lower switch
    order = np.lexsort((lk[:, 1], lk[:, 0]))
    lk, ld = lk[order], ld[order]
    assert len(lk) == m
    term = np.zeros(nsw, dtype=np.int64)
    term[:row] = k
    return Topology(
        n=nsw, links=lk, link_dim=ld, dims=tuple(f"s{j}" for j in range(n - 1)),
        terminals=term, family="ktree", spec=f"ktree:k={k}:n={n}", params={"k": k, "n": n},
    )


def _check_fattree_k(k: int) -> int:
    k = check_family_int("fattree", "k", k, 2, "fattree:k=4")
    if k % 2:
        raise SpecError(f"fattree: k (switch ports) must be even, got k={k}; use k={k + 1} or k={k - 1}")
    return k


def fattree_size(k: int) -> tuple[int, int, int]:
    """(switches, links, hosts) of the three-level k-port fat tree.

    >>> fattree_size(4), fattree_size(48)
    ((20, 32, 16), (2880, 55296, 27648))
    """
    k = _check_fattree_k(k)
    return 5 * k * k // 4, k ** 3 // 2, k ** 3 // 4


def fattree(k: int) -> Topology:
    """The three-level fat tree of k-port switches (Al-Fares, Loukissas and
    Vahdat, SIGCOMM 2008).

    ``k`` pods, each of ``k/2`` edge switches (routers ``0 .. k^2/2 - 1``,
    pod by pod, ``k/2`` hosts each) and ``k/2`` aggregation switches (next
    ``k^2/2`` routers), every edge switch of a pod linked to every
    aggregation switch of it (class ``edge``); ``(k/2)^2`` core switches
    (the last routers), core ``j`` linked to aggregation switch ``j // (k/2)``
    of every pod (class ``core``). ``5k^2/4`` switches, ``k^3/2`` links,
    ``k^3/4`` hosts; every switch uses all ``k`` ports.

    >>> t = fattree(4)
    >>> t.n, t.num_links, t.num_terminals, sorted(set((t.degree + t.terminals).tolist()))
    (20, 32, 16, [4])
    """
    nsw, m, hosts = fattree_size(k)
    k = int(k)
    h = k // 2
    pod = np.arange(k, dtype=np.int64)
    i = np.arange(h, dtype=np.int64)
    edge = pod[:, None] * h + i[None, :]                 # (pod, i)
    agg = k * h + pod[:, None] * h + i[None, :]          # (pod, j)
    core = 2 * k * h + np.arange(h * h, dtype=np.int64)  # core j serves aggregation switch j // h
    ea = np.stack(np.broadcast_arrays(edge[:, :, None], agg[:, None, :]), axis=-1).reshape(-1, 2)
    ac = np.stack(np.broadcast_arrays(agg[:, :, None], core.reshape(h, h)[None, :, :]), axis=-1).reshape(-1, 2)
    links = np.concatenate([ea, ac])
    assert len(links) == m
    term = np.zeros(nsw, dtype=np.int64)
    term[: k * h] = h
    return Topology(
        n=nsw, links=links,
        link_dim=np.concatenate([np.zeros(len(ea), dtype=np.int64), np.ones(len(ac), dtype=np.int64)]),
        dims=("edge", "core"), terminals=term, family="fattree", spec=f"fattree:k={k}", params={"k": k},
    )


@dataclass(frozen=True)
class TreeFigures:
    """The published figures of a tree for ``pes_per_leaf`` PEs on each leaf
    (edge) switch: switch and link counts, ``diameter`` in switch hops
    between the farthest leaves, ``bisection_links`` (the links a balanced cut
    of the leaves must cross: the tree's full bisection; for even ``k``, where
    the leaves split into halves of PEs), and
    ``uniform_bound``: the injection rate per PE at which uniform traffic
    over the other ``P - 1`` PEs, those of the own leaf included (as
    ``describe``'s uniform bound counts them), loads a leaf-to-parent
    channel to 1: the ``c`` PEs of a leaf send a fraction ``(P - c)/(P - 1)``
    of their traffic up its ``up_links`` -- above 1 when the leaf is not
    oversubscribed, below 1 when it is."""

    source: str
    switches: int
    leaf_switches: int
    links: int
    pes: int
    pes_per_leaf: int
    up_links_per_leaf: int
    diameter: int
    bisection_links: int
    full_bisection: bool
    uniform_bound: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _tree_figures(source: str, switches: int, leaves: int, links: int, per_leaf: int, up: int, diameter: int,
                  bisection: int) -> TreeFigures:
    P = leaves * per_leaf
    return TreeFigures(source, switches, leaves, links, P, per_leaf, up, diameter, bisection,
                       bisection >= P // 2, up * (P - 1) / (per_leaf * (P - per_leaf)))


def fattree_figures(k: int, pes_per_edge: int | None = None) -> TreeFigures:
    """Al-Fares et al.'s figures of the k-port fat tree (``pes_per_edge``
    hosts per edge switch, default ``k/2``).

    >>> f = fattree_figures(4)
    >>> f.switches, f.links, f.pes, f.diameter, f.bisection_links, f.full_bisection
    (20, 32, 16, 4, 8, True)
    """
    nsw, m, _ = fattree_size(k)
    h = k // 2
    c = h if pes_per_edge is None else int(pes_per_edge)
    return _tree_figures("Al-Fares, Loukissas, Vahdat, SIGCOMM 2008", nsw, k * h, m, c, h, 4, k ** 3 // 8)


def ktree_figures(k: int, n: int, pes_per_leaf: int | None = None) -> TreeFigures:
    """Petrini and Vanneschi's figures of the k-ary n-tree (``pes_per_leaf``
    PEs per leaf switch, default ``k``).

    >>> f = ktree_figures(4, 3)
    >>> f.switches, f.links, f.pes, f.diameter, f.bisection_links
    (48, 128, 64, 4, 32)
    """
    nsw, m, _ = ktree_size(k, n)
    c = k if pes_per_leaf is None else int(pes_per_leaf)
    return _tree_figures("Petrini and Vanneschi, IPPS 1997", nsw, k ** (n - 1), m, c, k, 2 * (n - 1),
                         k ** n // 2)


# ---------------------------------------------------------------- the tree families of the registry
def _k_of(pos: list[str], kw: dict[str, str]) -> int:
    return parse_int("fattree", "k", take_field("fattree", pos, kw, "k", {"k"}))


register(Family("fattree", "three-level fat tree of k-port switches (Al-Fares et al. 2008): k pods, "
                "k^3/4 hosts on the edge switches, none on aggregation and core switches",
                (("k", "switch ports, even, >= 2"),), "fattree:k=4",
                lambda pos, kw: fattree(_k_of(pos, kw)),
                lambda pos, kw: (*fattree_size(_k_of(pos, kw))[:2], 0),
                Capabilities(updown_minimal=True, auto_routing="minimal",
                             figures=lambda t: fattree_figures(t.params["k"], int(t.terminals.max())))))
register(Family("ktree", "k-ary n-tree (Petrini and Vanneschi 1997): n levels of k^(n-1) switches, "
                "k PEs on each leaf switch, none above",
                (("k", "arity, >= 2"), ("n", "levels, >= 2")), "ktree:k=4:n=3",
                lambda pos, kw: ktree(*int_keys("ktree", pos, kw, ("k", "n"))),
                lambda pos, kw: (*ktree_size(*int_keys("ktree", pos, kw, ("k", "n")))[:2], 0),
                Capabilities(updown_minimal=True, auto_routing="minimal",
                             figures=lambda t: ktree_figures(t.params["k"], t.params["n"], int(t.terminals.max())))))
