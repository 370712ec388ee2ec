"""How many threads one simulation may use here.

A router model that runs one simulation on several threads declares it
(:attr:`sim.routers.RouterModel.threads`); the others run on one. The
numbers never depend on the thread count.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numba
import numpy as np

from .errors import SimError

__all__ = ["check_threads", "max_threads", "usable_cores", "default_threads", "partitions", "THREADED_ROUTERS",
           "ThreadPlan"]


def max_threads() -> int:
    """The most threads numba runs here (``NUMBA_NUM_THREADS``: the cores unless set; numba's
    config module sets its names at import, where mypy does not see them)."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def check_threads(threads: int) -> int:
    """``threads`` if numba can run that many threads here, else a one-line error.

    >>> check_threads(1)
    1
    """
    top = max_threads()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= top:
        raise SimError(f"threads must be an integer from 1 to {top} (numba's threads on this machine), "
                       f"got {threads!r}")
    return int(threads)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one: a batch job's
    allocation, ``taskset``), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # macOS, Windows: no affinity call
        return os.cpu_count() or 1


def default_threads(workers: int = 1) -> int:
    """The threads of each simulation when ``workers`` simulations run at once here (a study's
    worker processes): the usable cores shared among them, at least one, at most numba's threads.

    >>> default_threads(10**6)
    1
    """
    return max(1, min(max_threads(), usable_cores() // max(1, int(workers))))


def partitions(n: int, threads: int) -> np.ndarray:
    """The first router of each of ``threads`` contiguous router ranges of
    (nearly) equal size, and ``n``: slabs along the slowest coordinate of a
    lattice. Never more ranges than routers.

    >>> partitions(64, 3).tolist()
    [0, 21, 42, 64]
    """
    P = max(1, min(threads, n))
    return np.array([(q * n) // P for q in range(P + 1)], dtype=np.int64)


#: the fewest routers for which a simulation whose thread count was not asked for gets several threads (a
#: study's default): every cycle ends with the threads waiting for each other, which costs about as much
#: as a small network's cycle of work. Measured on 2 cores (results book, "one simulation on several
#: threads"): two threads 0.7-0.9x at 64 routers, 1.0-1.7x at 512, 1.3-1.7x from 4,096 up (router iq) and
#: 1.4x at 8,192 (the simple router's VCT); on a machine whose cores are busy a small network's threaded
#: run is many times slower than one thread.
THREADED_ROUTERS = 4096


@dataclass(frozen=True)
class ThreadPlan:
    """The threads of each simulation of a batch: ``count``, or, ``by_size``, ``count`` for a network of
    at least :data:`THREADED_ROUTERS` routers and one for a smaller one (a study's default). The numbers
    do not depend on it.

    >>> ThreadPlan(2, by_size=True).threads(64), ThreadPlan(2, by_size=True).threads(65536), ThreadPlan(2).threads(64)
    (1, 2, 2)
    """

    count: int = 1
    by_size: bool = False

    def threads(self, routers: int) -> int:
        return self.count if not self.by_size or routers >= THREADED_ROUTERS else 1
