"""Private numba kernels of the path-based column generation: pricing.

Plain arrays in and out. The shortest paths come from the Dijkstra kernel of
``_kernels`` (``sssp``), called as it is; what is here turns a round of
shortest-path trees into master-LP columns.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from common.jitcache import refresh_kernel_cache

from . import _kernels
from ._kernels import sssp


@njit(cache=True)
def _grow_i(a, need):
    if need <= len(a):
        return a
    size = max(2 * len(a), need)
    b = np.empty(size, dtype=a.dtype)
    b[: len(a)] = a
    return b


@njit(cache=True)
def _grow_f(a, need):
    if need <= len(a):
        return a
    size = max(2 * len(a), need)
    b = np.empty(size)
    b[: len(a)] = a
    return b


@njit(cache=True)
def price_round(indptr, heads, arcs, tails, length, grp_ptr, grp_src, dem_dst, z, rel_tol, check_len,
                col_ptr, col_res, col_val, nres, row_of_dem, select):
    """One pricing round: a shortest-path tree per group under ``length``
(CSR by tail as in ``flows.ptas.grouped``; ``tails[a]`` the tail of channel
a in that orientation).

    Commodity k (group order: group g holds ``grp_ptr[g]:grp_ptr[g+1]``,
    destination ``dem_dst[k]``) gets a column when its shortest path is
    shorter than ``z[k]`` by more than ``rel_tol * z[k]``, measured under
    ``check_len`` when that is not empty (the master's own prices when
    ``length`` is a smoothed one), else under ``length``. With ``select`` false nothing is tested and every commodity gets
    its path (the initial columns).

    Returns (dist per commodity, number of new columns, commodity of each,
    path arcs as CSR (ptr, arcs), master column entries as CSC (ptr, rows,
    values): resource rows ``0..nres-1`` with R summed along the path, then
    the commodity's row ``row_of_dem[k]`` with 1).
    """
    n = len(indptr) - 1
    m = len(heads)
    G = len(grp_src)
    K = len(dem_dst)
    dist = np.empty(n)
    parent = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    mark = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, dtype=np.int64)
    heap_d = np.empty(m + 1)
    heap_v = np.empty(m + 1, dtype=np.int64)
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
        sssp(indptr, heads, arcs, length, grp_src[g], dist, parent, order, mark,
             dem_dst[grp_ptr[g]:grp_ptr[g + 1]], stamp, heap_d, heap_v, done)
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
    return dk, ncol, col_k[:ncol], p_ptr[: ncol + 1], p_arc[: p_ptr[ncol]], c_ptr[: ncol + 1], \
        c_row[: c_ptr[ncol]], c_val[: c_ptr[ncol]]


# numba checks only this file's source for freshness: the helpers and
# constants inlined from the modules named here count too
refresh_kernel_cache(sys.modules[__name__], (_kernels,))
