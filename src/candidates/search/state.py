"""A search's arrays: building them, turning the best into a topology, saving
and loading them (the checkpoint of an interrupted search).

The kernels' structures (:mod:`._graph`, :mod:`._evaluate`,
:mod:`._kernels`) are named tuples of numpy arrays; this module is the only
place that allocates them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..analytics.moore import moore_bound
from ..errors import TopologyError
from ._evaluate import NRES, Obj, Work
from ._graph import Graph, Log
from ._kernels import NST, Best

__all__ = ["Lift", "base_of_links", "search_bytes", "new_graph", "new_work", "new_best", "new_log", "lifted_links",
           "snapshot", "restore", "WORK_BLOCK_BYTES", "pack_allowed", "objective_tuple"]

#: a BFS block's three bit arrays are kept below this (cache-sized; measured on 512-4096 routers)
WORK_BLOCK_BYTES = 1 << 20


@dataclass(frozen=True)
class Lift:
    """The shape of a lifted search: ``n = m * g`` routers, base routers ``m``,
    group order ``g``, at most ``ports`` links per router."""

    n: int
    m: int
    g: int
    ports: int


def base_of_links(links: np.ndarray, lift: Lift) -> np.ndarray:
    """Fixed links of the lifted graph as base links ``(u, v, s)``, one per
    orbit under ``x -> x + m``; refuses a set that is not a union of orbits.

    >>> base_of_links(np.array([[0, 1], [2, 3]]), Lift(4, 2, 2, 3)).tolist()
    [[0, 1, 0]]
    """
    n, m, g = lift.n, lift.m, lift.g
    links = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    ku, u = np.divmod(links[:, 0], m)
    kv, v = np.divmod(links[:, 1], m)
    s = (kv - ku) % g
    # one orientation per orbit: the smaller base router first (a loop: the smaller voltage)
    flip = (u > v) | ((u == v) & (s > (g - s) % g))
    u2, v2 = np.where(flip, v, u), np.where(flip, u, v)
    s2 = np.where(flip, (g - s) % g, s)
    keys, counts = np.unique(np.stack([u2, v2, s2], axis=1), axis=0, return_counts=True)
    if len(keys) and (counts != g).any():
        bad = keys[np.flatnonzero(counts != g)[0]]
        raise TopologyError(f"the fixed links are not symmetric under the search's group of order {g} (x -> x + {m} "
                            f"mod {n}): the orbit of base link {int(bad[0])}-{int(bad[1])} (voltage {int(bad[2])}) has "
                            f"{int(counts[np.flatnonzero(counts != g)[0]])} of its {g} links; use symmetry 1")
    return keys


def new_graph(lift: Lift, caps: np.ndarray, fixed: np.ndarray, start: np.ndarray | None = None,
              allow: np.ndarray | None = None) -> Graph:
    """A graph with the fixed base links ``fixed`` ((k, 3): u, v, s) in
    place, then the search's own links ``start`` (none: an empty start);
    ``allow``: the pairs that may be links, a packed bit matrix
    (:func:`pack_allowed`; None: every pair)."""
    n, m, g, D = lift.n, lift.m, lift.g, lift.ports
    caps = np.asarray(caps, dtype=np.int32)
    nfix = len(fixed)
    if start is not None and len(start):
        fixed = np.concatenate([np.asarray(fixed, dtype=np.int64).reshape(-1, 3),
                                np.asarray(start, dtype=np.int64).reshape(-1, 3)])
    emax = len(fixed) + int(caps.sum()) // 2 + 2
    G = Graph(n, m, g, nfix,
              np.zeros((n, D), np.int32), np.zeros(n, np.int32),
              np.zeros((m, D), np.int32), np.zeros((m, D), np.int32), np.full((m, D), -1, np.int32),
              np.zeros(m, np.int32), caps.copy(),
              np.zeros(emax, np.int32), np.zeros(emax, np.int32), np.zeros(emax, np.int32),
              np.zeros(emax, np.int32), np.zeros(emax, np.int32), np.zeros(1, np.int64),
              np.zeros((0, 1), np.uint64) if allow is None else allow)
    for e, (u, v, s) in enumerate(np.asarray(fixed, dtype=np.int64).tolist()):
        for w in (u, v):
            if G.bdeg[w] >= caps[w]:
                raise TopologyError(f"the fixed links use more ports than router {w} has ({caps[w]}); "
                                    "raise the degree or fix fewer links")
            G.bdeg[w] += 1
        pu, pv = (int(G.bdeg[u]) - 1, int(G.bdeg[v]) - 1) if u != v else (int(G.bdeg[u]) - 2, int(G.bdeg[u]) - 1)
        G.bto[u, pu], G.bvolt[u, pu], G.bedge[u, pu] = v, s, e
        G.bto[v, pv], G.bvolt[v, pv], G.bedge[v, pv] = u, (g - s) % g, e
        G.eu[e], G.ev[e], G.es[e], G.epu[e], G.epv[e] = u, v, s, pu, pv
    G.ecount[0] = len(fixed)
    _lift_all(G)
    return G


def _lift_all(G: Graph) -> None:
    m, g = G.m, G.g
    k = np.arange(g)
    for u in range(m):
        d = int(G.bdeg[u])
        rows = k * m + u
        G.deg[rows] = d
        if d:
            kk = (k[:, None] + G.bvolt[u, :d][None, :]) % g
            G.adj[rows, :d] = kk * m + G.bto[u, :d][None, :]


def search_bytes(lift: Lift) -> float:
    """Bytes a restart allocates: the lifted adjacency, the base ports and links
    (the graph and the best one), the BFS blocks, the path-split arrays."""
    n, m, D = lift.n, lift.m, lift.ports
    links = m * D / 2 + 2
    return (4.0 * n * (D + 1) + 2 * (12.0 * m * D + 8.0 * m + 20.0 * links) + 24.0 * n * block_words(lift)
            + 24.0 * n + 8.0 * links)


def new_best(G: Graph) -> Best:
    return Best(G.bto.copy(), G.bvolt.copy(), G.bedge.copy(), G.bdeg.copy(), G.eu.copy(), G.ev.copy(),
                G.es.copy(), G.epu.copy(), G.epv.copy(), G.ecount.copy())


def new_log() -> Log:
    z = lambda k: np.zeros(k, np.int32)  # noqa: E731
    return Log(z(16), z(16), z(16), z(16), z(16), z(8), z(8), z(8), z(8), z(8), z(8), z(4), z(4),
               np.zeros(4, np.int64))


def block_words(lift: Lift) -> int:
    """Words of sources per BFS block: all of fibre 0's, or what keeps a block's bits cache-sized."""
    need = max(1, math.ceil(lift.m / 64))
    fit = max(1, WORK_BLOCK_BYTES // (24 * lift.n))
    return int(min(need, fit))


def pack_allowed(allowed: np.ndarray) -> np.ndarray:
    """An (n, n) boolean matrix of the pairs that may be links as the
    kernels' bit matrix: bit ``v`` of row ``u`` (word ``v // 64``)."""
    a = np.asarray(allowed, dtype=bool)
    n = a.shape[0]
    words = (n + 63) // 64
    padded = np.zeros((n, words * 64), dtype=bool)
    padded[:, :n] = a
    bits = np.packbits(padded.reshape(n, words, 64), axis=2, bitorder="little")   # (n, words, 8) bytes
    return np.ascontiguousarray(bits).view("<u8").reshape(n, words).astype(np.uint64)


