"""The notice before a flow solver's numba kernels compile for the first
time (:func:`common.compiletime.announce`), from :func:`flows.solve` and,
for worker processes that do not speak, from the study that starts them.

The LP and the symmetry solver run in HiGHS and compile nothing worth a
notice (PDLP's bound re-pricing compiles one shortest-path kernel, about
1 s).
"""

from __future__ import annotations

import importlib

from common import compiletime

__all__ = ["COMPILE_SECONDS", "prepare"]

#: Cold compile time of each solver's kernels, seconds: the compiles' time
#: (``common.compiletime.compile_seconds``) in a fresh process with an empty numba cache
#: solving torus:4x4 with 64 random demands at eps 0.05 -- numba 0.68, an AMD EPYC core
#: to itself (the machine's other core busy; wall = CPU): ptas 5.5, colgen 6.1 (capacity),
#: deviation 7.2. Under heavier load the same compiles took 6.9, 7.1 and 8.5 s of CPU
COMPILE_SECONDS = {"ptas": 6.0, "colgen": 6.0, "deviation": 7.0}

#: the kernels whose cache says whether a solver is cold: its main loop's, and the shortest
#: paths every one of them shares (module, name)
_KERNELS = {
    "ptas": (("flows._ptas_kernels", "gk_fleischer"), ("flows._paths", "dijkstra")),
    "colgen": (("flows._colgen_kernels", "price_round"), ("flows._pool_kernels", "potential_sweeps")),
    "deviation": (("flows._deviation_kernels", "projection_sweep"), ("flows._deviation_kernels", "all_or_nothing")),
    "pdlp": (("flows._paths", "dijkstra"),),     # timed, too short for a notice
}

_LABELS = {"ptas": "the PTAS's kernels", "colgen": "column generation's kernels",
           "deviation": "flow deviation's kernels"}


def prepare(solver: str) -> bool:
    """Before ``solver`` (a registry name) runs: its compiles timed from now
    on, and the notice if its kernels are cold (a solver without kernels
    says nothing and loads no numba). Returns whether it printed."""
    if solver not in _KERNELS:
        return False
    compiletime.clock()
    if solver not in _LABELS or not compiletime.notices_enabled():
        return False
    kernels = [getattr(importlib.import_module(m), name) for m, name in _KERNELS[solver]]
    return compiletime.announce(_LABELS[solver], COMPILE_SECONDS[solver], kernels)
