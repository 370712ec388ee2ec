"""Routing tables for arbitrary topologies: minimal and up*/down*.

Lattice families have closed-form routing records (:mod:`candidates.analytics.records`);
the tables here serve any graph, and are plain numpy arrays indexed by
``[router, destination]`` so that a numba packet simulator or a flow solver
can consume them directly.

Next-hop masks
--------------
A next-hop set is a ``uint64`` bit mask: bit ``k`` of ``mask[u, t]`` set
means that the out-arc at CSR position ``topo.indptr[u] + k`` (towards router
``topo.indices[indptr[u] + k]``, channel ``topo.arc_id[indptr[u] + k]``)
starts a route to ``t`` that the table allows. CSR positions of a router are
in increasing channel order, so bit order is channel order. Masks therefore
need every router's degree (parallel links counted) to be at most 64;
larger degrees raise :class:`~candidates.errors.TopologyError`. A mask is 0
for ``u == t`` and when ``t`` cannot be reached.

Up*/down* (Autonet)
-------------------
A BFS spanning tree from ``root`` gives every router a level (its distance
to the root). The "up" end of a link is the end at the lower level, or, for
a link between routers at the same level, the one with the lower index; so
following up arcs strictly decreases ``(level, index)`` and the up arcs form
an acyclic graph. A legal route takes zero or more links upwards, then zero
or more downwards. Shortest legal routes are shortest paths in the state
graph of ``(router, phase)`` with phase 0 = "has not gone down yet" and
phase 1 = "has gone down". They can be longer than the graph distance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TopologyError
from ..topology import Topology
from ._kernels import all_pairs_bfs, bfs_distances
from ._routing_kernels import (
    bfs_tree_parent,
    minimal_next_hops,
    updown_next_hops,
    updown_to_targets,
)
from .next_hops import (
    MAX_MASK_DEGREE,
    NextHopTable,
    _check_mask_degree,
    _check_router,
    _check_topology,
    _mask_arcs,
    rule_table,
)

__all__ = ["NextHopTable", "UpDownRouting", "shortest_path_table", "rule_table", "updown", "MAX_MASK_DEGREE"]

def shortest_path_table(topo: Topology) -> NextHopTable:
    """Distances and every minimal next hop for all (router, destination).

    Parameters
    ----------
    topo : Topology
        Any topology; parallel links and disconnected graphs are fine (an
        unreachable pair has ``dist = -1`` and an empty mask). Degrees above
        64 raise :class:`~candidates.errors.TopologyError`.

    Returns
    -------
    NextHopTable

    Examples
    --------
    >>> from candidates import ring
    >>> tab = shortest_path_table(ring(6))
    >>> int(tab.dist[0, 3]), int(tab.dist[0, 2])
    (3, 2)
    >>> tab.next_arcs(0, 3).tolist()   # both ways round the ring
    [0, 11]
    >>> int(tab.first_hop[0, 2]), int(tab.first_hop[0, 4])
    (0, 11)
    """
    topo = _check_topology(topo)
    _check_mask_degree(topo)
    dist = all_pairs_bfs(topo.indptr, topo.indices)
    mask, first = minimal_next_hops(topo.indptr, topo.indices, topo.arc_id, dist)
    return NextHopTable(
        dist=dist,
        next_mask=mask,
        first_hop=first,
        indptr=np.array(topo.indptr, dtype=np.int64),
        arc_id=np.array(topo.arc_id, dtype=np.int64),
    )


@dataclass(frozen=True, eq=False)
class UpDownRouting:
    """Up*/down* routing tables (Autonet) rooted at ``root``.

    Attributes
    ----------
    root : int
        Root of the BFS spanning tree.
    level : int64 (n,)
        BFS level (hop distance from the root) of every router.
    tree_parent : int64 (n,)
        Parent in the BFS spanning tree: the lowest-index neighbour one level
        up; -1 for the root.
    arc_up : bool (num_arcs,)
        Indexed by channel number: True when the arc goes towards its link's
        up end. Exactly one of the two arcs ``2i, 2i+1`` of link ``i`` is up.
    dist : int32 (n, n)
        ``dist[u, t]`` hops of the shortest legal route from ``u`` to ``t``
        (a packet that has not yet gone down). Symmetric; ``>=`` the graph
        distance.
    dist_down : int32 (n, n)
        Hops of the shortest route from ``u`` to ``t`` using down arcs only
        (what is left to a packet that already went down); -1 if none.
    mask_up : uint64 (n, n)
        Next hops (bits of CSR positions, see the module docstring) of a
        packet at ``u`` that has not yet taken a down arc: up or down arcs
        that start a shortest legal route to ``t``. After taking a down arc
        the packet switches to ``mask_down``.
    mask_down : uint64 (n, n)
        Next hops of a packet at ``u`` that has taken a down arc: down arcs
        on a shortest down-only route to ``t``. 0 where ``dist_down`` is -1.
        A packet routed by these masks from ``mask_up`` never meets an empty
        ``mask_down`` before its destination.
    indptr, arc_id : int64
        The topology's CSR row pointer and channel numbers, to decode masks.

    Examples
    --------
    A ring of 8 rooted at router 0 (:func:`candidates.updown`): router 4 is
    the bottom of the tree, so from 3 to 5 a packet may not go down to 4
    and up again; it goes up round the other side, 6 hops, first to 2.

    >>> import candidates as cd
    >>> t = cd.ring(8)
    >>> ud = cd.updown(t)
    >>> ud.root, ud.level.tolist(), ud.tree_parent.tolist()
    (0, [0, 1, 2, 3, 4, 3, 2, 1], [-1, 0, 1, 2, 3, 6, 7, 0])
    >>> int(ud.dist[3, 5]), int(ud.dist_down[3, 5]), t.arc_dst[ud.next_arcs(3, 5)].tolist()
    (6, -1, [2])
    """

    root: int
    level: np.ndarray
    tree_parent: np.ndarray
    arc_up: np.ndarray
    dist: np.ndarray
    dist_down: np.ndarray
    mask_up: np.ndarray
    mask_down: np.ndarray
    indptr: np.ndarray
    arc_id: np.ndarray

    @property
    def n(self) -> int:
        return int(len(self.indptr) - 1)

    def next_arcs(self, u: int, t: int, *, down: bool = False) -> np.ndarray:
        """Channel numbers (ascending) of the legal next hops of ``u``
        towards ``t``: from ``mask_down`` if the packet already went down,
        else from ``mask_up``."""
        mask = self.mask_down[u, t] if down else self.mask_up[u, t]
        return _mask_arcs(mask, self.indptr, self.arc_id, u)

    def to_dict(self) -> dict[str, Any]:
        return {
            "routing": "updown",
            "root": self.root,
            "level": self.level.tolist(),
            "tree_parent": self.tree_parent.tolist(),
            "arc_up": self.arc_up.tolist(),
            "dist": self.dist.tolist(),
            "dist_down": self.dist_down.tolist(),
            "mask_up": self.mask_up.tolist(),
            "mask_down": self.mask_down.tolist(),
            "indptr": self.indptr.tolist(),
            "arc_id": self.arc_id.tolist(),
        }


def _updown_orientation(topo: Topology, root: Any) -> tuple[int, np.ndarray, np.ndarray]:
    """Validated root, BFS levels and the up flag of every channel."""
    topo = _check_topology(topo)
    root = _check_router(topo, root, "root")
    level = bfs_distances(topo.indptr, topo.indices, root)
    if np.any(level < 0):
        cut = int(np.flatnonzero(level < 0)[0])
        raise TopologyError(
            f"up*/down* routing needs a connected topology: router {cut} cannot be reached from root {root}"
        )
    src, dst = topo.arc_src, topo.arc_dst
    ls, ld = level[src], level[dst]
    arc_up = (ld < ls) | ((ld == ls) & (dst < src))
    return root, level, arc_up


def _updown_remaining(topo: Topology, arc_up: np.ndarray) -> np.ndarray:
    """``bwd[t, p, y]``: remaining legal hops from router ``y`` in phase ``p``."""
    return updown_to_targets(topo.indptr, topo.indices, arc_up[topo.arc_id])


def updown(topo: Topology, root: int = 0) -> UpDownRouting:
    """Up*/down* routing of a connected topology, as in Autonet.

    Parameters
    ----------
    topo : Topology
        A connected topology (parallel links allowed) with degrees at most 64.
    root : int
        Root router of the BFS spanning tree (default 0).

    Returns
    -------
    UpDownRouting

    Examples
    --------
    On a 6-ring rooted at 0 the short way from 2 to 4 would go down to 3
    and then up, which is illegal, so the legal route goes over the root:

    >>> from candidates import ring
    >>> ud = updown(ring(6))
    >>> ud.level.tolist()
    [0, 1, 2, 3, 2, 1]
    >>> int(ud.dist[2, 4]), int(ud.dist[2, 3])
    (4, 1)
    >>> ud.next_arcs(2, 4).tolist()    # 2 -> 1 (link 1 reversed) is an up arc
    [3]
    """
    root, level, arc_up = _updown_orientation(topo, root)
    _check_mask_degree(topo)
    csr_up = arc_up[topo.arc_id]
    bwd = _updown_remaining(topo, arc_up)
    dist = np.ascontiguousarray(bwd[:, 0, :].T)
    dist_down = np.ascontiguousarray(bwd[:, 1, :].T)
    mask_up, mask_down = updown_next_hops(topo.indptr, topo.indices, csr_up, dist, dist_down)
    return UpDownRouting(
        root=root,
        level=level.astype(np.int64),
        tree_parent=bfs_tree_parent(topo.indptr, topo.indices, level),
        arc_up=arc_up,
        dist=dist,
        dist_down=dist_down,
        mask_up=mask_up,
        mask_down=mask_down,
        indptr=np.array(topo.indptr, dtype=np.int64),
        arc_id=np.array(topo.arc_id, dtype=np.int64),
    )
