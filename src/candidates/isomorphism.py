"""Which topologies are the same network: isomorphism classes by canonical form.

Two topologies are the same network when a relabelling of the routers maps
one's links onto the other's, parallel links counted, and every router onto
one with as many processing elements: then every flow figure (capacity,
latency, cut) is the same for both. ``torus:4x4x4`` and ``hypercube:6`` are
one network; ``torus:4x4x2`` (its size-2 ring is a double link) and
``hypercube:5`` are not.

The canonical form is nauty's (pynauty) certificate of the router-link
incidence graph (a vertex per router, coloured by its PE count, and a vertex
per link joined to its two ends), so parallel links count. Cheap invariants
(routers, links, degrees, PEs) sort the topologies first; nauty runs only
where they agree.

>>> import candidates as cd
>>> groups = isomorphism_classes([cd.torus((4, 4, 4)), cd.hypercube(6), cd.torus((8, 8)), cd.torus((4, 4, 2))])
>>> groups
[[0, 1], [2], [3]]
>>> same_network(cd.from_spec("rt:a=4"), cd.from_spec("torus:8x4"))
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pynauty

from .topology import Topology

__all__ = ["isomorphism_classes", "same_network", "invariant_key", "labelled_key", "canonical_key",
           "NAUTY_MAX_VERTICES"]

#: nauty is asked about incidence graphs of at most this many vertices (routers + links): measured
#: (CPU s, busy 2-core machine) 0.03 for torus:8x8x8 (2,048), 0.6 for a 1,716-vertex dragonfly, 1.0 for
#: torus:16x16x8 (8,192), 2.2 for hypercube:10 (6,144), 29 for torus:16x16x16 (16,384). Larger
#: topologies are the same network only when their labelled links and PEs are equal.
NAUTY_MAX_VERTICES = 10_000


def invariant_key(topo: Topology) -> tuple:
    """What isomorphic topologies share: routers, links, the sorted (degree, PEs) of the routers."""
    deg = np.bincount(topo.links.ravel(), minlength=topo.n) if topo.num_links else np.zeros(topo.n, np.int64)
    pairs = np.sort(deg.astype(np.int64) * (int(topo.terminals.max(initial=0)) + 1) + topo.terminals)
    return (topo.n, topo.num_links, hashlib.sha256(pairs.tobytes()).hexdigest()[:24])


def labelled_key(topo: Topology) -> str:
    """Equal for topologies with the same links (either orientation, any order) and PEs on the same
    routers: the same network without relabelling."""
    links = np.sort(np.asarray(topo.links, dtype=np.int64).reshape(-1, 2), axis=1)
    links = links[np.lexsort((links[:, 1], links[:, 0]))]
    h = hashlib.sha256(np.int64(topo.n).tobytes() + links.tobytes())
    h.update(np.asarray(topo.terminals, dtype=np.int64).tobytes())
    return h.hexdigest()[:32]


def canonical_key(topo: Topology) -> str:
    """nauty's certificate of the topology's router-link incidence graph, routers coloured by PE count
    (equal for isomorphic topologies and only for them)."""
    n, m = topo.n, topo.num_links
    adjacency: dict[int, list[int]] = {n + i: [int(u), int(v)] for i, (u, v) in enumerate(topo.links)}
    levels = sorted(set(topo.terminals.tolist()))
    coloring = [set(np.flatnonzero(topo.terminals == c).tolist()) for c in levels] + [set(range(n, n + m))]
    g = pynauty.Graph(n + m, directed=False, adjacency_dict=adjacency, vertex_coloring=[c for c in coloring if c])
    return hashlib.sha256(repr(levels).encode() + pynauty.certificate(g)).hexdigest()[:32]


def same_network(a: Topology, b: Topology) -> bool:
    """Whether ``a`` and ``b`` are the same network (see the module docstring; above
    :data:`NAUTY_MAX_VERTICES` only without relabelling)."""
    return isomorphism_classes([a, b]) == [[0, 1]]


def isomorphism_classes(topos: Sequence[Topology]) -> list[list[int]]:
    """The topologies' indices grouped by network, each group and the groups in input order (topologies of
    more than :data:`NAUTY_MAX_VERTICES` routers plus links are grouped only when equal without
    relabelling)."""
    by_inv: dict[tuple, list[int]] = {}
    for i, t in enumerate(topos):
        by_inv.setdefault(invariant_key(t), []).append(i)
    owner: dict[int, int] = {}
    for members in by_inv.values():
        if len(members) == 1:
            owner[members[0]] = members[0]
            continue
        first_of: dict[str, int] = {}
        for i in members:
            t = topos[i]
            key = canonical_key(t) if t.n + t.num_links <= NAUTY_MAX_VERTICES else "labelled:" + labelled_key(t)
            owner[i] = first_of.setdefault(key, i)
    groups: dict[int, list[int]] = {}
    for i in range(len(topos)):
        groups.setdefault(owner[i], []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])
