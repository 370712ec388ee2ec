"""The queueing latency by column generation with a second-order-cone master (Clarabel).

The restricted master holds, per demand k, the paths found so far (columns
``x_p``), per used channel a its spare width ``u_a`` and the epigraph ``t_a``
of its wait::

    min  sum_p lat(p) x_p + sum_a t_a + M sum_k art_k
    s.t. sum_{p of k} x_p + art_k = d_k                 (demand k)
         R (P x + u) <= c                               (resources; dual y >= 0)
         tau f_a^2 <= t_a u_a,  f = P x                 (a rotated cone per channel)
         x, art >= 0

a convex conic program that Clarabel (an interior-point conic solver) solves
to 1e-8. ``art_k`` (cost ``M``, tenfold after every master that still uses it)
keeps the first masters feasible. Pricing is the
Lagrangian bound of :mod:`flows.deviation`: shortest paths under
``latency_a + p_a + 2 sqrt(tau p_a)`` with ``p = R^T y``, the master's
resource duals, give the certified lower bound ``sum_k d_k dist(k) - c . y``
and the next columns. The upper bound is the master's design (its flow rescaled to route every
demand exactly, its spare widths shrunk where the resources need it).

Where resources are shared (flexible wiring), flow deviation's Frank-Wolfe
crawls near capacity and this converges in a handful of masters (measured:
docs/results/flows.md); with fixed widths the projection method needs no
master at all.
"""

from __future__ import annotations

import math
import time

import clarabel
import numpy as np
import scipy.sparse as sp

from ._deviation_kernels import all_or_nothing, shortest_path_arcs
from ._spare import fit_spare

__all__ = ["conic_column_generation"]

#: the artificial columns' cost per unit: this times the longest possible path's latency and wait ...
_ART = 1e3
#: ... or, given a start flow, this times its average latency (raised tenfold while still used)
_ART_OVER_START = 100.0
#: artificial flow above this fraction of the demand is used, not the master's tolerance (1e-7) at work
_ART_LEFT = 1e-6


def _master(columns, owner, K, A, R, c, lat, tau, amount, big):
    """Solve the restricted master: (path flows, artificials, resource duals, path-arc matrix, spare widths
    per arc, status)."""
    m = len(owner)
    lens = np.fromiter((len(p) for p in columns), dtype=np.int64, count=m)
    rows = np.concatenate([np.asarray(p, dtype=np.int64) for p in columns]) if m else np.zeros(0, np.int64)
    P = sp.csr_matrix((np.ones(len(rows)), (rows, np.repeat(np.arange(m), lens))), shape=(A, m))
    used = np.flatnonzero(np.diff(P.indptr) > 0)
    U = len(used)
    Pu = P[used]
    nres = R.shape[0]
    E = sp.csr_matrix((np.ones(m), (np.asarray(owner), np.arange(m))), shape=(K, m))
    Ru = R[:, used]

    def zero(r, cc):
        return sp.csr_matrix((r, cc))

    nv = m + K + 2 * U          # x, art, u, t
    I_U = sp.identity(U, format="csr")
    eq = sp.hstack([E, sp.identity(K, format="csr"), zero(K, U), zero(K, U)])
    res = sp.hstack([R @ P, zero(nres, K), Ru, zero(nres, U)])
    pos = sp.hstack([-sp.identity(m + K, format="csr"), zero(m + K, 2 * U)])
    # the cone of channel a: (t + u, t - u, 2 sqrt(tau) f) in SOC(3), i.e. tau f^2 <= t u; s = b - A z
    # (the flows f = P x written out as variables with their own rows measured slower: 45 s against 35)
    r1 = sp.hstack([zero(U, m + K), -I_U, -I_U])
    r2 = sp.hstack([zero(U, m + K), I_U, -I_U])
    r3 = sp.hstack([-2.0 * math.sqrt(tau) * Pu, zero(U, K), zero(U, 2 * U)])
    cone = sp.vstack([r1, r2, r3]).tocsr()
    perm = np.empty(3 * U, dtype=np.int64)
    perm[0::3], perm[1::3], perm[2::3] = np.arange(U), U + np.arange(U), 2 * U + np.arange(U)
    Amat = sp.vstack([eq, res, pos, cone[perm]]).tocsc()
    b = np.concatenate([amount, c, np.zeros(m + K), np.zeros(3 * U)])
    q = np.concatenate([P.T @ lat, np.full(K, big), np.zeros(U), np.ones(U)])
    cones = [clarabel.ZeroConeT(K), clarabel.NonnegativeConeT(nres + m + K)] + [clarabel.SecondOrderConeT(3)] * U
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    # the duals price the next columns and bound the optimum (any y >= 0 bounds it): 1e-7 serves
    # eps down to 1e-4 and saves a third of the interior-point iterations of the default 1e-8
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-7
    sol = clarabel.DefaultSolver(sp.csc_matrix((nv, nv)), q, Amat, b, cones, settings).solve()
    x = np.maximum(np.asarray(sol.x[:m]), 0.0)
    art = np.maximum(np.asarray(sol.x[m:m + K]), 0.0)
    y = np.maximum(np.asarray(sol.z[K:K + nres]), 0.0)
    u = np.zeros(A)
    u[used] = np.maximum(np.asarray(sol.x[m + K:m + K + U]), 0.0)
    return x, art, y, P, u, str(sol.status)


