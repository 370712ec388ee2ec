"""Minimal routing records of the lattice families.

A routing record ``r`` for a displacement ``d = dst - src`` is a vector with
``d == r (mod L)`` and minimum ``|r|_1``: ``r[k]`` hops along dimension ``k``,
the sign giving the direction. Its length is the hop distance.

- RT(a): Algorithm 1 of 'rtt-mapping-concentration' (torus DOR offsets).
- RTT(a): Algorithm 2 of 'rtt-mapping-concentration'.
- PTT(a): RTT(a) on the XY plane, a ring in Z.
- PDTT(a) and any other twisted torus: the shortest representative among
  the neighbouring tiles of the lattice (the method 'twisted-tori-tpds2010'
  describes for RTT with seven tiles and PDTT with 23 cases), which for the
  general family is checked against BFS when the table is built.
- torus and ring: per-dimension minimal offsets (DOR); a tie in an
  even-sized dimension goes the negative way, as Algorithm 1 does.
- mesh and path: the coordinate difference; hypercube: the bits that differ.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..capabilities import capabilities, families_with
from ..errors import TopologyError
from ..generators.lattice import reduce_to_box
from ..topology import Topology
from ._kernels import bfs_displacements

__all__ = [
    "rt_record",
    "rtt_record",
    "torus_record",
    "ptt_record",
    "lattice_record",
    "routing_records",
    "record_table",
    "record_ties",
    "has_records",
]



def _rem(x, m):
    return np.mod(x, m)


def rt_record(a: int, dx, dy) -> np.ndarray:
    """Routing record of RT(a) (Algorithm 1): arrays of x and y offsets.

    >>> rt_record(4, 5, 3).tolist()
    [-3, -1]
    """
    dx = np.asarray(dx, dtype=np.int64)
    dy = np.asarray(dy, dtype=np.int64)
    h = a // 2
    return np.stack([_rem(dx + a, 2 * a) - a, _rem(dy + h, a) - h], axis=-1)


def rtt_record(a: int, dx, dy) -> np.ndarray:
    """Routing record of RTT(a) (Algorithm 2 of 'rtt-mapping-concentration').

    >>> rtt_record(4, 4, 0).tolist()  # (4, 0) is reached as 4 hops south
    [0, -4]
    """
    dx = np.asarray(dx, dtype=np.int64)
    dy = np.asarray(dy, dtype=np.int64)
    p = _rem(dx + dy + a, 2 * a)
    q = _rem(dy - dx + a, 2 * a)
    return np.stack([(p - q) // 2, (p + q - 2 * a) // 2], axis=-1)


def torus_record(shape, d) -> np.ndarray:
    """Per-dimension minimal offsets in a torus (dimension-order routing).

    >>> torus_record((8, 8), [[5, 4]]).tolist()
    [[-3, -4]]
    """
    s = np.asarray(shape, dtype=np.int64)
    d = np.asarray(d, dtype=np.int64)
    h = s // 2
    return _rem(d + h, s) - h


def ptt_record(a: int, d) -> np.ndarray:
    """Routing record of PTT(a): RTT(a) in XY, a ring of a in Z.

    >>> ptt_record(4, [[4, 0, 3]]).tolist()
    [[0, -4, -1]]
    """
    d = np.asarray(d, dtype=np.int64).reshape(-1, 3)
    xy = rtt_record(a, d[:, 0], d[:, 1])
    h = a // 2
    z = _rem(d[:, 2] + h, a) - h
    return np.concatenate([xy, z[:, None]], axis=1)


def lattice_record(shape, lattice, d, reach: int = 1) -> np.ndarray:
    """Shortest representative of displacements ``d`` modulo the lattice.

    The displacement is first reduced into the coordinate box; the record is
    the shortest of ``box_rep - c @ lattice`` over coefficient vectors ``c``
    in ``{-reach..reach}^D``, the first in a fixed order on ties (``c = 0``
    first). With ``reach=1`` this scans the tiles next to the box.

    >>> lattice_record((8, 4, 4), [[8, 0, 0], [4, 4, 0], [4, 0, 4]], [[4, 0, 0]]).tolist()
    [[4, 0, 0]]
    """
    lattice = np.asarray(lattice, dtype=np.int64)
    d = np.asarray(d, dtype=np.int64).reshape(-1, lattice.shape[0])
    box = reduce_to_box(d, shape, lattice)
    D = lattice.shape[0]
    coeffs = sorted(
        itertools.product(range(-reach, reach + 1), repeat=D),
        key=lambda c: (sum(map(abs, c)), [abs(x) for x in c], [-x for x in c]),
    )
    shifts = np.asarray(coeffs, dtype=np.int64) @ lattice  # (C, D)
    cand = box[:, None, :] - shifts[None, :, :]
    length = np.abs(cand).sum(axis=2)
    best = np.argmin(length, axis=1)  # first minimum = preferred tile order
    return cand[np.arange(len(d)), best]


def has_records(topo: Topology) -> bool:
    """True when the family has closed-form minimal routing records."""
    return capabilities(topo).records is not None and topo.coords is not None


def routing_records(topo: Topology, src, dst) -> np.ndarray:
    """Minimal routing records from routers ``src`` to routers ``dst``.

    Returns an int array of shape (k, D); ``|r|_1`` is the hop distance.

    >>> from candidates import rtt
    >>> t = rtt(4)
    >>> routing_records(t, [t.node_index((0, 0))], [t.node_index((4, 0))]).tolist()
    [[0, -4]]
    """
    if not has_records(topo):
        raise TopologyError(
            f"no routing records for family {topo.family!r}: records exist for the families "
            f"{', '.join(families_with('records'))}; "
            "use candidates.analytics.routing.shortest_path_table for arbitrary graphs"
        )
    src = np.atleast_1d(np.asarray(src, dtype=np.int64))
    dst = np.atleast_1d(np.asarray(dst, dtype=np.int64))
    assert topo.coords is not None  # the families with records have coordinates
    d = topo.coords[dst] - topo.coords[src]
    rule = capabilities(topo).records
    if rule == "rt":
        return rt_record(topo.params["a"], d[:, 0], d[:, 1])
    if rule == "rtt":
        return rtt_record(topo.params["a"], d[:, 0], d[:, 1])
    if rule == "ptt":
        return ptt_record(topo.params["a"], d)
    if rule == "torus":
        return torus_record(topo.shape, d)
    if rule == "difference":
        return d
    if rule == "hypercube":
        return np.abs(d)
    # "tiles" (pdtt, general twisted tori): displacement class -> table from router 0
    assert topo.shape is not None and topo.lattice is not None  # tiles are those of a lattice in a box
    table = record_table(topo)
    box = reduce_to_box(d, topo.shape, topo.lattice)
    return table[np.ravel_multi_index(tuple(box.T), topo.shape)]


def record_table(topo: Topology) -> np.ndarray:
    """Records from router 0 to every router, (n, D).

    For vertex-transitive lattice families this is every displacement class,
    so it determines the records between all pairs. For the general twisted
    torus the tile search is verified against BFS distances from router 0
    and widened (then replaced by BFS displacements) if it falls short.

    >>> from candidates import pdtt
    >>> int(abs(record_table(pdtt(4))).sum(axis=1).max())  # the diameter 3a/2
    6
    """
    cached = topo.__dict__.get("_record_table")
    if cached is not None:
        return cached
    if capabilities(topo).records != "tiles":
        table = routing_records(topo, np.zeros(topo.n, dtype=np.int64), np.arange(topo.n))
    else:
        dist, disp = _bfs_lattice(topo)
        table = disp
        for reach in (1, 2):
            cand = lattice_record(topo.shape, topo.lattice, topo.coords, reach=reach)
            if np.array_equal(np.abs(cand).sum(axis=1), dist):
                table = cand
                break
    table.setflags(write=False)
    topo.__dict__["_record_table"] = table
    return table


def record_ties(topo: Topology, reach: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The minimal routing records from router 0 to every router that are
    lattice translates of the base record: ``(records (K, n, D), count
    (n,))``, router ``v``'s in ``records[:count[v], v]``, the base record
    (:func:`record_table`) first.

    The alternatives are the translates ``r + c @ L`` (``c`` in
    {-reach..reach}^D, in :func:`itertools.product` order) of the same
    length whose hops exist, each once; for vertex-transitive lattice
    families the records between any two routers are those of their
    displacement class. ``reach=1`` is the simulator's ``tie_break="random"``
    (it finds every minimal record of tori, RT, PT, PDTT; RTT and PTT need
    ``reach=2`` for some). Families without lattice ties (mesh, hypercube,
    ...) have one record.

    >>> from candidates import torus
    >>> recs, cnt = record_ties(torus((4,)))
    >>> cnt.tolist(), recs[:, 2, 0].tolist()   # the opposite router: -2 (the base) or +2
    ([1, 1, 2, 1], [-2, 2])
    """
    key = f"_record_ties_{reach}"
    cached = topo.__dict__.get(key)
    if cached is not None:
        return cached
    base = record_table(topo).astype(np.int64)
    n, D = base.shape
    count = np.ones(n, dtype=np.int64)
    alts: list[tuple[np.ndarray, np.ndarray]] = []    # (rows, their translated records)
    if capabilities(topo).ties and topo.lattice is not None:
        lat = np.asarray(topo.lattice, dtype=np.int64)
        # the directions router 0 has links in (the same at every router of these families)
        plus = np.zeros(D, dtype=bool)
        minus = np.zeros(D, dtype=bool)
        out = topo.arc_src == 0
        plus[topo.arc_dim[out & (np.arange(topo.num_arcs) % 2 == 0)]] = True
        minus[topo.arc_dim[out & (np.arange(topo.num_arcs) % 2 == 1)]] = True
        # column by column in int32, keeping only the rows a translate ties
        # (a million-router torus: 26 translates in about a second)
        cols = [np.ascontiguousarray(base[:, d], dtype=np.int32) for d in range(D)]
        length = np.abs(base).sum(axis=1).astype(np.int32)
        for c in itertools.product(range(-reach, reach + 1), repeat=lat.shape[0]):
            if not any(c):
                continue
            shift = np.asarray(c, dtype=np.int64) @ lat
            ok = length > 0
            total = np.zeros(n, dtype=np.int32)
            for d in range(D):
                x = cols[d] + np.int32(shift[d]) if shift[d] else cols[d]
                total += np.abs(x)
                if not plus[d]:
                    ok &= x <= 0
                if not minus[d]:
                    ok &= x >= 0
            idx = np.flatnonzero(ok & (total == length))
            if len(idx):
                alts.append((idx, base[idx] + shift))
    K = 1 + (int(np.bincount(np.concatenate([i for i, _ in alts]), minlength=n).max()) if alts else 0)
    records = np.zeros((K, n, D), dtype=np.int64)
    records[0] = base
    for idx, cand in alts:
        dup = np.zeros(len(idx), dtype=bool)
        for j in range(K):
            dup |= (count[idx] > j) & (records[j, idx] == cand).all(axis=1)
        records[count[idx[~dup]], idx[~dup]] = cand[~dup]
        count[idx[~dup]] += 1
    K = int(count.max())
    out_records = np.ascontiguousarray(records[:K])
    out_records.setflags(write=False)
    count.setflags(write=False)
    topo.__dict__[key] = (out_records, count)
    return out_records, count


def _bfs_lattice(topo: Topology) -> tuple[np.ndarray, np.ndarray]:
    """BFS distances and the unwrapped displacement of one shortest path."""
    D = topo.ndim
    # by construction, link i of class k goes from links[i,0] to links[i,0] + e_k
    delta = np.zeros((topo.num_arcs, D), dtype=np.int64)
    sign = np.where(np.arange(topo.num_arcs) % 2 == 0, 1, -1)
    delta[np.arange(topo.num_arcs), topo.arc_dim] = sign
    dist, disp = bfs_displacements(topo.indptr, topo.indices, delta[topo.arc_id], 0)
    return dist, disp
