"""The errors of topologies and their specs.

They derive from :class:`common.errors.ToposynthError` (one line and exit
status 2 on the command line).
"""

from __future__ import annotations

import operator

from common.errors import ToposynthError

__all__ = ["TopologyError", "SpecError", "GraphFileError", "check_family_int"]


class TopologyError(ToposynthError):
    """A topology, or an operation on one, is invalid.

    >>> from candidates import Topology
    >>> Topology(3, [[0, 5]])
    Traceback (most recent call last):
    ...
    candidates.errors.TopologyError: link endpoints must be router indices 0..2
    """


class SpecError(ToposynthError):
    """A topology spec string or family parameter is invalid.

    >>> from candidates import from_spec
    >>> from_spec("ring:2")
    Traceback (most recent call last):
    ...
    candidates.errors.SpecError: a ring needs at least 3 routers, got 2
    """


class GraphFileError(ToposynthError):
    """A graph file cannot be read as a graph.

    >>> from candidates import from_graph6
    >>> from_graph6("!!")
    Traceback (most recent call last):
    ...
    candidates.errors.GraphFileError: not a graph6 string: '!!' (...)
    """


def check_family_int(family: str, key: str, value, low: int, example: str) -> int:
    """A family parameter as an int >= ``low``, or a one-line :class:`SpecError` naming an example.

    >>> check_family_int("fattree", "k", 4, 2, "fattree:k=4")
    4
    """
    try:
        v = operator.index(value)
    except TypeError:
        raise SpecError(f"{family}: {key} must be an integer >= {low} (for example {example}), got {value!r}") from None
    if v < low:
        raise SpecError(f"{family}: {key} must be >= {low}, got {key}={v} (for example {example})")
    return int(v)
