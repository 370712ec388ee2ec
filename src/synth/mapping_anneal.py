"""Simulated-annealing task placement ('topology-synthesis-mcf-bgl', Section V.B).

Before feeding an application's communication pattern to the design flow,
that paper places its tasks by simulated annealing on the *estimated
latency*: the sum over messages of volume x hop distance, ignoring
congestion. :func:`anneal` does this for any topology (terminals =
concentration: a router runs up to ``terminals[r]`` tasks).

Cost: ``sum_k amount_k * dist(router[src_k], router[dst_k])`` over the task
demands (hop distances by BFS, or a given symmetric distance matrix, e.g.
latencies). Intra-router messages cost 0.

Moves: pick a task ``u`` uniformly; pick the target terminal slot either
uniformly over all slots or — with probability ``local_share`` (default
1/2) — near one of ``u``'s communication partners (a partner uniformly, then
its router or one of that router's neighbours, then one of its slots); move
``u`` there, swapping with the slot's task if it has one. The directed
moves matter on lattices: with uniform moves only, a scrambled 16 x 8 torus
application on RTT(8) anneals to 227 hop-units in 4 M moves, with them to 197
(the identity mapping gives 176).

Schedule (all of it seeded by ``seed``):

- ``t_start`` (default): the mean cost increase of 200 random moves from the
  start divided by ``ln 2``, so a typical uphill move is accepted with
  probability 1/2 at first;
- ``stages`` (default 100) geometric temperature steps from ``t_start`` to
  ``t_start * t_end_ratio`` (default 1e-3), ``steps / stages`` moves each
  (``steps`` defaults to ``max(100000, 10000 * tasks)``: about 0.15 s for
  128 tasks);
- the best placement ever seen is returned, so the result is never worse
  than the start (identity — task ``t`` on terminal slot ``t``, router by
  router — unless ``start`` names a mapping or a placement).

The random numbers are drawn with numpy's ``default_rng(seed)`` and handed to
a numba kernel, so the same seed gives the same placement on any machine.

>>> import candidates as cd
>>> from flows import Demands
>>> ring = Demands([0, 1, 2, 3], [2, 3, 1, 0], [1.0, 1.0, 1.0, 1.0])   # ring 0-2-1-3-0 of tasks
>>> r = anneal(ring, cd.ring(4), seed=1)
>>> r.start_cost, r.cost   # identity puts 0-2 and 1-3 two hops apart; SA finds the ring
(6.0, 4.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from candidates.topology import Topology
from flows.problem import Demands

from .mapping_core import GridMap, MappingError, TaskPlacement, place
from .mapping_kernels import anneal_stage, move_delta

__all__ = ["AnnealResult", "anneal", "placement_cost", "hop_distances"]


@dataclass(frozen=True, eq=False)
class AnnealResult:
    """The annealed placement, its estimated-latency cost and the run's numbers."""

    placement: TaskPlacement
    cost: float
    start_cost: float
    seed: int
    steps: int
    stages: int
    accepted: int
    t_start: float
    t_end: float

    @property
    def improvement(self) -> float:
        """Relative cost reduction from the start (0 when the start was optimal)."""
        return 0.0 if self.start_cost == 0 else 1.0 - self.cost / self.start_cost

    def to_dict(self) -> dict[str, Any]:
        return {"cost": self.cost, "start_cost": self.start_cost, "improvement": self.improvement,
                "seed": self.seed, "steps": self.steps, "stages": self.stages, "accepted": self.accepted,
                "t_start": self.t_start, "t_end": self.t_end, "placement": self.placement.to_dict()}


def hop_distances(topo: Topology) -> np.ndarray:
    """All-pairs hop distances (float, ``inf`` when unreachable).

    >>> import candidates as cd
    >>> hop_distances(cd.ring(5))[0].tolist()
    [0.0, 1.0, 2.0, 2.0, 1.0]
    """
    A = sp.csr_matrix((np.ones(topo.num_arcs), (topo.arc_src, topo.arc_dst)), shape=(topo.n, topo.n))
    return shortest_path(A, unweighted=True, directed=True)