def new_work(lift: Lift, emax: int, resources=None) -> Work:
    n, m = lift.n, lift.m
    B = block_words(lift)
    per_source = moore_bound(n, lift.ports).aspl * (n - 1) if n >= 2 and (lift.ports > 1 or n == 2) else 0.0
    srclb = np.arange(m + 1, dtype=np.float64) * per_source
    return Work(np.zeros((n, B), np.uint64), np.zeros((n, B), np.uint64), np.zeros((n, B), np.uint64),
                np.zeros(B, np.uint64), np.zeros(B, np.uint64), srclb,
                np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.float64), np.zeros(n, np.float64),
                np.zeros(emax, np.float64), np.zeros(NRES, np.float64),
                np.zeros(2 * emax, np.float64), np.zeros(n, np.float64),
                np.zeros(0 if resources is None else len(resources.capacity), np.float64),
                np.zeros(0 if resources is None else len(resources.capacity), np.float64),
                np.zeros(1 if resources is None else resources.per_link, np.int64))


def lifted_links(lift: Lift, eu: np.ndarray, ev: np.ndarray, es: np.ndarray) -> np.ndarray:
    """The lifted graph's links, orbit by orbit, as an (E g, 2) array."""
    m, g = lift.m, lift.g
    k = np.arange(g)
    eu, ev, es = (np.asarray(a, dtype=np.int64) for a in (eu, ev, es))
    a = k[None, :] * m + eu[:, None]
    b = ((k[None, :] + es[:, None]) % g) * m + ev[:, None]
    return np.stack([a.reshape(-1), b.reshape(-1)], axis=1)


