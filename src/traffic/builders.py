"""The patterns' builders: each compiles a pattern for one topology into :class:`Destinations`.

A builder's keyword parameters are its pattern's options (``hotregion:fraction=0.5``); it checks
them and the topology and raises :class:`TrafficError` with one line. A sampled pattern (``random``,
``local``) and ``uniform`` also have a ``*_demands`` function: the pattern as router-level demand
pairs, one per drawn pair, which the flow solvers take (:meth:`TrafficPattern.demand_pairs`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from candidates import Topology

from .pairs import random_local_pairs, random_pairs, uniform_pairs
from .destinations import DEST_HOT, DEST_PERM, DEST_TABLE, DEST_UNIFORM, Destinations, terminal_offsets, terminal_router
from .errors import TrafficError

def uniform(topo: Topology) -> Destinations:
    T = topo.num_terminals
    return Destinations(DEST_UNIFORM, np.zeros(1, np.int64), np.zeros((1, 1)), 0, 0.0, np.ones(T))


def _from_perm(perm: np.ndarray) -> Destinations:
    perm = np.asarray(perm, dtype=np.int64)
    T = len(perm)
    perm = np.where(perm == np.arange(T), -1, perm)
    w = (perm >= 0).astype(np.float64)
    if w.sum() == 0:
        raise TrafficError("the permutation maps every terminal to itself: there is no traffic")
    w *= T / w.sum()
    return Destinations(DEST_PERM, perm, np.zeros((1, 1)), 0, 0.0, w)


def _from_matrix(M: np.ndarray) -> Destinations:
    M = np.asarray(M, dtype=np.float64)
    T = M.shape[0]
    if T > 4096:
        raise TrafficError(f"demand-matrix traffic is limited to 4096 terminals, got {T}")
    M = M.copy()
    np.fill_diagonal(M, 0.0)
    tot = M.sum(axis=1)
    if tot.sum() <= 0:
        raise TrafficError("the demand matrix has no traffic between distinct terminals")
    cdf = np.cumsum(M, axis=1)
    w = tot * (T / tot.sum())
    return Destinations(DEST_TABLE, np.zeros(1, np.int64), np.ascontiguousarray(cdf), 0, 0.0, w)


def _bits(topo: Topology, what: str, even: bool = False) -> int:
    T = topo.num_terminals
    b = T.bit_length() - 1
    if T != 1 << b or (even and b % 2):
        need = "a power of 4" if even else "a power of 2"
        raise TrafficError(f"{what} traffic needs {need} processing elements, {topo!r} has {T}")
    return b


def bitcomplement(topo: Topology) -> Destinations:
    b = _bits(topo, "bitcomplement")
    s = np.arange(1 << b)
    return _from_perm((~s) & ((1 << b) - 1))


def bitreversal(topo: Topology) -> Destinations:
    b = _bits(topo, "bitreversal")
    s = np.arange(1 << b)
    d = np.zeros_like(s)
    for i in range(b):
        d |= ((s >> i) & 1) << (b - 1 - i)
    return _from_perm(d)


def shuffle(topo: Topology) -> Destinations:
    b = _bits(topo, "shuffle")
    s = np.arange(1 << b)
    return _from_perm(((s << 1) | (s >> (b - 1))) & ((1 << b) - 1))


def butterfly(topo: Topology) -> Destinations:
    b = _bits(topo, "butterfly")
    s = np.arange(1 << b)
    hi, lo = (s >> (b - 1)) & 1, s & 1
    return _from_perm((s & ~((1 << (b - 1)) | 1)) | (lo << (b - 1)) | hi)


def transpose(topo: Topology) -> Destinations:
    b = _bits(topo, "transpose", even=True)
    h = b // 2
    s = np.arange(1 << b)
    lo = s & ((1 << h) - 1)
    return _from_perm((lo << h) | (s >> h))


def _lift_router_perm(topo: Topology, rperm: np.ndarray) -> np.ndarray:
    """Terminal k of router u -> terminal k of router rperm[u] (if it has one)."""
    off = terminal_offsets(topo)
    tr = terminal_router(topo)
    k = np.arange(topo.num_terminals) - off[tr]
    dst_r = rperm[tr]
    ok = k < topo.terminals[dst_r]
    return np.where(ok, off[dst_r] + k, -1)


def _shift_coords(topo: Topology, what: str, by: np.ndarray) -> Destinations:
    """Every router sends to the router whose coordinates are its own plus
    ``by`` (mod the size of each dimension)."""
    assert topo.coords is not None  # the pattern needs a lattice (checked by the registry first)
    shape = np.asarray(topo.shape)
    dc = (topo.coords + by) % shape
    index = {tuple(c): i for i, c in enumerate(topo.coords.tolist())}
    try:
        rperm = np.array([index[tuple(c)] for c in dc.tolist()], dtype=np.int64)
    except KeyError:
        raise TrafficError(f"{what} traffic needs every coordinate of the box to be a router; {topo!r} is not") from None
    return _from_perm(_lift_router_perm(topo, rperm))


def tornado(topo: Topology) -> Destinations:
    shape = np.asarray(topo.shape)
    return _shift_coords(topo, "tornado", (shape + 1) // 2 - 1)


def diagonal(topo: Topology) -> Destinations:
    assert topo.shape is not None  # the pattern needs a lattice (checked by the registry first)
    return _shift_coords(topo, "diagonal", np.ones(len(topo.shape), dtype=np.int64))


def neighbor(topo: Topology) -> Destinations:
    T = topo.num_terminals
    if T > 4096:
        raise TrafficError(f"neighbor traffic is limited to 4096 terminals, got {T}")
    R = np.zeros((topo.n, topo.n))
    for u in range(topo.n):
        nb = np.unique(topo.neighbors(u))
        if len(nb):
            R[u, nb] = 1.0 / len(nb)
    tr = terminal_router(topo)
    M = R[tr][:, tr] / topo.terminals[tr][None, :]
    return _from_matrix(M)


def hotregion(topo: Topology, fraction: float = 0.25, region: float = 0.125) -> Destinations:
    fraction, region = float(fraction), float(region)
    if not 0.0 <= fraction <= 1.0 or not 0.0 < region <= 1.0:
        raise TrafficError(f"hotregion needs 0 <= fraction <= 1 and 0 < region <= 1, got {fraction}, {region}")
    T = topo.num_terminals
    h = max(1, int(round(region * T)))
    # the hot region is the lowest rows (2D) / planes (3D): order routers by
    # their last coordinate first
    if topo.coords is not None:
        hot_r = np.lexsort(tuple(topo.coords.T))  # primary key: the last coordinate
    else:
        hot_r = np.arange(topo.n)
    tr_off = terminal_offsets(topo)
    hot_terms = np.concatenate([np.arange(tr_off[u], tr_off[u + 1]) for u in hot_r])[:h]
    return Destinations(DEST_HOT, np.sort(hot_terms).astype(np.int64), np.zeros((1, 1)), h, fraction, np.ones(T))


def _logical_grid(topo: Topology, grid: Any) -> tuple[int, int]:
    T = topo.num_terminals
    if grid is None:
        if topo.shape is not None and len(topo.shape) == 2 and T == topo.n and topo.coords is not None \
                and np.array_equal(topo.coords, np.stack(np.unravel_index(np.arange(topo.n), topo.shape), 1)):
            return int(topo.shape[0]), int(topo.shape[1])
        b = 1 << ((T.bit_length() - 1 + 1) // 2) if T & (T - 1) == 0 else int(round(T ** 0.5))
        if T % b == 0:
            return T // b, b
        raise TrafficError(f"localglobal traffic: give the logical grid of the {T} processes as grid=AxB")
    try:
        A, B = (int(v) for v in str(grid).lower().split("x"))
    except ValueError:
        raise TrafficError(f"localglobal grid must look like AxB (e.g. grid=16x8), got {grid!r}") from None
    if A < 1 or B < 1 or A * B != T:
        raise TrafficError(f"localglobal grid {A}x{B} must hold exactly the {T} processing elements")
    return A, B


def localglobal_matrix(T: int, A: int, B: int, alpha: float, wrap: bool = True) -> np.ndarray:
    """Process-level destination probabilities of the local/global mix.

    Process ``p = i * B + j`` sits at ``(i, j)`` of an ``A x B`` logical
    grid. With probability ``alpha`` it sends to a neighbour: on a torus
    each of the 4 directions with probability ``alpha / 4`` (a direction
    that wraps onto the process itself is dropped and the others share its
    part; in a size-2 dimension both directions reach the same process),
    on a mesh uniformly over the existing neighbours; with probability
    ``1 - alpha`` to any other process.

    >>> M = localglobal_matrix(16, 4, 4, 1.0)
    >>> M[5].nonzero()[0].tolist(), float(M[5, 1])
    ([1, 4, 6, 9], 0.25)
    """
    p = np.arange(T)
    i, j = p // B, p % B
    L = np.zeros((T, T))
    cnt = np.zeros(T)
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        ii, jj = i + di, j + dj
        if wrap:
            ii, jj = ii % A, jj % B
            ok = np.ones(T, dtype=bool)
        else:
            ok = (ii >= 0) & (ii < A) & (jj >= 0) & (jj < B)
        q = np.where(ok, ii * B + jj, p)
        ok &= q != p
        np.add.at(L, (p[ok], q[ok]), 1.0)
        cnt += ok
    L = np.divide(L, cnt[:, None], out=np.zeros_like(L), where=cnt[:, None] > 0)
    G = np.full((T, T), 1.0 / max(T - 1, 1))
    np.fill_diagonal(G, 0.0)
    a = np.where(cnt > 0, alpha, 0.0)[:, None]
    return a * L + (1.0 - a) * G


def localglobal(topo: Topology, alpha: float = 0.5, grid: Any = None, wrap: int = 1,
                 mapping: Any = None) -> Destinations:
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise TrafficError(f"localglobal needs 0 <= alpha <= 1, got {alpha}")
    T = topo.num_terminals
    A, B = _logical_grid(topo, grid)
    M = localglobal_matrix(T, A, B, alpha, bool(int(wrap)))
    if mapping is not None:
        mp = np.asarray(mapping, dtype=np.int64)
        if mp.shape != (T,) or not np.array_equal(np.sort(mp), np.arange(T)):
            raise TrafficError(f"localglobal mapping must be a permutation of the {T} terminals (process -> terminal)")
        Mt = np.zeros_like(M)
        Mt[np.ix_(mp, mp)] = M
        M = Mt
    return _from_matrix(M)


def groupshift(topo: Topology) -> Destinations:
    """Group ``i``'s PEs to group ``i + 1``'s, uniformly (groups: the first coordinate)."""
    assert topo.coords is not None  # the pattern needs groups (checked by the registry first)
    grp = np.asarray(topo.coords[:, 0], dtype=np.int64)
    g = int(grp.max()) + 1
    term_grp = grp[terminal_router(topo)]
    pes = np.bincount(term_grp, minlength=g)
    if g < 2 or (pes == 0).any():
        raise TrafficError(f"groupshift traffic needs at least two groups, each with processing elements; {topo!r} has "
                       f"{g} group(s), {int((pes == 0).sum())} without PEs")
    M = (term_grp[None, :] == (term_grp[:, None] + 1) % g).astype(np.float64)
    return _from_matrix(M / pes[(term_grp + 1) % g][:, None])


def randperm(topo: Topology, seed: int = 0) -> Destinations:
    rng = np.random.default_rng(int(seed))
    return _from_perm(rng.permutation(topo.num_terminals))


def permutation(topo: Topology, perm: Any = None) -> Destinations:
    perm = np.asarray(perm, dtype=np.int64)
    T = topo.num_terminals
    if perm.shape != (T,) or not np.array_equal(np.sort(perm), np.arange(T)):
        raise TrafficError(f"a permutation must list every terminal 0..{T - 1} once")
    return _from_perm(perm)


def matrix(topo: Topology, matrix: Any = None) -> Destinations:
    M = np.asarray(matrix, dtype=np.float64)
    T = topo.num_terminals
    if M.shape == (topo.n, topo.n) and T != topo.n:
        tr = terminal_router(topo)
        M = M[tr][:, tr] / (topo.terminals[tr][:, None] * topo.terminals[tr][None, :])
    if M.shape != (T, T):
        raise TrafficError(f"a demand matrix must be ({T}, {T}) (terminals) or ({topo.n}, {topo.n}) (routers), got {M.shape}")
    if np.any(M < 0) or not np.all(np.isfinite(M)):
        raise TrafficError("demand matrix entries must be finite and non-negative")
    return _from_matrix(M)


def _count(count: Any, what: str, example: str) -> int:
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise TrafficError(f"{what} traffic needs a number of demands >= 1, e.g. {example}, got count={count!r} "
                           "(for every PE to every other, write uniform)")
    return int(count)


def uniform_demands(topo: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every PE one unit, spread over the PEs of the other routers."""
    weights = None if (topo.terminals == 1).all() else topo.terminals
    return uniform_pairs(topo.n, weights)