def _as_demands(traffic: Any, num_tasks: int | None) -> tuple[Demands, int]:
    if isinstance(traffic, Demands):
        d = traffic
        T = int(max(d.src.max(initial=-1), d.dst.max(initial=-1)) + 1)
        if num_tasks is not None:
            if num_tasks < T:
                raise MappingError(f"demands name task {T - 1} but num_tasks is {num_tasks}")
            T = int(num_tasks)
        return d, T
    M = np.asarray(traffic, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise MappingError(f"task traffic must be flows.Demands or a square (tasks x tasks) matrix, got shape {M.shape}")
    if np.any(~np.isfinite(M)) or np.any(M < 0):
        raise MappingError("task traffic entries must be finite and non-negative")
    s, t = np.nonzero(M)
    return Demands(s, t, M[s, t]), int(M.shape[0]) if num_tasks is None else int(num_tasks)


def _weights(d: Demands, T: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = d.src != d.dst
    W = sp.coo_matrix((d.amount[keep], (d.src[keep], d.dst[keep])), shape=(T, T)).tocsr()
    W = (W + W.T).tocsr()
    W.sum_duplicates()
    W.sort_indices()
    return W.indptr.astype(np.int64), W.indices.astype(np.int64), W.data.astype(np.float64)


def placement_cost(traffic: Any, placement: TaskPlacement, topo: Topology, *,
                   distance: np.ndarray | None = None) -> float:
    """Estimated latency of a placement: sum of demand x distance between the tasks' routers.

    >>> import candidates as cd
    >>> from synth.mapping import placement_from_routers
    >>> placement_cost(np.ones((4, 4)), placement_from_routers([0, 1, 2, 3], cd.ring(4)), cd.ring(4))   # 12 pairs, 16 hops
    16.0
    """
    d, T = _as_demands(traffic, placement.num_tasks)
    if T != placement.num_tasks:
        raise MappingError(f"traffic over {T} tasks, placement of {placement.num_tasks}")
    dist = hop_distances(topo) if distance is None else np.asarray(distance, dtype=np.float64)
    return float((d.amount * dist[placement.router[d.src], placement.router[d.dst]]).sum())


def anneal(traffic: Any, topo: Topology, *, seed: int = 0, start: "str | GridMap | TaskPlacement | None" = None,
           steps: int | None = None, stages: int = 100, t_start: float | None = None, t_end_ratio: float = 1e-3,
           distance: np.ndarray | None = None, num_tasks: int | None = None,
           local_share: float = 0.5) -> AnnealResult:
    """Place tasks on ``topo`` by simulated annealing on the estimated latency.

    ``traffic`` is :class:`flows.Demands` over tasks or a (tasks x tasks)
    matrix; the topology needs at least as many terminals as tasks. See the
    module docstring for the moves and the schedule.

    >>> import candidates as cd
    >>> from synth.mapping import local_traffic
    >>> r = anneal(local_traffic((4, 4)), cd.rtt(2).with_concentration(2), seed=3)
    >>> r.cost <= r.start_cost, r.placement.num_tasks
    (True, 16)
    """
    d, T = _as_demands(traffic, num_tasks)
    S = topo.num_terminals
    if T < 1:
        raise MappingError("there are no tasks to place")
    if T > S:
        raise MappingError(f"{T} tasks do not fit on {S} terminals of {topo.spec or topo.family}; "
                           "raise the concentration (':c=...') or use a larger topology")
    if stages < 1:
        raise MappingError(f"stages must be >= 1, got {stages}")
    if not 0 < t_end_ratio <= 1:
        raise MappingError(f"t_end_ratio must be in (0, 1], got {t_end_ratio}")
    if distance is None:
        dist = hop_distances(topo)
    else:
        dist = np.asarray(distance, dtype=np.float64)
        if dist.shape != (topo.n, topo.n):
            raise MappingError(f"distance must be a ({topo.n}, {topo.n}) matrix, got {dist.shape}")
        if not np.allclose(dist, dist.T):
            raise MappingError("distance must be symmetric (the annealer adds both directions of a pair)")
    if np.any(~np.isfinite(dist)):
        raise MappingError(f"{topo.spec or topo.family} is disconnected: some routers cannot reach each other")
    dist = np.ascontiguousarray(dist)
    slot_router = np.repeat(np.arange(topo.n, dtype=np.int64), topo.terminals)
    off = np.concatenate([[0], np.cumsum(topo.terminals)])
    if start is None:
        task_slot = np.arange(T, dtype=np.int64)
        start_name = "identity"
        start_shape = None
    else:
        pl = start if isinstance(start, TaskPlacement) else place(start, topo)
        if pl.num_tasks != T or pl.n_routers != topo.n or not np.array_equal(pl.terminals, topo.terminals):
            raise MappingError(f"the start placement has {pl.num_tasks} tasks on {pl.n_routers} routers; "
                               f"the traffic has {T} tasks and the topology {topo.n} routers with its terminals")
        task_slot = (off[pl.router] + pl.terminal).astype(np.int64)
        start_name = pl.mapping or "custom"
        start_shape = pl.task_shape
    slot_task = np.full(S, -1, dtype=np.int64)
    slot_task[task_slot] = np.arange(T)
    indptr, nbr, wt = _weights(d, T)
    steps = max(100_000, 10_000 * T) if steps is None else int(steps)
    if steps < 0:
        raise MappingError(f"steps must be >= 0, got {steps}")

    def exact_cost(ts: np.ndarray) -> float:
        r = slot_router[ts]
        keep = d.src != d.dst
        return float((d.amount[keep] * dist[r[d.src[keep]], r[d.dst[keep]]]).sum())

    start_cost = exact_cost(task_slot)
    start_slots = task_slot.copy()
    rng = np.random.default_rng(seed)
    if t_start is None:
        k = 200
        us = rng.integers(0, T, size=k)
        bs = rng.integers(0, S, size=k)
        deltas = np.array([abs(move_delta(indptr, nbr, wt, dist, slot_router, slot_task, task_slot, int(u), int(b)))
                           for u, b in zip(us, bs) if task_slot[u] != b])
        deltas = deltas[deltas > 0]
        t0 = float(deltas.mean() / math.log(2)) if len(deltas) else 1.0
    else:
        t0 = float(t_start)
        if t0 <= 0:
            raise MappingError(f"t_start must be positive, got {t_start}")
    t_end = t0 * t_end_ratio
    best = task_slot.copy()
    cost = best_cost = start_cost
    r_indptr = np.asarray(topo.indptr, dtype=np.int64)
    r_indices = np.asarray(topo.indices, dtype=np.int64)
    r_nslot = np.asarray(topo.terminals, dtype=np.int64)
    if not 0.0 <= local_share <= 1.0:
        raise MappingError(f"local_share must be in [0, 1], got {local_share}")
    if np.any(r_nslot == 0):
        local_share = 0.0  # a router without terminals cannot take a task: plain moves only
    accepted = 0
    per = [steps // stages + (1 if i < steps % stages else 0) for i in range(stages)]
    for i, k in enumerate(per):
        if k == 0:
            continue
        temp = t0 * (t_end_ratio ** (i / (stages - 1))) if stages > 1 else t0
        pu = rng.integers(0, T, size=k)
        pb = rng.integers(0, S, size=k)
        mode = rng.random(size=k)
        uu = rng.random(size=(k, 4))
        cost, best_cost, acc = anneal_stage(indptr, nbr, wt, dist, slot_router, slot_task, task_slot, best,
                                            r_indptr, r_indices, off[:-1].astype(np.int64), r_nslot,
                                            float(local_share), pu, pb, mode, uu, temp, cost, best_cost)
        accepted += int(acc)
    final = exact_cost(best)
    if final > start_cost:  # rounding drift only: keep the start
        best, final = start_slots, start_cost
    router = slot_router[best]
    placement = TaskPlacement(router, best - off[router], topo.terminals, f"anneal(seed={seed}, start={start_name})",
                              topo.spec, start_shape)
    return AnnealResult(placement, final, start_cost, int(seed), int(steps), int(stages), accepted, t0, t_end)
