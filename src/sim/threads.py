"""How many threads one simulation may use here.

A router model that runs one simulation on several threads declares it
(:attr:`sim.routers.RouterModel.threads`); the others run on one. The
numbers never depend on the thread count.
"""

from __future__ import annotations

import numba
import numpy as np

from .errors import SimError

__all__ = ["check_threads", "max_threads"]


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
