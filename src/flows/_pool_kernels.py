"""Private numba kernel of column generation's ``"mwu"`` master: the
restricted min-congestion problem over a fixed pool of paths, solved
approximately by minimising an exponential potential.

Named structures of arrays in and out: the pool (:class:`PathPool`) is
sorted by commodity: commodity k's columns are ``k_ptr[k]:k_ptr[k+1]``;
column j's resource entries (R summed along its path) are
``crow/cval[cptr[j]:cptr[j+1]]``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["PathPool", "SweepParams", "Sweeps", "potential_sweeps", "pool_min_lengths", "CONT"]


class PathPool(NamedTuple):
    """The pool's columns by commodity (``k_ptr``, int64) and their resource
    entries (``cptr``, ``crow``: int64; ``cval``: float64)."""

    k_ptr: np.ndarray
    cptr: np.ndarray
    crow: np.ndarray
    cval: np.ndarray


class SweepParams(NamedTuple):
    """:func:`potential_sweeps`' knobs: the potential's stiffness relative to
    the congestion (``beta_rel``, at most ``beta_max``), the sweep budget,
    the restricted gap to stop at, the Newton step's damping, and how many
    sweeps between evaluations of the gap."""

    beta_rel: float
    beta_max: float
    max_sweeps: int
    inner_tol: float
    damping: float
    eval_every: int


class Sweeps(NamedTuple):
    """What :func:`potential_sweeps` returns: the sweeps run, the restricted
    gap, the prices ``y``, each commodity's shortest pool path ``zk`` under
    them, and the final ``beta_rel``."""

    sweeps: int
    gap: float
    y: np.ndarray
    zk: np.ndarray
    beta_rel: float


#: beta_rel follows CONT / (restricted gap) (measured: 8 closes the gap
#: geometrically on the 4096-router torus and the small test instances)
CONT = 8.0


@njit(cache=True, nogil=True)
def _refresh(load, cap, beta, e):
    """e_r = exp(beta (u_r - max u)); returns max u."""
    umax = 0.0
    for r in range(len(load)):
        u = load[r] / cap[r]
        if u > umax:
            umax = u
    for r in range(len(load)):
        e[r] = math.exp(beta * (load[r] / cap[r] - umax))
    return umax


@njit(cache=True, nogil=True)
def potential_sweeps(pool, dem, cap, x, load, params):
    """Gauss-Seidel sweeps over the commodities minimising
    ``F(x) = sum_r exp(beta * load_r / cap_r)`` with every commodity's flow
    ``sum_p x_p = dem_k`` kept: each commodity shifts flow from its longer
    paths to its shortest one (lengths ``dF/dx_p``, the exponential weights
    ``e_r / cap_r`` summed along the path) by a damped Newton step on the
    two paths' difference (Bertsekas-Gafni projection).

    ``pool``: :class:`PathPool`; ``params``: :class:`SweepParams`.
    ``beta = beta_rel / max u`` (beta_rel follows the gap, up to
    ``beta_max``). ``x`` and ``load`` (``R x``) are updated in place. Stops after
    ``max_sweeps`` or once the restricted gap ``max u / (sum_k d_k
    min_p len(p) / sum_r e_r) - 1`` is at most ``inner_tol`` (the weights
    ``y_r = e_r / cap_r`` are a dual of the restricted problem; that bound
    is not valid outside the pool). Returns :class:`Sweeps`.
    """
    k_ptr, cptr, crow, cval = pool.k_ptr, pool.cptr, pool.crow, pool.cval
    beta_rel = params.beta_rel
    beta_max = params.beta_max
    max_sweeps = params.max_sweeps
    inner_tol = params.inner_tol
    damping = params.damping
    eval_every = params.eval_every
    nres = len(cap)
    K = len(k_ptr) - 1
    e = np.empty(nres)
    tmp = np.zeros(nres)
    tmark = np.full(nres, -1, dtype=np.int64)
    tlist = np.empty(nres, dtype=np.int64)
    stamp = 0
    zk = np.empty(K)
    gap = np.inf
    sweeps = 0
    inv_cap = 1.0 / cap
    w = np.empty(nres)
    mu = 0.0
    for r in range(nres):
        mu = max(mu, load[r] * inv_cap[r])
    beta = beta_rel / mu
    for sweep in range(max_sweeps):
        umax = _refresh(load, cap, beta, e)
        for r in range(nres):
            w[r] = e[r] * inv_cap[r]
        for k in range(K):
            j0 = k_ptr[k]
            j1 = k_ptr[k + 1]
            if j1 - j0 == 1:
                continue
            # the shortest path of k under the current weights
            best = j0
            bestL = np.inf
            for j in range(j0, j1):
                L = 0.0
                for q in range(cptr[j], cptr[j + 1]):
                    L += cval[q] * w[crow[q]]
                if L < bestL:
                    bestL = L
                    best = j
            for j in range(j0, j1):
                if j == best or x[j] <= 0.0:
                    continue
                # difference of the two columns' resource entries
                stamp += 1
                nt = 0
                for side in range(2):     # + column j, - the best column
                    col = j if side == 0 else best
                    sign = 1.0 if side == 0 else -1.0
                    for q in range(cptr[col], cptr[col + 1]):
                        r = crow[q]
                        if tmark[r] != stamp:
                            tmark[r] = stamp
                            tmp[r] = 0.0
                            tlist[nt] = r
                            nt += 1
                        tmp[r] += sign * cval[q]
                g = 0.0
                hess = 0.0
                for i in range(nt):
                    r = tlist[i]
                    g += tmp[r] * w[r]
                    hess += tmp[r] * tmp[r] * w[r] * inv_cap[r]
                if g <= 0.0 or hess <= 0.0:
                    continue
                step = damping * g / (beta * hess)
                if step > x[j]:
                    step = x[j]
                x[j] -= step
                x[best] += step
                for i in range(nt):
                    r = tlist[i]
                    load[r] -= step * tmp[r]
                    # e_r *= exp(-beta step tmp_r / cap_r); a short series
                    # where the argument is small (most updates: this is the
                    # kernel's hot loop), clamped where a resource passes
                    # the sweep's reference maximum by far
                    a = -beta * step * tmp[r] * inv_cap[r]
                    if -0.05 < a < 0.05:
                        e[r] *= 1.0 + a * (1.0 + a * (0.5 + a * (1.0 / 6.0 + a * (1.0 / 24.0))))
                    else:
                        e[r] = math.exp(min(beta * (load[r] * inv_cap[r] - umax), 600.0))
                    w[r] = e[r] * inv_cap[r]
        sweeps = sweep + 1
        # the evaluation costs about half a sweep: every few sweeps
        if sweeps % eval_every == 0 or sweeps == max_sweeps:
            gap = _evaluate(pool, dem, cap, load, beta, e, zk)
            if gap <= inner_tol:
                break
            # continuation: the potential's gap cannot close much below
            # ~1/beta_rel, and a stiff potential (large beta_rel) far from
            # its minimum converges slowly, so beta_rel follows the gap
            # (by at most 4x up or 2x down per evaluation: a degenerate
            # pool can show a zero gap that new columns then reopen)
            target = min(max(CONT / gap, 0.5 * beta_rel), 4.0 * beta_rel)
            target = min(max(target, CONT), beta_max)
            if target != beta_rel:
                beta_rel = target
                beta = beta_rel / mu
    if sweeps == 0 or (sweeps % eval_every != 0 and sweeps != max_sweeps):
        gap = _evaluate(pool, dem, cap, load, beta, e, zk)
    y = np.empty(nres)
    for r in range(nres):
        y[r] = e[r] / cap[r]
    return Sweeps(sweeps, gap, y, zk, beta_rel)


@njit(cache=True, nogil=True)
def _evaluate(pool, dem, cap, load, beta, e, zk):
    """Fresh weights ``e``, each commodity's shortest pool path ``zk`` under
    ``y = e / cap``, and the restricted gap ``max u / (sum_k d_k zk / sum_r
    e_r) - 1`` (weak duality within the pool only)."""
    k_ptr, cptr, crow, cval = pool.k_ptr, pool.cptr, pool.crow, pool.cval
    umax = _refresh(load, cap, beta, e)
    num = 0.0
    for k in range(len(k_ptr) - 1):
        best = np.inf
        for j in range(k_ptr[k], k_ptr[k + 1]):
            L = 0.0
            for q in range(cptr[j], cptr[j + 1]):
                L += cval[q] * e[crow[q]] / cap[crow[q]]
            if L < best:
                best = L
        zk[k] = best
        num += dem[k] * best
    se = 0.0
    for r in range(len(e)):
        se += e[r]
    lower = num / se
    return umax / lower - 1.0 if lower > 0 else np.inf


@njit(cache=True, nogil=True)
def pool_min_lengths(pool, y):
    """Each commodity's shortest pool path length under prices ``y`` (``pool``: :class:`PathPool`)."""
    k_ptr, cptr, crow, cval = pool.k_ptr, pool.cptr, pool.crow, pool.cval
    K = len(k_ptr) - 1
    zk = np.empty(K)
    for k in range(K):
        best = np.inf
        for j in range(k_ptr[k], k_ptr[k + 1]):
            L = 0.0
            for q in range(cptr[j], cptr[j + 1]):
                L += cval[q] * y[crow[q]]
            if L < best:
                best = L
        zk[k] = best
    return zk
