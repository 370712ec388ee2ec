"""Private numba kernels: the simple router's entry points, for either switching mode.

The two kernels, :func:`run` (synthetic traffic) and :func:`run_trace` (a
trace-driven workload), are the loops of :mod:`sim.routers._core` once.
numba compiles each for the class of the run's ``buf`` (``_vct.Buf`` or
``_wormhole.Buf``, the same fields), and :func:`switching` gives the loops
that mode's part (:data:`sim.routers._core.Switching`) at compile time: the
compiled code is the one the mode would have written out, and a run
compiles (or loads from the cache) only its mode's code.
"""

from __future__ import annotations

import sys

from numba import njit, types
from numba.extending import overload

from common.jitcache import refresh_kernel_cache

from .. import _draw, errors, events
from .._jit import HELPER, KERNEL, KERNEL_PAR
from ..routing import _simple, registry
from . import _core, _vct, _wormhole
from ._core import run_synthetic

__all__ = ["run", "run_par", "run_trace", "switching"]

_MODES = (_vct, _wormhole)


def switching(buf):
    """The switching mode of a run's buffers (its part of the loops); kernels only."""
    raise TypeError("switching() runs inside the simulator's kernels only")


def _mode_of(buf):
    for mode in _MODES:
        if isinstance(buf, types.NamedTuple) and buf.instance_class is mode.Buf:
            return mode
    raise TypeError(f"no switching mode has buffers of type {buf}")


@overload(switching, jit_options=dict(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True))
def _switching_of(buf):
    part = _mode_of(buf).switching
    return lambda buf: part()


# inlined by LLVM as the helpers are (HELPER): a real call every cycle passing the structures cost about
# half a microsecond, 8% of an 8x8x8 torus at load 0.2 on one thread
@overload(_core.phase, jit_options=HELPER)
def _phase_of(q, now, in_window, net, buf, trf, ctl, out):
    part = _mode_of(buf).phase
    return lambda q, now, in_window, net, buf, trf, ctl, out: part(q, now, in_window, net, buf, trf, ctl, out)


@njit(**KERNEL)
def run(net, buf, trf, out, ctl, until):
    """Synthetic traffic (:func:`sim.routers._core.run_synthetic`)."""
    return run_synthetic(switching(buf), net, buf, trf, out, ctl, until)


@njit(**KERNEL_PAR)
def run_par(net, buf, trf, out, ctl, until):
    """:func:`run` with the ranges of routers on numba's threads (VCT): the same numbers."""
    return run_synthetic(switching(buf), net, buf, trf, out, ctl, until)


@njit(**KERNEL)
def run_trace(net, buf, trf, out, ctl, until):
    """A trace-driven workload (:func:`sim.routers._core.run_trace`)."""
    return _core.run_trace(switching(buf), net, buf, trf, out, ctl, until)


# numba checks only this file's source for freshness: the helpers and
# constants inlined from the modules named here count too
refresh_kernel_cache(sys.modules[__name__], (_core, _vct, _wormhole, _simple, registry, events, errors, _draw))
