"""The demands grouped by source, and the channels by tail: what every
shortest-path based solver (the PTAS, column generation, the latency's
tree and split, the LP's price check) walks, as the named structures the
numba kernels take (:class:`Channels`, :class:`DemandGroups`).

>>> import candidates as cd
>>> from flows.problem import Demands, FlowProblem
>>> g = grouped(FlowProblem.from_topology(cd.ring(4), Demands.uniform(4)))
>>> g.groups.sources.tolist(), g.groups.ptr.tolist(), len(g.channels.heads)
([0, 1, 2, 3], [0, 3, 6, 9, 12], 8)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .problem import FlowProblem

__all__ = ["Channels", "DemandGroups", "Grouped", "grouped"]


class Channels(NamedTuple):
    """Channels by tail (CSR: out-channels of v at ``indptr[v]:indptr[v+1]``;
    ``heads`` and ``arcs`` -- the problem's channel numbers -- in that
    order; ``tails`` by channel). Every array int64."""

    indptr: np.ndarray
    heads: np.ndarray
    arcs: np.ndarray
    tails: np.ndarray


class DemandGroups(NamedTuple):
    """The demands by group: group g holds ``ptr[g]:ptr[g+1]`` of ``dst``
    (int64) and ``amount`` (float64); ``sources[g]`` is its router."""

    ptr: np.ndarray
    sources: np.ndarray
    dst: np.ndarray
    amount: np.ndarray


class Grouped(NamedTuple):
    """The problem's :class:`Channels` and :class:`DemandGroups`. When fewer
    routers receive than send, the groups are by destination and the
    channels reversed (``tails`` are then the channels' heads): a tree from
    a destination serves its group."""

    channels: Channels
    groups: DemandGroups


def grouped(problem: FlowProblem) -> Grouped:
    """The problem's channels and demands as :class:`Grouped`."""
    dem = problem.demands
    reverse = len(np.unique(dem.dst)) < len(np.unique(dem.src))
    if reverse:
        tail, head, gsrc, gdst = problem.arc_dst, problem.arc_src, dem.dst, dem.src
    else:
        tail, head, gsrc, gdst = problem.arc_src, problem.arc_dst, dem.src, dem.dst
    n = problem.n
    order = np.lexsort((np.arange(len(tail)), tail))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(tail, minlength=n), out=indptr[1:])
    heads = head[order].astype(np.int64)
    arcs = order.astype(np.int64)
    o = np.argsort(gsrc, kind="stable")
    srcs, counts = np.unique(gsrc[o], return_counts=True)
    grp_ptr = np.zeros(len(srcs) + 1, dtype=np.int64)
    np.cumsum(counts, out=grp_ptr[1:])
    return Grouped(Channels(indptr, heads, arcs, np.asarray(tail, dtype=np.int64)),
                   DemandGroups(grp_ptr, srcs.astype(np.int64), np.asarray(gdst[o], dtype=np.int64),
                                np.asarray(dem.amount[o], dtype=np.float64)))