def _design_value(f: np.ndarray, u: np.ndarray, R, Rc, c: np.ndarray, lat: np.ndarray, tau: float):
    """The latency of flow ``f`` with the spare widths ``u`` fitted to what the flow leaves
    (:func:`flows._spare.fit_spare`), and the channel widths; inf where no design results (a resource
    full, or a channel with flow and no spare width)."""
    s = c - R @ f
    if np.any(s <= 0):
        return math.inf, None
    fit = fit_spare(R, Rc, u, s)
    on = f > 0
    if np.any(fit[on] <= 0):
        return math.inf, None
    return float(lat @ f) + float(np.sum(tau * f[on] ** 2 / fit[on])), f + fit


def conic_column_generation(problem, grp, ch, widths, tau: float, eps: float, lower: float, max_rounds: int,
                            deadline: float | None, report, start: np.ndarray | None = None):
    """Column generation for the queueing latency: (flow, upper, lower, rounds, status, prices).
    The first columns: every demand's latency-shortest path and, given a
    flow ``start`` inside the resources (the capacity's), its shortest path
    under that flow's marginal latencies."""
    K = len(grp.dst)
    A = problem.num_arcs
    R = problem.R.tocsr()
    Rc = R.tocsc()
    c = problem.capacity
    lat = np.asarray(problem.latency, dtype=np.float64)
    total = float(grp.amount.sum())
    width = min(problem.n - 1, 4096)
    arcs = np.zeros((K, width), dtype=np.int64)
    lens = np.zeros(K, dtype=np.int64)
    seen: set[tuple[int, tuple[int, ...]]] = set()
    columns: list[tuple[int, ...]] = []
    owner: list[int] = []

    def add(cost) -> tuple[float, int]:
        value = shortest_path_arcs(ch, grp, cost, arcs, lens)
        new = 0
        for k in range(K):
            if lens[k] < 0:
                continue
            path = tuple(int(a) for a in arcs[k, :lens[k]])
            if (k, path) not in seen:
                seen.add((k, path))
                columns.append(path)
                owner.append(k)
                new += 1
        return value, new

    add(lat)
    big = _ART * max(1.0, float(lat.max()) * problem.n) + tau * problem.n
    if start is not None and widths.inside(start):
        q0, g0, _, _ = widths.evaluate(start)
        add(lat + g0)
        # a big M far above the start's latency per unit, but not so far that the master's
        # conditioning suffers (measured: 1e3 x the longest path's latency cost a third more time)
        big = _ART_OVER_START * (float(lat @ start) + q0) / total
    big = max(big, 1e-12)
    upper = math.inf
    best = np.zeros(A)
    best_prices = None
    best_widths = None
    rounds = 0
    status = "optimal"
    s = np.zeros(A)
    while True:
        rounds += 1
        x, art, y, P, u, how = _master(columns, owner, K, A, R, c, lat, tau, grp.amount, big)
        p = R.T @ y
        cost = lat + p + 2.0 * np.sqrt(tau * p)
        lower = max(lower, all_or_nothing(ch, grp, cost, s) - float(c @ y))
        # the master's routing, every demand's paths rescaled to carry it exactly, with the master's own
        # spare widths fitted to what it leaves: a feasible design, so its latency bounds the
        # optimum from above (re-solving the widths for the flow instead needs an inner solve that converges
        # slowly where many resources overlap: measured 1000 Newton rounds to 2% on a BG/L midplane)
        carried = np.bincount(np.asarray(owner), weights=x, minlength=K)
        if np.all(carried > 0):
            scale = grp.amount / carried
            f = P @ (x * scale[np.asarray(owner)])
            value, w = _design_value(f, u, R, Rc, c, lat, tau)
            if value < upper:
                upper, best, best_prices, best_widths = value, f, y, w
        gap = upper / lower - 1.0 if lower > 0 else math.inf
        report(rounds, lower_bound=lower / total, upper_bound=upper / total, gap=gap)
        if gap <= eps:
            break
        _, new = add(cost)
        left = float(art.sum())
        if left > _ART_LEFT * total or (new == 0 and left > 1e-9 * total):
            # the master still pays M rather than route: near capacity a unit's marginal wait outgrows M,
            # and new columns alone do not change that (measured: 9 masters with the same artificial flow)
            big *= 10.0
        elif new == 0:
            if "Solved" not in how:
                status = f"gap {gap:.3g}: the conic master stopped ({how}) after {rounds} masters"
                break
            else:
                # nothing new to price and no artificial flow: the master's numerical limit
                status = f"gap {gap:.3g} after {rounds} masters (no new columns)"
                break
        if rounds >= max_rounds or (deadline is not None and time.perf_counter() > deadline):
            status = f"gap {gap:.3g} after {rounds} masters"
            break
    return best, upper, lower, rounds, status, best_prices, best_widths
