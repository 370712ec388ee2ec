"""The notice before the analytics' numba kernels (distances, loads, bisection) compile for the first time
(:func:`common.compiletime.announce`), from :func:`candidates.analytics.measures.describe`."""

from __future__ import annotations

from common import compiletime

__all__ = ["COMPILE_SECONDS", "announce"]

#: Cold compile time of describe's kernels, seconds: their compiles' time
#: (``common.compiletime.compile_seconds``) in a fresh process with an empty numba cache describing torus:4x4
#: -- numba 0.68, an AMD EPYC, both cores shared with two other jobs: 4.5 s wall, 4.1 s CPU
COMPILE_SECONDS = 4.0


def announce() -> bool:
    """The notice if describe's kernels are cold (loads them: numba)."""
    if not compiletime.notices_enabled():
        return False
    from . import _kernels  # the kernels (numba): only when a notice may be due

    return compiletime.announce("the analytics' kernels", COMPILE_SECONDS,
                                [_kernels.bfs_distances, _kernels.distance_histogram, _kernels.ecmp_all])
