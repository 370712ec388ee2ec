"""What every worker process toposynth starts does first (a study's loky or
dask workers, a parallel sweep's loky workers): leave Ctrl-C to the parent
and end when the parent is gone."""

from __future__ import annotations

import os
import signal
import threading
import time

from . import compiletime
from .size import check_memory

__all__ = ["init_worker", "watch_parent", "check_workers", "WORKER_BYTES"]

#: the memory of one worker process: the imports of an evaluation (numpy, scipy, numba, the flow
#: solvers; measured 110 MB) and room for its kernels and its task
WORKER_BYTES = 150e6


def check_workers(jobs: int, option: str = "--jobs") -> None:
    """Refuse (one line, :class:`common.size.SizeError`) more local worker processes than this machine's
    memory holds, before any is started: a pool of 10^8 processes would not fail, it would take the
    machine down."""
    if jobs > 1:
        cores = os.cpu_count() or 1
        check_memory(f"{option} {jobs:,} ({jobs:,} worker processes, about {WORKER_BYTES / 1e6:.0f} MB each)",
                     jobs * WORKER_BYTES, f"use fewer jobs (this machine has {cores} cores)")


def watch_parent(period: float = 1.0) -> threading.Thread:
    """Start a daemon thread that ends this process (``os._exit``) once its
    parent process is gone, checked every ``period`` seconds.

    A parent that dies, however it dies, leaves its children to be adopted
    (by init or a subreaper): ``os.getppid()`` then changes. Polling is used
    rather than ``prctl(PR_SET_PDEATHSIG)``, which fires when the *thread*
    that forked the worker ends -- loky forks replacement workers from a
    helper thread that may end long before the parent process does.
    """
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(period)
            if os.getppid() != parent:
                os._exit(1)

    t = threading.Thread(target=watch, name="toposynth-watch-parent", daemon=True)
    t.start()
    return t


def init_worker() -> None:
    """Initializer of a worker process."""
    # Ctrl-C in a terminal signals the whole process group: the parent
    # handles it (and keeps the finished results); a worker dying of it
    # would only lose the task it is running
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a notice before a first compile would come once per worker, and past the parent's --quiet: the
    # parent announces what its workers compile
    compiletime.set_notices(False)
    watch_parent()
