"""Hop distances from one router by breadth-first search.

Kept apart from :mod:`candidates.analytics.routing` (whose tables need numba kernels)
because every flow problem asks for them, and a small one should not pay
for importing numba.
"""

from __future__ import annotations

import numpy as np

from ..errors import TopologyError

__all__ = ["hop_distances"]

#: networks up to this size get their hop distances by numpy (see hop_distances)
_NUMPY_BFS_ROUTERS = 256


def hop_distances(indptr: np.ndarray, indices: np.ndarray, source: int) -> np.ndarray:
    """Hops from ``source`` to every router over the CSR adjacency
    ``(indptr, indices)`` (``-1``: unreachable), by breadth-first search.

    >>> import candidates as cd
    >>> t = cd.ring(6)
    >>> cd.hop_distances(t.indptr, t.indices, 0).tolist()
    [0, 1, 2, 3, 2, 1]
    """
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    n = len(indptr) - 1
    if not 0 <= int(source) < n:
        raise TopologyError(f"source {source} is not a router (0..{n - 1})")
    if n > _NUMPY_BFS_ROUTERS:
        # imported here, not at the top: importing numba is ~0.2 s of a small
        # `toposynth flow`'s ~0.5 s start-up (measured, -X importtime), and
        # small networks (below) never need it
        from ._kernels import bfs_distances
        return bfs_distances(indptr, indices, int(source))
    # small networks by numpy, one level at a time: the first numba kernel a
    # process runs costs ~0.3 s (numba loads its typing registries), which
    # is most of a small `toposynth flow` answered without numba (the LP)
    dist = np.full(n, -1, dtype=np.int64)
    dist[source] = 0
    frontier = np.array([int(source)])
    level = 0
    while len(frontier):
        level += 1
        nb = np.concatenate([indices[indptr[u]:indptr[u + 1]] for u in frontier.tolist()])
        nb = np.unique(nb[dist[nb] < 0])
        dist[nb] = level
        frontier = nb
    return dist
