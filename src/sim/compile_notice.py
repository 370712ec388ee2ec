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

#: Cold compile time of a router model's kernel, seconds: the compile's time
#: (``common.compiletime.compile_seconds``) in one simulation of torus:4x4 in a fresh
#: process with an empty numba cache -- numba 0.68, an AMD EPYC core to itself (the
#: machine's other core busy; wall = CPU): the simple router 21.0 (preset tpds2010),
#: BookSim2's iq router 13.1 (preset booksim); since the simple router's ranges of routers
#: (one simulation on several threads) its compile took 27.8 s, and the iq router's, with its
#: kernel for several threads (``simulate`` uses both cores by default), 18.7 s (2026-12-06,
#: the machine otherwise idle). Under heavier load the compiles took 22.3 and 20.7 s of CPU before the
#: ranges. Arguments numba types apart (a read-only array where another run passes a
#: writable one) compile the kernel again, as long again
COMPILE_SECONDS = {"simple": 28.0, "iq": 18.0}

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
