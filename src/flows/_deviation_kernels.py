"""The flow deviation kernels (numba): the linear oracle and the projection method's sweeps.

- :func:`all_or_nothing` routes every demand on shortest paths under a
  channel cost, split evenly over ties (Dijkstra from each group's router,
  then :func:`flows._paths.split_dag_flow`): Frank-Wolfe's direction and,
  for every method, the Lagrangian bound. On the symmetric networks of this
  tool a single tree per source would pile a tie's load on one direction.
- :func:`projection_sweep` is one Gauss-Seidel sweep of Bertsekas and
  Gafni's projected Newton method over each demand's paths (:class:`Paths`)
  under the queueing cost of fixed-width channels (:class:`ArcCost`), with
  :func:`seed_paths` (every demand on a latency-shortest path) and
  :func:`arc_flows` (the channels' flows from the paths).
- :func:`shortest_path_arcs` gives every demand's shortest path as its
  channels: the columns the second-order-cone master of
  :mod:`flows.conic` prices in.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._paths import dijkstra, split_dag_flow

__all__ = ["all_or_nothing", "ArcCost", "Paths", "arc_flows", "extended_value", "first_derivatives", "projection_sweep",
           "seed_paths", "shortest_path_arcs"]


@njit(cache=True, nogil=True)
def all_or_nothing(channels, groups, cost, flow):
    """Route every group's demands on ``cost``-shortest paths into ``flow``
    (overwritten; indexed by the problem's channels) and return the total
    cost ``sum_k d_k dist(k)`` (inf if a demand is unreachable)."""
    n = len(channels.indptr) - 1
    m = len(channels.heads)
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    acc = np.zeros(n)
    in_ptr = np.zeros(n + 1, dtype=np.int64)
    in_k = np.zeros(max(m, 1), dtype=np.int64)
    for a in range(len(flow)):
        flow[a] = 0.0
    total = 0.0
    for g in range(len(groups.sources)):
        settled = dijkstra(channels, cost, groups.sources[g], dist, parent, order)
        for k in range(groups.ptr[g], groups.ptr[g + 1]):
            t = groups.dst[k]
            total += groups.amount[k] * dist[t]
            acc[t] += groups.amount[k]
        split_dag_flow(channels, cost, order, settled, dist, acc, flow, in_ptr, in_k)
    return total


class ArcCost(NamedTuple):
    """The queueing model's cost of every channel with fixed widths:
    ``latency + tau f / (w - f)`` per unit of flow, continued beyond
    ``rho0 * w`` by its second-order Taylor expansion there (convex, finite
    everywhere, equal to the model below ``rho0 * w`` and below it above):
    ``lat``, ``width`` (inf: no queue) and ``tau``, ``rho0`` (arrays of one)."""

    lat: np.ndarray
    width: np.ndarray
    tau: np.ndarray
    rho0: np.ndarray


class Paths(NamedTuple):
    """Each demand's paths: ``arcs[k, j, :length[k, j]]`` (the channels,
    from the demand's far end to its group's router) carrying ``flow[k, j]``;
    ``length[k, j] = 0`` marks a free slot."""

    arcs: np.ndarray
    length: np.ndarray
    flow: np.ndarray


@njit(cache=True, nogil=True)
def _derivatives(cost, a, x):
    """(first, second) derivative of channel a's total cost at flow x."""
    w = cost.width[a]
    if not np.isfinite(w):
        return cost.lat[a], 0.0
    tau = cost.tau[0]
    x0 = cost.rho0[0] * w
    if x <= x0:
        r = w / (w - x)
        return cost.lat[a] + tau * (r * r - 1.0), 2.0 * tau * r * r / (w - x)
    r0 = w / (w - x0)
    h0 = 2.0 * tau * r0 * r0 / (w - x0)
    return cost.lat[a] + tau * (r0 * r0 - 1.0) + h0 * (x - x0), h0


