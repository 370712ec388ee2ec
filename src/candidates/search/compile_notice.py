"""The notice before the search's numba kernels compile for the first time
(:func:`common.compiletime.announce`): from a restart, and from the parent
of the worker processes that run restarts (they do not speak)."""

from __future__ import annotations

from common import compiletime

__all__ = ["COMPILE_SECONDS", "announce"]

#: Cold compile time of the search's kernels, seconds: their compiles' time
#: (``common.compiletime.compile_seconds``) in a fresh process with an empty numba cache
#: searching 16 routers of degree 3 for 2000 moves -- numba 0.68, an AMD EPYC core to
#: itself (the machine's other core busy; wall = CPU): 28.6. Under heavier load 29.4 s of
#: CPU (fill 10.2, sample_deltas 12.7, anneal 5.1, evaluate 1.4)
COMPILE_SECONDS = 29.0


def announce() -> bool:
    """The notice if the search's kernels are cold (loads them: numba)."""
    if not compiletime.notices_enabled():
        return False
    from . import _kernels  # the kernels (numba): only when a notice may be due

    return compiletime.announce("the search's kernels", COMPILE_SECONDS,
                                [_kernels.fill, _kernels.sample_deltas, _kernels.anneal, _kernels.evaluate])
