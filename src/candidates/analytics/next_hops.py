"""Next-hop tables: their type, and the tables of the families' own routing rules.

A next-hop set is a ``uint64`` bit mask over a router's out-arcs (see
:mod:`candidates.analytics.routing`, which builds the minimal and up*/down* tables).
This module holds the table type and :func:`rule_table`, which family
modules (HyperX, dragonfly) use for their own rules; it needs no numba, so
building a family stays cheap to import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TopologyError
from ..topology import Topology

__all__ = ["NextHopTable", "rule_table", "MAX_MASK_DEGREE"]

#: Largest router degree a ``uint64`` next-hop mask can describe.
MAX_MASK_DEGREE = 64


def _mask_arcs(mask: int, indptr: np.ndarray, arc_id: np.ndarray, u: int) -> np.ndarray:
    """Channel numbers of the bits set in a next-hop mask of router ``u``."""
    base, deg = int(indptr[u]), int(indptr[u + 1] - indptr[u])
    mask = int(mask)
    ks = [k for k in range(deg) if (mask >> k) & 1]
    return arc_id[base + np.asarray(ks, dtype=np.int64)].astype(np.int64)


def _check_router(topo: Topology, u: Any, what: str) -> int:
    if isinstance(u, bool) or not isinstance(u, (int, np.integer)):
        raise TopologyError(f"{what} must be a router index (an integer), got {u!r}")
    if not 0 <= int(u) < topo.n:
        raise TopologyError(f"{what} {int(u)} is not a router: indices run 0..{topo.n - 1}")
    return int(u)


def _check_topology(topo: Any) -> Topology:
    if not isinstance(topo, Topology):
        raise TopologyError(f"expected a candidates.Topology, got {type(topo).__name__}")
    return topo


def _check_mask_degree(topo: Topology) -> None:
    dmax = int(topo.degree.max()) if topo.n else 0
    if dmax > MAX_MASK_DEGREE:
        v = int(np.argmax(topo.degree))
        raise TopologyError(
            f"router {v} has degree {dmax}: next-hop masks are uint64 and hold at most "
            f"{MAX_MASK_DEGREE} out-arcs per router"
        )


@dataclass(frozen=True, eq=False)
class NextHopTable:
    """All minimal next hops of every router towards every destination.

    Attributes
    ----------
    dist : int32 (n, n)
        ``dist[u, t]`` hops from ``u`` to ``t``; -1 if unreachable.
    next_mask : uint64 (n, n)
        Bit ``k`` of ``next_mask[u, t]`` set when the out-arc at CSR position
        ``indptr[u] + k`` starts a shortest path to ``t`` (see the module
        docstring). 0 for ``u == t`` and unreachable ``t``.
    first_hop : int64 (n, n)
        The lowest channel number among those next hops: one deterministic
        table route. -1 for ``u == t`` and unreachable ``t``.
    indptr, arc_id : int64
        The topology's CSR row pointer (n + 1,) and CSR channel numbers
        (num_arcs,), to decode the masks without the topology.

    Examples
    --------
    On a ring of 8 (:func:`candidates.shortest_path_table`), router 4 is 4
    hops from router 0 both ways round: two next hops, channels 0 (to 1)
    and 15 (to 7).

    >>> import candidates as cd
    >>> t = cd.ring(8)
    >>> tab = cd.shortest_path_table(t)
    >>> tab.dist[0].tolist()
    [0, 1, 2, 3, 4, 3, 2, 1]
    >>> bin(int(tab.next_mask[0, 4])), tab.next_arcs(0, 4).tolist(), t.arc_dst[tab.next_arcs(0, 4)].tolist()
    ('0b11', [0, 15], [1, 7])
    >>> int(tab.first_hop[0, 4])
    0
    """

    dist: np.ndarray
    next_mask: np.ndarray
    first_hop: np.ndarray
    indptr: np.ndarray
    arc_id: np.ndarray

    @property
    def n(self) -> int:
        return int(len(self.indptr) - 1)

    def next_arcs(self, u: int, t: int) -> np.ndarray:
        """Channel numbers (ascending) of the minimal next hops of ``u``
        towards ``t``; empty for ``u == t`` or unreachable ``t``."""
        return _mask_arcs(self.next_mask[u, t], self.indptr, self.arc_id, u)

    def to_dict(self) -> dict[str, Any]:
        return {
            "routing": "minimal",
            "dist": self.dist.tolist(),
            "next_mask": self.next_mask.tolist(),
            "first_hop": self.first_hop.tolist(),
            "indptr": self.indptr.tolist(),
            "arc_id": self.arc_id.tolist(),
        }


def rule_table(topo: Topology, dist: np.ndarray, allowed: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
               name: str) -> NextHopTable:
    """The next-hop table of a family's own routing rule (HyperX's dimension
    order, the dragonfly's local-global-local), in the shape of
    :func:`shortest_path_table`'s.

    ``dist[u, t]`` is the hops the rule takes from ``u`` to ``t``; the out-arc
    ``u -> v`` of link class ``k`` is a next hop towards ``t`` when it brings
    the rule one hop closer (``dist[v, t] == dist[u, t] - 1``) and
    ``allowed(u, v, k)`` -- arrays of ``m`` arcs -- says so for ``t``
    (an ``(m, n)`` boolean array). Every pair must be left with a next hop
    (else :class:`~candidates.errors.TopologyError` names the rule ``name``).

    >>> from candidates import ring
    >>> t = ring(6)
    >>> d = (np.arange(6)[None, :] - np.arange(6)[:, None]) % 6   # clockwise only
    >>> tab = rule_table(t, d, lambda u, v, k: np.ones((len(u), 6), bool), "clockwise")
    >>> int(tab.dist[0, 5]), [int(x) for x in t.arc_dst[tab.next_arcs(0, 5)]]
    (5, [1])
    """
    topo = _check_topology(topo)
    _check_mask_degree(topo)
    n = topo.n
    dist = np.asarray(dist)
    indptr = np.asarray(topo.indptr, dtype=np.int64)
    deg = np.diff(indptr)
    arc_id = np.asarray(topo.arc_id, dtype=np.int64)
    mask = np.zeros((n, n), dtype=np.uint64)
    first = np.full((n, n), -1, dtype=np.int64)
    # bit k of every router at once (degrees <= 64): m arcs x n destinations at a time
    for k in range(int(deg.max(initial=0)) - 1, -1, -1):
        us = np.flatnonzero(deg > k)
        pos = indptr[us] + k
        vs = np.asarray(topo.indices, dtype=np.int64)[pos]
        ok = (dist[vs] == dist[us] - 1) & allowed(us, vs, np.asarray(topo.arc_dim, dtype=np.int64)[arc_id[pos]])
        mask[us] |= ok.astype(np.uint64) << np.uint64(k)
        # descending k: the last write is the lowest bit, the lowest channel
        first[us] = np.where(ok, arc_id[pos][:, None], first[us])
    stuck = (dist > 0) & (mask == 0)
    if stuck.any():
        u, t = (int(x) for x in np.argwhere(stuck)[0])
        raise TopologyError(f"{name} routing of {topo!r} has no next hop from router {u} to router {t}")
    return NextHopTable(dist=dist.astype(np.int32), next_mask=mask, first_hop=first, indptr=indptr, arc_id=arc_id)
