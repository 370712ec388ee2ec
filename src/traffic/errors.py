"""The error of a traffic pattern (one line, exit status 2 on the command line)."""

from __future__ import annotations

from common.errors import ToposynthError

__all__ = ["TrafficError"]


class TrafficError(ToposynthError):
    """A traffic pattern, its options, or the topology it is asked of is invalid."""