@njit(cache=True, nogil=True)
def extended_value(cost, x):
    """The extended total cost sum_a c_a(x_a) (see :class:`ArcCost`)."""
    total = 0.0
    tau = cost.tau[0]
    for a in range(len(x)):
        w = cost.width[a]
        total += cost.lat[a] * x[a]
        if not np.isfinite(w):
            continue
        x0 = cost.rho0[0] * w
        if x[a] <= x0:
            total += tau * x[a] * x[a] / (w - x[a])
        else:
            d1, d2 = _derivatives(cost, a, x0)
            q0 = tau * x0 * x0 / (w - x0)
            dx = x[a] - x0
            total += q0 + (d1 - cost.lat[a]) * dx + 0.5 * d2 * dx * dx
    return total


@njit(cache=True, nogil=True)
def first_derivatives(cost, x, out):
    for a in range(len(x)):
        out[a] = _derivatives(cost, a, x[a])[0]


@njit(cache=True, nogil=True)
def _path_cost(cost, x, arcs, k, j, n_arcs):
    c = 0.0
    h = 0.0
    for i in range(n_arcs):
        a = arcs[k, j, i]
        d1, d2 = _derivatives(cost, a, x[a])
        c += d1
        h += d2
    return c, h


@njit(cache=True, nogil=True)
def projection_sweep(channels, groups, cost, x, paths, length, explore):
    """One Gauss-Seidel sweep of Bertsekas and Gafni's projected Newton
    method over the demands, group by group: a shortest path under the
    current first derivatives joins the demand's paths (when they fill every
    slot, the least used one hands its flow to the cheapest and makes room),
    and every other path
    of the demand moves ``min(flow, cost difference / second derivatives)``
    onto the cheapest one, ``x`` (the channels' flows) kept in step.
    ``length`` is scratch (one per channel). With ``explore`` false no
    path joins: the sweep only moves flow between the paths held. Returns how many shortest paths
    could not be kept (no free slot, or longer than a slot)."""
    n = len(channels.indptr) - 1
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    slots, max_len = paths.arcs.shape[1], paths.arcs.shape[2]
    trace = np.empty(n, dtype=np.int64)
    mark = np.zeros(len(x), dtype=np.int64)
    stamp = 0
    dropped = 0
    for g in range(len(groups.sources)):
        if explore:
            first_derivatives(cost, x, length)
            dijkstra(channels, length, groups.sources[g], dist, parent, order)
        for k in range(groups.ptr[g], groups.ptr[g + 1]):
            # the shortest path, traced from the demand's far end to the group's router
            v = groups.dst[k]
            m = 0
            while explore and parent[v] >= 0:
                a = parent[v]
                trace[m] = a
                m += 1
                v = channels.tails[a]
            found = -1
            free = -1
            for j in range(slots):
                lj = paths.length[k, j]
                if lj == 0:
                    if free < 0:
                        free = j
                    continue
                if lj == m:
                    same = True
                    for i in range(m):
                        if paths.arcs[k, j, i] != trace[i]:
                            same = False
                            break
                    if same:
                        found = j
            if not explore:
                found = 0
            if found < 0 and free < 0 and m <= max_len:
                # every slot taken: the least used path gives its flow to the cheapest and its slot to the new one
                low = 0
                for j in range(1, slots):
                    if paths.flow[k, j] < paths.flow[k, low]:
                        low = j
                cheap = -1
                cheap_c = np.inf
                for j in range(slots):
                    if j != low:
                        c = _path_cost(cost, x, paths.arcs, k, j, paths.length[k, j])[0]
                        if c < cheap_c:
                            cheap, cheap_c = j, c
                f = paths.flow[k, low]
                for i in range(paths.length[k, low]):
                    x[paths.arcs[k, low, i]] -= f
                for i in range(paths.length[k, cheap]):
                    x[paths.arcs[k, cheap, i]] += f
                paths.flow[k, cheap] += f
                paths.flow[k, low] = 0.0
                paths.length[k, low] = 0
                free = low
            if found < 0:
                if free >= 0 and m <= max_len:
                    for i in range(m):
                        paths.arcs[k, free, i] = trace[i]
                    paths.length[k, free] = m
                    paths.flow[k, free] = 0.0
                else:
                    dropped += 1
            # the cheapest of the demand's paths now
            best = -1
            best_c = np.inf
            best_h = 0.0
            for j in range(slots):
                if paths.length[k, j] > 0:
                    c, h = _path_cost(cost, x, paths.arcs, k, j, paths.length[k, j])
                    if c < best_c:
                        best, best_c, best_h = j, c, h
            for j in range(slots):
                lj = paths.length[k, j]
                if j == best or lj == 0:
                    continue
                f = paths.flow[k, j]
                if f > 0.0:
                    c, h = _path_cost(cost, x, paths.arcs, k, j, lj)
                    diff = c - best_c
                    if diff > 0.0:
                        # the second derivative along the move: channels on one path only (shared ones cancel)
                        stamp += 1
                        lb = paths.length[k, best]
                        for i in range(lb):
                            mark[paths.arcs[k, best, i]] = stamp
                        hh = 0.0
                        for i in range(lj):
                            a = paths.arcs[k, j, i]
                            if mark[a] == stamp:
                                mark[a] = -stamp
                            else:
                                hh += _derivatives(cost, a, x[a])[1]
                        for i in range(lb):
                            a = paths.arcs[k, best, i]
                            if mark[a] == stamp:
                                hh += _derivatives(cost, a, x[a])[1]
                        move = f if hh <= 0.0 else min(f, diff / hh)
                        for i in range(lj):
                            x[paths.arcs[k, j, i]] -= move
                        for i in range(lb):
                            x[paths.arcs[k, best, i]] += move
                        paths.flow[k, j] = f - move
                        paths.flow[k, best] += move
                        best_c, best_h = _path_cost(cost, x, paths.arcs, k, best, lb)
                if paths.flow[k, j] <= 0.0:
                    paths.length[k, j] = 0
                    paths.flow[k, j] = 0.0
    return dropped


