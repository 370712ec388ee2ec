"""Private numba kernels of the path-based column generation: pricing.

Named structures of arrays in and out (:class:`PathResources` in,
:class:`PricedColumns` out). The shortest paths come from the Dijkstra
kernel of :mod:`flows._paths` (``sssp``), called as it is; what is here
turns a round of shortest-path trees into master-LP columns.
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np
from numba import njit

from common.jitcache import refresh_kernel_cache

from . import _paths
from ._paths import scratch, sssp

__all__ = ["PathResources", "PricedColumns", "price_round"]


class PathResources(NamedTuple):
    """What a path's master column is made of: R by channel (CSC:
    ``col_ptr``, ``col_res``, ``col_val``), the number of resource rows
    ``nres``, and each commodity's row in the master (``row_of_dem``)."""

    col_ptr: np.ndarray
    col_res: np.ndarray
    col_val: np.ndarray
    nres: int
    row_of_dem: np.ndarray


class PricedColumns(NamedTuple):
    """A pricing round (:func:`price_round`): ``dist`` per commodity (None
    for a subset), ``count`` new columns, the ``commodity`` of each, their
    path channels as CSR (``path_ptr``, ``path_arcs``) and their master
    entries as CSC (``col_ptr``, ``col_rows``, ``col_vals``)."""

    dist: np.ndarray | None
    count: int
    commodity: np.ndarray
    path_ptr: np.ndarray
    path_arcs: np.ndarray
    col_ptr: np.ndarray
    col_rows: np.ndarray
    col_vals: np.ndarray


@njit(cache=True, nogil=True)
def _grow_i(a, need):
    if need <= len(a):
        return a
    size = max(2 * len(a), need)
    b = np.empty(size, dtype=a.dtype)
    b[: len(a)] = a
    return b


@njit(cache=True, nogil=True)
def _grow_f(a, need):
    if need <= len(a):
        return a
    size = max(2 * len(a), need)
    b = np.empty(size)
    b[: len(a)] = a
    return b


@njit(cache=True, nogil=True)
def price_round(channels, groups, length, z, rel_tol, check_len, paths, select):
    """One pricing round: a shortest-path tree per group (``groups``:
    :class:`flows.groups.DemandGroups`) under channel ``length`` (``channels``:
    :class:`flows.groups.Channels`; ``tails[a]`` the tail of channel a in
    that orientation), columns made of ``paths`` (:class:`PathResources`).

    Commodity k (group order: group g holds ``groups.ptr[g]:groups.ptr[g+1]``,
    destination ``groups.dst[k]``) gets a column when its shortest path is
    shorter than ``z[k]`` by more than ``rel_tol * z[k]``, measured under
    ``check_len`` when that is not empty (the master's own prices when
    ``length`` is a smoothed one), else under ``length``. With ``select`` false nothing is tested and every commodity gets
    its path (the initial columns).

    Returns :class:`PricedColumns` (the master entries: resource rows
    ``0..nres-1`` with R summed along the path, then the commodity's row
    ``row_of_dem[k]`` with 1).
    """
    n = len(channels.indptr) - 1
    m = len(channels.heads)
    tails = channels.tails
    grp_ptr, grp_src, dem_dst = groups.ptr, groups.sources, groups.dst
    col_ptr, col_res, col_val = paths.col_ptr, paths.col_res, paths.col_val
    nres, row_of_dem = paths.nres, paths.row_of_dem
    G = len(grp_src)
    K = len(dem_dst)
    work = scratch(n, m)
    dist, parent = work.dist, work.parent
    acc = np.zeros(nres)
    rmark = np.full(nres, -1, dtype=np.int64)
    rlist = np.empty(nres, dtype=np.int64)
    dk = np.empty(K)
    col_k = np.empty(16, dtype=np.int64)
    p_ptr = np.zeros(17, dtype=np.int64)
    p_arc = np.empty(256, dtype=np.int64)
    c_ptr = np.zeros(17, dtype=np.int64)
    c_row = np.empty(256, dtype=np.int32)
    c_val = np.empty(256)
    ncol = 0
    stamp = 0
    use_check = len(check_len) > 0
    for g in range(G):
        stamp += 1
        sssp(channels, length, grp_src[g], work, dem_dst[grp_ptr[g]:grp_ptr[g + 1]], stamp)
        for k in range(grp_ptr[g], grp_ptr[g + 1]):
            t = dem_dst[k]
            dk[k] = dist[t]
            if select and not use_check and not dist[t] < z[k] * (1.0 - rel_tol):
                continue
            if select and use_check:
                s = 0.0
                v = t
                while parent[v] >= 0:
                    s += check_len[parent[v]]
                    v = tails[parent[v]]
                if not s < z[k] * (1.0 - rel_tol):
                    continue
            # the path: walk the tree from t to the root
            if ncol + 1 >= len(col_k):
                col_k = _grow_i(col_k, 2 * (ncol + 1))
                p_ptr = _grow_i(p_ptr, 2 * (ncol + 2))
                c_ptr = _grow_i(c_ptr, 2 * (ncol + 2))
            col_k[ncol] = k
            pp = p_ptr[ncol]
            cp = c_ptr[ncol]
            nr = 0
            v = t
            while parent[v] >= 0:
                a = parent[v]
                p_arc = _grow_i(p_arc, pp + 1)
                p_arc[pp] = a
                pp += 1
                for e in range(col_ptr[a], col_ptr[a + 1]):
                    r = col_res[e]
                    if rmark[r] != ncol:
                        rmark[r] = ncol
                        rlist[nr] = r
                        nr += 1
                        acc[r] = 0.0
                    acc[r] += col_val[e]
                v = tails[a]
            p_ptr[ncol + 1] = pp
            c_row = _grow_i(c_row, cp + nr + 1)
            c_val = _grow_f(c_val, cp + nr + 1)
            for i in range(nr):
                r = rlist[i]
                c_row[cp + i] = r
                c_val[cp + i] = acc[r]
            c_row[cp + nr] = row_of_dem[k]
            c_val[cp + nr] = 1.0
            c_ptr[ncol + 1] = cp + nr + 1
            ncol += 1
    return PricedColumns(dk, ncol, col_k[:ncol], p_ptr[: ncol + 1], p_arc[: p_ptr[ncol]], c_ptr[: ncol + 1],
                         c_row[: c_ptr[ncol]], c_val[: c_ptr[ncol]])


# numba checks only this file's source for freshness: the helpers and
# constants inlined from the modules named here count too
refresh_kernel_cache(sys.modules[__name__], (_paths,))