def graph_from_best(B: Best, G: Graph) -> Graph:
    """The graph ``G`` set to the best graph ``B`` (lifted afresh)."""
    for name in ("bto", "bvolt", "bedge", "bdeg", "eu", "ev", "es", "epu", "epv", "ecount"):
        getattr(G, name)[...] = getattr(B, name)
    _lift_all(G)
    return G


#: what a checkpoint keeps of the kernels' state
_SAVED = ("bto", "bvolt", "bedge", "bdeg", "eu", "ev", "es", "epu", "epv", "ecount")


def snapshot(G: Graph, B: Best, rs: np.ndarray, st: np.ndarray) -> dict[str, np.ndarray]:
    """The arrays that continue a search exactly: the current graph, the best, the generator, the statistics."""
    out = {f"g_{k}": getattr(G, k).copy() for k in _SAVED}
    out.update({f"b_{k}": getattr(B, k).copy() for k in _SAVED})
    out["rs"] = rs.copy()
    out["st"] = st.copy()
    return out


def restore(arrays: dict[str, np.ndarray], G: Graph, B: Best, rs: np.ndarray, st: np.ndarray) -> None:
    """Put a :func:`snapshot` back into freshly built structures of the same shape."""
    for k in _SAVED:
        for prefix, target in (("g_", G), ("b_", B)):
            src = np.asarray(arrays[prefix + k])
            dst = getattr(target, k)
            if src.shape != dst.shape:
                raise TopologyError("the checkpoint does not belong to this search (array shapes differ)")
            dst[...] = src
    rs[...] = arrays["rs"]
    if len(arrays["st"]) != NST:
        raise TopologyError("the checkpoint does not belong to this search (statistics differ)")
    st[...] = arrays["st"]
    _lift_all(G)


def objective_tuple(code: int, weight: float, lift: Lift, caps: np.ndarray, resources=None,
                    demands: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> Obj:
    """The kernels' view of an objective: normalisers from the Moore bound,
    the packaging's resources (:class:`~.resources.LinkResources`) and the
    traffic by source (``(indptr, dst, amount)``; None: uniform)."""
    n = lift.n
    arcs = float(lift.g) * float(np.sum(caps))   # directed arcs if every port is used
    npairs = float(n) * (n - 1)
    mb = moore_bound(n, lift.ports) if n >= 2 and (lift.ports > 1 or n == 2) else None
    aspl_ref = mb.aspl if mb else 1.0
    load_ref = max(aspl_ref * npairs / arcs, 1e-300) if arcs > 0 else 1.0
    # a tie-break far below one unit of load: among equal busiest links, fewer hops
    tie = 1e-9 / max(npairs, 1.0)
    if demands is None:
        dptr, ddst, damt = np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float64)
        dtotal = float(n) * (n - 1)
    else:
        dptr, ddst, damt = (np.asarray(demands[0], np.int64), np.asarray(demands[1], np.int32),
                            np.asarray(demands[2], np.float64))
        dtotal = float(damt.sum())
    if resources is None:
        r = (np.zeros((n, 0), np.int32), np.zeros((n, 0, 2), np.int32), np.zeros((0, 1), np.int64),
             np.zeros((0, 1), np.int32), np.zeros(0, np.int64), -1, np.zeros(0, np.float64), 0,
             np.zeros((0, 1)), np.zeros((0, 1)), np.zeros(0), 0.0, np.zeros(0))
    else:
        L, U = resources.cut_columns.shape
        r = (resources.unit, resources.slot, resources.cut_first, resources.cut_columns, resources.connector_first,
             int(resources.router_first), resources.capacity, int(resources.uniform),
             np.zeros((L, U)) if resources.row_pitch is None else np.asarray(resources.row_pitch, np.float64),
             np.zeros((L, U)) if resources.column_pitch is None else np.asarray(resources.column_pitch, np.float64),
             np.zeros(L) if resources.run is None else np.asarray(resources.run, np.float64),
             float(resources.wire_ns_per_m),
             np.zeros(0) if resources.router_ns is None else np.asarray(resources.router_ns, np.float64))
    return Obj(int(code), float(weight), max(arcs, 1.0), max(npairs, 1.0), aspl_ref, load_ref, tie,
               dptr, ddst, damt, *r, max(dtotal, 1e-300))
