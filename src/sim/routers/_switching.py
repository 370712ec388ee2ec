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
from .._jit import KERNEL
from ..routing import _simple, registry
from . import _core, _vct, _wormhole
from ._core import run_synthetic

__all__ = ["run", "run_trace", "switching"]

_MODES = (_vct, _wormhole)


def switching(buf):
    """The switching mode of a run's buffers (its part of the loops); kernels only."""
    raise TypeError("switching() runs inside the simulator's kernels only")


@overload(switching, jit_options=dict(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True))
def _switching_of(buf):
    for mode in _MODES:
        if isinstance(buf, types.NamedTuple) and buf.instance_class is mode.Buf:
            part = mode.switching
            return lambda buf: part()
    raise TypeError(f"no switching mode has buffers of type {buf}")


@njit(**KERNEL)
def run(net, buf, trf, out, ctl, until):
    """Synthetic traffic (:func:`sim.routers._core.run_synthetic`)."""
    return run_synthetic(switching(buf), net, buf, trf, out, ctl, until)


@njit(**KERNEL)
def run_trace(net, buf, trf, out, ctl, until):
    """A trace-driven workload (:func:`sim.routers._core.run_trace`)."""
    return _core.run_trace(switching(buf), net, buf, trf, out, ctl, until)


# numba checks only this file's source for freshness: the helpers and
# constants inlined from the modules named here count too
refresh_kernel_cache(sys.modules[__name__], (_core, _vct, _wormhole, _simple, registry, events, errors, _draw))
