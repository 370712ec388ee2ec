"""A traffic pattern compiled for one topology: what the simulator's kernels draw destinations from.

Terminals (processing elements) are numbered router by router: the terminals of router ``u`` are
``terminal_offsets(t)[u] .. terminal_offsets(t)[u + 1] - 1``; with one terminal per router,
terminal ``i`` is router ``i``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from candidates import Topology

__all__ = ["Destinations", "terminal_offsets", "terminal_router", "DEST_UNIFORM", "DEST_PERM", "DEST_TABLE",
           "DEST_HOT"]

#: how a :class:`Destinations` draws: uniform, a permutation, a table (cumulative rows), a hot region
DEST_UNIFORM, DEST_PERM, DEST_TABLE, DEST_HOT = 0, 1, 2, 3


def terminal_offsets(topo: Topology) -> np.ndarray:
    """CSR offsets of the terminals of every router, (n + 1,).

    A 2-ary 2-tree: two leaf switches with 2 PEs each, two switches above without any.

    >>> from candidates import from_spec
    >>> t = from_spec("ktree:k=2:n=2")
    >>> t.terminals.tolist(), terminal_offsets(t).tolist()
    ([2, 2, 0, 0], [0, 2, 4, 4, 4])
    """
    off = np.zeros(topo.n + 1, dtype=np.int64)
    np.cumsum(topo.terminals, out=off[1:])
    return off


def terminal_router(topo: Topology) -> np.ndarray:
    """The router of every terminal, (T,).

    >>> from candidates import from_spec
    >>> terminal_router(from_spec("ring:4:c=2")).tolist()
    [0, 0, 1, 1, 2, 2, 3, 3]
    """
    return np.repeat(np.arange(topo.n, dtype=np.int64), topo.terminals)


@dataclass(frozen=True, eq=False)
class Destinations:
    """A pattern compiled for one topology (what the kernel consumes).

    ``mode`` is one of uniform / permutation / table / hot region;
    ``perm[s]`` the destination of ``s`` (-1: sends nothing) for
    permutations; ``cdf[s]`` the cumulative destination distribution of
    ``s`` for tables; ``hot_count``/``hot_prob`` for the hot region,
    whose terminals ``perm[:hot_count]`` lists;
    ``weight[s]`` the relative injection rate of terminal ``s``
    (mean 1 over the terminals).

    Tornado compiled for a ring of 8 (:meth:`traffic.TrafficPattern.destinations`):
    a permutation, every terminal sending at the same rate.

    >>> import candidates as cd, traffic
    >>> d = traffic.traffic("tornado").destinations(cd.ring(8))
    >>> d.mode == DEST_PERM, d.perm.tolist(), d.weight.tolist()
    (True, [3, 4, 5, 6, 7, 0, 1, 2], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    >>> d.matrix()[0].tolist()
    [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    """

    mode: int
    perm: np.ndarray
    cdf: np.ndarray
    hot_count: int
    hot_prob: float
    weight: np.ndarray

    def matrix(self) -> np.ndarray:
        """Terminal-level destination probabilities times weights, (T, T)."""
        T = len(self.weight)
        if self.mode == DEST_UNIFORM:
            M = np.full((T, T), 1.0 / max(T - 1, 1))
            np.fill_diagonal(M, 0.0)
        elif self.mode == DEST_PERM:
            M = np.zeros((T, T))
            ok = self.perm >= 0
            M[np.flatnonzero(ok), self.perm[ok]] = 1.0
        elif self.mode == DEST_TABLE:
            M = np.diff(np.concatenate([np.zeros((T, 1)), self.cdf], axis=1), axis=1)
            tot = M.sum(axis=1, keepdims=True)
            M = np.divide(M, tot, out=np.zeros_like(M), where=tot > 0)
        else:
            U = np.full((T, T), 1.0 / max(T - 1, 1))
            np.fill_diagonal(U, 0.0)
            H = np.zeros((T, T))
            h = self.hot_count
            hot = self.perm[:h]
            is_hot = np.zeros(T, dtype=bool)
            is_hot[hot] = True
            for s in range(T):
                inside = is_hot[s] and h > 1
                H[s, hot] = 1.0 / (h - 1 if inside else h)
                if inside:
                    H[s, s] = 0.0
            M = self.hot_prob * H + (1.0 - self.hot_prob) * U
        return M * self.weight[:, None]
