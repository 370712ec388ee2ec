"""The notice before the simulator's numba kernels compile for the first
time (:func:`common.compiletime.announce`): from a router model's run, and
from a study (:func:`prepare`) for the worker processes it starts, which do
not speak.

This module imports no numba until asked: :func:`prepare` loads the
router's kernel module, which a simulation is about to load anyway.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from common import compiletime

__all__ = ["COMPILE_SECONDS", "announce", "prepare"]

#: Cold compile time of a router model's kernel, seconds: the CPU time of the compile
#: (``common.compiletime.compile_cpu_seconds``, on one core the wall time of an idle
#: machine) of one simulation in a fresh process with an empty numba cache -- numba 0.68,
#: an AMD EPYC core, the other core busy: the simple router 22.3 (torus:4x4, preset
#: tpds2010) and 22.9 (hypercube:5), BookSim2's iq router 20.7 (torus:4x4, preset booksim).
#: Arguments numba types apart (a read-only array where another run passes a writable
#: one) compile the kernel again, as long again
COMPILE_SECONDS = {"simple": 23.0, "iq": 21.0}

_LABELS = {"simple": "the simulator", "iq": "the simulator's iq router"}


def announce(router: str, kernels: Iterable[Any]) -> bool:
    """The notice for ``router`` (``SimConfig.router``) if its ``kernels`` are cold."""
    return compiletime.announce(_LABELS[router], COMPILE_SECONDS[router], kernels)


def prepare(router: str) -> bool:
    """The notice for ``router`` before its simulations run elsewhere (worker
    processes sharing this machine's numba cache); loads its kernels."""
    if not compiletime.notices_enabled():
        return False
    if router == "iq":
        from .routers import _iq  # the kernels (numba): only when a notice may be due

        return announce(router, [_iq.run])
    from .routers import _switching  # the kernels (numba): only when a notice may be due

    return announce(router, [_switching.run])
