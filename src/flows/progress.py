"""Progress reports of the iterative solvers, throttled in time."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Reporter"]


class Reporter:
    """Calls ``progress`` with a round's figures at most every ``interval``
    seconds from ``t0`` (nothing for a run shorter than that)."""

    def __init__(self, progress: Callable[[dict], None] | None, interval: float, t0: float):
        self.progress, self.interval, self.t0, self.last = progress, float(interval), t0, t0

    def __call__(self, rounds: int, **values: float) -> None:
        if self.progress is None:
            return
        now = time.perf_counter()
        if now - self.last >= self.interval:
            self.last = now
            self.progress({"rounds": int(rounds), "seconds": now - self.t0, **values})
