"""Confidence intervals of a run's mean latency from batch means.

Consecutive packets' latencies are correlated, so the spread of single
packets understates the uncertainty of their mean. Both router models
split the measurement into batches (sample periods) and take the mean
latency of each; the batch means are close to independent when the
batches are long, and Student's t over them gives the interval.

>>> round(ci95([30.0, 32.0, 31.0, 33.0]), 3)
2.054
>>> ci95([30.0]) is None
True
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

# scipy.special, not scipy.stats: stats.t.ppf is special.stdtrit (bit-identical, checked for
# 1..2000 degrees of freedom), and scipy.stats costs every process that simulates 0.84 s of import
# (-X importtime) against 0.38 s -- paid again by each worker of a parallel sweep
from scipy import special

__all__ = ["ci95"]


def ci95(batch_means: Sequence[float]) -> float | None:
    """Half-width of the 95% confidence interval of the mean of
    ``batch_means`` (None with fewer than two batches)."""
    b = np.asarray(batch_means, dtype=np.float64)
    if len(b) < 2:
        return None
    return float(special.stdtrit(len(b) - 1, 0.975) * b.std(ddof=1) / math.sqrt(len(b)))