@njit(cache=True, nogil=True)
def seed_paths(channels, groups, lat, paths, x):
    """Every demand on one latency-shortest path (its first slot); ``x`` the channels' flows."""
    n = len(channels.indptr) - 1
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    max_len = paths.arcs.shape[2]
    for a in range(len(x)):
        x[a] = 0.0
    for g in range(len(groups.sources)):
        dijkstra(channels, lat, groups.sources[g], dist, parent, order)
        for k in range(groups.ptr[g], groups.ptr[g + 1]):
            v = groups.dst[k]
            m = 0
            amount = groups.amount[k]
            while parent[v] >= 0:
                a = parent[v]
                if m < max_len:
                    paths.arcs[k, 0, m] = a
                m += 1
                x[a] += amount
                v = channels.tails[a]
            if m > max_len:
                return False
            paths.length[k, 0] = m
            paths.flow[k, 0] = amount
    return True


@njit(cache=True, nogil=True)
def arc_flows(paths, x):
    """The channels' flows ``x`` summed afresh from the paths' (no drift from the sweeps' updates)."""
    for a in range(len(x)):
        x[a] = 0.0
    K, slots = paths.length.shape
    for k in range(K):
        for j in range(slots):
            f = paths.flow[k, j]
            for i in range(paths.length[k, j]):
                x[paths.arcs[k, j, i]] += f


@njit(cache=True, nogil=True)
def shortest_path_arcs(channels, groups, cost, arcs, lengths):
    """Every demand's shortest path under ``cost``: its channels into
    ``arcs[k, :lengths[k]]`` (from the demand's far end to its group's
    router; a path longer than ``arcs.shape[1]`` gets length -1); returns the
    total cost ``sum_k d_k dist(k)``."""
    n = len(channels.indptr) - 1
    dist = np.empty(n)
    parent = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    width = arcs.shape[1]
    total = 0.0
    for g in range(len(groups.sources)):
        dijkstra(channels, cost, groups.sources[g], dist, parent, order)
        for k in range(groups.ptr[g], groups.ptr[g + 1]):
            v = groups.dst[k]
            total += groups.amount[k] * dist[v]
            m = 0
            while parent[v] >= 0:
                if m < width:
                    arcs[k, m] = parent[v]
                m += 1
                v = channels.tails[parent[v]]
            lengths[k] = m if m <= width else -1
    return total
