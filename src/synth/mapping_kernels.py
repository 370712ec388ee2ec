"""Numba kernel of simulated-annealing task placement (plain arrays in and out).

>>> import numpy as np
>>> indptr, nbr, wt = np.array([0, 1, 2]), np.array([1, 0]), np.array([1.0, 1.0])
>>> dist = np.array([[0.0, 1.0], [1.0, 0.0]])
>>> slot_task, task_slot = np.array([0, 1]), np.array([0, 1])
>>> move_delta(indptr, nbr, wt, dist, np.array([0, 1]), slot_task, task_slot, 0, 1)
0.0
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["move_delta", "anneal_stage"]


@njit(cache=True)
def move_delta(indptr, nbr, wt, dist, slot_router, slot_task, task_slot, u, b):
    """Cost change when task ``u`` moves to slot ``b`` (swapping with its task, if any).

    The cost is sum over task pairs {i, j} of ``w_ij * dist[router_i, router_j]``
    with the symmetric weights in CSR (``indptr``, ``nbr``, ``wt``).
    """
    a = task_slot[u]
    ra = slot_router[a]
    rb = slot_router[b]
    if ra == rb:
        return 0.0
    v = slot_task[b]
    d = 0.0
    for e in range(indptr[u], indptr[u + 1]):
        k = nbr[e]
        if k == v or k == u:
            continue
        rk = slot_router[task_slot[k]]
        d += wt[e] * (dist[rb, rk] - dist[ra, rk])
    if v >= 0:
        for e in range(indptr[v], indptr[v + 1]):
            k = nbr[e]
            if k == u or k == v:
                continue
            rk = slot_router[task_slot[k]]
            d += wt[e] * (dist[ra, rk] - dist[rb, rk])
    return d


@njit(cache=True)
def anneal_stage(indptr, nbr, wt, dist, slot_router, slot_task, task_slot, best_slot,
                 r_indptr, r_indices, r_slot0, r_nslot, local_share,
                 picks_task, picks_slot, mode_u, pick_u, temperature, cost, best_cost):
    """Run one temperature stage of Metropolis moves in place.

    Move ``i`` takes task ``u = picks_task[i]``. With probability
    ``local_share`` (``mode_u[i] < local_share``) and when ``u`` has
    partners, the target slot is drawn near a partner: a partner ``k`` of
    ``u``, then the router of ``k`` or one of its neighbours (CSR
    ``r_indptr``/``r_indices``), then one of that router's slots
    (``r_slot0``/``r_nslot``), all from the uniforms ``pick_u[i, 0:3]``;
    otherwise the slot is ``picks_slot[i]``. The move is accepted when
    ``delta <= 0`` or ``pick_u[i, 3] < exp(-delta / temperature)``.
    ``best_slot`` is overwritten whenever the cost drops below ``best_cost``.
    Returns (cost, best_cost, accepted moves).
    """
    accepted = 0
    for i in range(len(picks_task)):
        u = picks_task[i]
        a = task_slot[u]
        deg = indptr[u + 1] - indptr[u]
        if mode_u[i] < local_share and deg > 0:
            k = nbr[indptr[u] + min(int(pick_u[i, 0] * deg), deg - 1)]
            rk = slot_router[task_slot[k]]
            nr = r_indptr[rk + 1] - r_indptr[rk] + 1
            j = min(int(pick_u[i, 1] * nr), nr - 1)
            r = rk if j == 0 else r_indices[r_indptr[rk] + j - 1]
            ns = r_nslot[r]
            b = r_slot0[r] + min(int(pick_u[i, 2] * ns), ns - 1)
        else:
            b = picks_slot[i]
        if a == b:
            continue
        delta = move_delta(indptr, nbr, wt, dist, slot_router, slot_task, task_slot, u, b)
        if delta > 0.0 and pick_u[i, 3] >= np.exp(-delta / temperature):
            continue
        v = slot_task[b]
        slot_task[b] = u
        slot_task[a] = v
        task_slot[u] = b
        if v >= 0:
            task_slot[v] = a
        cost += delta
        accepted += 1
        if cost < best_cost - 1e-9 * (1.0 + abs(best_cost)):
            best_cost = cost
            best_slot[:] = task_slot
    return cost, best_cost, accepted
