"""Errors of the simulator.

:class:`SimError` derives from :class:`common.errors.ToposynthError`, so
the ``toposynth`` command line prints its message on one line and exits 2.
"""

from __future__ import annotations

from common.errors import ToposynthError

__all__ = ["SimError"]


class SimError(ToposynthError):
    """A simulation configuration, traffic pattern or routing is invalid.

    >>> from sim import SimConfig
    >>> SimConfig(vcs=0)
    Traceback (most recent call last):
    ...
    sim.errors.SimError: vcs must be a positive integer, got 0
    """
