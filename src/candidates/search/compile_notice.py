"""The notice before the search's numba kernels compile for the first time
(:func:`common.compiletime.announce`): from a restart, and from the parent
of the worker processes that run restarts (they do not speak)."""

from __future__ import annotations

from common import compiletime

__all__ = ["COMPILE_SECONDS", "announce"]

#: Cold compile time of the search's kernels, seconds: the CPU time of their compiles
#: (on one core the wall time of an idle machine) in a fresh process with an empty numba
#: cache running `toposynth search --routers 16 --degree 3 --moves 2000` -- numba 0.68, an
#: AMD EPYC core, the other core busy: 29.4 (fill 10.2, sample_deltas 12.7, anneal 5.1,
#: evaluate 1.4)
COMPILE_SECONDS = 30.0


def announce() -> bool:
    """The notice if the search's kernels are cold (loads them: numba)."""
    if not compiletime.notices_enabled():
        return False
    from . import _kernels  # the kernels (numba): only when a notice may be due

    return compiletime.announce("the search's kernels", COMPILE_SECONDS,
                                [_kernels.fill, _kernels.sample_deltas, _kernels.anneal, _kernels.evaluate])
