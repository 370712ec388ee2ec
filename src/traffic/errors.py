"""The error of a traffic pattern (one line, exit status 2 on the command line)."""

from __future__ import annotations

from common.errors import ToposynthError

__all__ = ["TrafficError"]


class TrafficError(ToposynthError):
    """A traffic pattern, its options, or the topology it is asked of is invalid.

    >>> import candidates as cd, traffic
    >>> traffic.traffic("tornado").destinations(cd.complete_graph(4))    # tornado shifts coordinates
    Traceback (most recent call last):
    ...
    traffic.errors.TrafficError: tornado traffic needs a lattice topology with coordinates;
    Topology('complete:4', routers=4, pes=4, links=6) has none
    """