def random_demands(topo: Topology, count: Any = None, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` pairs of distinct random PEs on their routers (pairs inside one router use no link: dropped).

    PEs, not routers, so that machines of equal PE count but other router counts get the same pairs.
    """
    s, d = random_pairs(topo.num_terminals, _count(count, "random", "random:128"), seed=int(seed))
    tr = terminal_router(topo)
    s, d = tr[s], tr[d]
    keep = s != d
    return s[keep], d[keep], np.ones(int(keep.sum()))


def random(topo: Topology, count: Any = None, seed: int = 0) -> Destinations:
    s, d = random_pairs(topo.num_terminals, _count(count, "random", "random:128"), seed=int(seed))
    T = topo.num_terminals
    if T > 4096:
        raise TrafficError(f"random traffic is simulated as a demand table, limited to 4096 terminals, got {T}")
    M = np.zeros((T, T))
    np.add.at(M, (s, d), 1.0)
    return _from_matrix(M)


def _local_units(topo: Topology, shares: Any) -> tuple[np.ndarray, tuple[float, ...]]:
    if topo.placement is None:
        raise TrafficError("local traffic needs a placed topology: a bgl/hierarchical candidate, or a lattice placed "
                           "in blocks (a study's physical.blocks, the flow command's --blocks)")
    sh = tuple(float(x) for x in (shares if isinstance(shares, (tuple, list)) else (shares,)))
    levels = len(sh) - 1
    if levels > topo.placement.unit.shape[1]:
        raise TrafficError(f"local traffic has {levels + 1} shares but the placement has only "
                           f"{topo.placement.unit.shape[1]} levels")
    return topo.placement.unit[:, :levels], sh


def local_demands(topo: Topology, count: Any = None, shares: Any = (0.4, 0.5, 0.1),
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` random router pairs, a share of them per packaging level."""
    unit, sh = _local_units(topo, shares)
    s, d = random_local_pairs(unit, _count(count, "local", "local:128"), sh, seed=int(seed))
    return s, d, np.ones(len(s))


def local(topo: Topology, count: Any = None, shares: Any = (0.4, 0.5, 0.1), seed: int = 0) -> Destinations:
    s, d, a = local_demands(topo, count, shares, seed)
    R = np.zeros((topo.n, topo.n))
    np.add.at(R, (s, d), a)
    return matrix(topo, R)
