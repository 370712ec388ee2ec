"""The errors of topologies and their specs.

They derive from :class:`common.errors.ToposynthError` (one line and exit
status 2 on the command line).
"""

from __future__ import annotations

import operator

from common.errors import ToposynthError

__all__ = ["TopologyError", "SpecError", "GraphFileError", "check_family_int"]


class TopologyError(ToposynthError):
    """A topology, or an operation on one, is invalid."""


class SpecError(ToposynthError):
    """A topology spec string or family parameter is invalid."""


class GraphFileError(ToposynthError):
    """A graph file cannot be read as a graph."""


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
