"""Errors raised for bad input.

Every error toposynth raises for something the user can fix derives from
:class:`ToposynthError`; the CLI prints its message on one line and exits
with status 2. Messages say what is wrong and how to fix it.
"""

from __future__ import annotations

__all__ = ["ToposynthError", "TopologyError", "SpecError", "GraphFileError", "OutputPathError"]


class ToposynthError(ValueError):
    """Base class of all errors caused by input the user can correct."""


class TopologyError(ToposynthError):
    """A topology, or an operation on one, is invalid."""


class SpecError(ToposynthError):
    """A topology spec string or family parameter is invalid."""


class GraphFileError(ToposynthError):
    """A graph file cannot be read as a graph."""


class OutputPathError(ToposynthError):
    """An output directory or file that cannot be written (a file where a
    directory is needed, a missing permission, ...)."""
