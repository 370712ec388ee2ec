"""What every worker process toposynth starts does first (a study's loky or
dask workers, a parallel sweep's loky workers): leave Ctrl-C to the parent
and end when the parent is gone."""

from __future__ import annotations

import os
import signal
import threading
import time

from . import compiletime

__all__ = ["init_worker", "watch_parent"]


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
